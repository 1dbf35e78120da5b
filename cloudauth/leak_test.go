package cloudauth_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/internal/leaktest"
)

// TestCredentialsNeverInErrorChains: however a login or a call with a
// token fails (a transport error quoting the request's headers, an error
// answer echoing the password or the token, an answer whose decoding
// quotes the token, a redirect loop through a URL holding them), no
// rendering of the error, of any error it wraps, of the *Error and its
// body, of what the hook saw or of the log shows the password or the
// access token.
func TestCredentialsNeverInErrorChains(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	raw, err := srv.IssueToken(srv.DefaultTenant(), "admin")
	if err != nil {
		t.Fatal(err)
	}
	tok, err := cloudauth.ParseToken(raw)
	if err != nil {
		t.Fatal(err)
	}
	const password = `Pa55 w/rd"&+é-login`
	errorBody := func(status int, quote string) string {
		b, _ := json.Marshal(map[string]any{"statusCode": status, "message": "refused " + quote, "requestId": "r-" + quote})
		return string(b)
	}
	login := func(c *cloudauth.Client) error {
		_, err := c.Login(context.Background(), &cloudauth.LoginRequest{Username: "admin", Password: password})
		return err
	}
	userInfo := func(c *cloudauth.Client) error { _, err := c.UserInfo(context.Background(), tok); return err }
	logout := func(c *cloudauth.Client) error { return c.Logout(context.Background(), tok) }
	rawDo := func(c *cloudauth.Client) error {
		var out struct{ T time.Time }
		return c.Do(context.Background(), tok, http.MethodGet, "/csp/gateway/am/api/loggedin/user", nil, nil, &out)
	}
	for _, tc := range []struct {
		name   string
		call   func(*cloudauth.Client) error
		secret string
		srv    *leaktest.Server
		opts   []cloudauth.Option
		is     error
		urlErr bool
	}{
		{name: "login: 400 quoting the password", call: login, secret: password, srv: &leaktest.Server{Status: 400, ErrorBody: errorBody}, is: cloudauth.ErrBadRequest},
		{name: "login: 401 quoting the password", call: login, secret: password, srv: &leaktest.Server{Status: 401, ErrorBody: errorBody}, is: cloudauth.ErrUnauthorized},
		{name: "login: 429 quoting the password", call: login, secret: password, srv: &leaktest.Server{Status: 429, ErrorBody: errorBody}, is: cloudauth.ErrRateLimited},
		{name: "login: redirect loop through the password", call: login, secret: password, srv: &leaktest.Server{Redirect: true}, is: cloudauth.ErrConnectionTimeout, urlErr: true},
		{name: "userinfo: transport error quoting the headers", call: userInfo, secret: raw, opts: []cloudauth.Option{cloudauth.WithTransport(leaktest.DumpingTransport)}, is: cloudauth.ErrConnectionTimeout, urlErr: true},
		{name: "userinfo: 401 quoting the token", call: userInfo, secret: raw, srv: &leaktest.Server{Status: 401, ErrorBody: errorBody}, is: cloudauth.ErrUnauthorized},
		{name: "userinfo: 500 quoting the token", call: userInfo, secret: raw, srv: &leaktest.Server{Status: 500, ErrorBody: errorBody}, is: cloudauth.ErrServer},
		{name: "userinfo: redirect loop through the token", call: userInfo, secret: raw, srv: &leaktest.Server{Redirect: true}, urlErr: true},
		{name: "logout: transport error quoting the headers", call: logout, secret: raw, opts: []cloudauth.Option{cloudauth.WithTransport(leaktest.DumpingTransport)}, urlErr: true},
		{name: "logout: 403 quoting the token", call: logout, secret: raw, srv: &leaktest.Server{Status: 403, ErrorBody: errorBody}, is: cloudauth.ErrForbidden},
		{name: "do: answer that does not decode", call: rawDo, secret: raw, srv: &leaktest.Server{DecodeBody: func(s string) string { return `{"T":"` + s + `"}` }}},
		{name: "do: transport error quoting the headers", call: rawDo, secret: raw, opts: []cloudauth.Option{cloudauth.WithTransport(leaktest.DumpingTransport)}, urlErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ls := tc.srv
			if ls == nil {
				ls = &leaktest.Server{}
			}
			ls.Secrets = []string{tc.secret}
			hs := httptest.NewServer(ls)
			t.Cleanup(hs.Close)
			var obs leaktest.Observed
			opts := append([]cloudauth.Option{cloudauth.WithoutRetries(), cloudauth.WithHook(obs.Hook), cloudauth.WithLogger(obs.Logger())}, tc.opts...)
			c, err := cloudauth.New(hs.URL, opts...)
			if err != nil {
				t.Fatal(err)
			}
			err = tc.call(c)
			if err == nil {
				t.Fatal("the call did not fail")
			}
			leaktest.NoSecretIn(t, "the error", err, tc.secret)
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("the error no longer matches %v: %v", tc.is, err)
			}
			var ue *url.Error
			if tc.urlErr && !errors.As(err, &ue) {
				t.Errorf("a transport error is no longer a *url.Error: %#v", err)
			}
			var e *cloudauth.Error
			if errors.As(err, &e) {
				leaktest.NoSecretIn(t, "the *Error", e, tc.secret)
				leaktest.NoSecretIn(t, "the *Error's detail", e.Detail(), tc.secret)
				leaktest.NoSecretIn(t, "the *Error's message", e.Message, tc.secret)
				leaktest.NoSecretIn(t, "the *Error's request id", e.RequestID, tc.secret)
				leaktest.NoSecretIn(t, "the *Error's body", string(e.Body), tc.secret)
				leaktest.NoSecretIn(t, "the *Error's transport error", e.Err, tc.secret)
			} else if tc.is != nil {
				t.Errorf("the error is no longer a *cloudauth.Error: %#v", err)
			}
			obs.Check(t, tc.secret)
		})
	}
}
