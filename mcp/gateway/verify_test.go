package gateway_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/mcpfake"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/mcp/gateway"
)

// serveDirect runs one request through the fake's gateway without a
// socket, from addr, and returns the recorded answer.
func serveDirect(srv *mcpfake.Server, addr, token, body string, headers ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
	req.RemoteAddr = addr
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	srv.Gateway().ServeHTTP(rec, req)
	return rec
}

const listProjects = `{"jsonrpc":"2.0","method":"list_projects","id":1}`

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// Finding 1: a token the source-hosting API does not accept is refused at
// the HTTP layer, 401 with WWW-Authenticate, for the gateway's methods and
// the Model Context Protocol's alike, so MCP clients start their login.
func TestInvalidTokenIsRefusedWith401(t *testing.T) {
	t.Parallel()
	srv, _ := seeded(t)
	for _, body := range []string{listProjects, initialize} {
		rec := serveDirect(srv, "192.0.2.1:1000", "nonsense", body)
		got := rec.Header().Get("WWW-Authenticate")
		if rec.Code != http.StatusUnauthorized || !strings.Contains(got, `error="invalid_token"`) {
			t.Errorf("%.40s: status %d, WWW-Authenticate %q; want 401 invalid_token", body, rec.Code, got)
		}
		if !strings.Contains(rec.Body.String(), `"status":401`) {
			t.Errorf("%.40s: body %s is not a JSON-RPC 401", body, rec.Body)
		}
	}
	if rec := serveDirect(srv, "192.0.2.1:1000", srv.Token(), initialize); rec.Code != http.StatusOK {
		t.Errorf("initialize with a good token: %d %s", rec.Code, rec.Body)
	}
	// A revoked token too, at once: nothing was remembered of it yet.
	up := srv.Upstream()
	tok, err := up.IssueToken("root", "api", "read_user", "read_repository")
	if err != nil {
		t.Fatal(err)
	}
	if err := up.RevokeToken(tok); err != nil {
		t.Fatal(err)
	}
	if rec := serveDirect(srv, "192.0.2.1:1000", tok, listProjects); rec.Code != http.StatusUnauthorized {
		t.Errorf("revoked token: %d %s", rec.Code, rec.Body)
	}
	// The client reports it as ErrUnauthorized, with the HTTP status.
	_, err = srv.ClientWithToken("nonsense").ListProjects(context.Background(), nil)
	var e *mcp.Error
	if !errors.As(err, &e) || !errors.Is(err, mcp.ErrUnauthorized) || e.HTTPStatus != http.StatusUnauthorized {
		t.Errorf("client: %v", err)
	}
}

// Findings 2 and 3: a flood of made-up tokens does not become a flood of
// upstream calls, and never reaches the per-token rate limit (which keys on
// the verified token, so no made-up token gets an allowance of its own).
func TestBadTokenFloodIsBounded(t *testing.T) {
	t.Parallel()
	srv, _ := seeded(t)
	up := srv.Upstream()
	up.ResetRequests()
	const verify = "GET /api/v4/personal_access_tokens/self"

	// One bad token, many times: verified once, then remembered as bad.
	for range 100 {
		if rec := serveDirect(srv, "192.0.2.7:1000", "the-same-bad-token", listProjects); rec.Code != http.StatusUnauthorized {
			t.Fatalf("status %d %s", rec.Code, rec.Body)
		}
	}
	if n := len(up.RequestsTo(verify)); n != 1 {
		t.Errorf("one bad token sent 100 times: %d upstream verifications, want 1", n)
	}

	// 1,000 different made-up tokens from one address: the address gets
	// its burst of verifications (20), then 429s, until the clock moves.
	up.ResetRequests()
	statuses := map[int]int{}
	for i := range 1000 {
		rec := serveDirect(srv, "192.0.2.8:1000", fmt.Sprintf("made-up-%d", i), listProjects)
		statuses[rec.Code]++
		if rec.Header().Get("X-RateLimit-Limit") != "" {
			t.Fatalf("a made-up token reached the per-token rate limit: %v", rec.Header())
		}
	}
	if n := len(up.RequestsTo(verify)); n != gateway.DefaultPerIPBurst {
		t.Errorf("1,000 made-up tokens: %d upstream verifications, want the burst %d", n, gateway.DefaultPerIPBurst)
	}
	if statuses[http.StatusUnauthorized] != gateway.DefaultPerIPBurst || statuses[http.StatusTooManyRequests] != 1000-gateway.DefaultPerIPBurst {
		t.Errorf("statuses %v", statuses)
	}
	// A minute later the address has its allowance back, one a second.
	srv.Clock().Advance(time.Minute)
	if rec := serveDirect(srv, "192.0.2.8:1000", "made-up-again", listProjects); rec.Code != http.StatusUnauthorized {
		t.Errorf("after a minute: %d", rec.Code)
	}
	// Another address is not held back by the flooded one's limit.
	if rec := serveDirect(srv, "192.0.2.9:1000", "made-up-elsewhere", listProjects); rec.Code != http.StatusUnauthorized {
		t.Errorf("another address: %d", rec.Code)
	}
}

// A flood from many addresses meets the limit of all verifications
// together, while a token verified before it goes on working.
func TestBadTokenFloodFromManyAddresses(t *testing.T) {
	t.Parallel()
	srv, _ := seeded(t)
	if rec := serveDirect(srv, "198.51.100.1:1", srv.Token(), listProjects); rec.Code != 200 {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	up := srv.Upstream()
	up.ResetRequests()
	for i := range 1000 {
		serveDirect(srv, fmt.Sprintf("[2001:db8:%x::1]:1000", i), fmt.Sprintf("made-up-%d", i), listProjects)
	}
	if n := len(up.RequestsTo("GET /api/v4/personal_access_tokens/self")); n != gateway.DefaultVerifyBurst-1 {
		t.Errorf("1,000 made-up tokens from 1,000 networks: %d upstream verifications, want %d", n, gateway.DefaultVerifyBurst-1)
	}
	if rec := serveDirect(srv, "198.51.100.1:1", srv.Token(), listProjects); rec.Code != 200 {
		t.Errorf("a verified token during the flood: %d %s", rec.Code, rec.Body)
	}
}

// Finding 3: the per-token limit follows the verified token.
func TestRateLimitFollowsTheVerifiedToken(t *testing.T) {
	t.Parallel()
	srv, _ := seeded(t, mcpfake.WithConfig(gateway.Config{RateLimit: gateway.RateLimitConfig{PerMinute: 60, Burst: 2}}))
	for i, want := range []int{200, 200, 429} {
		rec := serveDirect(srv, fmt.Sprintf("192.0.2.%d:1000", 10+i), srv.Token(), listProjects)
		if rec.Code != want {
			t.Errorf("call %d from a new address: %d, want %d", i+1, rec.Code, want)
		}
	}
}

// Finding 4: a revoked token stops working within the verification TTL,
// cached answers included, and at once when a call meets the revocation.
func TestRevokedTokenStopsWithinTheBound(t *testing.T) {
	t.Parallel()
	srv, pid := seeded(t)
	up := srv.Upstream()
	tok, err := up.IssueToken("root", "api", "read_user", "read_repository")
	if err != nil {
		t.Fatal(err)
	}
	cached := fmt.Sprintf(`{"jsonrpc":"2.0","method":"get_project","params":{"project_id":%d,"cache_ttl":86400},"id":1}`, pid)
	if rec := serveDirect(srv, "192.0.2.1:1", tok, cached); rec.Code != 200 || strings.Contains(rec.Body.String(), "error") {
		t.Fatalf("first call: %d %s", rec.Code, rec.Body)
	}
	if err := up.RevokeToken(tok); err != nil {
		t.Fatal(err)
	}
	// Within the bound the cached answer is still given (the gateway has
	// not asked again)...
	srv.Clock().Advance(time.Duration(gateway.DefaultVerifyTTL-1) * time.Second)
	if rec := serveDirect(srv, "192.0.2.1:1", tok, cached); rec.Code != 200 {
		t.Errorf("inside the bound: %d %s", rec.Code, rec.Body)
	}
	// ...and past it the token is verified again and refused, cache or not.
	srv.Clock().Advance(time.Second)
	if rec := serveDirect(srv, "192.0.2.1:1", tok, cached); rec.Code != http.StatusUnauthorized {
		t.Errorf("past the bound: %d %s, want 401", rec.Code, rec.Body)
	}

	// A call that meets the revocation upstream makes the gateway forget
	// the token at once.
	tok2, err := up.IssueToken("root", "api", "read_user", "read_repository")
	if err != nil {
		t.Fatal(err)
	}
	if rec := serveDirect(srv, "192.0.2.1:1", tok2, listProjects); rec.Code != 200 {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	if err := up.RevokeToken(tok2); err != nil {
		t.Fatal(err)
	}
	if rec := serveDirect(srv, "192.0.2.1:1", tok2, listProjects); !strings.Contains(rec.Body.String(), `"status":401`) {
		t.Fatalf("the call after revocation: %d %s", rec.Code, rec.Body)
	}
	if rec := serveDirect(srv, "192.0.2.1:1", tok2, cached); rec.Code != http.StatusUnauthorized {
		t.Errorf("the next request: %d %s, want 401", rec.Code, rec.Body)
	}
}

// A token one replica forgot (a call of its met the revocation upstream)
// is refused by another at its next request, though that one verified the
// token a moment ago and believes its own verdict where the store holds
// none: forgetting leaves a mark in the store rather than nothing.
func TestForgottenTokenRefusedByEveryReplica(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC))
	up := sourcehostfake.Start(t, control.WithClock(clk))
	pid, err := up.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	shared := gateway.NewMemoryStore(clk, gateway.MemoryLimits{})
	a, err := mcpfake.New(mcpfake.WithUpstream(up), mcpfake.WithConfig(gateway.Config{Store: shared}))
	if err != nil {
		t.Fatal(err)
	}
	b, err := mcpfake.New(mcpfake.WithUpstream(up), mcpfake.WithConfig(gateway.Config{Store: shared}))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := up.IssueToken("root", "api", "read_user", "read_repository")
	if err != nil {
		t.Fatal(err)
	}
	cached := fmt.Sprintf(`{"jsonrpc":"2.0","method":"get_project","params":{"project_id":%d,"cache_ttl":600},"id":1}`, pid)
	if rec := serveDirect(b, "192.0.2.1:1", tok, cached); rec.Code != 200 || strings.Contains(rec.Body.String(), "error") {
		t.Fatalf("B, first call: %d %s", rec.Code, rec.Body)
	}
	if err := up.RevokeToken(tok); err != nil {
		t.Fatal(err)
	}
	if rec := serveDirect(a, "192.0.2.1:1", tok, listProjects); !strings.Contains(rec.Body.String(), `"status":401`) {
		t.Fatalf("A, a call after the revocation: %d %s, want the upstream's 401", rec.Code, rec.Body)
	}
	if rec := serveDirect(b, "192.0.2.1:1", tok, cached); rec.Code != http.StatusUnauthorized {
		t.Errorf("B, the next request: %d %s, want 401", rec.Code, rec.Body)
	}
}

// Finding 5: a signature covers the time, a nonce, the method, the path and
// the body, and is accepted once.
func TestSignedRequestCannotBeReplayed(t *testing.T) {
	t.Parallel()
	secret := []byte("s3cret")
	srv := mcpfake.Start(t, mcpfake.WithConfig(gateway.Config{Security: gateway.SecurityConfig{SigningSecret: string(secret)}}))
	now := srv.Clock().Now()
	sig := mcp.SignRequest(secret, now, mcp.NewNonce(), http.MethodPost, "/mcp", []byte(listProjects))
	send := func(sig, body string) *httptest.ResponseRecorder {
		return serveDirect(srv, "192.0.2.1:1", srv.Token(), body, mcp.SignatureHeader, sig)
	}
	if rec := send(sig, listProjects); rec.Code != 200 {
		t.Fatalf("signed: %d %s", rec.Code, rec.Body)
	}
	rec := send(sig, listProjects)
	if rec.Code != http.StatusUnauthorized || !strings.Contains(rec.Body.String(), "already used") {
		t.Errorf("replayed: %d %s, want 401 already used", rec.Code, rec.Body)
	}
	window := time.Duration(gateway.DefaultSignatureWindow) * time.Second
	for name, sig := range map[string]string{
		"too old":         mcp.SignRequest(secret, now.Add(-window-time.Second), mcp.NewNonce(), http.MethodPost, "/mcp", []byte(listProjects)),
		"from the future": mcp.SignRequest(secret, now.Add(window+time.Second), mcp.NewNonce(), http.MethodPost, "/mcp", []byte(listProjects)),
		"another path":    mcp.SignRequest(secret, now, mcp.NewNonce(), http.MethodPost, "/other", []byte(listProjects)),
		"another body":    mcp.SignRequest(secret, now, mcp.NewNonce(), http.MethodPost, "/mcp", []byte(`{}`)),
		"another secret":  mcp.SignRequest([]byte("x"), now, mcp.NewNonce(), http.MethodPost, "/mcp", []byte(listProjects)),
		"short nonce":     mcp.SignRequest(secret, now, "abc", http.MethodPost, "/mcp", []byte(listProjects)),
		"body only":       mcp.Sign(secret, []byte(listProjects)),
		"garbage":         "t=1,nonce=,v2=",
	} {
		if rec := send(sig, listProjects); rec.Code != http.StatusUnauthorized {
			t.Errorf("%s: %d %s, want 401", name, rec.Code, rec.Body)
		}
	}
	// The same call signed again (a new nonce) is a new request.
	if rec := send(mcp.SignRequest(secret, now, mcp.NewNonce(), http.MethodPost, "/mcp", []byte(listProjects)), listProjects); rec.Code != 200 {
		t.Errorf("signed anew: %d %s", rec.Code, rec.Body)
	}
	// The client signs each call (and each retry) anew.
	c := srv.Client()
	for range 3 {
		if _, err := c.ListProjects(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
	}
	if srv.Gateway().Metrics().ReplaysRefused != 1 {
		t.Errorf("metrics: %+v", srv.Gateway().Metrics())
	}
}

// The specification's body-only form, for clients that cannot sign the new
// way, only when the operator accepts it, and replayable as documented.
func TestBodyOnlySignature(t *testing.T) {
	t.Parallel()
	secret := "s3cret"
	srv := mcpfake.Start(t, mcpfake.WithConfig(gateway.Config{Security: gateway.SecurityConfig{SigningSecret: secret, AcceptBodyOnlySignature: true}}))
	sig := mcp.Sign([]byte(secret), []byte(listProjects))
	for range 2 {
		if rec := serveDirect(srv, "192.0.2.1:1", srv.Token(), listProjects, mcp.SignatureHeader, sig); rec.Code != 200 {
			t.Errorf("body-only accepted: %d %s", rec.Code, rec.Body)
		}
	}
	if rec := serveDirect(srv, "192.0.2.1:1", srv.Token(), listProjects, mcp.SignatureHeader, mcp.Sign([]byte("x"), []byte(listProjects))); rec.Code != 401 {
		t.Errorf("wrong body-only: %d", rec.Code)
	}
	if _, err := gateway.New(gateway.Config{Upstream: "http://x", Security: gateway.SecurityConfig{AcceptBodyOnlySignature: true}}); err == nil ||
		!strings.Contains(err.Error(), "security.accept_body_only_signature") {
		t.Errorf("compat without a signature policy: %v", err)
	}
}

// Finding 6: a 1 MiB batch of a million tiny elements is refused after one
// pass over its bytes, without decoding it (it cost about 176 MB).
func TestHugeBatchIsRefusedCheaply(t *testing.T) {
	// Not parallel: it reads the process's allocation counter.
	srv, _ := seeded(t)
	serveDirect(srv, "192.0.2.1:1", srv.Token(), listProjects) // verify the token first
	body := "[" + strings.Repeat("1,", 512*1024-2) + "1]"
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	rec := serveDirect(srv, "192.0.2.1:1", srv.Token(), body)
	runtime.ReadMemStats(&after)
	if !strings.Contains(rec.Body.String(), `"code":-32600`) || !strings.Contains(rec.Body.String(), "at most") {
		t.Errorf("answer %d %.200s", rec.Code, rec.Body)
	}
	// The body is read once (1 MiB, with io.ReadAll's growth about 3 MiB);
	// anything near the size of a decoded batch is a regression.
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
		t.Errorf("refusing a 1 MiB batch allocated %d MB", grew>>20)
	}
}

// With no scopes required (required_scopes: []), a token the
// source-hosting API will not describe (403 insufficient_scope on
// /personal_access_tokens/self: a token of read_repository alone, say) is
// still a good token, and still has an allowance of its own: two tokens
// are two buckets, not one shared by every such caller.
func TestEveryTokenHasItsOwnAllowanceWithoutRequiredScopes(t *testing.T) {
	t.Parallel()
	srv, _ := seeded(t, mcpfake.WithConfig(gateway.Config{
		Security:  gateway.SecurityConfig{RequiredScopes: []string{}},
		RateLimit: gateway.RateLimitConfig{PerMinute: 60, Burst: 1},
	}))
	up := srv.Upstream()
	if err := up.InjectFault("GET /api/v4/personal_access_tokens/self", control.Fault{Status: http.StatusForbidden,
		Body: `{"error":"insufficient_scope","error_description":"The request requires higher privileges than provided by the access token.","scope":"api read_api"}`}); err != nil {
		t.Fatal(err)
	}
	var tokens []string
	for range 2 {
		tok, err := up.IssueToken("root", "api", "read_repository")
		if err != nil {
			t.Fatal(err)
		}
		tokens = append(tokens, tok)
	}
	for i, tok := range tokens {
		if rec := serveDirect(srv, "192.0.2.20:1000", tok, listProjects); rec.Code != http.StatusOK {
			t.Errorf("token %d's first call: %d %s, want 200 (a bucket of its own)", i+1, rec.Code, rec.Body)
		}
	}
	// Each bucket still holds one: the token's second call is refused.
	if rec := serveDirect(srv, "192.0.2.20:1000", tokens[0], listProjects); rec.Code != http.StatusTooManyRequests {
		t.Errorf("token 1's second call: %d, want 429", rec.Code)
	}
}
