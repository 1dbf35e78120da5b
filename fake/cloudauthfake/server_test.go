package cloudauthfake_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/fake/cloudauthfake"
	"github.com/apitwin/apitwin/fake/control"
)

var t0 = time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)

var testKey = sync.OnceValue(func() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
})

func start(t *testing.T, opts ...cloudauthfake.Option) *cloudauthfake.Server {
	t.Helper()
	return cloudauthfake.Start(t, append([]cloudauthfake.Option{
		cloudauthfake.WithKey(testKey(), "k1"), control.WithClock(clock.NewFake(t0)),
	}, opts...)...)
}

// send makes one raw request with hc and decodes a JSON answer into a
// map.
func send(t *testing.T, hc *http.Client, method, url, body string, h http.Header) (*http.Response, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if len(b) > 0 {
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("answer is not a JSON object: %q", b)
		}
	}
	return resp, m
}

func TestLoginAnswer(t *testing.T) {
	t.Parallel()
	srv := start(t)
	resp, m := send(t, srv.RawClient(), "POST", srv.URL()+cloudauth.LoginPath, `{"username":"admin","password":"changeme","extra":1}`, nil)
	if resp.StatusCode != 200 || m["token_type"] != "bearer" || m["expires_in"] != 1800.0 || resp.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("%d %v %v", resp.StatusCode, m, resp.Header)
	}
	raw := m["access_token"].(string)
	tok, err := jwt.Parse(raw, func(*jwt.Token) (any, error) { return &testKey().PublicKey, nil },
		jwt.WithValidMethods([]string{"RS256"}), jwt.WithTimeFunc(func() time.Time { return t0 }))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"alg": "RS256", "typ": "JWT", "kid": "k1"}, tok.Header); diff != "" {
		t.Fatalf("header (-want +got):\n%s", diff)
	}
	cl := tok.Claims.(jwt.MapClaims)
	if cl["sub"] != "admin" || cl["iss"] != srv.URL() || cl["tenant"] != "default" || cl["iat"] != float64(t0.Unix()) ||
		cl["exp"] != float64(t0.Add(30*time.Minute).Unix()) || cl["jti"] == "" {
		t.Fatalf("claims %v", cl)
	}
}

func TestErrorAnswers(t *testing.T) {
	t.Parallel()
	srv := start(t)
	for _, tc := range []struct {
		method, path, body string
		status             int
		message            string
	}{
		{"POST", cloudauth.LoginPath, `{"username":"admin","password":"nope"}`, 401, "Unauthorized"},
		{"POST", cloudauth.LoginPath, `{"username":"admin","password":"changeme","tenant":"other"}`, 401, "Unauthorized"},
		{"POST", cloudauth.LoginPath, `not json`, 400, "The request body is not valid JSON"},
		{"POST", cloudauth.LoginPath, `{"username":"admin"}`, 400, "username and password are required"},
		{"GET", cloudauth.LoginPath, ``, 405, "Method Not Allowed"},
		{"GET", "/csp/gateway/am/api/nothing", ``, 404, "Not Found"},
		{"GET", cloudauth.UserInfoPath, ``, 401, "Unauthorized"},
		{"POST", cloudauth.LogoutPath, ``, 401, "Unauthorized"},
	} {
		resp, m := send(t, srv.RawClient(), tc.method, srv.URL()+tc.path, tc.body, nil)
		if resp.StatusCode != tc.status || m["statusCode"] != float64(tc.status) || m["message"] != tc.message ||
			m["requestId"] == "" || m["requestId"] != resp.Header.Get("X-Request-Id") {
			t.Errorf("%s %s %s: %d %v", tc.method, tc.path, tc.body, resp.StatusCode, m)
		}
	}
	resp, _ := send(t, srv.RawClient(), "GET", srv.URL()+cloudauth.UserInfoPath, "", http.Header{"Authorization": {"Bearer x.y.z"}})
	if resp.Header.Get("WWW-Authenticate") != `Bearer error="invalid_token"` {
		t.Fatalf("WWW-Authenticate %q", resp.Header.Get("WWW-Authenticate"))
	}
	if resp, _ := send(t, srv.RawClient(), "GET", srv.URL()+cloudauth.LoginPath, "", nil); resp.Header.Get("Allow") != "POST" {
		t.Fatalf("Allow %q", resp.Header.Get("Allow"))
	}
}

func TestPublicKeyDocument(t *testing.T) {
	t.Parallel()
	srv := start(t)
	resp, m := send(t, srv.RawClient(), "GET", srv.URL()+cloudauth.PublicKeyPath, "", nil)
	if resp.StatusCode != 200 {
		t.Fatal(resp.Status)
	}
	keys := m["keys"].([]any)
	k := keys[0].(map[string]any)
	if len(keys) != 1 || k["kty"] != "RSA" || k["alg"] != "RS256" || k["use"] != "sig" || k["kid"] != "k1" || k["e"] != "AQAB" {
		t.Fatalf("%v", m)
	}
	b, _ := json.Marshal(m)
	ks, err := cloudauth.ParseKeySet(b)
	if err != nil {
		t.Fatal(err)
	}
	if pub, ok := ks.Key("k1"); !ok || !pub.Equal(srv.PublicKey()) {
		t.Fatal("published key differs")
	}
}

func TestUsersAndTokens(t *testing.T) {
	t.Parallel()
	srv := start(t, cloudauthfake.WithDefaultTenant("acme"), cloudauthfake.WithTokenLifetime(time.Hour))
	if srv.DefaultTenant() != "acme" || srv.TokenLifetime() != time.Hour || srv.KeyID() != "k1" {
		t.Fatal("options")
	}
	if err := srv.AddUser(cloudauthfake.UserSeed{Username: "admin", Password: "x"}); err == nil {
		t.Fatal("duplicate user")
	}
	if err := srv.AddUser(cloudauthfake.UserSeed{Username: "admin", Password: "x", Tenant: "other"}); err != nil {
		t.Fatalf("same name in another tenant: %v", err)
	}
	for _, bad := range []cloudauthfake.UserSeed{{Password: "x"}, {Username: "u"}} {
		if srv.AddUser(bad) == nil {
			t.Errorf("AddUser(%+v) accepted", bad)
		}
	}
	if u, ok := srv.LookupUser("", "admin"); !ok || u.Tenant != "acme" || u.Password != "changeme" {
		t.Fatalf("%+v", u)
	}
	if err := srv.SetPassword("", "admin", "new-pw"); err != nil {
		t.Fatal(err)
	}
	if err := srv.SetLocked("", "ghost", true); err == nil {
		t.Fatal("locked a missing user")
	}
	c := srv.Client()
	ctx := context.Background()
	if _, err := c.Login(ctx, &cloudauth.LoginRequest{Username: "admin", Password: "changeme"}); err == nil {
		t.Fatal("old password")
	}
	tok, err := c.Login(ctx, &cloudauth.LoginRequest{Username: "admin", Password: "new-pw"})
	if err != nil || tok.Tenant != "acme" || !tok.ExpiresAt.Equal(t0.Add(time.Hour)) {
		t.Fatalf("%v %+v", err, tok)
	}
	raw, err := srv.IssueToken("other", "admin")
	if err != nil {
		t.Fatal(err)
	}
	info, err := c.UserInfo(ctx, mustParse(t, raw))
	if err != nil || info.Tenant != "other" {
		t.Fatalf("%v %+v", err, info)
	}
	if err := srv.RevokeToken(raw); err != nil || !srv.Revoked(raw) {
		t.Fatal("revoke")
	}
	if err := srv.RevokeToken(raw); err == nil {
		t.Fatal("revoked twice")
	}
	srv.SetLocked("", "admin", true)
	if _, err := srv.IssueToken("", "admin"); err == nil {
		t.Fatal("token for a locked user")
	}
	if _, err := srv.IssueToken("", "ghost"); err == nil {
		t.Fatal("token for a missing user")
	}
	// A token the fake signs for a user it does not hold is refused.
	forged, _ := srv.SignToken(jwt.MapClaims{"sub": "ghost", "tenant": "acme", "exp": t0.Add(time.Hour).Unix(), "jti": "1"})
	if _, err := c.UserInfo(ctx, mustParse(t, forged)); err == nil {
		t.Fatal("userinfo for a missing user")
	}
	if srv.Issued() != 2 {
		t.Fatalf("issued %d", srv.Issued())
	}
}

func mustParse(t *testing.T, raw string) *cloudauth.Token {
	t.Helper()
	tok, err := cloudauth.ParseToken(raw)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestBareHandler: a fake served by someone else's server names itself
// after the request's host.
func TestBareHandler(t *testing.T) {
	t.Parallel()
	srv, err := cloudauthfake.New(cloudauthfake.WithKey(testKey(), ""))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	_, m := send(t, hs.Client(), "POST", hs.URL+cloudauth.LoginPath, `{"username":"admin","password":"changeme"}`, nil)
	tok := mustParse(t, m["access_token"].(string))
	if tok.Issuer != hs.URL || tok.KeyID != cloudauthfake.Thumbprint(&testKey().PublicKey) || len(tok.KeyID) != 43 {
		t.Fatalf("%+v", tok)
	}
	if srv.URL() != "" {
		t.Fatal("URL before Start")
	}
}

func TestOwnKeyAndListen(t *testing.T) {
	t.Parallel()
	srv, err := cloudauthfake.New(cloudauthfake.WithIssuer("https://issuer.example/"))
	if err != nil {
		t.Fatal(err)
	}
	u, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if srv.PublicKey().N.BitLen() != 2048 || srv.KeyID() == "" || srv.CertificatePEM() != nil {
		t.Fatal("key")
	}
	c := srv.Client()
	tok, err := c.Login(context.Background(), &cloudauth.LoginRequest{Username: "admin", Password: "changeme"})
	if err != nil {
		t.Fatal(err)
	}
	if tok.Issuer != "https://issuer.example" || u != srv.URL() {
		t.Fatalf("%+v %s", tok, u)
	}
	if _, err := c.VerifyToken(context.Background(), tok.Raw()); err != nil {
		t.Fatal(err)
	}
}

func TestFaultsAndLog(t *testing.T) {
	t.Parallel()
	srv := start(t)
	if err := srv.InjectFault(cloudauthfake.RouteUserInfo, control.Fault{Status: 503, Times: 1}); err != nil {
		t.Fatal(err)
	}
	resp, m := send(t, srv.RawClient(), "GET", srv.URL()+cloudauth.UserInfoPath, "", nil)
	if resp.StatusCode != 503 || m["message"] != "Service Unavailable" {
		t.Fatalf("%d %v", resp.StatusCode, m)
	}
	srv.InjectFault("", control.Fault{Status: 429, Times: 1})
	if resp, _ := send(t, srv.RawClient(), "GET", srv.URL()+cloudauth.PublicKeyPath, "", nil); resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "1" {
		t.Fatalf("%d %v", resp.StatusCode, resp.Header)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || !reqs[0].Fault || reqs[0].Route != cloudauthfake.RouteUserInfo || reqs[1].Route != cloudauthfake.RoutePublicKey {
		t.Fatalf("log %+v", reqs)
	}
	srv.InjectFault("", control.Fault{Status: 500})
	srv.ClearFaults()
	srv.ResetRequests()
	if resp, _ := send(t, srv.RawClient(), "GET", srv.URL()+cloudauth.PublicKeyPath, "", nil); resp.StatusCode != 200 || len(srv.Requests()) != 1 {
		t.Fatal("faults not cleared")
	}
}

func TestTLSCertificate(t *testing.T) {
	t.Parallel()
	srv := cloudauthfake.Start(t, control.WithTLS(), cloudauthfake.WithKey(testKey(), "k1"))
	if !strings.HasPrefix(srv.URL(), "https://") || !strings.HasPrefix(string(srv.CertificatePEM()), "-----BEGIN CERTIFICATE-----") {
		t.Fatal(srv.URL())
	}
	c, err := cloudauth.New(srv.URL(), cloudauth.WithCAFile(srv.CACertFile(t)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.PublicKeys(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestLoginRefusesWhatTheGatewayRefuses (issue 20, defect 6): a login body
// sent as anything but JSON, or with anything after the JSON object, is
// refused as the gateway refuses it, in its error shape, and issues no
// token.
func TestLoginRefusesWhatTheGatewayRefuses(t *testing.T) {
	t.Parallel()
	srv := start(t)
	const good = `{"username":"admin","password":"changeme"}`
	for _, tc := range []struct {
		name, contentType, body string
		status                  int
		message                 string
	}{
		{"text/plain", "text/plain", good, 415, "Content type 'text/plain' not supported"},
		{"text/plain with a charset", "text/plain; charset=utf-8", good, 415, "Content type 'text/plain;charset=utf-8' not supported"},
		{"a form", "application/x-www-form-urlencoded", good, 415, "Content type 'application/x-www-form-urlencoded' not supported"},
		{"a bad media type", "json", good, 415, "Content type 'json' not supported"},
		{"trailing garbage", "application/json", good + `garbage`, 400, "The request body is not valid JSON"},
		{"a second object", "application/json", good + ` {}`, 400, "The request body is not valid JSON"},
		{"two bodies", "application/json", good + good, 400, "The request body is not valid JSON"},
	} {
		resp, m := send(t, srv.RawClient(), "POST", srv.URL()+cloudauth.LoginPath, tc.body, http.Header{"Content-Type": {tc.contentType}})
		if resp.StatusCode != tc.status || m["statusCode"] != float64(tc.status) || m["message"] != tc.message ||
			m["requestId"] == "" || m["requestId"] != resp.Header.Get("X-Request-Id") || m["access_token"] != nil {
			t.Errorf("%s: %d %v", tc.name, resp.StatusCode, m)
		}
	}
	if srv.Issued() != 0 {
		t.Fatalf("%d tokens issued", srv.Issued())
	}
	// What the gateway takes: JSON, with a charset or a +json type, with
	// white space after it, and (as curl --json does not always send one)
	// without a Content-Type.
	for _, h := range []http.Header{
		{"Content-Type": {"application/json"}}, {"Content-Type": {"application/json; charset=UTF-8"}},
		{"Content-Type": {"application/vnd.api+json"}}, nil,
	} {
		if resp, m := send(t, srv.RawClient(), "POST", srv.URL()+cloudauth.LoginPath, good+"\r\n\t ", h); resp.StatusCode != 200 {
			t.Errorf("%v: %d %v", h, resp.StatusCode, m)
		}
	}
}
