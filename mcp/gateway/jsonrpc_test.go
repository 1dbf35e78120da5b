package gateway_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/apitwin/apitwin/sourcehost"
)

func projectRef(id int64) sourcehost.ProjectRef { return sourcehost.ProjectID(id) }

func issueRequest(title string) *sourcehost.CreateIssueRequest {
	return &sourcehost.CreateIssueRequest{Title: title}
}

// The examples of section 7 of the JSON-RPC 2.0 specification, with our
// methods in place of subtract, sum, update and get_data. Where the
// specification fixes the answer (every error), the bytes must match; where
// the answer is a method's result, its shape is checked.
func TestSpecificationExamples(t *testing.T) {
	t.Parallel()
	srv, pid := seeded(t)
	get := fmt.Sprintf(`{"jsonrpc": "2.0", "method": "get_project", "params": {"project_id": %d}, "id": %%s}`, pid)

	exact := []struct {
		name, body, want string
	}{
		{"non-existent method",
			`{"jsonrpc": "2.0", "method": "foobar", "id": "1"}`,
			`{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":"1"}`},
		{"invalid JSON",
			`{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]`,
			`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}`},
		{"invalid Request object",
			`{"jsonrpc": "2.0", "method": 1, "params": "bar"}`,
			`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}`},
		{"batch, invalid JSON",
			`[
  {"jsonrpc": "2.0", "method": "list_projects", "params": {"page": 1}, "id": "1"},
  {"jsonrpc": "2.0", "method"
]`,
			`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}`},
		{"empty array",
			`[]`,
			`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}`},
		{"invalid batch, not empty",
			`[1]`,
			`[{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}]`},
		{"invalid batch",
			`[1,2,3]`,
			`[{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null},` +
				`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null},` +
				`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}]`},
		{"positional params",
			`{"jsonrpc": "2.0", "method": "get_project", "params": [42], "id": 1}`,
			`{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":{"param":"params","reason":"must be an object: params are taken by name, not by position"}},"id":1}`},
		{"jsonrpc member spelt in another case",
			`{"JSONRPC": "2.0", "method": "list_projects", "id": 7}`,
			`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":7}`},
	}
	for _, tc := range exact {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			status, hdr, body := post(t, srv, tc.body)
			if status != http.StatusOK || hdr.Get("Content-Type") != "application/json" {
				t.Errorf("status %d, Content-Type %q; want 200 application/json", status, hdr.Get("Content-Type"))
			}
			if body != tc.want {
				t.Errorf("answer\n got %s\nwant %s", body, tc.want)
			}
		})
	}

	t.Run("call with named params", func(t *testing.T) {
		t.Parallel()
		_, _, body := post(t, srv, fmt.Sprintf(get, "3"))
		var got struct {
			JSONRPC string `json:"jsonrpc"`
			Result  struct {
				ID   int64  `json:"id"`
				Name string `json:"name"`
			} `json:"result"`
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal([]byte(body), &got); err != nil {
			t.Fatal(err)
		}
		if got.JSONRPC != "2.0" || got.Result.ID != pid || got.Result.Name != "shop" || string(got.ID) != "3" {
			t.Errorf("answer %s", body)
		}
		if !strings.HasPrefix(body, `{"jsonrpc":"2.0","result":{`) || !strings.HasSuffix(body, `},"id":3}`) || strings.Contains(body, `"error"`) {
			t.Errorf("answer is not {jsonrpc, result, id}: %s", body)
		}
	})

	t.Run("notification", func(t *testing.T) {
		t.Parallel()
		status, _, body := post(t, srv, `{"jsonrpc": "2.0", "method": "list_projects", "params": {"per_page": 5}}`)
		if status != http.StatusNoContent || body != "" {
			t.Errorf("notification answered %d %q; want 204 and no body", status, body)
		}
	})

	t.Run("notification of an unknown method", func(t *testing.T) {
		t.Parallel()
		status, _, body := post(t, srv, `{"jsonrpc": "2.0", "method": "foobar"}`)
		if status != http.StatusNoContent || body != "" {
			t.Errorf("answered %d %q; want 204 and no body", status, body)
		}
	})

	t.Run("batch of only notifications", func(t *testing.T) {
		t.Parallel()
		status, _, body := post(t, srv, `[
  {"jsonrpc": "2.0", "method": "list_projects", "params": {"page": 1}},
  {"jsonrpc": "2.0", "method": "list_projects", "params": {"page": 2}}
]`)
		if status != http.StatusNoContent || body != "" {
			t.Errorf("answered %d %q; want 204 and no body", status, body)
		}
	})

	// A batch of the gateway's own methods is JSON-RPC, even when one of
	// its calls names a method with a slash, the Model Context Protocol's
	// form: each call is answered by its id, the unknown one -32601. (The
	// whole batch went to the MCP handler and was refused as one -32600,
	// id null.)
	t.Run("batch with a namespaced method", func(t *testing.T) {
		t.Parallel()
		status, _, answer := post(t, srv, fmt.Sprintf(`[
  {"jsonrpc": "2.0", "method": "get_project", "params": {"project_id": %d}, "id": "1"},
  {"jsonrpc": "2.0", "method": "foo/get", "id": "5"}
]`, pid))
		var got []map[string]json.RawMessage
		if err := json.Unmarshal([]byte(answer), &got); status != http.StatusOK || err != nil || len(got) != 2 {
			t.Fatalf("%d %s; want 200 and two answers", status, answer)
		}
		if _, ok := got[0]["result"]; !ok || string(got[0]["id"]) != `"1"` {
			t.Errorf("get_project: %s", answer)
		}
		if string(got[1]["id"]) != `"5"` || string(got[1]["error"]) != `{"code":-32601,"message":"Method not found"}` {
			t.Errorf("foo/get: %s", answer)
		}
	})

	t.Run("mixed batch", func(t *testing.T) {
		t.Parallel()
		body := fmt.Sprintf(`[
  {"jsonrpc": "2.0", "method": "get_project", "params": {"project_id": %[1]d}, "id": "1"},
  {"jsonrpc": "2.0", "method": "list_projects", "params": {"per_page": 2}},
  {"jsonrpc": "2.0", "method": "list_issues", "params": {"project_id": %[1]d}, "id": "2"},
  {"foo": "boo"},
  {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
  {"jsonrpc": "2.0", "method": "search_projects", "params": {"search": "sho"}, "id": "9"}
]`, pid)
		status, _, answer := post(t, srv, body)
		if status != http.StatusOK {
			t.Fatalf("status %d", status)
		}
		var got []map[string]json.RawMessage
		if err := json.Unmarshal([]byte(answer), &got); err != nil {
			t.Fatalf("%v: %s", err, answer)
		}
		byID := map[string]map[string]json.RawMessage{}
		for _, r := range got {
			if string(r["jsonrpc"]) != `"2.0"` {
				t.Errorf("answer without jsonrpc 2.0: %v", r)
			}
			_, hasResult := r["result"]
			_, hasError := r["error"]
			if hasResult == hasError {
				t.Errorf("answer %s must carry exactly one of result and error", r["id"])
			}
			byID[string(r["id"])] = r
		}
		if len(got) != 5 {
			t.Fatalf("%d answers, want 5 (the notification gets none): %s", len(got), answer)
		}
		for _, id := range []string{`"1"`, `"2"`, `"9"`} {
			if _, ok := byID[id]["result"]; !ok {
				t.Errorf("call %s has no result: %s", id, answer)
			}
		}
		wantErr := map[string]string{
			`null`: `{"code":-32600,"message":"Invalid Request"}`,
			`"5"`:  `{"code":-32601,"message":"Method not found"}`,
		}
		for id, want := range wantErr {
			if d := cmp.Diff(want, string(byID[id]["error"])); d != "" {
				t.Errorf("error of %s (-want +got):\n%s", id, d)
			}
		}
	})
}

// An id whose string holds bytes that are not UTF-8 is not a JSON string
// (RFC 8259 section 8.1), so not an id JSON-RPC allows: the request is
// Invalid Request with id null, as any other unreadable id, and the answer
// is valid UTF-8 JSON. (The id was echoed back byte for byte, which no
// strict JSON decoder reads.) An escaped code point, valid JSON however
// odd, is echoed as it came.
func TestIDNotUTF8(t *testing.T) {
	t.Parallel()
	srv, _ := seeded(t)
	invalid := `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}`
	for _, tc := range []struct{ name, body, want string }{
		{"alone", "{\"jsonrpc\":\"2.0\",\"method\":\"list_projects\",\"id\":\"a\xffb\"}", invalid},
		{"truncated sequence", "{\"jsonrpc\":\"2.0\",\"method\":\"foobar\",\"id\":\"\xe2\x82\"}", invalid},
		{"surrogate encoded", "{\"jsonrpc\":\"2.0\",\"method\":\"foobar\",\"id\":\"\xed\xa0\x80\"}", invalid},
		{"protocol method", "{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":\"\xc0\xaf\"}", invalid},
		{"in a batch", "[{\"jsonrpc\":\"2.0\",\"method\":\"foobar\",\"id\":\"\xff\"},{\"jsonrpc\":\"2.0\",\"method\":\"foobar\",\"id\":\"ok\"}]",
			"[" + invalid + `,{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":"ok"}]`},
		{"escaped lone surrogate", `{"jsonrpc":"2.0","method":"foobar","id":"\udc00"}`,
			`{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":"\udc00"}`},
		{"UTF-8", `{"jsonrpc":"2.0","method":"foobar","id":"é✓"}`,
			`{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":"é✓"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			status, _, body := post(t, srv, tc.body)
			if status != http.StatusOK || body != tc.want {
				t.Errorf("answer %d %q\nwant 200 %q", status, body, tc.want)
			}
			if !utf8.ValidString(body) || !json.Valid([]byte(body)) {
				t.Errorf("the answer is not UTF-8 JSON: %q", body)
			}
		})
	}
}
