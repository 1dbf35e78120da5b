package sourcehost_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/internal/leaktest"
	"github.com/apitwin/apitwin/sourcehost"
)

func TestAuthErrors(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	srv.AddUser(sourcehostfake.UserSeed{Username: "reader"})
	srv.AddUser(sourcehostfake.UserSeed{Username: "guest"})
	readTok, _ := srv.IssueToken("reader", sourcehost.ScopeReadAPI, sourcehost.ScopeReadUser)
	repoTok, _ := srv.IssueToken("reader", sourcehost.ScopeReadRepository)
	guestTok, _ := srv.IssueToken("guest", sourcehost.ScopeAPI)
	pub, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "pub", Visibility: "public"})
	priv, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "priv"})
	srv.AddProjectMember(priv, "guest", sourcehostfake.Guest)
	srv.PushFile(priv, "main", "code.go", "package code\n", "")

	bad := srv.ClientWithToken("shpat-not-a-token")
	_, err := bad.ListProjects(ctx, nil)
	if !errors.Is(err, sourcehost.ErrUnauthorized) {
		t.Fatalf("bad token: %v", err)
	}
	var e *sourcehost.Error
	errors.As(err, &e)
	if e.Message != "401 Unauthorized" {
		t.Fatalf("message %q", e.Message)
	}

	// A read-only token that tries to write: 403 insufficient_scope.
	reader := srv.ClientWithToken(readTok)
	if _, err := reader.ListProjects(ctx, nil); err != nil {
		t.Fatalf("read with read_api: %v", err)
	}
	_, err = reader.CreateIssue(ctx, sourcehost.ProjectID(pub), &sourcehost.CreateIssueRequest{Title: "nope"})
	if !errors.Is(err, sourcehost.ErrForbidden) || !errors.Is(err, sourcehost.ErrInsufficientScope) || !errors.As(err, &e) || e.Scope != "api" {
		t.Fatalf("write with read_api: %v (%+v)", err, e)
	}
	// read_repository reaches files but not the rest of the API.
	repo := srv.ClientWithToken(repoTok)
	if _, err := repo.GetFile(ctx, sourcehost.ProjectID(pub), "x", "main"); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("file with read_repository: %v", err)
	}
	if _, err := repo.ListProjects(ctx, nil); !errors.Is(err, sourcehost.ErrInsufficientScope) {
		t.Fatalf("projects with read_repository: %v", err)
	}

	// Too little access: a guest cannot read a private repository's code or add hooks.
	guest := srv.ClientWithToken(guestTok)
	if _, err := guest.GetFile(ctx, sourcehost.ProjectID(priv), "code.go", "main"); !errors.Is(err, sourcehost.ErrForbidden) || errors.Is(err, sourcehost.ErrInsufficientScope) {
		t.Fatalf("guest reading code: %v", err)
	}
	if _, err := guest.AddProjectHook(ctx, sourcehost.ProjectID(priv), &sourcehost.AddProjectHookRequest{URL: "https://h/"}); !errors.Is(err, sourcehost.ErrForbidden) {
		t.Fatalf("guest adding a hook: %v", err)
	}
	if _, err := guest.GetProject(ctx, sourcehost.ProjectID(priv), nil); err != nil {
		t.Fatalf("guest seeing the project: %v", err)
	}

	// No token at all: public data only, writes refused.
	anon, err := sourcehost.New(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	page, err := anon.ListProjects(ctx, nil)
	if err != nil || len(page.Items) != 1 || page.Items[0].ID != pub {
		t.Fatalf("anonymous list: %+v %v", page, err)
	}
	if _, err := anon.CurrentUser(ctx); !errors.Is(err, sourcehost.ErrUnauthorized) {
		t.Fatalf("anonymous /user: %v", err)
	}
}

func TestTokenScopesAndExpiry(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	root, err := tg.c.CurrentToken(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !root.Active || !root.HasScopes(sourcehost.ScopeAPI, sourcehost.ScopeReadUser, sourcehost.ScopeReadRepository) || root.HasScopes("sudo") {
		t.Fatalf("root token %+v", root)
	}
	tomorrow := srv.Clock().Now().Add(24 * time.Hour)
	tok, _ := srv.IssueTokenExpiring(sourcehostfake.RootUsername, tomorrow, sourcehost.ScopeReadAPI)
	c := srv.ClientWithToken(tok)
	info, err := c.CurrentToken(ctx)
	if err != nil || info.ExpiresAt == nil || info.ExpiresAt.Format(sourcehost.DateLayout) != tomorrow.UTC().Format(sourcehost.DateLayout) {
		t.Fatalf("expiring token %+v %v", info, err)
	}
	srv.Clock().Advance(48 * time.Hour)
	_, err = c.ListProjects(ctx, nil)
	var e *sourcehost.Error
	if !errors.Is(err, sourcehost.ErrUnauthorized) || !errors.As(err, &e) || !strings.Contains(e.Message, "Token has expired") {
		t.Fatalf("expired token: %v", err)
	}
	revoked, _ := srv.IssueToken(sourcehostfake.RootUsername, sourcehost.ScopeAPI)
	srv.RevokeToken(revoked)
	if _, err := srv.ClientWithToken(revoked).ListProjects(ctx, nil); !errors.Is(err, sourcehost.ErrUnauthorized) {
		t.Fatalf("revoked token: %v", err)
	}
}

func TestTokenNeverInErrorsOrFormatting(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	const secret = "shpat-leak-canary-0123456789"
	// A server that echoes the token back in its error message.
	srv.InjectFault("GET /api/v4/projects", control.Fault{Status: 400, Body: `{"message":"bad token ` + secret + `"}`})
	c, err := sourcehost.New(srv.URL(), sourcehost.WithToken(secret), sourcehost.WithClock(srv.Clock()))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.ListProjects(ctx, nil)
	if err == nil {
		t.Fatal("want an error")
	}
	var e *sourcehost.Error
	errors.As(err, &e)
	leaktest.NoSecretIn(t, "the error", err, secret)
	leaktest.NoSecretIn(t, "the *Error's message", e.Message, secret)
	leaktest.NoSecretIn(t, "the *Error's body", string(e.Body), secret)
	leaktest.NoSecretIn(t, "the client", c, secret)
	// And against an unreachable server (a transport error).
	dead, _ := sourcehost.New("http://127.0.0.1:1/"+secret, sourcehost.WithToken(secret), sourcehost.WithoutRetries())
	_, err = dead.ListProjects(ctx, nil)
	if err == nil {
		t.Fatal("a call to an unreachable server succeeded")
	}
	leaktest.NoSecretIn(t, "the transport error", err, secret)
	if _, err := sourcehost.New("http://h", sourcehost.WithToken("a\nb")); err == nil {
		t.Fatal("token with a line break accepted")
	}
}

func TestErrorStatusSentinels(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	c := srv.Client(sourcehost.WithoutRetries())
	for _, tc := range []struct {
		status int
		body   string
		is     error
		msg    string
	}{
		{400, `{"error":"title is missing"}`, sourcehost.ErrBadRequest, "title is missing"},
		{401, `{"message":"401 Unauthorized"}`, sourcehost.ErrUnauthorized, "401 Unauthorized"},
		{403, `{"message":"403 Forbidden"}`, sourcehost.ErrForbidden, "403 Forbidden"},
		{404, `{"message":"404 Project Not Found"}`, sourcehost.ErrNotFound, "404 Project Not Found"},
		{409, `{"message":["Another open merge request already exists for this source branch: !1"]}`, sourcehost.ErrConflict, "Another open merge request already exists for this source branch: !1"},
		{422, `{"message":{"url":["is blocked"],"base":["Invalid"]}}`, sourcehost.ErrUnprocessable, "Invalid; url is blocked"},
		{429, "Retry later\n", sourcehost.ErrRateLimited, "Retry later"},
		{500, `{"message":"500 Internal Server Error"}`, sourcehost.ErrServer, "500 Internal Server Error"},
		{503, `<html>down</html>`, sourcehost.ErrServer, "<html>down</html>"},
	} {
		srv.ClearFaults()
		srv.InjectFault("GET /api/v4/projects/{id}", control.Fault{Status: tc.status, Body: tc.body, Header: http.Header{"X-Request-Id": {"req-1"}}})
		_, err := c.GetProject(ctx, sourcehost.ProjectID(1), nil)
		var e *sourcehost.Error
		if !errors.Is(err, tc.is) || !errors.As(err, &e) || e.StatusCode != tc.status || e.Message != tc.msg || e.RequestID != "req-1" {
			t.Errorf("%d: err %v, *Error %+v", tc.status, err, e)
		}
		for _, other := range []error{sourcehost.ErrNotFound, sourcehost.ErrUnauthorized} {
			if other != tc.is && errors.Is(err, other) {
				t.Errorf("%d also matches %v", tc.status, other)
			}
		}
	}
}

// Client.WithToken: the copy acts as the other token's user, keeps the
// client's settings, hides its token, and leaves the client as it was; a
// token no header can carry is refused.
func TestClientWithToken(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	srv.AddUser(sourcehostfake.UserSeed{Username: "reader"})
	readTok, err := srv.IssueToken("reader", sourcehost.ScopeReadAPI, sourcehost.ScopeReadUser)
	if err != nil {
		t.Fatal(err)
	}
	root := srv.Client()
	reader, err := root.WithToken(readTok)
	if err != nil {
		t.Fatal(err)
	}
	if u, err := reader.CurrentUser(ctx); err != nil || u.Username != "reader" {
		t.Fatalf("the copy is %+v, %v", u, err)
	}
	if u, err := root.CurrentUser(ctx); err != nil || u.Username != "root" {
		t.Fatalf("the client after WithToken is %+v, %v", u, err)
	}
	if reader.BaseURL() != root.BaseURL() {
		t.Errorf("the copy's base URL %q", reader.BaseURL())
	}
	if s := fmt.Sprintf("%v %#v", reader, reader); strings.Contains(s, readTok) {
		t.Errorf("the copy prints its token: %s", s)
	}
	for _, bad := range []string{"", "  ", "tok\r\nX-Evil: 1"} {
		if c, err := root.WithToken(bad); err == nil || c != nil {
			t.Errorf("WithToken(%q) = %v, %v", bad, c, err)
		}
	}
}
