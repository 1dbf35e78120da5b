package sourcehostfake_test

import (
	"bytes"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apitwin/apitwin/internal/testtools"
)

// TestListAnswersAreUnchanged pins, byte for byte, the bodies and headers
// of the list fixture's answers (the lists issue 18 reworked, and the
// single records and other lists that share their rendering, the last few
// after changes made here, in order) to those written in testdata/golden
// before the rework. Rewrite them, after
// checking the change is meant, with
//
//	go test ./fake/sourcehostfake -run TestListAnswersAreUnchanged -args -update-golden
func TestListAnswersAreUnchanged(t *testing.T) {
	t.Parallel()
	srv, endpoints := listFixture(t)
	const p = "/api/v4/projects/1"
	more := []listEndpoint{
		{"projects_page1", "/api/v4/projects"},
		{"projects_statistics", "/api/v4/projects?statistics=true&per_page=5&order_by=name&sort=asc"},
		{"projects_group", "/api/v4/projects?search=p001"},
		{"projects_user", "/api/v4/projects?search=p002"},
		{"projects_keyset", "/api/v4/projects?pagination=keyset&order_by=id&per_page=3&id_after=10"},
		{"projects_odd_query", "/api/v4/projects?z=1&pagination=offset&a%5B%5D=%C3%A9+%26&per_page=3&page=4&a%5B%5D=2&owned=false&%3C=%3E"},
		{"projects_anonymous", "-/api/v4/projects?per_page=7&page=3"},
		{"project", p},
		{"project_statistics", p + "?statistics=true"},
		{"issues_page1", p + "/issues?per_page=50"},
		{"issues_all", "/api/v4/issues?scope=all&per_page=30&order_by=updated_at&sort=asc"},
		{"issue", p + "/issues/4"},
		{"milestone_issues", p + "/milestones/1/issues"},
		{"merge_requests_page1", p + "/merge_requests?per_page=50"},
		{"merge_request", p + "/merge_requests/4"},
		{"milestone_merge_requests", p + "/milestones/2/merge_requests"},
		{"pipelines_page1", p + "/pipelines?per_page=50"},
		{"pipelines_sorted", p + "/pipelines?order_by=status&sort=asc&per_page=15"},
		{"pipeline", p + "/pipelines/200"},
		{"notes_page1", p + "/issues/2/notes?per_page=50&sort=asc"},
		{"user", "/api/v4/user"},
		{"pipelines_filtered", p + "/pipelines?status=failed&ref=main&per_page=5&page=2"},
		{"merge_requests_filtered", p + "/merge_requests?state=opened&labels=feature&per_page=5"},
		{"notes_updated", p + "/issues/2/notes?order_by=updated_at&per_page=5&page=40"},
		{"pipelines_ascending", p + "/pipelines?sort=asc&per_page=7&page=3"},
		{"jobs", p + "/pipelines/200/jobs"},
		{"members_all", p + "/members/all"},
		{"group_project_members", "/api/v4/projects/3/members/all"},
		{"tag", "POST " + p + "/repository/tags?tag_name=v1.0&ref=main"},
		{"release", "POST " + p + "/releases?tag_name=v1.0&milestones=v1,v2&description=%3Cb%3E"},
		{"releases", p + "/releases"},
		{"issue_created", "POST " + p + "/issues?title=New%20%3Cissue%3E&labels=x&assignee_ids=2&milestone_id=1"},
	}
	for _, ep := range append(endpoints, more...) {
		var req *http.Request
		if target, anonymous := strings.CutPrefix(ep.target, "-"); anonymous {
			req = httptest.NewRequest(http.MethodGet, target, nil)
		} else if target, post := strings.CutPrefix(ep.target, "POST "); post {
			req = listRequest(srv, target)
			req.Method = http.MethodPost
		} else {
			req = listRequest(srv, target)
		}
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		var got bytes.Buffer
		fmt.Fprintf(&got, "%d\n", rec.Code)
		for _, k := range slices.Sorted(maps.Keys(rec.Header())) {
			for _, v := range rec.Header()[k] {
				fmt.Fprintf(&got, "%s: %s\n", k, v)
			}
		}
		got.WriteString("\n")
		got.Write(rec.Body.Bytes())
		file := filepath.Join("testdata", "golden", ep.name+".txt")
		testtools.Golden(t, file, got.Bytes())
	}
}

// TestConcurrentListsKeepTheirOwnAnswers asks for the fixture's lists
// from many goroutines at once: the buffers answers are written into are
// reused between requests, and no answer may show another's bytes.
func TestConcurrentListsKeepTheirOwnAnswers(t *testing.T) {
	t.Parallel()
	srv, endpoints := listFixture(t)
	want := make([][]byte, len(endpoints))
	for i, ep := range endpoints {
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, listRequest(srv, ep.target))
		want[i] = rec.Body.Bytes()
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8*len(endpoints))
	for g := range 8 {
		wg.Go(func() {
			for n := range 20 {
				i := (g + n) % len(endpoints)
				rec := httptest.NewRecorder()
				srv.ServeHTTP(rec, listRequest(srv, endpoints[i].target))
				if !bytes.Equal(rec.Body.Bytes(), want[i]) {
					errs <- endpoints[i].name
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for name := range errs {
		t.Errorf("%s: an answer differs from the same request's answer alone", name)
	}
}
