package cloudauth_test

import (
	"context"
	"testing"

	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/fake/cloudauthfake"
	"github.com/apitwin/apitwin/internal/apitable"
	"github.com/apitwin/apitwin/internal/apitable/apitabletest"
)

// TestEndpointTable holds the client, the fake and the doc comments to the
// endpoint table (internal/apitable.Cloudauth): every method calls the
// endpoints its rows name, the fake serves them, and the method's doc
// names them with their documentation links.
func TestEndpointTable(t *testing.T) {
	t.Parallel()
	srv := cloudauthfake.Start(t)
	c := srv.Client()
	// A token of the fake's, for the calls that take one (logged in
	// before the calls are counted).
	tok, err := c.Login(t.Context(), &cloudauth.LoginRequest{Username: cloudauthfake.AdminUsername, Password: cloudauthfake.AdminPassword})
	if err != nil {
		t.Fatal(err)
	}
	apiTok, err := srv.IssueAPIToken("", cloudauthfake.AdminUsername, 0)
	if err != nil {
		t.Fatal(err)
	}
	apitabletest.Check(t, []*apitable.Table{apitable.Cloudauth()}, srv, apitabletest.Setup{
		Dir:    ".",
		Client: c,
		Calls: map[string]func(context.Context) error{
			"UserInfo": func(ctx context.Context) error { _, err := c.UserInfo(ctx, tok); return err },
			"Logout":   func(ctx context.Context) error { return c.Logout(ctx, tok) },
			"AuthorizeAPIToken": func(ctx context.Context) error {
				_, err := c.AuthorizeAPIToken(ctx, apiTok)
				return err
			},
			// A fresh client: c holds the keys once it has fetched them.
			"VerifyToken": func(ctx context.Context) error { _, err := srv.Client().VerifyToken(ctx, tok.Raw()); return err },
		},
	})
}
