package erp_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/erpfake"
	"github.com/apitwin/apitwin/internal/leaktest"
)

// secret has characters that JSON and URL encoding each write another way,
// so that every form it can come back in is searched for.
const secret = `Pa55 w/rd"é&=+%`

// echo is a fault whose answer quotes every form of pw, as a server that
// repeats what it was sent would.
func echo(status int, pw string) control.Fault {
	msg := http.StatusText(status) + ": bad value " + leaktest.Quoting(pw)
	body, _ := json.Marshal(map[string]any{"error": map[string]any{"code": status, "message": msg, "0": "ErrorBadPassword " + pw}})
	return control.Fault{Status: status, Body: string(body), Header: http.Header{"Content-Type": {"application/json"}}, Times: 1}
}

func TestSecretsNeverPrint(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t, erpfake.WithAdminPassword(secret))
	c := srv.Client()

	// A new user's password, quoted back by the server in its error.
	srv.InjectFault("POST /api/index.php/users", echo(400, secret))
	req := &erp.CreateUserRequest{Login: "jdoe", Password: secret}
	_, err := c.CreateUser(ctx, req)
	if err == nil {
		t.Fatal("the fault did not answer")
	}
	leaktest.NoSecretIn(t, "CreateUser's error", err, secret)
	leaktest.NoSecretIn(t, "CreateUserRequest", req, secret)
	leaktest.NoSecretIn(t, "CreateUserRequest by value", *req, secret)
	leaktest.NoSecretIn(t, "CreateUserRequest with the password in Extra", erp.CreateUserRequest{Login: "x", Extra: map[string]any{"pass": secret}}, secret)

	// A changed password, likewise.
	srv.InjectFault("PUT /api/index.php/users/{id}", echo(500, secret))
	upd := &erp.UpdateUserRequest{Password: erp.Ptr(secret)}
	_, err = c.UpdateUser(ctx, 1, upd)
	if err == nil {
		t.Fatal("the fault did not answer")
	}
	leaktest.NoSecretIn(t, "UpdateUser's error", err, secret)
	leaktest.NoSecretIn(t, "UpdateUserRequest", upd, secret)
	leaktest.NoSecretIn(t, "UpdateUserRequest by value", *upd, secret)

	// The session login's password, URL-encoded in the form the login page
	// may echo, or in an error page.
	srv.InjectFault("POST /index.php", control.Fault{Status: 200, Times: 1, Header: http.Header{"Content-Type": {"text/html"}},
		Body: `<form><div class="error">Bad value for password=` + url.QueryEscape(secret) + ` (` + secret + `)</div></form>`})
	lc := srv.ClientWithLogin("admin", secret)
	err = lc.Login(ctx)
	if err == nil {
		t.Fatal("the fault did not answer")
	}
	leaktest.NoSecretIn(t, "a refused login's error", err, secret)
	srv.InjectFault("POST /index.php", control.Fault{Status: 500, Times: 1, Header: http.Header{"Content-Type": {"text/plain"}},
		Body: "could not handle username=admin&password=" + url.QueryEscape(secret)})
	err = lc.Login(ctx)
	if err == nil {
		t.Fatal("the fault did not answer")
	}
	leaktest.NoSecretIn(t, "a failed login's error", err, secret)
	leaktest.NoSecretIn(t, "a client with a login", lc, secret)
	leaktest.NoSecretIn(t, "a client with a login, by value", *lc, secret)
	leaktest.NoSecretIn(t, "a client with a key", c, srv.APIKey())
	leaktest.NoSecretIn(t, "a client with a key, by value", *c, srv.APIKey())
	leaktest.NoSecretIn(t, "a client with a bearer key", srv.Client(erp.WithBearerAPIKey(srv.APIKey())), srv.APIKey())

	// The deployment's settings.
	env := map[string]string{"ERP_ADMIN_PASSWORD": secret, "DB_PASSWORD": secret + "db", "DB_ROOT_PASSWORD": secret + "root"}
	s, err := erp.LoadSettings(erp.ProfileInternalDB, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	leaktest.NoSecretIn(t, "Settings", s, secret)
	leaktest.NoSecretIn(t, "Settings by value", *s, secret)
	_, err = erp.LoadSettings(erp.ProfileExternalDB, func(k string) string { return env[k] })
	leaktest.NoSecretIn(t, "a SettingsError", err, secret)

	// The fake's own secrets: admin's password and key, seeded users'.
	leaktest.NoSecretIn(t, "the fake", srv, secret, srv.APIKey())
	seed := erpfake.UserSeed{Login: "u", Password: secret, APIKey: secret + "key"}
	leaktest.NoSecretIn(t, "a UserSeed", seed, secret)
	leaktest.NoSecretIn(t, "a Seed", erpfake.Seed{Users: []erpfake.UserSeed{seed}}, secret)
	leaktest.NoSecretIn(t, "a *Seed", &erpfake.Seed{Users: []erpfake.UserSeed{seed}}, secret)
}

// A password of a letter or two is no secret worth shredding every message
// for: the error stays readable.
func TestShortPasswordLeavesErrorsReadable(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t)
	_, err := srv.Client().CreateUser(ctx, &erp.CreateUserRequest{Login: "admin", Password: "a"})
	var e *erp.Error
	if !errors.As(err, &e) || e.Message != "Internal Server Error: Error creating" || !strings.Contains(err.Error(), "ErrorLoginAlreadyExists") {
		t.Fatalf("%v", err)
	}
}

// TestURLPasswordNeverPrints: a root URL may carry a user and password (a
// proxy's basic authentication, which net/http sends from the URL), or a
// token given as the user; the client and the settings print it without
// the password or the token.
func TestURLPasswordNeverPrints(t *testing.T) {
	t.Parallel()
	const pw, token = "proxy-s3cret", "proxy-TOKEN-as-user"
	for secret, root := range map[string]string{pw: "https://proxyuser:" + pw + "@erp.example.com", token: "https://" + token + "@erp.example.com"} {
		c, err := erp.New(root, erp.WithAPIKey("key-1234"))
		if err != nil {
			t.Fatal(err)
		}
		leaktest.NoSecretIn(t, "client", c, secret)
		leaktest.NoSecretIn(t, "client value", *c, secret)
		if !strings.Contains(c.String(), "erp.example.com") {
			t.Fatalf("the client no longer says where it points: %s", c)
		}
		s, err := erp.LoadSettings(erp.ProfileInternalDB, env(internalEnv, "ERP_URL_ROOT", root))
		if err != nil {
			t.Fatal(err)
		}
		leaktest.NoSecretIn(t, "settings", s, secret)
		leaktest.NoSecretIn(t, "settings value", *s, secret)
		if s.BaseURL() != root {
			t.Fatalf("BaseURL %s, want the URL itself", s.BaseURL())
		}
		_, err = erp.LoadSettings(erp.ProfileInternalDB, env(internalEnv, "ERP_URL_ROOT", strings.Replace(root, "https:", "ftp:", 1)))
		if err == nil || !strings.Contains(err.Error(), "ERP_URL_ROOT") {
			t.Fatalf("an ftp URL root: %v", err)
		}
		leaktest.NoSecretIn(t, "the error about a URL root", err, secret)
	}
}

// sessionTap is a transport that notes every session cookie the login form
// hands out and, while failing is set, fails each request with an error
// that quotes the request's headers, as a proxy's error or a request dump
// would.
type sessionTap struct {
	mu      sync.Mutex
	cookies []string
	failing bool
}

func (tap *sessionTap) wrap(next http.RoundTripper) http.RoundTripper {
	return leaktest.RoundTripFunc(func(req *http.Request) (*http.Response, error) {
		tap.mu.Lock()
		failing := tap.failing
		tap.mu.Unlock()
		if failing && strings.HasPrefix(req.URL.Path, erp.APIPath) {
			return nil, leaktest.NewDumpError(req)
		}
		res, err := next.RoundTrip(req)
		if err == nil {
			tap.mu.Lock()
			for _, c := range res.Cookies() {
				tap.cookies = append(tap.cookies, c.Value)
			}
			tap.mu.Unlock()
		}
		return res, err
	})
}

func (tap *sessionTap) seen() []string {
	tap.mu.Lock()
	defer tap.mu.Unlock()
	return slices.Clone(tap.cookies)
}

func (tap *sessionTap) fail(on bool) {
	tap.mu.Lock()
	tap.failing = on
	tap.mu.Unlock()
}

// TestSessionCookieNeverPrints: after a session login, however a call
// fails (transport error, 4xx or 5xx answer quoting the cookie, a renewal
// that fails, an answer that does not decode, a redirect loop), no
// rendering of the error nor of any error it wraps shows the session
// cookie.
func TestSessionCookieNeverPrints(t *testing.T) {
	t.Parallel()
	userRoute := "GET /api/index.php/users/{id}"
	jsonFault := func(status int, msg string, times int) control.Fault {
		body, _ := json.Marshal(map[string]any{"error": map[string]any{"code": status, "message": msg, "0": msg}})
		return control.Fault{Status: status, Body: string(body), Header: http.Header{"Content-Type": {"application/json"}}, Times: times}
	}
	// The sentinel each error still matches, if any.
	want := map[string]error{
		"400 quoting the cookie": erp.ErrBadRequest, "403 page quoting the cookie": erp.ErrForbidden,
		"500 quoting the cookie": erp.ErrServer, "503 page quoting the cookie": erp.ErrServer,
		"401 quoting the old cookie after a renewal": erp.ErrUnauthorized, "401 whose renewal fails quoting the cookie": erp.ErrUnauthorized,
	}
	for _, tc := range []struct {
		name string
		// fail makes the next GetUser fail, given the session cookie's
		// value and the Cookie header it travels in.
		fail func(srv *erpfake.Server, tap *sessionTap, sid, header string)
	}{
		{"transport error quoting the headers", func(_ *erpfake.Server, tap *sessionTap, _, _ string) { tap.fail(true) }},
		{"400 quoting the cookie", func(srv *erpfake.Server, _ *sessionTap, sid, header string) {
			srv.InjectFault(userRoute, jsonFault(400, "Bad Request: bad session "+sid+" in "+header, 1))
		}},
		{"403 page quoting the cookie", func(srv *erpfake.Server, _ *sessionTap, sid, header string) {
			srv.InjectFault(userRoute, control.Fault{Status: 403, Times: 1, Header: http.Header{"Content-Type": {"text/html"}},
				Body: "<html><body><p>Forbidden for Cookie: " + header + "</p></body></html>"})
		}},
		{"500 quoting the cookie", func(srv *erpfake.Server, _ *sessionTap, sid, _ string) {
			srv.InjectFault(userRoute, jsonFault(500, "Internal Server Error: session "+sid, 1))
		}},
		{"503 page quoting the cookie", func(srv *erpfake.Server, _ *sessionTap, sid, _ string) {
			srv.InjectFault(userRoute, control.Fault{Status: 503, Times: 1, Header: http.Header{"Content-Type": {"text/plain"}},
				Body: "maintenance; your session " + url.QueryEscape(sid) + " is kept"})
		}},
		{"401 quoting the old cookie after a renewal", func(srv *erpfake.Server, _ *sessionTap, sid, _ string) {
			srv.InjectFault(userRoute, jsonFault(401, "Unauthorized: session "+sid+" ended", 2))
		}},
		{"401 whose renewal fails quoting the cookie", func(srv *erpfake.Server, _ *sessionTap, sid, _ string) {
			srv.InjectFault(userRoute, jsonFault(401, "Unauthorized: session "+sid+" ended", 1))
			srv.InjectFault("POST /index.php", control.Fault{Status: 500, Times: 1, Header: http.Header{"Content-Type": {"text/plain"}},
				Body: "cannot replace session " + sid})
		}},
		{"answer that does not decode", func(srv *erpfake.Server, _ *sessionTap, sid, _ string) {
			srv.InjectFault(userRoute, control.Fault{Status: 200, Times: 1, Header: http.Header{"Content-Type": {"application/json"}},
				Body: `{"id":"` + sid + `","login":"admin"}`})
		}},
		{"redirect loop through the cookie", func(srv *erpfake.Server, _ *sessionTap, sid, _ string) {
			srv.InjectFault(userRoute, control.Fault{Status: 302, Times: 11, Body: " ", Header: http.Header{"Location": {erp.APIPath + "/users/" + sid + "?s=" + sid}}})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := erpfake.Start(t)
			tap := &sessionTap{}
			var obs leaktest.Observed
			lc := srv.ClientWithLogin("admin", srv.AdminPassword(), erp.WithTransport(tap.wrap), erp.WithoutRetries(),
				erp.WithHook(obs.Hook), erp.WithLogger(obs.Logger()))
			if err := lc.Login(ctx); err != nil {
				t.Fatal(err)
			}
			// The login page's session, then the logged-in one.
			sids := tap.seen()
			if len(sids) != 2 || len(sids[1]) < 8 {
				t.Fatalf("the login gave the cookies %q", sids)
			}
			sid := sids[1]
			tc.fail(srv, tap, sid, erpfake.SessionCookie+"="+sid)
			_, err := lc.GetUser(ctx, 1)
			if err == nil {
				t.Fatal("the call did not fail")
			}
			sids = tap.seen()
			leaktest.NoSecretIn(t, "the error", err, sids...)
			if w := want[tc.name]; w != nil && !errors.Is(err, w) {
				t.Errorf("the error no longer matches %v: %v", w, err)
			}
			var ee *erp.Error
			if errors.As(err, &ee) {
				leaktest.NoSecretIn(t, "the *erp.Error", ee, sids...)
				leaktest.NoSecretIn(t, "the *erp.Error's body", string(ee.Body), sids...)
			}
			var ue *url.Error
			if tc.name == "transport error quoting the headers" && !errors.As(err, &ue) {
				t.Errorf("a transport error is no longer a *url.Error: %#v", err)
			}
			obs.Check(t, sids...)
			leaktest.NoSecretIn(t, "the client", lc, sids...)
			leaktest.NoSecretIn(t, "the client by value", *lc, sids...)
		})
	}
}

// TestAPIKeyNeverInWrappedErrors: a transport error that quotes the
// request's headers, API key included, shows the key neither in the error
// nor in any error errors.As can reach beneath it, for the key in its
// header and as a bearer token.
func TestAPIKeyNeverInWrappedErrors(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t)
	for _, opt := range []erp.Option{erp.WithAPIKey(srv.APIKey()), erp.WithBearerAPIKey(srv.APIKey())} {
		tap := &sessionTap{failing: true}
		c, err := erp.New(srv.URL(), opt, erp.WithTransport(tap.wrap), erp.WithoutRetries())
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.GetUser(ctx, 1)
		if err == nil {
			t.Fatal("the call did not fail")
		}
		leaktest.NoSecretIn(t, "the error", err, srv.APIKey())
		var ue *url.Error
		if !errors.As(err, &ue) {
			t.Errorf("a transport error is no longer a *url.Error: %#v", err)
		}
	}
}
