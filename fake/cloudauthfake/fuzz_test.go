package cloudauthfake_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/fake/cloudauthfake"
)

// FuzzLogin: login bodies and bearer headers are outside input to the
// fake; it answers every one with 200, 400 or 401 and never panics, and
// issues a token only for the right password.
func FuzzLogin(f *testing.F) {
	srv := cloudauthfake.New(cloudauthfake.WithKey(testKey(), "k1"))
	for _, s := range []string{`{"username":"admin","password":"changeme"}`, `{"username":"admin","password":"changeme","tenant":"vsphere.local"}`,
		`{"username":null,"password":"x"}`, `{`, ``, `[]`, `{"username":"admin","password":"changemE"}`, `{"username":1}`} {
		f.Add(s, "Bearer a.b.c")
	}
	f.Fuzz(func(t *testing.T, body, auth string) {
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, httptest.NewRequest("POST", cloudauth.LoginPath, strings.NewReader(body)))
		switch w.Code {
		case http.StatusOK:
			var creds struct{ Password string }
			if json.Unmarshal([]byte(body), &creds) != nil || creds.Password != cloudauthfake.AdminPassword {
				t.Fatalf("a token for %q", body)
			}
		case http.StatusBadRequest, http.StatusUnauthorized:
		default:
			t.Fatalf("status %d for %q", w.Code, body)
		}
		req := httptest.NewRequest("GET", cloudauth.UserInfoPath, nil)
		req.Header.Set("Authorization", auth)
		w = httptest.NewRecorder()
		srv.ServeHTTP(w, req)
		if w.Code != http.StatusUnauthorized {
			t.Fatalf("userinfo with %q: %d", auth, w.Code)
		}
	})
}

// BenchmarkFakeLogin is the fake's own cost of a login: decoding, checking
// the password, signing an RS256 token.
func BenchmarkFakeLogin(b *testing.B) {
	srv := cloudauthfake.New(cloudauthfake.WithKey(testKey(), "k1"))
	const body = `{"username":"admin","password":"changeme"}`
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, httptest.NewRequest("POST", cloudauth.LoginPath, strings.NewReader(body)))
		if w.Code != 200 {
			b.Fatal(w.Code)
		}
	}
}

// BenchmarkFakeUserInfo is the fake's cost of checking a token.
func BenchmarkFakeUserInfo(b *testing.B) {
	srv := cloudauthfake.New(cloudauthfake.WithKey(testKey(), "k1"))
	raw, err := srv.IssueToken("", "admin")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest("GET", cloudauth.UserInfoPath, nil)
		req.Header.Set("Authorization", "Bearer "+raw)
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatal(w.Code)
		}
	}
}
