package cloudauthfake_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/fake/cloudauthfake"
	"github.com/apitwin/apitwin/fake/control"
)

// startExampleFake serves a fake on loopback for an example, on a clock set to
// 1 May 2026, 09:00 UTC; a test would use cloudauthfake.Start(t).
func startExampleFake() *cloudauthfake.Server {
	srv, err := cloudauthfake.New(control.WithClock(clock.NewFake(time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC))))
	if err != nil {
		panic(err)
	}
	if _, err := srv.Listen("127.0.0.1:0"); err != nil {
		panic(err)
	}
	return srv
}

// Seed an account, log in with a client of the fake, and let the token run
// out on the fake's clock.
func Example() {
	srv := startExampleFake()
	defer srv.Close()
	ctx := context.Background()
	if err := srv.AddUser(cloudauthfake.UserSeed{Username: "alice", Password: "s3cret-pw", Tenant: "acme", Name: "Alice Liddell"}); err != nil {
		panic(err)
	}

	c := srv.Client() // on the fake's clock
	tok, err := c.Login(ctx, &cloudauth.LoginRequest{Username: "alice", Password: "s3cret-pw", Tenant: "acme"})
	if err != nil {
		panic(err)
	}
	fmt.Println(tok.Subject, tok.Tenant, tok.ExpiresAt.Sub(srv.Clock().Now()))
	info, err := c.UserInfo(ctx, tok)
	fmt.Println(info.Name, err)

	srv.Clock().Advance(31 * time.Minute)
	_, err = c.UserInfo(ctx, tok)
	fmt.Println(err, errors.Is(err, cloudauth.ErrUnauthorized))
	fmt.Println("issued:", srv.Issued(), "logins:", len(srv.RequestsTo(cloudauthfake.RouteLogin)))
	// Output:
	// alice acme 30m0s
	// Alice Liddell <nil>
	// Authentication failed: 401 Unauthorized true
	// issued: 1 logins: 1
}

// A locked account is refused with the same 401 as a wrong password, so the
// gateway gives nothing away.
func ExampleServer_SetLocked() {
	srv := startExampleFake()
	defer srv.Close()
	ctx := context.Background()
	srv.AddUser(cloudauthfake.UserSeed{Username: "bob", Password: "pw-of-bob"}) // the default tenant
	if err := srv.SetLocked(srv.DefaultTenant(), "bob", true); err != nil {
		panic(err)
	}

	_, err := srv.Client().Login(ctx, &cloudauth.LoginRequest{Username: "bob", Password: "pw-of-bob"})
	fmt.Println(err)
	fmt.Println(errors.Is(err, cloudauth.ErrUnauthorized))
	_, err = srv.IssueToken(srv.DefaultTenant(), "bob")
	fmt.Println(err != nil, "issued:", srv.Issued())
	// Output:
	// Authentication failed: 401 Unauthorized
	// true
	// true issued: 0
}

// An injected fault answers the next requests to a route: here the gateway
// is down for one login. A login is a POST, which the client never sends
// twice, so the caller sees the 503.
func ExampleServer_InjectFault() {
	srv := startExampleFake()
	defer srv.Close()
	ctx := context.Background()
	srv.AddUser(cloudauthfake.UserSeed{Username: "alice", Password: "s3cret-pw"})
	srv.InjectFault(cloudauthfake.RouteLogin, control.Fault{Status: http.StatusServiceUnavailable, Times: 1})

	req := &cloudauth.LoginRequest{Username: "alice", Password: "s3cret-pw"}
	_, err := srv.Client().Login(ctx, req)
	fmt.Println(err)
	tok, err := srv.Client().Login(ctx, req)
	fmt.Println(tok.Subject, err)
	for _, r := range srv.RequestsTo(cloudauthfake.RouteLogin) {
		fmt.Println(r.Status, r.Fault)
	}
	// Output:
	// cloudauth: POST /csp/gateway/am/api/login: 503 Service Unavailable (not retried: the call is not idempotent, and sending it again could do it twice)
	// alice <nil>
	// 503 true
	// 200 false
}

// Rotating the signing key: new tokens name the new key, the key document
// lists both, and a token of the old key still verifies until the next
// rotation drops that key.
func ExampleServer_RotateKey() {
	srv := startExampleFake()
	defer srv.Close()
	ctx := context.Background()
	c := srv.Client()
	login := &cloudauth.LoginRequest{Username: "admin", Password: cloudauthfake.AdminPassword}
	before, _ := c.Login(ctx, login)

	kid, err := srv.RotateKey(nil, "key-2") // nil: a fresh key
	if err != nil {
		panic(err)
	}
	after, _ := c.Login(ctx, login)
	keys, _ := c.PublicKeys(ctx)
	fmt.Println(kid, after.KeyID == kid, before.KeyID == kid, len(keys.KeyIDs()))
	_, err = c.VerifyToken(ctx, before.Raw())
	fmt.Println("old token:", err)

	srv.RotateKey(nil, "key-3")
	_, err = c.UserInfo(ctx, before)
	fmt.Println("old token after a second rotation:", err)
	// Output:
	// key-2 true false 2
	// old token: <nil>
	// old token after a second rotation: Authentication failed: 401 Unauthorized
}
