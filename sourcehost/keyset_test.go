package sourcehost_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/apicall"
	"github.com/apitwin/apitwin/sourcehost"
)

// Keyset pagination: the iterator and FollowNext walk the Link headers,
// in id order, with no page numbers; an order keyset cannot follow is the
// server's 405, as GitLab's pagination strategies answer it.
func TestKeysetPagination(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	seedProjects(t, srv, 120)
	keyset := sourcehost.ListOptions{Pagination: sourcehost.Keyset, PerPage: 50}

	var ids []int64
	for p, err := range tg.c.AllProjects(t.Context(), &sourcehost.ListProjectsOptions{ListOptions: keyset, Sort: "asc"}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, p.ID)
	}
	if len(ids) != 120 {
		t.Fatalf("%d projects", len(ids))
	}
	for i := 1; i < len(ids); i++ {
		if ids[i] <= ids[i-1] {
			t.Fatalf("out of order at %d: %v", i, ids[i-1:i+1])
		}
	}
	reqs := srv.RequestsTo("GET /api/v4/projects")
	if n := len(reqs); n != 3 {
		t.Errorf("%d requests, want 3 pages", n)
	}
	for _, r := range reqs {
		if r.Query.Get("pagination") != "keyset" || r.Query.Get("page") != "" {
			t.Errorf("request %s", r)
		}
	}

	// One page at a time, descending, each page with its rate limit.
	var res apicall.Info
	page, err := tg.c.ListProjects(apicall.Capture(t.Context(), &res), &sourcehost.ListProjectsOptions{ListOptions: keyset})
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for page != nil {
		seen += len(page.Items)
		if page.RateLimit.Limit == 0 || page.Page != 0 {
			t.Errorf("page info %+v", page.PageInfo)
		}
		if page, err = sourcehost.FollowNext(t.Context(), tg.c, page); err != nil {
			t.Fatal(err)
		}
	}
	if seen != 120 || res.StatusCode != http.StatusOK {
		t.Errorf("%d projects by FollowNext, first answer %d", seen, res.StatusCode)
	}

	_, err = tg.c.ListProjects(t.Context(), &sourcehost.ListProjectsOptions{ListOptions: keyset, OrderBy: "name"})
	if status, msg := statusOf(err); status != http.StatusMethodNotAllowed || msg != "Keyset pagination is not yet available for this type of request" {
		t.Errorf("keyset by name: %d %q", status, msg)
	}
}

// FollowNext sends the token only where the client was pointed.
func TestFollowNextStaysOnTheServer(t *testing.T) {
	t.Parallel()
	c, err := sourcehost.New("https://git.example.com", sourcehost.WithToken("tok-123"))
	if err != nil {
		t.Fatal(err)
	}
	for _, link := range []string{"https://evil.example.com/api/v4/projects?page=2", "http://git.example.com/api/v4/projects", "https://git.example.com/other/projects"} {
		page := &sourcehost.Page[sourcehost.Project]{PageInfo: sourcehost.PageInfo{NextLink: link}}
		if _, err := sourcehost.FollowNext(t.Context(), c, page); err == nil || !strings.Contains(err.Error(), "leaves the API") {
			t.Errorf("%s: %v", link, err)
		}
	}
}
