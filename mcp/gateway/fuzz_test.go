package gateway

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"unicode/utf8"
)

// FuzzGateway sends any body to a gateway whose upstream (in this process)
// accepts the token and answers every method 404, and checks that the
// gateway never
// panics and answers either nothing (204) or valid JSON-RPC: one response
// object, or a non-empty array of them, each with jsonrpc "2.0", an id, and
// exactly one of result and error. Every answer is valid UTF-8 JSON, what
// the body held notwithstanding. Bodies that belong to the Model Context
// Protocol go to its SDK, whose transport rules differ; for those only that
// and the absence of a panic are checked.
func FuzzGateway(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","method":"list_projects","id":1}`,
		`{"jsonrpc":"2.0","method":"get_project","params":{"project_id":1},"id":"a"}`,
		`{"jsonrpc":"2.0","method":"list_issues","params":{"project_id":"x"},"id":null}`,
		`{"jsonrpc":"2.0","method":"foo"}`,
		`[{"jsonrpc":"2.0","method":"foo","id":1},1,{"jsonrpc":"2.0","method":"bar"}]`,
		`[]`, `[1,2,3]`, `{`, `"x"`, `null`, ``, `{"jsonrpc":"2.0","method":"tools/list","id":1}`,
		`{"jsonrpc":"2.0","method":"create_issue","params":[1],"id":1e3}`,
		"{\"jsonrpc\":\"2.0\",\"method\":\"list_projects\",\"id\":\"\xff\"}",
		"[{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":\"\xc3\"},{\"jsonrpc\":\"2.0\",\"method\":\"x\xfe\",\"id\":2}]",
		`[{"jsonrpc":"2.0","method":"ping","id":1},{"jsonrpc":"2.0","method":"tools/call","params":{"name":"get_project","arguments":{"project_id":1}},"id":2},{"jsonrpc":"2.0","method":"list_projects","id":3}]`,
	} {
		f.Add([]byte(seed))
	}
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		// The token passes, so that bodies reach the JSON-RPC decoder (a
		// refused token is answered before the body is read).
		if r.URL.Path == "/api/v4/personal_access_tokens/self" {
			w.Write([]byte(`{"id":1,"user_id":1,"active":true,"revoked":false,"scopes":["api","read_user","read_repository"]}`))
			return
		}
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"message":"404 Not Found"}`))
	}))
	f.Cleanup(upstream.Close)
	g, err := New(Config{Upstream: upstream.URL, RateLimit: RateLimitConfig{Disabled: true}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer fuzz")
		rec := httptest.NewRecorder()
		g.ServeHTTP(rec, req)
		if rec.Code == http.StatusUnauthorized || rec.Code == http.StatusTooManyRequests {
			t.Fatalf("refused before the body was read (%d %s): the fuzzing never reaches the JSON-RPC decoder", rec.Code, rec.Body)
		}
		out := rec.Body.Bytes()
		// Whatever answered, and whatever the body held (bytes that are
		// not UTF-8 among them), the answer is UTF-8 JSON (RFC 8259).
		if len(out) > 0 && (!utf8.Valid(out) || !json.Valid(out)) {
			t.Fatalf("answer to %q is not UTF-8 JSON: %q", body, out)
		}
		if msgs, _, fatal := decodeBody(body, DefaultMaxBatch); fatal == nil && protocolMessages(msgs) {
			return
		}
		if rec.Code == http.StatusNoContent {
			if len(out) != 0 {
				t.Fatalf("204 with a body: %s", out)
			}
			return
		}
		var many []json.RawMessage
		if json.Unmarshal(out, &many) == nil {
			if len(many) == 0 {
				t.Fatalf("empty batch answer for %q", body)
			}
			for _, one := range many {
				checkResponse(t, body, one)
			}
			return
		}
		checkResponse(t, body, out)
	})
}

func checkResponse(t *testing.T, body, raw []byte) {
	t.Helper()
	var r map[string]json.RawMessage
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("answer to %q is not JSON-RPC: %s", body, raw)
	}
	_, hasResult := r["result"]
	_, hasError := r["error"]
	_, hasID := r["id"]
	if string(r["jsonrpc"]) != `"2.0"` || hasResult == hasError || !hasID {
		t.Fatalf("answer to %q is not a valid response: %s", body, raw)
	}
	if hasError {
		var e struct {
			Code    *int    `json:"code"`
			Message *string `json:"message"`
		}
		if json.Unmarshal(r["error"], &e) != nil || e.Code == nil || e.Message == nil {
			t.Fatalf("error object without code and message: %s", raw)
		}
	}
}
