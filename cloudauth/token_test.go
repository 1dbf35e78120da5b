package cloudauth_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/fake/cloudauthfake"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/internal/leaktest"
)

// claimsAt are the claims of a token the fake could have issued at t0.
func claimsAt(iss string) jwt.MapClaims {
	return jwt.MapClaims{"sub": "admin", "iss": iss, "iat": t0.Unix(), "exp": t0.Add(time.Hour).Unix(), "tenant": cloudauthfake.DefaultTenant}
}

func signWith(t *testing.T, method jwt.SigningMethod, key any, kid string, cl jwt.Claims) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, cl)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	raw, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func TestVerifyToken(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := srv.Client()
	ctx := context.Background()
	tok, err := c.Login(ctx, adminLogin)
	if err != nil {
		t.Fatal(err)
	}
	pub := srv.PublicKey()
	// The publicly known RSA key, as bytes, serves as an HMAC secret in
	// the classic algorithm-confusion attack.
	hmacSecret := []byte(cloudauth.PublicJWK("test-key", pub).N)

	cases := []struct {
		name string
		raw  string
		want error // nil: valid
	}{
		{"issued by the server", tok.Raw(), nil},
		{"signed by the fake's key, no kid", signWith(t, jwt.SigningMethodRS256, testKey(), "", claimsAt(srv.URL())), nil},
		{"another key under the server's kid", signWith(t, jwt.SigningMethodRS256, otherKey(), "test-key", claimsAt(srv.URL())), ErrSignature},
		{"another key, unknown kid", signWith(t, jwt.SigningMethodRS256, otherKey(), "rogue", claimsAt(srv.URL())), cloudauth.ErrTokenInvalid},
		{"alg none", signWith(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, "test-key", claimsAt(srv.URL())), cloudauth.ErrTokenInvalid},
		{"HS256 with the public key as secret", signWith(t, jwt.SigningMethodHS256, hmacSecret, "test-key", claimsAt(srv.URL())), cloudauth.ErrTokenInvalid},
		{"RS512", signWith(t, jwt.SigningMethodRS512, testKey(), "test-key", claimsAt(srv.URL())), cloudauth.ErrTokenInvalid},
		{"PS256", signWith(t, jwt.SigningMethodPS256, testKey(), "test-key", claimsAt(srv.URL())), cloudauth.ErrTokenInvalid},
		{"another issuer", signWith(t, jwt.SigningMethodRS256, testKey(), "test-key", claimsAt("https://evil.example")), cloudauth.ErrTokenInvalid},
		{"no exp", signWith(t, jwt.SigningMethodRS256, testKey(), "test-key", jwt.MapClaims{"sub": "admin", "iss": srv.URL()}), cloudauth.ErrTokenInvalid},
		{"expired", signWith(t, jwt.SigningMethodRS256, testKey(), "test-key", jwt.MapClaims{"sub": "admin", "iss": srv.URL(), "exp": t0.Add(-time.Minute).Unix()}), cloudauth.ErrTokenExpired},
		{"expired within the leeway", signWith(t, jwt.SigningMethodRS256, testKey(), "test-key", jwt.MapClaims{"sub": "admin", "iss": srv.URL(), "exp": t0.Add(-10 * time.Second).Unix()}), nil},
		{"issued in the future", signWith(t, jwt.SigningMethodRS256, testKey(), "test-key", jwt.MapClaims{"sub": "admin", "iss": srv.URL(), "iat": t0.Add(time.Hour).Unix(), "exp": t0.Add(2 * time.Hour).Unix()}), cloudauth.ErrTokenInvalid},
		{"tampered payload", tamper(tok.Raw()), ErrSignature},
		{"not a JWT", "abc", cloudauth.ErrTokenInvalid},
		{"empty", "", cloudauth.ErrTokenInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := c.VerifyToken(ctx, tc.raw)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if !got.Verified || got.Subject != "admin" {
					t.Fatalf("token %+v", got)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
			if got != nil {
				t.Fatal("a token came with the error")
			}
		})
	}
	if n := len(srv.RequestsTo(cloudauthfake.RoutePublicKey)); n != 2 {
		t.Fatalf("the key set was fetched %d times; want once, and once more for the unknown kid", n)
	}
}

// ErrSignature is jwt's error for a bad signature, which VerifyToken's
// error also matches.
var ErrSignature = jwt.ErrTokenSignatureInvalid

// tamper changes the token's payload without signing it again.
func tamper(raw string) string {
	parts := strings.Split(raw, ".")
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	payload = bytes.Replace(payload, []byte(`"sub":"admin"`), []byte(`"sub":"root"`), 1)
	return parts[0] + "." + base64.RawURLEncoding.EncodeToString(payload) + "." + parts[2]
}

// TestVerifyExpiredOnTheClock: a real token stops verifying when the fake
// clock passes its exp plus the leeway.
func TestVerifyExpiredOnTheClock(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := srv.Client(cloudauth.WithLeeway(5 * time.Second))
	ctx := context.Background()
	tok, _ := c.Login(ctx, adminLogin)
	srv.Clock().Advance(30*time.Minute + 4*time.Second)
	if _, err := c.VerifyToken(ctx, tok.Raw()); err != nil {
		t.Fatalf("within the leeway: %v", err)
	}
	srv.Clock().Advance(time.Second)
	_, err := c.VerifyToken(ctx, tok.Raw())
	if !errors.Is(err, cloudauth.ErrTokenExpired) || !errors.Is(err, jwt.ErrTokenExpired) {
		t.Fatalf("err %v", err)
	}
}

// TestVerifyAfterKeyRotation: a server that changed its key is asked again
// for its keys, at most once a minute.
func TestVerifyAfterKeyRotation(t *testing.T) {
	t.Parallel()
	clk := startFake(t).Clock() // a clock to share
	old := cloudauthfake.Start(t, cloudauthfake.WithKey(testKey(), "k1"), control.WithClock(clk))
	c := old.Client()
	ctx := context.Background()
	tok, _ := c.Login(ctx, adminLogin)
	if _, err := c.VerifyToken(ctx, tok.Raw()); err != nil {
		t.Fatal(err)
	}
	// The same server now signs with k2: point a token at it.
	rotated := signWith(t, jwt.SigningMethodRS256, otherKey(), "k2", claimsAt(old.URL()))
	if _, err := c.VerifyToken(ctx, rotated); !errors.Is(err, cloudauth.ErrTokenInvalid) {
		t.Fatalf("k2 is not published: %v", err)
	}
	if _, err := c.VerifyToken(ctx, rotated); !errors.Is(err, cloudauth.ErrTokenInvalid) {
		t.Fatal(err)
	}
	if n := len(old.RequestsTo(cloudauthfake.RoutePublicKey)); n != 2 {
		t.Fatalf("key set fetched %d times within a minute", n)
	}
	clk.Advance(time.Minute)
	c.VerifyToken(ctx, rotated)
	if n := len(old.RequestsTo(cloudauthfake.RoutePublicKey)); n != 3 {
		t.Fatalf("key set fetched %d times after a minute", n)
	}
}

func TestParseToken(t *testing.T) {
	t.Parallel()
	raw := signWith(t, jwt.SigningMethodRS256, otherKey(), "kx", claimsAt("https://cloud.example.com"))
	tok, err := cloudauth.ParseToken(raw)
	if err != nil {
		t.Fatal(err)
	}
	if tok.Subject != "admin" || tok.Tenant != cloudauthfake.DefaultTenant || tok.KeyID != "kx" || tok.Verified || tok.Raw() != raw ||
		!tok.ExpiresAt.Equal(t0.Add(time.Hour)) || tok.Expired(t0) || !tok.Expired(t0.Add(time.Hour)) {
		t.Fatalf("%+v", tok)
	}
	leaktest.NoSecretIn(t, "the token", tok, raw, strings.Split(raw, ".")[2]) // and by value
	for _, bad := range []string{"", "a.b", "a.b.c.d", "!!.??.xx", strings.Repeat("a", cloudauth.MaxTokenSize) + ".b.c"} {
		if _, err := cloudauth.ParseToken(bad); !errors.Is(err, cloudauth.ErrTokenInvalid) {
			t.Errorf("ParseToken(%.20q): %v", bad, err)
		}
	}
	noExp, _ := cloudauth.ParseToken(signWith(t, jwt.SigningMethodRS256, otherKey(), "", jwt.MapClaims{"sub": "x"}))
	if noExp.Expired(t0.Add(1000*time.Hour)) || noExp.TimeLeft(t0) <= 0 {
		t.Fatal("a token without exp expired")
	}
}

func TestParseKeySet(t *testing.T) {
	t.Parallel()
	good := cloudauth.PublicJWK("a", &testKey().PublicKey)
	small := good
	small.KeyID = "small"
	small.N = "AQAB" // far too short a modulus
	enc := good
	enc.KeyID, enc.Use = "enc", "enc"
	ks, err := cloudauth.ParseKeySet(mustJSON(t, cloudauth.JWKS{Keys: []cloudauth.JWK{good, small, enc, {KeyType: "EC", KeyID: "ec"}}}))
	if err != nil {
		t.Fatal(err)
	}
	if ids := ks.KeyIDs(); len(ids) != 1 || ids[0] != "a" {
		t.Fatalf("kept %v", ids)
	}
	if k, ok := ks.Key("a"); !ok || k.N.Cmp(testKey().N) != 0 {
		t.Fatal("key a")
	}
	for _, bad := range []string{`[]`, `{"keys":[]}`, `{"keys":[{"kty":"RSA","n":"!","e":"AQAB"}]}`, `nope`,
		string(mustJSON(t, cloudauth.JWKS{Keys: []cloudauth.JWK{small}})),
		string(mustJSON(t, cloudauth.JWKS{Keys: []cloudauth.JWK{good, good}})[:0]) + `{"keys":[{"kty":"RSA","n":"` + good.N + `","e":"Ag"}]}`,
	} {
		if _, err := cloudauth.ParseKeySet([]byte(bad)); err == nil {
			t.Errorf("ParseKeySet(%.40s) accepted", bad)
		}
	}
}

// TestVerifyWithCredentialsInTheURL: a server URL carrying a proxy's user
// and password still expects the issuer the gateway writes, its URL
// without them.
func TestVerifyWithCredentialsInTheURL(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	u, err := url.Parse(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword("proxyuser", "proxy-s3cret")
	c, err := cloudauth.New(u.String(), cloudauth.WithClock(srv.Clock()))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := c.Login(context.Background(), adminLogin)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.VerifyToken(context.Background(), tok.Raw()); err != nil {
		t.Fatalf("the server's own token: %v", err)
	}
}
