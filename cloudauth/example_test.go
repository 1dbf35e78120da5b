package cloudauth_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/fake/cloudauthfake"
	"github.com/apitwin/apitwin/fake/control"
)

// startExampleFake serves a fake on a clock set to 1 May 2026, 09:00 UTC;
// a test would use cloudauthfake.Start(t).
func startExampleFake() *cloudauthfake.Server {
	srv, err := cloudauthfake.New(cloudauthfake.WithKey(testKey(), "key-1"),
		control.WithClock(clock.NewFake(time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC))))
	if err != nil {
		panic(err)
	}
	if _, err := srv.Listen("127.0.0.1:0"); err != nil {
		panic(err)
	}
	if err := srv.AddUser(cloudauthfake.UserSeed{Username: "alice", Password: "s3cret-pw", Tenant: "acme", Name: "Alice Liddell"}); err != nil {
		panic(err)
	}
	return srv
}

func Example() {
	srv := startExampleFake()
	defer srv.Close()
	ctx := context.Background()

	c, err := cloudauth.New(srv.URL(), cloudauth.WithClock(srv.Clock()))
	if err != nil {
		panic(err)
	}
	tok, err := c.Login(ctx, &cloudauth.LoginRequest{Username: "alice", Password: "s3cret-pw", Tenant: "acme"})
	if err != nil {
		panic(err)
	}
	fmt.Println(tok.Subject, tok.Tenant, tok.ExpiresAt.Format(time.RFC3339))

	tok, err = c.VerifyToken(ctx, tok.Raw())
	if err != nil {
		panic(err)
	}
	fmt.Println("verified:", tok.Verified, "key:", tok.KeyID)

	info, err := c.UserInfo(ctx, tok)
	if err != nil {
		panic(err)
	}
	fmt.Println(info.Name)

	if err := c.Logout(ctx, tok); err != nil {
		panic(err)
	}
	_, err = c.UserInfo(ctx, tok)
	fmt.Println(err)
	// Output:
	// alice acme 2026-05-01T09:30:00Z
	// verified: true key: key-1
	// Alice Liddell
	// Authentication failed: 401 Unauthorized
}

func ExampleClient_Login_refused() {
	srv := startExampleFake()
	defer srv.Close()
	c, _ := cloudauth.New(srv.URL())
	for _, req := range []*cloudauth.LoginRequest{
		{Username: "alice", Password: "wrong", Tenant: "acme"},
		{Username: "alice", Password: "s3cret-pw", Tenant: "elsewhere"},
	} {
		_, err := c.Login(context.Background(), req)
		fmt.Println(err, errors.Is(err, cloudauth.ErrUnauthorized))
	}
	// Output:
	// Authentication failed: 401 Unauthorized true
	// Authentication failed: 401 Unauthorized true
}

func ExampleClient_VerifyToken_expired() {
	srv := startExampleFake()
	defer srv.Close()
	ctx := context.Background()
	c := srv.Client()
	tok, _ := c.Login(ctx, &cloudauth.LoginRequest{Username: "alice", Password: "s3cret-pw", Tenant: "acme"})
	fmt.Println(tok.TimeLeft(srv.Clock().Now()))

	srv.Clock().Advance(time.Hour)
	fmt.Println(tok.Expired(srv.Clock().Now()))
	_, err := c.VerifyToken(ctx, tok.Raw())
	fmt.Println(errors.Is(err, cloudauth.ErrTokenExpired))
	// Output:
	// 30m0s
	// true
	// true
}

// A keyring that refuses makes the store fall back to a private file and
// say so.
func ExampleNewStore() {
	dir, _ := os.MkdirTemp("", "tokens")
	defer os.RemoveAll(dir)
	kr := cloudauth.NewMemoryKeyring() // a test's keyring; nil means the system's
	kr.SetFailure(errors.New("no Secret Service on this machine"))
	store := cloudauth.NewStore("cloudctl", dir, kr)

	err := store.Save("prod", "eyJhbGciOiJSUzI1NiJ9.e30.c2ln")
	fmt.Println(err)
	fmt.Println(errors.Is(err, cloudauth.ErrInsecureStorage))
	tok, _ := store.Load("prod")
	fmt.Println(tok != "")
	// Output:
	// Could not store token securely
	// true
	// true
}

func ExampleResolveSettings() {
	cfg := &cloudauth.Config{}
	cfg.Add(cloudauth.Profile{Name: "prod", URL: "https://cloud.example.com", Tenant: "acme"})
	cfg.Use("prod")
	env := map[string]string{"CLI_USERNAME": "alice", "CLI_VERIFY_SSL": "false"}

	s, err := cloudauth.ResolveSettings(cloudauth.Overrides{Tenant: "acme-test"}, func(k string) string { return env[k] }, cfg)
	if err != nil {
		panic(err)
	}
	fmt.Println(s.Profile, s.URL, s.Tenant, s.Username, s.VerifySSL)
	fmt.Println(s.Sources["url"], "|", s.Sources["tenant"], "|", s.Sources["username"])
	// Output:
	// prod https://cloud.example.com acme-test alice false
	// profile prod | flag | env CLI_USERNAME
}

// UpdateConfig changes the configuration file under its lock, so that
// programs run at once lose none of each other's changes; fields of the
// file it does not know are kept.
func ExampleUpdateConfig() {
	dir, err := os.MkdirTemp("", "cloudctl-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, cloudauth.ConfigFileName),
		[]byte(`{"profiles":{"dev":{"url":"https://dev.example.com","colour":"blue"}}}`), 0o600)

	cfg, err := cloudauth.UpdateConfig(dir, func(cfg *cloudauth.Config) error {
		if err := cfg.Add(cloudauth.Profile{Name: "prod", URL: "https://cloud.example.com", Tenant: "acme"}); err != nil {
			return err
		}
		return cfg.Use("prod")
	})
	fmt.Println(cfg.Current, len(cfg.Profiles), err)
	b, _ := os.ReadFile(filepath.Join(dir, cloudauth.ConfigFileName))
	fmt.Println(strings.Contains(string(b), `"colour": "blue"`))

	// A bad value is refused, naming the field.
	os.WriteFile(filepath.Join(dir, cloudauth.ConfigFileName), []byte(`{"profiles":{"dev":{"url":42}}}`), 0o600)
	_, err = cloudauth.LoadConfig(dir)
	fmt.Println(strings.TrimPrefix(err.Error(), filepath.Join(dir, cloudauth.ConfigFileName)+": "))
	// Output:
	// prod 2 <nil>
	// true
	// profiles.dev.url: want a string, got a number
}

// A script's long-lived API token is exchanged for access tokens, and the
// session renews the access token by itself once it has expired.
func ExampleSession() {
	srv := startExampleFake()
	defer srv.Close()
	ctx := context.Background()
	apiToken, err := srv.IssueAPIToken("acme", "alice", 0) // made in the gateway's console, for a real one
	if err != nil {
		panic(err)
	}

	c, err := cloudauth.New(srv.URL(), cloudauth.WithClock(srv.Clock()))
	if err != nil {
		panic(err)
	}
	s := c.NewSession(nil, apiToken)
	info, err := s.UserInfo(ctx) // exchanges the API token first
	if err != nil {
		panic(err)
	}
	fmt.Println(info.Username, info.Tenant)

	srv.Clock().Advance(31 * time.Minute) // the access token has expired
	tok, err := s.Token(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println("expires:", tok.ExpiresAt.Format(time.RFC3339), "renewals:", s.Renewals())
	// Output:
	// alice acme
	// expires: 2026-05-01T10:01:00Z renewals: 2
}
