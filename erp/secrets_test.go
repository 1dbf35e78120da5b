package erp_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/erpfake"
)

// secret has characters that JSON and URL encoding each write another way,
// so that every form it can come back in is searched for.
const secret = `Pa55 w/rd"é&=+%`

// forms are the ways secret may be written: as it is, inside a JSON
// string, URL-encoded in a form or a path.
func forms(s string) []string {
	j, _ := json.Marshal(s)
	return []string{s, string(j[1 : len(j)-1]), url.QueryEscape(s), url.PathEscape(s)}
}

// printed is every way v can be printed: %v, %+v, %#v, Error() for an
// error, and slog's text and JSON handlers.
func printed(v any) map[string]string {
	out := map[string]string{
		"%v": fmt.Sprintf("%v", v), "%+v": fmt.Sprintf("%+v", v), "%#v": fmt.Sprintf("%#v", v), "%s": fmt.Sprintf("%s", v),
	}
	if err, ok := v.(error); ok {
		out["Error()"] = err.Error()
	}
	var text, js bytes.Buffer
	slog.New(slog.NewTextHandler(&text, nil)).Info("x", "v", v)
	slog.New(slog.NewJSONHandler(&js, nil)).Info("x", "v", v)
	out["slog text"], out["slog json"] = text.String(), js.String()
	return out
}

// noSecret fails the test when any printing of v holds any form of secret.
func noSecret(t *testing.T, what string, v any, secrets ...string) {
	t.Helper()
	for how, s := range printed(v) {
		for _, sec := range secrets {
			for _, f := range forms(sec) {
				if strings.Contains(s, f) {
					t.Errorf("%s printed with %s holds the secret (as %q): %s", what, how, f, s)
				}
			}
		}
	}
}

// echo is a fault whose answer quotes every form of pw, as a server that
// repeats what it was sent would.
func echo(status int, pw string) control.Fault {
	msg := http.StatusText(status) + ": bad value " + strings.Join(forms(pw), " | ")
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
	noSecret(t, "CreateUser's error", err, secret)
	noSecret(t, "CreateUserRequest", req, secret)
	noSecret(t, "CreateUserRequest by value", *req, secret)
	noSecret(t, "CreateUserRequest with the password in Extra", erp.CreateUserRequest{Login: "x", Extra: map[string]any{"pass": secret}}, secret)

	// A changed password, likewise.
	srv.InjectFault("PUT /api/index.php/users/{id}", echo(500, secret))
	upd := &erp.UpdateUserRequest{Password: erp.Ptr(secret)}
	_, err = c.UpdateUser(ctx, 1, upd)
	if err == nil {
		t.Fatal("the fault did not answer")
	}
	noSecret(t, "UpdateUser's error", err, secret)
	noSecret(t, "UpdateUserRequest", upd, secret)
	noSecret(t, "UpdateUserRequest by value", *upd, secret)

	// The session login's password, URL-encoded in the form the login page
	// may echo, or in an error page.
	srv.InjectFault("POST /index.php", control.Fault{Status: 200, Times: 1, Header: http.Header{"Content-Type": {"text/html"}},
		Body: `<form><div class="error">Bad value for password=` + url.QueryEscape(secret) + ` (` + secret + `)</div></form>`})
	lc := srv.ClientWithLogin("admin", secret)
	err = lc.Login(ctx)
	if err == nil {
		t.Fatal("the fault did not answer")
	}
	noSecret(t, "a refused login's error", err, secret)
	srv.InjectFault("POST /index.php", control.Fault{Status: 500, Times: 1, Header: http.Header{"Content-Type": {"text/plain"}},
		Body: "could not handle username=admin&password=" + url.QueryEscape(secret)})
	err = lc.Login(ctx)
	if err == nil {
		t.Fatal("the fault did not answer")
	}
	noSecret(t, "a failed login's error", err, secret)
	noSecret(t, "a client with a login", lc, secret)
	noSecret(t, "a client with a login, by value", *lc, secret)
	noSecret(t, "a client with a key", c, srv.APIKey())
	noSecret(t, "a client with a key, by value", *c, srv.APIKey())
	noSecret(t, "a client with a bearer key", srv.Client(erp.WithBearerAPIKey(srv.APIKey())), srv.APIKey())

	// The deployment's settings.
	env := map[string]string{"ERP_ADMIN_PASSWORD": secret, "DB_PASSWORD": secret + "db", "DB_ROOT_PASSWORD": secret + "root"}
	s, err := erp.LoadSettings(erp.ProfileInternalDB, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	noSecret(t, "Settings", s, secret)
	noSecret(t, "Settings by value", *s, secret)
	_, err = erp.LoadSettings(erp.ProfileExternalDB, func(k string) string { return env[k] })
	noSecret(t, "a SettingsError", err, secret)

	// The fake's own secrets: admin's password and key, seeded users'.
	noSecret(t, "the fake", srv, secret, srv.APIKey())
	seed := erpfake.UserSeed{Login: "u", Password: secret, APIKey: secret + "key"}
	noSecret(t, "a UserSeed", seed, secret)
	noSecret(t, "a Seed", erpfake.Seed{Users: []erpfake.UserSeed{seed}}, secret)
	noSecret(t, "a *Seed", &erpfake.Seed{Users: []erpfake.UserSeed{seed}}, secret)
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
// proxy's basic authentication, which net/http sends from the URL); the
// client and the settings print it without the password.
func TestURLPasswordNeverPrints(t *testing.T) {
	t.Parallel()
	const pw = "proxy-s3cret"
	root := "https://proxyuser:" + pw + "@erp.example.com"
	c, err := erp.New(root, erp.WithAPIKey("key-1234"))
	if err != nil {
		t.Fatal(err)
	}
	noSecret(t, "client", c, pw)
	noSecret(t, "client value", *c, pw)
	if !strings.Contains(c.String(), "erp.example.com") {
		t.Fatalf("the client no longer says where it points: %s", c)
	}
	s, err := erp.LoadSettings(erp.ProfileInternalDB, env(internalEnv, "ERP_URL_ROOT", root))
	if err != nil {
		t.Fatal(err)
	}
	noSecret(t, "settings", s, pw)
	noSecret(t, "settings value", *s, pw)
	if s.BaseURL() != root {
		t.Fatalf("BaseURL %s, want the URL itself", s.BaseURL())
	}
	_, err = erp.LoadSettings(erp.ProfileInternalDB, env(internalEnv, "ERP_URL_ROOT", "ftp://proxyuser:"+pw+"@erp.example.com"))
	if err == nil || !strings.Contains(err.Error(), "ERP_URL_ROOT") {
		t.Fatalf("an ftp URL root: %v", err)
	}
	noSecret(t, "the error about a URL root", err, pw)
}
