// Command cloudauth shows the cloud login client: log in, verify the token
// against the gateway's published key, ask who is logged in, keep the token
// in a store, see a refused login's exact text, and log out.
//
// With no setup it starts the embedded fake on a loopback port:
//
//	go run ./examples/cloudauth
//
// Set CLOUDAUTH_URL, CLOUDAUTH_USERNAME and CLOUDAUTH_PASSWORD (and
// CLOUDAUTH_TENANT, optional) to run it against a real gateway.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/fake/cloudauthfake"
)

func main() {
	if err := run(context.Background(), os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, "cloudauth example:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, getenv func(string) string) error {
	url, login := getenv("CLOUDAUTH_URL"), cloudauth.LoginRequest{
		Username: getenv("CLOUDAUTH_USERNAME"), Password: getenv("CLOUDAUTH_PASSWORD"), Tenant: getenv("CLOUDAUTH_TENANT"),
	}
	var opts []cloudauth.Option
	var srv *cloudauthfake.Server
	if url == "" {
		var err error
		if srv, err = cloudauthfake.New(); err != nil {
			return err
		}
		if _, err := srv.Listen("127.0.0.1:0"); err != nil {
			return err
		}
		defer srv.Close()
		if err := srv.AddUser(cloudauthfake.UserSeed{Username: "alice", Password: "wonderland", Name: "Alice Liddell", Email: "alice@example.com"}); err != nil {
			return err
		}
		url, login = srv.URL(), cloudauth.LoginRequest{Username: "alice", Password: "wonderland"}
		// The client reads the fake's clock, so expiry can be shown without waiting.
		opts = append(opts, cloudauth.WithClock(srv.Clock()))
		fmt.Println("cloudauth: embedded fake at", url)
	}
	c, err := cloudauth.New(url, opts...)
	if err != nil {
		return err
	}

	tok, err := c.Login(ctx, &login)
	if err != nil {
		return err
	}
	fmt.Printf("logged in: %v\n", tok) // a Token never prints the JWT itself
	tok, err = c.VerifyToken(ctx, tok.Raw())
	if err != nil {
		return err
	}
	fmt.Printf("verified with key %s (%s); expires %s\n", tok.KeyID, tok.Algorithm, tok.ExpiresAt.UTC().Format(time.RFC3339))

	info, err := c.UserInfo(ctx, tok)
	if err != nil {
		return err
	}
	fmt.Printf("userinfo: %s <%s>, tenant %s\n", info.Name, info.Email, info.Tenant)

	// cloudctl keeps tokens in the OS keyring, falling back to a private
	// file; a program can use any TokenStore. This one lives in memory.
	store := cloudauth.NewMemoryStore()
	if err := store.Save("default", tok.Raw()); err != nil {
		return err
	}
	raw, err := store.Load("default")
	if err != nil {
		return err
	}
	stored, err := cloudauth.ParseToken(raw) // read for display, not verified
	if err != nil {
		return err
	}
	fmt.Printf("stored token for %s, %s left\n", stored.Subject, stored.TimeLeft(clockOf(srv).Now()).Round(time.Minute))

	bad := login
	bad.Password = "not-the-password"
	_, err = c.Login(ctx, &bad)
	fmt.Printf("wrong password: %q (errors.Is ErrUnauthorized: %v)\n", err, errors.Is(err, cloudauth.ErrUnauthorized))

	if srv != nil {
		srv.Clock().Advance(srv.TokenLifetime() + time.Minute)
		_, err := c.VerifyToken(ctx, tok.Raw())
		fmt.Printf("after the fake clock passes expiry: expired %v, verify: errors.Is ErrTokenExpired %v\n",
			tok.Expired(srv.Clock().Now()), errors.Is(err, cloudauth.ErrTokenExpired))
		// A fresh login for the logout below.
		if tok, err = c.Login(ctx, &login); err != nil {
			return err
		}
	}

	if err := c.Logout(ctx, tok); err != nil {
		return err
	}
	_, err = c.UserInfo(ctx, tok)
	fmt.Printf("logged out; userinfo with the old token: %v\n", err)
	return nil
}

// clockOf is the fake's clock, or the real one against a real gateway.
func clockOf(srv *cloudauthfake.Server) clock.Clock {
	if srv != nil {
		return srv.Clock()
	}
	return clock.Real()
}
