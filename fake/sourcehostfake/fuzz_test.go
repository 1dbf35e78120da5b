package sourcehostfake_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
)

// FuzzRequests throws arbitrary parameters and bodies at every route: the
// fake must never panic or answer 500, and its JSON answers must be JSON.
func FuzzRequests(f *testing.F) {
	routes := []string{
		"GET /api/v4/projects", "POST /api/v4/projects", "GET /api/v4/projects/1", "GET /api/v4/projects/1/issues",
		"POST /api/v4/projects/1/issues", "PUT /api/v4/projects/1/issues/1", "POST /api/v4/projects/1/merge_requests",
		"PUT /api/v4/projects/1/merge_requests/1/merge", "POST /api/v4/projects/1/hooks", "POST /api/v4/projects/1/pipeline",
		"GET /api/v4/projects/1/repository/tree", "POST /api/v4/projects/1/repository/files/a%2Fb.txt",
		"POST /api/v4/projects/1/repository/branches", "GET /api/v4/issues", "GET /api/v4/projects/1/pipelines",
	}
	for i := range routes {
		f.Add(uint8(i), "page=2&per_page=x", "application/json", `{"title":"t","labels":["a",1],"assignee_ids":"1,x"}`)
		f.Add(uint8(i), "state=bogus", "application/x-www-form-urlencoded", "name=&path=%zz&visibility=public")
		f.Add(uint8(i), "", "multipart/form-data; boundary=x", "--x\r\n")
	}
	f.Fuzz(func(t *testing.T, route uint8, query, contentType, body string) {
		srv := sourcehostfake.New(sourcehostfake.WithRateLimit(0, 0))
		id, err := srv.AddProject(sourcehostfake.ProjectSeed{Name: "p"})
		if err != nil || id != 1 {
			t.Fatal(id, err)
		}
		srv.PushFile(id, "main", sourcehostfake.CIFile, "x", "")
		method, path, _ := strings.Cut(routes[int(route)%len(routes)], " ")
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.URL.RawQuery = query
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("PRIVATE-TOKEN", srv.Token())
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %s?%s %q: %d %s", method, path, query, body, rec.Code, rec.Body)
		}
		if strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") && rec.Body.Len() > 0 && !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("invalid JSON answer %q", rec.Body)
		}
		if rec.Code == http.StatusBadRequest && !strings.Contains(rec.Body.String(), `"`) {
			t.Fatalf("400 without a message: %q", rec.Body)
		}
	})
}
