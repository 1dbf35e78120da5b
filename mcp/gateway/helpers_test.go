package gateway_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/fake/mcpfake"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
)

// seeded starts a gateway over a fake with one project ("shop", id
// returned) holding a README and two issues.
func seeded(t testing.TB, opts ...mcpfake.Option) (*mcpfake.Server, int64) {
	t.Helper()
	srv := mcpfake.Start(t, opts...)
	up := srv.Upstream()
	id, err := up.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Visibility: "private", Description: "the shop"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := up.PushFile(id, "main", "README.md", "# shop\n", "Add README"); err != nil {
		t.Fatal(err)
	}
	c := up.Client()
	for _, title := range []string{"Checkout fails", "Slow search"} {
		if _, err := c.CreateIssue(context.Background(), projectRef(id), issueRequest(title)); err != nil {
			t.Fatal(err)
		}
	}
	return srv, id
}

// post sends body to the gateway as root, with extra headers as name/value
// pairs, and returns the status, headers and body of the answer.
func post(t testing.TB, srv *mcpfake.Server, body string, headers ...string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, srv.URL()+"/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+srv.Token())
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i+1] == "" {
			req.Header.Del(headers[i])
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(b)
}
