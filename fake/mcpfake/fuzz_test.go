package mcpfake_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/fake/mcpfake"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/internal/fakekit"
)

// FuzzFrontDoor sends scripts of arbitrary requests to the gateway fake,
// in memory: no handler may panic, every refusal of the endpoint must be a
// JSON-RPC error object, a tool call must still work after each script,
// and the gateway must call the upstream only with tokens its callers gave.
func FuzzFrontDoor(f *testing.F) {
	post := func(body string) string {
		return "POST /mcp\nContent-Type: application/json\n\n" + body
	}
	seeds := []string{
		post(`{"jsonrpc":"2.0","id":1,"method":"list_projects","params":{"per_page":100}}`),
		post(`{"jsonrpc":"2.0","id":1,"method":"create_issue","params":{"project_id":1,"title":"t","labels":["a"]}}`),
		post(`[{"jsonrpc":"2.0","id":1,"method":"get_project","params":{"project_id":1}},{"jsonrpc":"2.0","method":"ping"}]`),
		post(`[` + strings.Repeat(`1,`, 1000) + `1]`),
		post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}`),
		post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_issues","arguments":{"project_id":"x"}}}`),
		post(`{"jsonrpc":"2.0","id":1,"method":"list_issues","params":{"project_id":1,"page":9223372036854775807}}`),
		post(`{`),
		"GET /mcp",
		"POST /mcp\nContent-Type: text/plain\n\n{}",
		"POST /mcp\nAuthorization: Bearer nonsense\nContent-Type: application/json\n\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"list_projects\"}",
	}
	fakekit.FuzzHTTP(f, seeds, func(t *testing.T) *fakekit.FuzzTarget {
		srv, err := mcpfake.New()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(srv.Close)
		up := srv.Upstream()
		if _, err := up.AddProject(sourcehostfake.ProjectSeed{Name: "shop"}); err != nil {
			t.Fatal(err)
		}
		return &fakekit.FuzzTarget{
			Handler:  srv,
			Header:   http.Header{"Authorization": {"Bearer " + srv.Token()}},
			Requests: srv.Requests,
			ErrorShape: func(status int, h http.Header, body []byte) error {
				if status == http.StatusNotFound && !strings.HasPrefix(h.Get("Content-Type"), "application/json") {
					return nil // a path other than /mcp: the server's plain 404
				}
				var msg struct {
					JSONRPC string          `json:"jsonrpc"`
					ID      json.RawMessage `json:"id"`
					Error   *struct {
						Code    int    `json:"code"`
						Message string `json:"message"`
					} `json:"error"`
				}
				if err := json.Unmarshal(body, &msg); err != nil {
					return err
				}
				if msg.JSONRPC != "2.0" || msg.Error == nil || msg.Error.Message == "" || string(msg.ID) != "null" {
					return errors.New("not a JSON-RPC error with id null")
				}
				return nil
			},
			Probe: func() *http.Request {
				r := httptest.NewRequest("POST", "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"get_project","params":{"project_id":1}}`))
				r.Header.Set("Authorization", "Bearer "+srv.Token())
				r.Header.Set("Content-Type", "application/json")
				return r
			},
			ProbeStatus: http.StatusOK,
			Check: func() error {
				// The request logs keep no token: the upstream's caller
				// says whose token the gateway used, and root's is the
				// only valid one the callers have (a made-up one is
				// refused upstream, with no caller).
				for _, r := range up.Requests() {
					if r.Caller != "" && r.Caller != sourcehostfake.RootUsername {
						return fmt.Errorf("the gateway called %s upstream as %s, whose token no caller gave it", r.Path, r.Caller)
					}
				}
				if up.Project(1) == nil {
					return errors.New("the project is gone")
				}
				return nil
			},
		}
	})
}
