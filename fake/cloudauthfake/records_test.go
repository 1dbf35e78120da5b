package cloudauthfake_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/fake/cloudauthfake"
	"github.com/apitwin/apitwin/fake/control"
)

// TestRecordsAreBounded: accounts and revoked tokens are bounded. Before
// the bound (issue 38), a loop of logins and logouts grew the revocation
// list by every token logged out in its 30 minutes of life.
func TestRecordsAreBounded(t *testing.T) {
	t.Parallel()
	srv := start(t, control.WithMaxRecords(2))
	if err := srv.AddUser(cloudauthfake.UserSeed{Username: "ops", Password: "pw"}); err != nil {
		t.Fatal(err)
	}
	if err := srv.AddUser(cloudauthfake.UserSeed{Username: "dev", Password: "pw"}); err == nil || !strings.Contains(err.Error(), "at most 2 users") {
		t.Fatalf("a third account: %v", err)
	}
	if _, ok := srv.LookupUser("", "dev"); ok {
		t.Fatal("the refused account was added")
	}

	bearer := func(tok string) http.Header { return http.Header{"Authorization": {"Bearer " + tok}} }
	var toks []string
	for range 3 {
		tok, err := srv.IssueToken("", "admin")
		if err != nil {
			t.Fatal(err)
		}
		toks = append(toks, tok)
	}
	for _, tok := range toks[:2] {
		if resp, _ := send(t, srv.RawClient(), "POST", srv.URL()+cloudauth.LogoutPath, "", bearer(tok)); resp.StatusCode != 204 {
			t.Fatalf("logout: %d", resp.StatusCode)
		}
	}
	resp, m := send(t, srv.RawClient(), "POST", srv.URL()+cloudauth.LogoutPath, "", bearer(toks[2]))
	if resp.StatusCode != 503 || m["statusCode"] != float64(503) || m["message"] != "Too many tokens revoked; try again later" {
		t.Fatalf("a third logout: %d %v", resp.StatusCode, m)
	}
	if resp, _ := send(t, srv.RawClient(), "GET", srv.URL()+cloudauth.UserInfoPath, "", bearer(toks[2])); resp.StatusCode != 200 || srv.Revoked(toks[2]) {
		t.Fatalf("the token whose logout was refused: %d", resp.StatusCode)
	}
	if err := srv.RevokeToken(toks[2]); err == nil {
		t.Fatal("Revoke past the bound")
	}
	// Once the revoked tokens have expired, they make room.
	srv.Clock().Advance(cloudauthfake.DefaultTokenLifetime + time.Second)
	tok, _ := srv.IssueToken("", "admin")
	if resp, _ := send(t, srv.RawClient(), "POST", srv.URL()+cloudauth.LogoutPath, "", bearer(tok)); resp.StatusCode != 204 || !srv.Revoked(tok) {
		t.Fatalf("logout after the revoked expired: %d", resp.StatusCode)
	}
}
