package sourcehost_test

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/internal/leaktest"
	"github.com/apitwin/apitwin/sourcehost"
)

// statusOf is the status and message of an *Error, or 0 and the error's
// text.
func statusOf(err error) (int, string) {
	var e *sourcehost.Error
	if errors.As(err, &e) {
		return e.StatusCode, e.Message
	}
	return 0, fmt.Sprint(err)
}

// TestAdminMakesTokensWithExactlyTheirScopes: an administrator's token for
// a user carries exactly the scopes asked for, and the fake enforces them
// as a token of those scopes is enforced: read_api reads and cannot
// write, read_user reads the user and not projects.
func TestAdminMakesTokensWithExactlyTheirScopes(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	_, ids := users(t, srv, "alice")
	admin := srv.Client()
	tok, err := admin.CreatePersonalAccessToken(ctx, ids["alice"], &sourcehost.CreatePersonalAccessTokenRequest{
		Name: "reader", Scopes: []string{sourcehost.ScopeReadAPI}, ExpiresAt: &sourcehost.Date{Time: srv.Clock().Now().AddDate(0, 1, 0)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if tok.Token == "" || tok.Name != "reader" || tok.UserID != ids["alice"] || !slices.Equal(tok.Scopes, []string{"read_api"}) || !tok.Active ||
		tok.ExpiresAt == nil {
		t.Fatalf("new token %+v", tok.PersonalAccessToken)
	}
	leaktest.NoSecretIn(t, "a new token", *tok, tok.Token)
	leaktest.NoSecretIn(t, "a new token's pointer", tok, tok.Token)
	var logged bytes.Buffer
	slog.New(slog.NewTextHandler(&logged, nil)).Info("made", "token", *tok)
	if bytes.Contains(logged.Bytes(), []byte(tok.Token)) {
		t.Fatalf("slog shows the secret: %s", logged.Bytes())
	}
	logs := srv.RequestsTo("POST /api/v4/users/{user_id}/personal_access_tokens")
	if len(logs) != 1 {
		t.Fatalf("the request log holds %d token creations", len(logs))
	}
	for _, r := range logs {
		if bytes.Contains(r.ResponseBody, []byte(tok.Token)) || !bytes.Contains(r.ResponseBody, []byte(`"token":"[REDACTED]"`)) {
			t.Fatalf("the request log keeps the answer %s", r.ResponseBody)
		}
	}

	reader := srv.ClientWithToken(tok.Token)
	self, err := reader.CurrentToken(ctx)
	if err != nil || self.ID != tok.ID || !self.HasScopes(sourcehost.ScopeReadAPI) || self.HasScopes(sourcehost.ScopeAPI) {
		t.Fatalf("the token describes itself as %+v, %v", self, err)
	}
	if _, err := reader.ListProjects(ctx, nil); err != nil {
		t.Fatalf("read_api lists projects: %v", err)
	}
	_, err = reader.CreateProject(ctx, &sourcehost.CreateProjectRequest{Name: "nope"})
	if var403 := new(sourcehost.Error); !errors.Is(err, sourcehost.ErrInsufficientScope) || !errors.As(err, &var403) || var403.Scope != "api" {
		t.Fatalf("read_api writing: %v", err)
	}

	userOnly, err := admin.CreatePersonalAccessToken(ctx, ids["alice"], &sourcehost.CreatePersonalAccessTokenRequest{
		Name: "me", Scopes: []string{sourcehost.ScopeReadUser}})
	if err != nil {
		t.Fatal(err)
	}
	uc := srv.ClientWithToken(userOnly.Token)
	if me, err := uc.CurrentUser(ctx); err != nil || me.Username != "alice" {
		t.Fatalf("read_user reads the user: %+v %v", me, err)
	}
	if _, err := uc.ListProjects(ctx, nil); !errors.Is(err, sourcehost.ErrInsufficientScope) {
		t.Fatalf("read_user listing projects: %v", err)
	}
}

func TestTokenRefusals(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	clients, ids := users(t, srv, "alice", "bob")
	admin := srv.Client()
	for _, tc := range []struct {
		name    string
		c       *sourcehost.Client
		user    int64
		req     *sourcehost.CreatePersonalAccessTokenRequest
		status  int
		message string
	}{
		{"no administrator", clients["alice"], ids["bob"], &sourcehost.CreatePersonalAccessTokenRequest{Name: "x", Scopes: []string{"api"}},
			http.StatusForbidden, "403 Forbidden"},
		{"an unknown scope", admin, ids["bob"], &sourcehost.CreatePersonalAccessTokenRequest{Name: "x", Scopes: []string{"everything"}},
			http.StatusBadRequest, "scopes does not have a valid value"},
		{"no such user", admin, 999, &sourcehost.CreatePersonalAccessTokenRequest{Name: "x", Scopes: []string{"api"}},
			http.StatusNotFound, "404 User Not Found"},
		{"an expiry in the past", admin, ids["bob"], &sourcehost.CreatePersonalAccessTokenRequest{Name: "x", Scopes: []string{"api"},
			ExpiresAt: &sourcehost.Date{Time: time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)}}, http.StatusBadRequest, "expires_at must be in the future"},
	} {
		_, err := tc.c.CreatePersonalAccessToken(ctx, tc.user, tc.req)
		if status, msg := statusOf(err); status != tc.status || msg != tc.message {
			t.Errorf("%s: %d %q, want %d %q", tc.name, status, msg, tc.status, tc.message)
		}
	}
	if n := len(srv.Requests()); n == 0 {
		t.Fatal("nothing reached the fake")
	}
}

func TestListAndRevokeTokens(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	clients, ids := users(t, srv, "alice", "bob")
	admin := srv.Client()

	mine := func(c *sourcehost.Client, opts *sourcehost.ListPersonalAccessTokensOptions) []int64 {
		t.Helper()
		var out []int64
		for tk, err := range c.AllPersonalAccessTokens(ctx, opts) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, tk.UserID)
		}
		return out
	}
	if got := mine(clients["alice"], nil); !slices.Equal(got, []int64{ids["alice"]}) {
		t.Fatalf("alice lists the tokens of users %v, want hers alone", got)
	}
	if got := mine(admin, &sourcehost.ListPersonalAccessTokensOptions{UserID: ids["bob"]}); !slices.Equal(got, []int64{ids["bob"]}) {
		t.Fatalf("the admin lists bob's as %v", got)
	}
	if got := mine(admin, nil); len(got) != 3 {
		t.Fatalf("the admin lists %v, want root's, alice's and bob's", got)
	}
	_, err := clients["alice"].ListPersonalAccessTokens(ctx, &sourcehost.ListPersonalAccessTokensOptions{UserID: ids["bob"]})
	if status, _ := statusOf(err); status != http.StatusUnauthorized {
		t.Fatalf("alice listing bob's: %v", err)
	}

	bobs, err := admin.ListPersonalAccessTokens(ctx, &sourcehost.ListPersonalAccessTokensOptions{UserID: ids["bob"]})
	if err != nil || len(bobs.Items) != 1 {
		t.Fatalf("%+v %v", bobs, err)
	}
	bobTok := bobs.Items[0].ID
	if _, err := clients["alice"].GetPersonalAccessToken(ctx, bobTok); !errors.Is(err, sourcehost.ErrUnauthorized) {
		t.Fatalf("alice reading bob's token: %v", err)
	}
	if _, err := admin.GetPersonalAccessToken(ctx, 9999); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("the admin reading no token: %v", err)
	}
	err = clients["alice"].RevokePersonalAccessToken(ctx, bobTok)
	if status, msg := statusOf(err); status != http.StatusBadRequest || msg != "400 Bad request - Not permitted to revoke" {
		t.Fatalf("alice revoking bob's token: %v", err)
	}
	if err := clients["alice"].RevokePersonalAccessToken(ctx, 9999); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("revoking no token: %v", err)
	}
	if err := admin.RevokePersonalAccessToken(ctx, bobTok); err != nil {
		t.Fatal(err)
	}
	if _, err := clients["bob"].CurrentUser(ctx); !errors.Is(err, sourcehost.ErrUnauthorized) {
		t.Fatalf("a revoked token still works: %v", err)
	}
	got, err := admin.GetPersonalAccessToken(ctx, bobTok)
	if err != nil || !got.Revoked || got.Active {
		t.Fatalf("bob's token after revoking: %+v %v", got, err)
	}
	if revoked, _ := admin.ListPersonalAccessTokens(ctx, &sourcehost.ListPersonalAccessTokensOptions{Revoked: sourcehost.Ptr(true)}); len(revoked.Items) != 1 ||
		revoked.Items[0].ID != bobTok {
		t.Fatalf("revoked tokens: %+v", revoked)
	}

	if err := clients["alice"].RevokeCurrentToken(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := clients["alice"].CurrentUser(ctx); !errors.Is(err, sourcehost.ErrUnauthorized) {
		t.Fatalf("a token revoked by itself still works: %v", err)
	}
}
