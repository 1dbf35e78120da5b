package orch_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/apitwin/apitwin/internal/leaktest"
	"github.com/apitwin/apitwin/orch"
)

// TestHTTPTokenNeverInErrorChains: over HTTP, however a call fails (a
// transport error quoting the request's headers, an error answer echoing
// the token in its message and details, an answer whose decoding quotes
// it, a redirect loop through a URL holding it), no rendering of the
// error, of any error it wraps, of the *Error's message and details, of
// what the hook saw or of the log shows the bearer token.
func TestHTTPTokenNeverInErrorChains(t *testing.T) {
	t.Parallel()
	const token = "orch-Sup3r/S3cret+tok"
	errorBody := func(status int, quote string) string {
		code := map[int]string{400: "INVALID_ARGUMENT", 429: "RESOURCE_EXHAUSTED", 503: "UNAVAILABLE"}[status]
		b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": code, "message": "bad token " + quote,
			"details": []any{map[string]any{"type": "FieldViolation", "field": "token " + quote, "description": "echo " + quote}}}})
		return string(b)
	}
	for _, tc := range []struct {
		name   string
		srv    *leaktest.Server
		opts   []orch.Option
		code   string
		urlErr bool
	}{
		{name: "transport error quoting the headers", opts: []orch.Option{orch.WithTransport(leaktest.DumpingTransport)}, code: orch.CodeUnavailable, urlErr: true},
		{name: "400 quoting the token", srv: &leaktest.Server{Status: 400, ErrorBody: errorBody}, code: orch.CodeInvalidArgument},
		{name: "429 quoting the token", srv: &leaktest.Server{Status: 429, ErrorBody: errorBody}, code: orch.CodeResourceExhausted},
		{name: "503 quoting the token", srv: &leaktest.Server{Status: 503, ErrorBody: errorBody}, code: orch.CodeUnavailable},
		{name: "answer that does not decode", srv: &leaktest.Server{DecodeBody: func(s string) string { return `{"config":{"workflow_execution_retention_ttl":"` + s + `"}}` }}, code: orch.CodeInternal},
		{name: "redirect loop through the token", srv: &leaktest.Server{Redirect: true}, code: orch.CodeUnavailable, urlErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ls := tc.srv
			if ls == nil {
				ls = &leaktest.Server{}
			}
			ls.Secrets = []string{token}
			hs := httptest.NewServer(ls)
			t.Cleanup(hs.Close)
			var obs leaktest.Observed
			opts := append([]orch.Option{orch.WithToken(token), orch.WithoutRetries(), orch.WithHook(obs.Hook), orch.WithLogger(obs.Logger())}, tc.opts...)
			c, err := orch.NewHTTP(hs.URL, opts...)
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.DescribeNamespace(context.Background(), "default")
			if err == nil {
				t.Fatal("the call did not fail")
			}
			leaktest.NoSecretIn(t, "the error", err, token)
			var ue *url.Error
			if tc.urlErr && !errors.As(err, &ue) {
				t.Errorf("a transport error is no longer reachable as a *url.Error: %#v", err)
			}
			var e *orch.Error
			if !errors.As(err, &e) {
				t.Fatalf("the error is not an *orch.Error: %#v", err)
			}
			if e.Code != tc.code {
				t.Errorf("code %s, want %s: %v", e.Code, tc.code, err)
			}
			leaktest.NoSecretIn(t, "the *Error's message", e.Message, token)
			for _, d := range e.Details {
				leaktest.NoSecretIn(t, "a detail of the *Error", d.String()+" "+d.GetField()+" "+d.GetDescription(), token)
			}
			obs.Check(t, token)
		})
	}
}
