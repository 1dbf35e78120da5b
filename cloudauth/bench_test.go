package cloudauth_test

import (
	"context"
	"testing"

	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/fake/cloudauthfake"
)

// BenchmarkLogin is a login round trip against the fake: the client's
// request and decoding, and the fake's checking and RS256 signing.
func BenchmarkLogin(b *testing.B) {
	srv := cloudauthfake.Start(b, fakeOpts()...)
	c := srv.Client()
	ctx := context.Background()
	req := &cloudauth.LoginRequest{Username: "admin", Password: cloudauthfake.AdminPassword}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Login(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerifyToken is the verification of a token against keys
// already fetched: parsing, RS256 signature, claims.
func BenchmarkVerifyToken(b *testing.B) {
	srv := cloudauthfake.Start(b, fakeOpts()...)
	c := srv.Client()
	ctx := context.Background()
	tok, err := c.Login(ctx, &cloudauth.LoginRequest{Username: "admin", Password: cloudauthfake.AdminPassword})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := c.VerifyToken(ctx, tok.Raw()); err != nil { // fetch the keys
		b.Fatal(err)
	}
	raw := tok.Raw()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.VerifyToken(ctx, raw); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseToken reads a token without verifying it, as status does.
func BenchmarkParseToken(b *testing.B) {
	srv, err := cloudauthfake.New(fakeOpts()...)
	if err != nil {
		b.Fatal(err)
	}
	raw, err := srv.IssueToken("", "admin")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := cloudauth.ParseToken(raw); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUserInfo is an authenticated call round trip.
func BenchmarkUserInfo(b *testing.B) {
	srv := cloudauthfake.Start(b, fakeOpts()...)
	c := srv.Client()
	ctx := context.Background()
	tok, err := c.Login(ctx, &cloudauth.LoginRequest{Username: "admin", Password: cloudauthfake.AdminPassword})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.UserInfo(ctx, tok); err != nil {
			b.Fatal(err)
		}
	}
}
