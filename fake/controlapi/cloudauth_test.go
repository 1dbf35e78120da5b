package controlapi_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/fake/controlapi"
)

// TestCloudAuthControls: through the control API, a suite in any language
// makes and revokes API tokens and rotates the gateway's signing key; a
// token signed before a rotation verifies until the rotation after.
func TestCloudAuthControls(t *testing.T) {
	t.Parallel()
	e := start(t)
	ctx := context.Background()
	at, err := e.c.IssueAPIToken(ctx, "", "admin", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if at.Username != "admin" || at.Tenant != e.f.CloudAuth.DefaultTenant() || at.ExpiresAt == nil || len(at.Token) != 64 ||
		strings.Contains(at.String(), at.Token) {
		t.Fatalf("API token %v", at)
	}
	client := e.f.CloudAuth.Client()
	g, err := client.AuthorizeAPIToken(ctx, at.Token)
	if err != nil {
		t.Fatal(err)
	}
	old := g.AccessToken

	rot, err := e.c.RotateCloudAuthKey(ctx)
	if err != nil || rot.KeyID == rot.PreviousKeyID || rot.KeyID != e.f.CloudAuth.KeyID() {
		t.Fatalf("rotation %+v: %v", rot, err)
	}
	if _, err := e.f.CloudAuth.Client().VerifyToken(ctx, old.Raw()); err != nil {
		t.Fatalf("a token of the key before, in the overlap: %v", err)
	}
	g, err = client.AuthorizeAPIToken(ctx, at.Token)
	if err != nil || g.AccessToken.KeyID != rot.KeyID {
		t.Fatalf("a token after the rotation: %v %v", g, err)
	}
	if _, err := e.c.RotateCloudAuthKey(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.f.CloudAuth.Client().VerifyToken(ctx, old.Raw()); !errors.Is(err, cloudauth.ErrTokenInvalid) {
		t.Fatalf("a token two rotations old: %v", err)
	}

	if err := e.c.RevokeAPIToken(ctx, at.Token); err != nil {
		t.Fatal(err)
	}
	if _, err := client.AuthorizeAPIToken(ctx, at.Token); !errors.Is(err, cloudauth.ErrBadRequest) {
		t.Fatalf("a revoked API token: %v", err)
	}
	var ae *controlapi.APIError
	if err := e.c.RevokeAPIToken(ctx, at.Token); !errors.As(err, &ae) || ae.Status != 404 {
		t.Fatalf("revoked twice: %v", err)
	}
	for _, tc := range []struct{ body, want string }{
		{`{"username":"nobody"}`, "no such user"},
		{`{"username":""}`, "username is required"},
		{`{"username":"admin","ttl":"soon"}`, "want a positive Go duration"},
		{`{"username":"admin","ttl":"-1h"}`, "want a positive Go duration"},
		{`{"username":"admin","ttl":"87841h"}`, "at most 87840h"},
		{`{"username":"admin","secret":1}`, "unknown field"},
	} {
		status, body := e.raw(t, "POST", "/api/cloudauth/api-tokens", "application/json", tc.body, token)
		if status != 400 || !strings.Contains(body, tc.want) {
			t.Fatalf("%s: %d %s", tc.body, status, body)
		}
	}
	if status, _ := e.raw(t, "POST", "/api/cloudauth/rotate-key", "", "", "wrong-token"); status != 401 {
		t.Fatalf("without the token: %d", status)
	}
	if n := e.f.CloudAuth.APITokens(); n != 0 {
		t.Fatalf("%d API tokens left", n)
	}
}

// TestConsoleRotatesTheKey: the cloudauth page has the button, and it
// rotates the key.
func TestConsoleRotatesTheKey(t *testing.T) {
	t.Parallel()
	e := start(t)
	hc := browser(t)
	check := login(t, e, hc)
	_, _, page := fetch(t, hc, "GET", e.url+"/s/cloudauth", nil)
	if !strings.Contains(page, `action="/console/cloudauth/rotate-key"`) {
		t.Fatal("the cloudauth page has no rotate button")
	}
	if _, _, page := fetch(t, hc, "GET", e.url+"/s/erp", nil); strings.Contains(page, "rotate-key") {
		t.Fatal("the erp page has a rotate button")
	}
	before := e.f.CloudAuth.KeyID()
	status, h, _ := fetch(t, hc, "POST", e.url+"/console/cloudauth/rotate-key", url.Values{"check": {check}, "back": {"/s/cloudauth"}})
	if status != http.StatusSeeOther || e.f.CloudAuth.KeyID() == before {
		t.Fatalf("rotate: %d %v", status, h)
	}
	_, _, page = fetch(t, hc, "GET", e.url+h.Get("Location"), nil)
	if !strings.Contains(page, "new tokens are signed with key "+e.f.CloudAuth.KeyID()) || !strings.Contains(page, before) {
		t.Fatalf("the page does not say what happened")
	}
	_, h, _ = fetch(t, hc, "POST", e.url+"/console/erp/rotate-key", url.Values{"check": {check}, "back": {"/s/erp"}})
	if loc, _ := url.QueryUnescape(h.Get("Location")); !strings.Contains(loc, "erp has no signing key") {
		t.Fatalf("erp rotate: %v", h)
	}
}
