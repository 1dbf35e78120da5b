package sourcehost_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/apitwin/apitwin/internal/leaktest"
	"github.com/apitwin/apitwin/sourcehost"
)

// TestTokenNeverInErrorChains: however a call fails (a transport error
// quoting the request's headers, an error answer echoing the token, an
// answer whose decoding quotes it, a redirect loop through a URL holding
// it), no rendering of the error, of any error it wraps, of the *Error and
// its body, of what the hook saw or of the log shows the PRIVATE-TOKEN.
func TestTokenNeverInErrorChains(t *testing.T) {
	t.Parallel()
	const token = "glpat-Sup3r/S3cret+tok"
	errorBody := func(status int, quote string) string {
		b, _ := json.Marshal(map[string]any{"message": fmt.Sprintf("%d bad token %s", status, quote)})
		return string(b)
	}
	for _, tc := range []struct {
		name   string
		srv    *leaktest.Server
		opts   []sourcehost.Option
		is     error
		urlErr bool
	}{
		{name: "transport error quoting the headers", opts: []sourcehost.Option{sourcehost.WithTransport(leaktest.DumpingTransport)}, urlErr: true},
		{name: "400 quoting the token", srv: &leaktest.Server{Status: 400, ErrorBody: errorBody}, is: sourcehost.ErrBadRequest},
		{name: "429 quoting the token", srv: &leaktest.Server{Status: 429, ErrorBody: errorBody}, is: sourcehost.ErrRateLimited},
		{name: "503 quoting the token", srv: &leaktest.Server{Status: 503, ErrorBody: errorBody}, is: sourcehost.ErrServer},
		{name: "answer that does not decode", srv: &leaktest.Server{DecodeBody: func(s string) string { return `{"id":1,"created_at":"` + s + `"}` }}},
		{name: "redirect loop through the token", srv: &leaktest.Server{Redirect: true}, urlErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := tc.srv
			if srv == nil {
				srv = &leaktest.Server{}
			}
			srv.Secrets = []string{token}
			hs := httptest.NewServer(srv)
			t.Cleanup(hs.Close)
			var obs leaktest.Observed
			opts := append([]sourcehost.Option{sourcehost.WithToken(token), sourcehost.WithoutRetries(),
				sourcehost.WithHook(obs.Hook), sourcehost.WithLogger(obs.Logger())}, tc.opts...)
			c, err := sourcehost.New(hs.URL, opts...)
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.GetProject(context.Background(), sourcehost.ProjectID(1), nil)
			if err == nil {
				t.Fatal("the call did not fail")
			}
			leaktest.NoSecretIn(t, "the error", err, token)
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("the error no longer matches %v: %v", tc.is, err)
			}
			var ue *url.Error
			if tc.urlErr && !errors.As(err, &ue) {
				t.Errorf("a transport error is no longer a *url.Error: %#v", err)
			}
			var e *sourcehost.Error
			if errors.As(err, &e) {
				leaktest.NoSecretIn(t, "the *Error", e, token)
				leaktest.NoSecretIn(t, "the *Error's message", e.Message, token)
				leaktest.NoSecretIn(t, "the *Error's body", string(e.Body), token)
				leaktest.NoSecretIn(t, "the *Error's fields", e.Fields, token)
			} else if tc.is != nil {
				t.Errorf("the error is no longer a *sourcehost.Error: %#v", err)
			}
			obs.Check(t, token)
		})
	}
}

// TestHookTokenNeverInErrors: a hook's token, sent in the form of
// AddProjectHook and EditProjectHook, is the receiver's secret; an error
// answer or an undecodable answer that quotes it shows it nowhere.
func TestHookTokenNeverInErrors(t *testing.T) {
	t.Parallel()
	const token, hookToken = "glpat-Sup3r/S3cret+tok", "hook-S3cret+deliv/ery"
	errorBody := func(status int, quote string) string {
		b, _ := json.Marshal(map[string]any{"message": fmt.Sprintf("%d bad hook %s", status, quote)})
		return string(b)
	}
	calls := map[string]func(*sourcehost.Client) error{
		"AddProjectHook": func(c *sourcehost.Client) error {
			_, err := c.AddProjectHook(context.Background(), sourcehost.ProjectID(1), &sourcehost.AddProjectHookRequest{URL: "https://hooks.example/in", Token: hookToken})
			return err
		},
		"EditProjectHook": func(c *sourcehost.Client) error {
			_, err := c.EditProjectHook(context.Background(), sourcehost.ProjectID(1), 7, &sourcehost.EditProjectHookRequest{Token: hookToken})
			return err
		},
	}
	for name, call := range calls {
		for _, srv := range []*leaktest.Server{
			{Status: 400, ErrorBody: errorBody},
			{DecodeBody: func(s string) string { return `{"id":1,"created_at":"` + s + `"}` }},
		} {
			t.Run(fmt.Sprintf("%s/%d", name, srv.Status), func(t *testing.T) {
				t.Parallel()
				srv.Secrets = []string{hookToken}
				hs := httptest.NewServer(srv)
				t.Cleanup(hs.Close)
				var obs leaktest.Observed
				c, err := sourcehost.New(hs.URL, sourcehost.WithToken(token), sourcehost.WithoutRetries(),
					sourcehost.WithHook(obs.Hook), sourcehost.WithLogger(obs.Logger()))
				if err != nil {
					t.Fatal(err)
				}
				err = call(c)
				if err == nil {
					t.Fatal("the call did not fail")
				}
				leaktest.NoSecretIn(t, "the error", err, hookToken)
				obs.Check(t, hookToken)
			})
		}
	}
}
