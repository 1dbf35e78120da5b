package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/apitwin/apitwin/internal/leaktest"
	"github.com/apitwin/apitwin/mcp"
)

// TestClientTokenNeverInErrorChains: however a call of the client fails (a
// transport error quoting the request's headers, an HTTP error answer or a
// JSON-RPC error answer echoing the token in its message and data, a
// result whose decoding quotes it, a redirect loop through a URL holding
// it), no rendering of the error, of any error it wraps, of the *Error's
// fields, of what the hook saw or of the log shows the token or the
// signing secret.
func TestClientTokenNeverInErrorChains(t *testing.T) {
	t.Parallel()
	const token = "glpat-Mcp/T0ken+s3cret"
	const signing = "signing-Secret/42+x"
	rpcError := func(status int, quote string) string {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "error": map[string]any{
			"code": mcp.CodeInvalidParams, "message": "bad token " + quote,
			"data": map[string]any{"status": status, "message": quote, "param": "token " + quote, "reason": quote}}})
		return string(b)
	}
	call := func(c *mcp.Client) error {
		var out struct{ T time.Time }
		return c.Call(context.Background(), "ping", nil, &out)
	}
	batch := func(c *mcp.Client) error {
		b := c.NewBatch()
		bc := b.Call("ping", nil)
		if err := b.Send(context.Background()); err != nil {
			return err
		}
		var out struct{ T time.Time }
		return bc.Decode(&out)
	}
	rpcBatchError := func(status int, quote string) string { return "[" + rpcError(status, quote) + "]" }
	for _, tc := range []struct {
		name   string
		srv    *leaktest.Server
		call   func(*mcp.Client) error
		opts   []mcp.Option
		is     error
		urlErr bool
	}{
		{name: "transport error quoting the headers", call: call, opts: []mcp.Option{mcp.WithTransport(leaktest.DumpingTransport)}, urlErr: true},
		{name: "HTTP 400 quoting the token", call: call, srv: &leaktest.Server{Status: 400, ErrorBody: rpcError}, is: mcp.ErrInvalidParams},
		{name: "JSON-RPC error quoting the token", call: call, srv: &leaktest.Server{Status: 200, ErrorBody: rpcError}, is: mcp.ErrInvalidParams},
		{name: "result that does not decode", call: call, srv: &leaktest.Server{DecodeBody: func(s string) string { return `{"jsonrpc":"2.0","id":1,"result":{"T":"` + s + `"}}` }}},
		{name: "redirect loop through the token", call: call, srv: &leaktest.Server{Redirect: true}, urlErr: true},
		{name: "batch: JSON-RPC error quoting the token", call: batch, srv: &leaktest.Server{Status: 200, ErrorBody: rpcBatchError}, is: mcp.ErrInvalidParams},
		{name: "batch: result that does not decode", call: batch, srv: &leaktest.Server{DecodeBody: func(s string) string { return `[{"jsonrpc":"2.0","id":1,"result":{"T":"` + s + `"}}]` }}},
		{name: "batch: transport error quoting the headers", call: batch, opts: []mcp.Option{mcp.WithTransport(leaktest.DumpingTransport)}, urlErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ls := tc.srv
			if ls == nil {
				ls = &leaktest.Server{}
			}
			ls.Secrets = []string{token, signing}
			hs := httptest.NewServer(ls)
			t.Cleanup(hs.Close)
			var obs leaktest.Observed
			opts := append([]mcp.Option{mcp.WithToken(token), mcp.WithSigningSecret(signing), mcp.WithoutRetries(),
				mcp.WithHook(obs.Hook), mcp.WithLogger(obs.Logger())}, tc.opts...)
			c, err := mcp.New(hs.URL, opts...)
			if err != nil {
				t.Fatal(err)
			}
			err = tc.call(c)
			if err == nil {
				t.Fatal("the call did not fail")
			}
			leaktest.NoSecretIn(t, "the error", err, token, signing)
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("the error no longer matches %v: %v", tc.is, err)
			}
			var ue *url.Error
			if tc.urlErr && !errors.As(err, &ue) {
				t.Errorf("a transport error is no longer a *url.Error: %#v", err)
			}
			var e *mcp.Error
			if errors.As(err, &e) {
				for name, v := range map[string]string{"message": e.Message, "data": string(e.Data), "detail": e.Detail, "param": e.Param, "reason": e.Reason} {
					leaktest.NoSecretIn(t, "the *Error's "+name, v, token, signing)
				}
			} else if tc.is != nil {
				t.Errorf("the error is no longer an *mcp.Error: %#v", err)
			}
			obs.Check(t, token, signing)
		})
	}
}
