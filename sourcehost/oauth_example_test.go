package sourcehost_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"golang.org/x/oauth2"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

// A resource server asks what an OAuth token presented to it is before it
// serves it: here a token an OAuth client got, with PKCE, for the resource
// https://mcp.example.com/mcp.
func ExampleClient_OAuthTokenInfo() {
	srv := startFake()
	defer srv.Close()
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, srv.RawClient())

	// The OAuth client's side: an application, the user's consent
	// (Authorize stands for the login page), the code exchanged.
	clientID, secret, err := srv.AddOAuthApplication(sourcehostfake.OAuthApplicationSeed{
		Name: "assistant", RedirectURIs: []string{"http://127.0.0.1:9/cb"}, Confidential: true,
	})
	if err != nil {
		panic(err)
	}
	app := oauth2.Config{ClientID: clientID, ClientSecret: secret, RedirectURL: "http://127.0.0.1:9/cb", Scopes: []string{"read_api"},
		Endpoint: oauth2.Endpoint{AuthURL: srv.URL() + "/oauth/authorize", TokenURL: srv.URL() + "/oauth/token"}}
	verifier := oauth2.GenerateVerifier()
	back, err := srv.Authorize("root", app.AuthCodeURL("state", oauth2.S256ChallengeOption(verifier),
		oauth2.SetAuthURLParam("resource", "https://mcp.example.com/mcp")))
	if err != nil {
		panic(err)
	}
	u, err := url.Parse(back)
	if err != nil {
		panic(err)
	}
	tok, err := app.Exchange(ctx, u.Query().Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		panic(err)
	}

	// The resource server's side: a client with no credentials of its own.
	c, err := sourcehost.New(srv.URL())
	if err != nil {
		panic(err)
	}
	info, err := c.OAuthTokenInfo(ctx, tok.AccessToken)
	if err != nil {
		panic(err)
	}
	fmt.Println(info.ResourceOwnerID, info.Scope, *info.Resource, info.Application.UID == clientID)
	_, err = c.OAuthTokenInfo(ctx, "not-a-token")
	fmt.Println(errors.Is(err, sourcehost.ErrUnauthorized))
	// Output:
	// 1 [read_api] https://mcp.example.com/mcp true
	// true
}
