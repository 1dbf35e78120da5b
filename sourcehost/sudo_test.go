package sourcehost_test

import (
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

// TestSudoActsAsAnotherUser: an administrator's token with the sudo scope
// acts as the user the Sudo header (or the sudo parameter) names, by
// username or id, with that user's permissions.
func TestSudoActsAsAnotherUser(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	clients, ids := users(t, srv, "alice", "bob")
	secret, err := srv.IssueToken(sourcehostfake.RootUsername, sourcehost.ScopeAPI, sourcehost.ScopeSudo)
	if err != nil {
		t.Fatal(err)
	}
	asAlice := srv.ClientWithToken(secret, sourcehost.WithSudo("ALICE"))
	me, err := asAlice.CurrentUser(ctx)
	if err != nil || me.Username != "alice" {
		t.Fatalf("sudo alice is %+v, %v", me, err)
	}
	p, err := asAlice.CreateProject(ctx, &sourcehost.CreateProjectRequest{Name: "hers"})
	if err != nil || p.PathWithNamespace != "alice/hers" {
		t.Fatalf("a project made as alice: %+v %v", p, err)
	}
	bobs, err := clients["bob"].CreateProject(ctx, &sourcehost.CreateProjectRequest{Name: "private"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := asAlice.GetProject(ctx, pid(bobs), nil); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("alice's permissions see bob's private project: %v", err)
	}
	asBob, err := asAlice.Sudo(sourcehost.SudoUser(ids["bob"]))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := asBob.GetProject(ctx, pid(bobs), nil); err != nil || got.ID != bobs.ID {
		t.Fatalf("sudo by id: %+v %v", got, err)
	}
	if r := srv.RequestsTo("GET /api/v4/projects/{id}"); len(r) != 2 || r[1].Caller != "bob" || r[1].Header.Get("Sudo") != sourcehost.SudoUser(ids["bob"]) {
		t.Fatalf("the request log: %+v", r)
	}
	if me, err := srv.ClientWithToken(secret).CurrentUser(ctx); err != nil || me.Username != sourcehostfake.RootUsername {
		t.Fatalf("without sudo the token is root's: %+v %v", me, err)
	}

	// The parameter, as clients that cannot set headers send it.
	raw := func(token, query string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, srv.URL()+"/api/v4/user?"+query, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("PRIVATE-TOKEN", token)
		resp, err := srv.RawClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if status, body := raw(secret, "sudo=bob"); status != http.StatusOK || !strings.Contains(body, `"username":"bob"`) {
		t.Fatalf("sudo as a parameter: %d %s", status, body)
	}
	if status, body := raw(secret, url.Values{"sudo": {"nobody"}}.Encode()); status != http.StatusNotFound ||
		body != `{"message":"404 User with ID or username 'nobody' Not Found"}` {
		t.Fatalf("sudo as no one: %d %s", status, body)
	}
}

func TestSudoRefusals(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	clients, _ := users(t, srv, "alice", "bob")
	aliceSudo, err := srv.IssueToken("alice", sourcehost.ScopeAPI, sourcehost.ScopeSudo)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		c       *sourcehost.Client
		status  int
		message string
		scope   string
	}{
		{"a user who is no administrator", srv.ClientWithToken(aliceSudo, sourcehost.WithSudo("bob")), http.StatusForbidden,
			"403 Forbidden - Must be admin to use sudo", ""},
		{"no administrator, without the scope", mustSudo(t, clients["alice"], "bob"), http.StatusForbidden,
			"403 Forbidden - Must be admin to use sudo", ""},
		{"an administrator's token without the sudo scope", srv.Client(sourcehost.WithSudo("bob")), http.StatusForbidden, "", "sudo"},
	} {
		_, err := tc.c.CurrentUser(ctx)
		var e *sourcehost.Error
		if !errors.As(err, &e) || e.StatusCode != tc.status || e.Message != tc.message && tc.message != "" || e.Scope != tc.scope {
			t.Errorf("%s: %v (%+v)", tc.name, err, e)
		}
	}
	if _, err := sourcehost.New(srv.URL(), sourcehost.WithSudo("bob\r\nX-Evil: 1")); err == nil {
		t.Fatal("a sudo user with a line break was taken")
	}
	if _, err := srv.Client().Sudo(" "); err == nil {
		t.Fatal("a blank sudo user was taken")
	}
}

func mustSudo(t *testing.T, c *sourcehost.Client, user string) *sourcehost.Client {
	t.Helper()
	s, err := c.Sudo(user)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestAuthFormsGitLabClientsSend: a token works the same in PRIVATE-TOKEN,
// as an OAuth bearer token, and in the private_token parameter; its
// scopes bind it the same in each.
func TestAuthFormsGitLabClientsSend(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	users(t, srv, "alice")
	reader, err := srv.IssueToken("alice", sourcehost.ScopeReadAPI)
	if err != nil {
		t.Fatal(err)
	}
	send := func(method, path string, set func(*http.Request)) int {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL()+"/api/v4"+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		set(req)
		resp, err := srv.RawClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, form := range []struct {
		name string
		set  func(r *http.Request, token string)
	}{
		{"PRIVATE-TOKEN", func(r *http.Request, token string) { r.Header.Set("PRIVATE-TOKEN", token) }},
		{"Authorization: Bearer", func(r *http.Request, token string) { r.Header.Set("Authorization", "Bearer "+token) }},
		{"private_token", func(r *http.Request, token string) { r.URL.RawQuery = url.Values{"private_token": {token}}.Encode() }},
	} {
		if got := send(http.MethodGet, "/user", func(r *http.Request) { form.set(r, reader) }); got != http.StatusOK {
			t.Errorf("%s: reading: %d", form.name, got)
		}
		if got := send(http.MethodPost, "/projects?name=x", func(r *http.Request) { form.set(r, reader) }); got != http.StatusForbidden {
			t.Errorf("%s: writing with read_api: %d, want 403", form.name, got)
		}
		if got := send(http.MethodGet, "/user", func(r *http.Request) { form.set(r, "no-such-token") }); got != http.StatusUnauthorized {
			t.Errorf("%s: an unknown token: %d, want 401", form.name, got)
		}
	}
}
