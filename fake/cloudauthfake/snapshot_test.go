package cloudauthfake_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/fake/cloudauthfake"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/google/go-cmp/cmp"
)

// A snapshot restored into a new fake signing with the same key (and
// issuer, as a program restarted on its port has) keeps the
// accounts (every field), the tokens: one issued before verifies, one
// logged out stays refused; and the count of tokens issued. The admin
// answers to the new fake's password.
func TestSnapshotRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := clock.NewFake(t0)
	src := cloudauthfake.Start(t, cloudauthfake.WithKey(testKey(), "k1"), control.WithClock(clk), cloudauthfake.WithDefaultTenant("corp"),
		cloudauthfake.WithIssuer("http://auth.test"))
	jane := cloudauthfake.UserSeed{Username: "jane", Password: "pw-jane", Tenant: "other", Name: "Jane", Email: "j@x",
		Roles: []string{"org_member", "reader"}, Locked: true}
	bob := cloudauthfake.UserSeed{Username: "bob", Password: "pw-bob", Tenant: "corp", Roles: []string{"org_member"}}
	if err := src.Load(cloudauthfake.Seed{Users: []cloudauthfake.UserSeed{jane, bob}}); err != nil {
		t.Fatal(err)
	}
	kept, err := src.IssueToken("corp", "bob")
	if err != nil {
		t.Fatal(err)
	}
	out, err := src.IssueToken("corp", "bob")
	if err != nil {
		t.Fatal(err)
	}
	if err := src.RevokeToken(out); err != nil {
		t.Fatal(err)
	}
	data, err := src.Snapshot()
	if err != nil {
		t.Fatal(err)
	}

	dst := cloudauthfake.Start(t, cloudauthfake.WithKey(testKey(), "k1"), control.WithClock(clk),
		cloudauthfake.WithDefaultTenant("corp"), cloudauthfake.WithIssuer("http://auth.test"), cloudauthfake.WithAdminPassword("new-admin-pw"))
	if err := dst.Restore(data); err != nil {
		t.Fatal(err)
	}
	for _, want := range []cloudauthfake.UserSeed{jane, bob} {
		got, ok := dst.LookupUser(want.Tenant, want.Username)
		if diff := cmp.Diff(want, got); !ok || diff != "" {
			t.Errorf("user %s after restore (-want +got):\n%s", want.Username, diff)
		}
	}
	if got := dst.Issued(); got != 2 {
		t.Errorf("issued %d after restore, want 2", got)
	}
	c := dst.Client()
	for raw, refused := range map[string]bool{kept: false, out: true} {
		tok, err := c.VerifyToken(ctx, raw) // the signature: the key is the same
		if err != nil {
			t.Fatalf("a token issued before the restore does not verify: %v", err)
		}
		if _, err := c.UserInfo(ctx, tok); refused != errors.Is(err, cloudauth.ErrUnauthorized) {
			t.Errorf("a token issued before the restore (logged out: %v): %v", refused, err)
		}
	}
	again, err := dst.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(data), strings.Replace(string(again), "new-admin-pw", cloudauthfake.AdminPassword, 1)); diff != "" {
		t.Errorf("a snapshot of the restored fake differs, but for admin's password (-first +second):\n%s", diff)
	}
	if _, err := c.Login(ctx, &cloudauth.LoginRequest{Username: "admin", Password: "new-admin-pw"}); err != nil {
		t.Errorf("admin with the restored fake's password: %v", err)
	}
}

// A snapshot that is not one, of another fake, of another version, or that
// does not hold together is refused by name, and the fake keeps its state.
func TestRestoreRefusesBadSnapshots(t *testing.T) {
	t.Parallel()
	s := start(t)
	if err := s.AddUser(cloudauthfake.UserSeed{Username: "kept", Password: "pw"}); err != nil {
		t.Fatal(err)
	}
	head := `{"format":"cloudauthfake","version":1,`
	for _, tt := range []struct{ name, data, want string }{
		{"not JSON", `{"format":`, "not a snapshot"},
		{"another fake's", `{"format":"erpfake","version":1}`, `not a cloudauthfake snapshot (its format is "erpfake")`},
		{"another version", `{"format":"cloudauthfake","version":2}`, "version 2: this build reads version 1"},
		{"an unknown field", head + `"users":[],"colour":1}`, "colour"},
		{"more after it", head + `"users":[]} {}`, "after top-level value"},
		{"a user twice", head + `"users":[{"username":"a","password":"p","tenant":"t"},{"username":"a","password":"q","tenant":"t"}]}`, `"a" twice`},
		{"a user without a password", head + `"users":[{"username":"a","tenant":"t"}]}`, "users[0]"},
		{"a negative count", head + `"issued":-1}`, "negative"},
	} {
		err := s.Restore([]byte(tt.data))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error mentioning %q", tt.name, err, tt.want)
		}
	}
	if _, ok := s.LookupUser("", "kept"); !ok {
		t.Error("a refused snapshot changed the fake")
	}
}

// FuzzRestore: no snapshot, however made, panics Restore; one it takes
// snapshots again to what it read.
func FuzzRestore(f *testing.F) {
	src, err := cloudauthfake.New(cloudauthfake.WithKey(testKey(), "k1"))
	if err != nil {
		f.Fatal(err)
	}
	if err := src.AddUser(cloudauthfake.UserSeed{Username: "u", Password: "p", Roles: []string{"r"}}); err != nil {
		f.Fatal(err)
	}
	seed, _ := src.Snapshot()
	f.Add(seed)
	f.Add([]byte(`{"format":"cloudauthfake","version":1,"revoked":[{"id":"x","expires":"2026-01-01T00:00:00Z"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := cloudauthfake.New(cloudauthfake.WithKey(testKey(), "k1"))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Restore(data); err != nil {
			return
		}
		first, err := s.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		s2, err := cloudauthfake.New(cloudauthfake.WithKey(testKey(), "k1"))
		if err != nil {
			t.Fatal(err)
		}
		if err := s2.Restore(first); err != nil {
			t.Fatalf("a snapshot the fake wrote does not restore: %v\n%s", err, first)
		}
		if second, _ := s2.Snapshot(); string(second) != string(first) {
			t.Fatalf("snapshots differ after a restore:\n%s\n%s", first, second)
		}
	})
}
