package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apitwin/apitwin/mcp"
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

// A method of the Model Context Protocol is served alone and in a batch
// alike: in a batch that also holds the gateway's own methods (answered on
// the JSON-RPC side) each protocol call is run by the protocol's handler,
// and answered by its id with what it would have answered alone. (Such a
// call was -32601 there.)
func TestProtocolMethodInABatchIsServedAsAlone(t *testing.T) {
	t.Parallel()
	srv, pid := seeded(t)
	const accept = "application/json, text/event-stream"
	calls := []string{
		`{"jsonrpc":"2.0","method":"ping","id":"p"}`,
		fmt.Sprintf(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"get_project","arguments":{"project_id":%d}},"id":"t"}`, pid),
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"get_project","arguments":{"project_id":"x"}},"id":"e"}`,
		`{"jsonrpc":"2.0","method":"resources/read","params":{"uri":"nowhere:"},"id":"r"}`,
	}
	alone := map[string]json.RawMessage{}
	for _, c := range calls {
		status, _, body := post(t, srv, c, "Accept", accept)
		var a map[string]json.RawMessage
		if err := json.Unmarshal([]byte(body), &a); status != http.StatusOK || err != nil {
			t.Fatalf("%s alone: %d %s", c, status, body)
		}
		alone[string(a["id"])] = a["result"]
		if a["result"] == nil {
			alone[string(a["id"])] = a["error"]
		}
	}
	batch := "[" + strings.Join(calls, ",") + `,{"jsonrpc":"2.0","method":"list_projects","id":"l"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`
	status, _, body := post(t, srv, batch, "Accept", accept)
	var answers []map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &answers); status != http.StatusOK || err != nil || len(answers) != len(calls)+1 {
		t.Fatalf("batch: %d %s; want 200 and %d answers", status, body, len(calls)+1)
	}
	for _, a := range answers {
		id := string(a["id"])
		got := a["result"]
		if got == nil {
			got = a["error"]
		}
		if id == `"l"` {
			if a["result"] == nil {
				t.Errorf("list_projects in the batch: %s", got)
			}
			continue
		}
		if want, ok := alone[id]; !ok || !jsonEqual(t, got, want) {
			t.Errorf("call %s in the batch answered %s\nalone it answered  %s", id, got, want)
		}
	}
	// Without the Accept header the protocol asks for, each protocol call
	// of the batch is refused by its id as a lone one is (-32600), and the
	// gateway's methods still run.
	_, _, body = post(t, srv, `[{"jsonrpc":"2.0","method":"ping","id":1},{"jsonrpc":"2.0","method":"list_projects","id":2}]`)
	if !strings.HasPrefix(body, `[{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"status":400,"message":"Accept must contain`) ||
		!strings.Contains(body, `"id":1},{"jsonrpc":"2.0","result":`) {
		t.Errorf("without Accept: %s", body)
	}
	// An event stream cannot be one answer of a batch: refused by its id.
	_, _, body = post(t, srv, `[{"jsonrpc":"2.0","method":"subscriptions/listen","params":{"notifications":{}},"id":1},{"jsonrpc":"2.0","method":"list_projects","id":2}]`,
		"Accept", accept)
	if !strings.HasPrefix(body, `[{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"status":400,"message":"subscriptions/listen opens a stream`) {
		t.Errorf("subscriptions/listen in a batch: %s", body)
	}
}

func jsonEqual(t *testing.T, a, b json.RawMessage) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return cmp.Equal(x, y)
}

// The package's own client reaches the protocol's methods too: Call sends
// the Accept header the protocol asks for (it got -32600, Accept must
// contain both 'application/json' and 'text/event-stream'), and a method
// that exists nowhere is ErrMethodNotFound, alone or in a batch.
func TestClientCallsProtocolMethods(t *testing.T) {
	t.Parallel()
	srv, _ := seeded(t)
	c := srv.Client()
	ctx := context.Background()
	var tools struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := c.Call(ctx, "tools/list", nil, &tools); err != nil || len(tools.Tools) != len(seedTools)+len(addedTools) {
		t.Errorf("tools/list: %v, %d tools", err, len(tools.Tools))
	}
	if err := c.Call(ctx, "foo/get", nil, nil); !errors.Is(err, mcp.ErrMethodNotFound) {
		t.Errorf("foo/get: %v, want ErrMethodNotFound", err)
	}
	b := c.NewBatch()
	ping, unknown, list := b.Call("ping", nil), b.Call("foo/get", nil), b.Call("list_projects", nil)
	if err := b.Send(ctx); err != nil {
		t.Fatal(err)
	}
	if err := ping.Err(); err != nil || string(ping.Result()) != "{}" {
		t.Errorf("ping in a batch: %v %s", err, ping.Result())
	}
	if err := unknown.Err(); !errors.Is(err, mcp.ErrMethodNotFound) {
		t.Errorf("foo/get in a batch: %v", err)
	}
	if err := list.Err(); err != nil {
		t.Errorf("list_projects in a batch: %v", err)
	}
}
