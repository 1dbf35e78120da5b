package mcp_test

import (
	"net/http"
	"testing"
)

// A method with a slash that neither the gateway nor the Model Context
// Protocol serves does not exist: -32601 with the request's id, as
// JSON-RPC 2.0 says, whether it comes alone, alone in a batch or in a
// batch beside the gateway's methods, and with or without the Accept
// header MCP clients send. (Alone it went to the MCP handler, which refused
// the whole body as -32600 with id null and HTTP 400.)
func TestUnknownNamespacedMethodIsMethodNotFound(t *testing.T) {
	t.Parallel()
	srv, _ := seeded(t)
	const notFound = `{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":5}`
	for _, tc := range []struct{ name, body, want string }{
		{"alone", `{"jsonrpc":"2.0","method":"foo/get","id":5}`, notFound},
		{"alone, an MCP-like name", `{"jsonrpc":"2.0","method":"tools/delete","params":{},"id":5}`, notFound},
		{"alone in a batch", `[{"jsonrpc":"2.0","method":"foo/get","id":5}]`, "[" + notFound + "]"},
		{"beside an MCP method", `[{"jsonrpc":"2.0","method":"foo/get","id":5},{"jsonrpc":"2.0","method":"ping","id":6}]`, ""},
	} {
		for _, accept := range []string{"", "application/json, text/event-stream"} {
			t.Run(tc.name+"/Accept "+accept, func(t *testing.T) {
				t.Parallel()
				status, _, body := post(t, srv, tc.body, "Accept", accept)
				if status != http.StatusOK {
					t.Fatalf("%d %s; want 200", status, body)
				}
				if tc.want != "" && body != tc.want {
					t.Errorf("answered %s\nwant     %s", body, tc.want)
				}
			})
		}
	}
	// With a gateway method beside it, as before.
	status, _, body := post(t, srv, `[{"jsonrpc":"2.0","method":"foo/get","id":5},{"jsonrpc":"2.0","method":"list_projects","id":6}]`)
	if status != http.StatusOK || len(body) < len(notFound)+1 || body[:len(notFound)+1] != "["+notFound {
		t.Errorf("beside list_projects: %d %s", status, body)
	}
	// A notification of such a method is not answered.
	if status, _, body := post(t, srv, `{"jsonrpc":"2.0","method":"foo/changed"}`); status != http.StatusNoContent || body != "" {
		t.Errorf("notification: %d %q; want 204", status, body)
	}
}
