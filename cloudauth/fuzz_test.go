package cloudauth_test

import (
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/fake/cloudauthfake"
)

// FuzzToken: a token is outside input. Reading and verifying arbitrary
// text never panics, and nothing but a token the key signed verifies.
func FuzzToken(f *testing.F) {
	srv, err := cloudauthfake.New(fakeOpts()...)
	if err != nil {
		f.Fatal(err)
	}
	good, err := srv.IssueToken("", "admin")
	if err != nil {
		f.Fatal(err)
	}
	none, _ := jwt.NewWithClaims(jwt.SigningMethodNone, claimsAt("http://localhost")).SignedString(jwt.UnsafeAllowNoneSignatureType)
	hs, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, claimsAt("http://localhost")).SignedString([]byte("secret"))
	for _, s := range []string{good, none, hs, "", ".", "..", "a.b.c", "eyJhbGciOiJSUzI1NiJ9.e30.", good + "x",
		strings.Replace(good, ".", "..", 1), "eyJhbGciOiJub25lIn0.eyJleHAiOjF9."} {
		f.Add(s)
	}
	ks, err := cloudauth.ParseKeySet(mustJSONf(f, cloudauth.JWKS{Keys: []cloudauth.JWK{cloudauth.PublicJWK("test-key", srv.PublicKey())}}))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if tok, err := cloudauth.ParseToken(raw); err == nil {
			_ = tok.String()
			_ = tok.TimeLeft(t0)
		} else if !errors.Is(err, cloudauth.ErrTokenInvalid) {
			t.Fatalf("ParseToken error %v does not match ErrTokenInvalid", err)
		}
		tok, err := ks.Verify(raw, cloudauth.VerifyOptions{Now: t0, Leeway: time.Minute})
		if err == nil {
			if tok.Algorithm != "RS256" || !tok.Verified {
				t.Fatalf("verified %+v", tok)
			}
		} else if !errors.Is(err, cloudauth.ErrTokenInvalid) && !errors.Is(err, cloudauth.ErrTokenExpired) {
			t.Fatalf("Verify error %v matches no sentinel", err)
		}
	})
}

// FuzzKeySet: key documents come from the server.
func FuzzKeySet(f *testing.F) {
	f.Add(string(mustJSONf(f, cloudauth.JWKS{Keys: []cloudauth.JWK{cloudauth.PublicJWK("k", &testKey().PublicKey)}})))
	for _, s := range []string{`{}`, `{"keys":null}`, `{"keys":[{"kty":"RSA","n":"AQAB","e":"AQAB"}]}`, `{"keys":[{"kty":"RSA","e":"AAAAAAAA"}]}`, `[`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		ks, err := cloudauth.ParseKeySet([]byte(doc))
		if err != nil {
			return
		}
		for _, id := range ks.KeyIDs() {
			k, ok := ks.Key(id)
			if !ok || k.N.BitLen() < 2048 || k.E < 3 {
				t.Fatalf("kept a weak key %q", id)
			}
		}
	})
}

// FuzzErrorAnswer: error bodies come from the server; decoding one never
// panics, keeps the specification's text for 401, and drops the secret.
func FuzzErrorAnswer(f *testing.F) {
	for _, s := range []string{`{"statusCode":401,"message":"Unauthorized","requestId":"1"}`, `<html>`, ``, `{"message":3}`, "\xff\xfe"} {
		f.Add(401, s)
		f.Add(500, s)
	}
	f.Fuzz(func(t *testing.T, status int, body string) {
		if status < 400 || status > 599 {
			return
		}
		err := loginAgainst(t, status, "hunter22"+body)
		if err == nil {
			t.Fatal("no error for an error status")
		}
		if status == 401 && err.Error() != "Authentication failed: 401 Unauthorized" {
			t.Fatalf("401 text %q", err)
		}
		var e *cloudauth.Error
		if errors.As(err, &e) && (strings.Contains(e.Message, "hunter22") || strings.Contains(string(e.Body), "hunter22")) {
			t.Fatal("the password stayed in the error")
		}
	})
}

// loginAgainst logs in, with the password hunter22, through a transport
// that answers status and body.
func loginAgainst(t *testing.T, status int, body string) error {
	t.Helper()
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: status, Status: http.StatusText(status), Header: http.Header{},
			Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
	})}
	c, err := cloudauth.New("http://gateway.invalid", cloudauth.WithHTTPClient(hc), cloudauth.WithoutRetries())
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Login(t.Context(), &cloudauth.LoginRequest{Username: "u", Password: "hunter22"})
	return err
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func mustJSONf(f *testing.F, v any) []byte {
	f.Helper()
	return mustJSONAny(v)
}

// FuzzConfig: the configuration file is the user's to edit; reading any
// content never panics, and what loads saves and loads again the same.
func FuzzConfig(f *testing.F) {
	for _, s := range []string{`{"current_profile":"a","profiles":{"a":{"url":"https://x","tenant":"t","username":"u"}}}`,
		`{}`, `{"profiles":null}`, `{"profiles":{"a":{"url":"http://[::1]:80"}}}`, `[]`, `{"profiles":{"":{}}}`,
		`{"x":{"y":[1]},"profiles":{"a":{"url":"https://x","z":null}},"current_profile":null}`, `{"profiles":{"a":{"url":5}}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, cloudauth.ConfigFileName), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := cloudauth.LoadConfig(dir)
		if err != nil {
			return
		}
		if err := cfg.Save(dir); err != nil {
			t.Fatal(err)
		}
		again, err := cloudauth.LoadConfig(dir)
		if err != nil {
			t.Fatalf("a saved configuration does not load: %v", err)
		}
		if len(again.Profiles) != len(cfg.Profiles) || again.Current != cfg.Current {
			t.Fatalf("round trip changed %+v into %+v", cfg, again)
		}
	})
}
