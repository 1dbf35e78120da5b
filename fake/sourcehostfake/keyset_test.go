package sourcehostfake_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/internal/testtools"
)

// TestKeysetEdgesAreUnchanged pins the answers of every keyset
// pagination (projects by id_after and id_before, jobs and users and
// groups (anonymous: "-") by cursor, the tree by page_token) at their edges: an empty, a
// bad and an unknown position, the last page, and a position past the
// end; status, Link and X-Per-Page, and the body's first bytes.
func TestKeysetEdgesAreUnchanged(t *testing.T) {
	t.Parallel()
	srv, _ := listFixture(t)
	const p = "/api/v4/projects/1"
	var got bytes.Buffer
	for _, target := range []string{
		"/api/v4/projects?pagination=keyset&order_by=id&sort=asc&per_page=2&id_after=",
		"/api/v4/projects?pagination=keyset&order_by=id&sort=asc&per_page=2&id_after=x",
		"/api/v4/projects?pagination=keyset&order_by=id&sort=asc&per_page=2&id_after=198",
		"/api/v4/projects?pagination=keyset&order_by=id&sort=asc&per_page=2&id_after=500",
		"-/api/v4/groups?pagination=keyset&per_page=1&cursor=bad",
		"-/api/v4/groups?pagination=keyset&per_page=1&cursor=",
		"/api/v4/projects?pagination=keyset&order_by=id&per_page=2&id_after=",
		"/api/v4/projects?pagination=keyset&order_by=id&per_page=2&id_after=x",
		"/api/v4/projects?pagination=keyset&order_by=id&per_page=2&id_after=199",
		"/api/v4/projects?pagination=keyset&order_by=id&per_page=2&id_after=500",
		"/api/v4/projects?pagination=keyset&order_by=id&sort=desc&per_page=2",
		"/api/v4/projects?pagination=keyset&order_by=id&sort=desc&per_page=2&id_before=",
		"/api/v4/projects?pagination=keyset&order_by=id&sort=desc&per_page=2&id_before=3&id_after=9",
		"/api/v4/projects?pagination=keyset&order_by=id&sort=desc&per_page=2&id_before=1",
		p + "/jobs?pagination=keyset&per_page=2&cursor=",
		p + "/jobs?pagination=keyset&per_page=2&cursor=bad",
		p + "/jobs?pagination=keyset&per_page=2&cursor=eyJpZCI6IjIiLCJfa2QiOiJuIn0=",
		p + "/jobs?pagination=keyset&per_page=2&cursor=eyJpZCI6IjEiLCJfa2QiOiJuIn0",
		"/api/v4/users?pagination=keyset&order_by=name&sort=asc&per_page=1&cursor=",
		"/api/v4/users?pagination=keyset&order_by=name&sort=asc&per_page=1&cursor=eyJpZCI6IjEiLCJfa2QiOiJuIn0=",
		"/api/v4/users?pagination=keyset&order_by=username&sort=desc&per_page=2",
		"/api/v4/groups?pagination=keyset&per_page=1&cursor=",
		"/api/v4/groups?pagination=keyset&per_page=1&cursor=bad",
		p + "/repository/tree?pagination=keyset&per_page=1",
		p + "/repository/tree?pagination=keyset&per_page=1&page_token=",
		p + "/repository/tree?pagination=keyset&per_page=1&page_token=nope",
	} {
		var req *http.Request
		if anon, ok := strings.CutPrefix(target, "-"); ok {
			req = httptest.NewRequest(http.MethodGet, anon, nil)
		} else {
			req = listRequest(srv, target)
		}
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		fmt.Fprintf(&got, "%s\n%d %q %q\n%.160s\n\n", target, rec.Code, rec.Header().Get("Link"), rec.Header().Get("X-Per-Page"), rec.Body)
	}
	testtools.Golden(t, filepath.Join("testdata", "golden", "keyset_edges.txt"), got.Bytes())
}
