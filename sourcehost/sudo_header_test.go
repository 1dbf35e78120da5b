package sourcehost_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/apitwin/apitwin/sourcehost"
)

// Every request of a client acting as another user carries the Sudo
// header, whichever method sends it: the variable calls sent theirs
// without it while the header was added call site by call site.
func TestEverySudoRequestCarriesTheHeader(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	seen := map[string]string{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.Method+" "+r.URL.Path] = r.Header.Get("Sudo")
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/api/v4/projects" {
			_, _ = w.Write([]byte("[]"))
			return
		}
		_, _ = w.Write([]byte("{}"))
	}))
	t.Cleanup(srv.Close)
	c, err := sourcehost.New(srv.URL, sourcehost.WithToken("admin-token"), sourcehost.WithSudo("alice"), sourcehost.WithoutRetries())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	p := sourcehost.ProjectID(7)
	_, _ = c.CreateVariable(ctx, p, &sourcehost.CreateVariableRequest{Key: "K", Value: "value-1234"})
	_, _ = c.ListProjects(ctx, nil)
	_, _ = c.AddProjectHook(ctx, p, &sourcehost.AddProjectHookRequest{URL: "https://hooks.example/in"})
	_ = c.Do(ctx, http.MethodGet, "/version", nil, nil, nil)
	for _, call := range []string{"POST /api/v4/projects/7/variables", "GET /api/v4/projects", "POST /api/v4/projects/7/hooks", "GET /api/v4/version"} {
		if got, ok := seen[call]; !ok || got != "alice" {
			t.Errorf("%s: Sudo %q (sent: %v)", call, got, ok)
		}
	}
}
