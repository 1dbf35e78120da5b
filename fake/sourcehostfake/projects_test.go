package sourcehostfake_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/internal/fakekit"
)

// serve sends one request to a fake's handler as root.
func serve(srv *sourcehostfake.Server, method, target, contentType, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	req.Header.Set("PRIVATE-TOKEN", srv.Token())
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	return rec
}

// probe is the harness's check that a normal request is still answered
// (within fakekit.ProbeWithin) and nothing panicked.
func probe(t *testing.T, srv *sourcehostfake.Server) {
	t.Helper()
	fakekit.CheckAfter(t, &fakekit.FuzzTarget{Handler: srv, Requests: srv.Requests, ProbeStatus: http.StatusOK,
		Probe: func() *http.Request {
			r := httptest.NewRequest("GET", "/api/v4/projects", nil)
			r.Header.Set("PRIVATE-TOKEN", srv.Token())
			return r
		}})
}

// Finding 1 of issue 14: (page-1)*per_page overflowed, the handler panicked
// holding the state lock, and every request after it waited forever.
func TestHugePageIsAnsweredAndReleasesTheLock(t *testing.T) {
	t.Parallel()
	srv, err := sourcehostfake.New()
	if err != nil {
		t.Fatal(err)
	}
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Visibility: "public", Files: map[string]string{"README.md": "#"}})
	if _, err := srv.AddIssue(id, sourcehostfake.IssueSeed{Title: "one"}); err != nil {
		t.Fatal(err)
	}
	// The projects list refuses the offset as the real service does.
	rec := serve(srv, "GET", "/api/v4/projects?page=9223372036854775807", "", "")
	want := `{"message":"Offset pagination has a maximum allowed offset of 50000 for requests that return objects of type Project. Remaining records can be retrieved using keyset pagination."}`
	if rec.Code != 405 || rec.Body.String() != want {
		t.Fatalf("huge page of projects: %d %s", rec.Code, rec.Body)
	}
	probe(t, srv)
	// Other lists answer an empty page, with headers that do not overflow.
	for _, target := range []string{
		fmt.Sprintf("/api/v4/projects/%d/issues?page=9223372036854775807&per_page=100", id),
		"/api/v4/issues?scope=all&page=9223372036854775807",
		fmt.Sprintf("/api/v4/projects/%d/repository/tree?page=9223372036854775807", id),
	} {
		rec := serve(srv, "GET", target, "", "")
		if rec.Code != 200 || rec.Body.String() != "[]" || rec.Header().Get("X-Page") != "9223372036854775807" ||
			rec.Header().Get("X-Next-Page") != "" || rec.Header().Get("X-Prev-Page") != "1" || rec.Header().Get("X-Total") != "1" {
			t.Errorf("%s: %d %s %v", target, rec.Code, rec.Body, rec.Header())
		}
		if link := rec.Header().Get("Link"); !strings.Contains(link, `page=1&per_page=`) || strings.Contains(link, "-") {
			t.Errorf("%s: Link %s", target, link)
		}
	}
	probe(t, srv)
}

// The offset limit is page × per_page > 50,000, as the real service counts
// it: page 2500 of 20 passes, page 2501 does not.
func TestProjectOffsetLimit(t *testing.T) {
	t.Parallel()
	srv, err := sourcehostfake.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		query string
		want  int
	}{
		{"page=2500&per_page=20", 200},
		{"page=2501&per_page=20", 405},
		{"page=500&per_page=100", 200},
		{"page=501&per_page=100", 405},
		{"page=501&per_page=1000", 405}, // per_page is capped at 100 first
		{"page=50000&per_page=1", 200},
		{"page=50001&per_page=1", 405},
	} {
		if rec := serve(srv, "GET", "/api/v4/projects?"+tc.query, "", ""); rec.Code != tc.want {
			t.Errorf("%s: %d %s", tc.query, rec.Code, rec.Body)
		}
	}
	if rec := serve(srv, "GET", "/api/v4/issues?scope=all&page=50001&per_page=100", "", ""); rec.Code != 200 {
		t.Errorf("the limit is for projects: %d", rec.Code)
	}
}

// Every integer read from a query, a body or a path is range-checked: one
// that does not fit in 64 bits is 400 "<name> is invalid" (404 in a path).
func TestNumbersThatDoNotFit(t *testing.T) {
	t.Parallel()
	srv, err := sourcehostfake.New()
	if err != nil {
		t.Fatal(err)
	}
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Visibility: "public"})
	if _, err := srv.AddIssue(id, sourcehostfake.IssueSeed{Title: "one"}); err != nil {
		t.Fatal(err)
	}
	huge := "9223372036854775808"
	long := strings.Repeat("9", 1_500_000)
	issues := fmt.Sprintf("/api/v4/projects/%d/issues", id)
	for _, tc := range []struct {
		method, target, ct, body string
		status                   int
		want                     string
	}{
		{"GET", "/api/v4/projects?page=" + huge, "", "", 400, `{"error":"page is invalid"}`},
		{"GET", "/api/v4/projects?per_page=" + huge, "", "", 400, `{"error":"per_page is invalid"}`},
		{"GET", "/api/v4/projects?per_page=" + long, "", "", 400, `{"error":"per_page is invalid"}`},
		{"GET", "/api/v4/projects?page=-" + huge + "0", "", "", 400, `{"error":"page is invalid"}`},
		{"GET", issues + "?author_id=" + huge, "", "", 400, `{"error":"author_id is invalid"}`},
		{"GET", issues + "?assignee_id=" + huge, "", "", 400, `{"error":"assignee_id is invalid"}`},
		{"POST", issues, "application/json", `{"title":"t","assignee_ids":[1,` + huge + `]}`, 400, `{"error":"assignee_ids is invalid"}`},
		{"POST", issues, "application/json", `{"title":"t","assignee_id":` + long + `}`, 400, `{"error":"assignee_id is invalid"}`},
		{"POST", issues, "application/json", `{"title":"t","assignee_ids":"1,2.5"}`, 400, `{"error":"assignee_ids is invalid"}`},
		{"POST", "/api/v4/projects", "application/json", `{"name":"n","namespace_id":1e400}`, 400, `{"error":"namespace_id is invalid"}`},
		{"GET", "/api/v4/projects/" + huge, "", "", 404, `{"message":"404 Project Not Found"}`},
		{"GET", fmt.Sprintf("/api/v4/projects/%d/issues/%s", id, huge), "", "", 404, `{"message":"404 Issue Not Found"}`},
		{"GET", fmt.Sprintf("/api/v4/projects/%d/merge_requests/-1", id), "", "", 404, `{"message":"404 Merge Request Not Found"}`},
		{"GET", fmt.Sprintf("/api/v4/projects/%d/hooks/%s", id, long[:100]), "", "", 404, `{"message":"404 Hook Not Found"}`},
		{"GET", fmt.Sprintf("/api/v4/projects/%d/pipelines/%s", id, huge), "", "", 404, `{"message":"404 Not found"}`},
	} {
		rec := serve(srv, tc.method, tc.target, tc.ct, tc.body)
		if rec.Code != tc.status || rec.Body.String() != tc.want {
			t.Errorf("%s %.80s %.80s: %d %s", tc.method, tc.target, tc.body, rec.Code, rec.Body)
		}
	}
	probe(t, srv)
}
