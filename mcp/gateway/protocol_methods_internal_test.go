package gateway

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
)

// Every name in protocolMethods is one the MCP handler serves (it may
// refuse the params, not the method); a name it does not serve would be
// refused whole, which is what the list is there to prevent.
func TestProtocolMethodsAreServed(t *testing.T) {
	t.Parallel()
	up := sourcehostfake.Start(t)
	gw, err := New(Config{Upstream: up.URL()})
	if err != nil {
		t.Fatal(err)
	}
	for m := range protocolMethods {
		body := `{"jsonrpc":"2.0","method":"` + m + `","params":{},"id":1}`
		if strings.HasPrefix(m, "notifications/") {
			body = `{"jsonrpc":"2.0","method":"` + m + `","params":{}}`
		}
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+up.Token())
		rec := httptest.NewRecorder()
		gw.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK && rec.Code != http.StatusAccepted || strings.Contains(rec.Body.String(), "not handled") || strings.Contains(rec.Body.String(), `"code":-32601`) {
			t.Errorf("%s: %d %s; the MCP handler does not serve it", m, rec.Code, rec.Body)
		}
	}
}
