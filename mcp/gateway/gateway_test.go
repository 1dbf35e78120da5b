package gateway_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/mcpfake"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/mcp/gateway"
)

// Every row of the specification's upstream error table, through the
// client, with the upstream fake answering the status.
func TestUpstreamErrorMapping(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		status   int
		code     int
		message  string
		sentinel error
	}{
		{400, mcp.CodeInvalidParams, "Invalid params", mcp.ErrBadRequest},
		{401, mcp.CodeUpstreamError, "source-hosting API Error", mcp.ErrUnauthorized},
		{403, mcp.CodeUpstreamError, "source-hosting API Error", mcp.ErrForbidden},
		{404, mcp.CodeUpstreamError, "source-hosting API Error", mcp.ErrNotFound},
		{429, mcp.CodeUpstreamError, "source-hosting API Error", mcp.ErrRateLimited},
		{500, mcp.CodeInternalError, "Internal error", mcp.ErrServer},
	} {
		t.Run(fmt.Sprint(tc.status), func(t *testing.T) {
			t.Parallel()
			srv, pid := seeded(t)
			if err := srv.Upstream().InjectFault("GET /api/v4/projects/{id}/issues", control.Fault{Status: tc.status}); err != nil {
				t.Fatal(err)
			}
			_, err := srv.Client(mcp.WithoutRetries()).ListIssues(ctx, &mcp.ListIssuesParams{ProjectID: pid})
			var e *mcp.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T), want *mcp.Error", err, err)
			}
			if e.Code != tc.code || e.Message != tc.message || e.Status != tc.status || e.Detail == "" {
				t.Errorf("got code %d %q data {status %d, message %q}; want %d %q status %d with a message",
					e.Code, e.Message, e.Status, e.Detail, tc.code, tc.message, tc.status)
			}
			if !errors.Is(err, tc.sentinel) {
				t.Errorf("errors.Is(%v, %v) is false", err, tc.sentinel)
			}
		})
	}
}

func TestInvalidParams(t *testing.T) {
	t.Parallel()
	srv, pid := seeded(t)
	srv.Upstream().ResetRequests()
	t.Run("refused", func(t *testing.T) { invalidParams(t, srv, pid) })
	// Refused params never reach the upstream: only the token's one
	// verification does.
	for _, r := range srv.Upstream().Requests() {
		if r.Route != "GET /api/v4/personal_access_tokens/self" {
			t.Errorf("invalid params made an upstream request: %s %s", r.Method, r.Path)
		}
	}
	if n := len(srv.Upstream().RequestsTo("GET /api/v4/personal_access_tokens/self")); n != 1 {
		t.Errorf("the token was verified %d times, want once", n)
	}
}

func invalidParams(t *testing.T, srv *mcpfake.Server, pid int64) {
	for _, tc := range []struct {
		name, params, param, reason string
	}{
		{"string for integer", `{"project_id":"7"}`, "project_id", "must be an integer"},
		{"fraction", `{"project_id":7.5}`, "project_id", "must be an integer (no fraction or exponent)"},
		{"missing required", `{}`, "project_id", "is required"},
		{"unknown param", fmt.Sprintf(`{"project_id":%d,"stat":"opened"}`, pid), "stat", "unknown parameter"},
		{"enum", fmt.Sprintf(`{"project_id":%d,"state":"open"}`, pid), "state", "must be one of opened, closed, all"},
		{"per_page under 1", fmt.Sprintf(`{"project_id":%d,"per_page":0}`, pid), "per_page", "must be between 1 and 2147483648"},
		{"labels not strings", fmt.Sprintf(`{"project_id":%d,"labels":[1]}`, pid), "labels", "must be an array of strings"},
		{"label with comma", fmt.Sprintf(`{"project_id":%d,"labels":["a,b"]}`, pid), "labels", "a label must not contain a comma"},
		{"cache_ttl not positive", fmt.Sprintf(`{"project_id":%d,"cache_ttl":0}`, pid), "cache_ttl", "must be between 1 and 86400"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := srv.Client().Call(context.Background(), "list_issues", jsonObject(tc.params), nil)
			var e *mcp.Error
			if !errors.As(err, &e) || e.Code != mcp.CodeInvalidParams || e.Param != tc.param || e.Reason != tc.reason {
				t.Fatalf("got %v; want -32602 with data {param %q, reason %q}", err, tc.param, tc.reason)
			}
		})
	}
}

// jsonObject is raw JSON params for Call.
type jsonObject string

func (j jsonObject) MarshalJSON() ([]byte, error) { return []byte(j), nil }

func TestAuthRefusedBeforeUpstream(t *testing.T) {
	t.Parallel()
	srv, _ := seeded(t)
	srv.Upstream().ResetRequests()
	status, hdr, body := post(t, srv, `{"jsonrpc":"2.0","method":"list_projects","id":1}`, "Authorization", "")
	want := `{"jsonrpc":"2.0","error":{"code":-32000,"message":"source-hosting API Error","data":{"status":401,"message":"Authorization: Bearer \u003ctoken\u003e is required"}},"id":null}`
	if status != http.StatusUnauthorized || body != want || !strings.HasPrefix(hdr.Get("WWW-Authenticate"), "Bearer") {
		t.Errorf("got %d %s (WWW-Authenticate %q)", status, body, hdr.Get("WWW-Authenticate"))
	}
	if n := len(srv.Upstream().Requests()); n != 0 {
		t.Errorf("%d upstream requests for an unauthenticated call", n)
	}
}

func TestScopesChecked(t *testing.T) {
	t.Parallel()
	srv, _ := seeded(t)
	up := srv.Upstream()
	if _, err := up.AddUser(sourcehostfake.UserSeed{Username: "reader", Name: "Reader"}); err != nil {
		t.Fatal(err)
	}
	narrow, err := up.IssueToken("reader", "read_user")
	if err != nil {
		t.Fatal(err)
	}
	_, err = srv.ClientWithToken(narrow).ListProjects(context.Background(), nil)
	var e *mcp.Error
	if !errors.As(err, &e) || !errors.Is(err, mcp.ErrForbidden) || !strings.Contains(e.Detail, "read_repository") || e.HTTPStatus != http.StatusForbidden {
		t.Fatalf("got %v; want HTTP 403, -32000 status 403 naming read_repository", err)
	}
	status, hdr, _ := post(t, srv, `{"jsonrpc":"2.0","method":"list_projects","id":1}`, "Authorization", "Bearer "+narrow)
	if got := hdr.Get("WWW-Authenticate"); status != http.StatusForbidden || !strings.Contains(got, `error="insufficient_scope"`) || !strings.Contains(got, "read_repository") {
		t.Errorf("status %d, WWW-Authenticate %q; want 403 insufficient_scope naming the scopes", status, got)
	}

	// A good token is checked once, then remembered.
	up.ResetRequests()
	c := srv.Client()
	for range 3 {
		if _, err := c.ListProjects(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(up.RequestsTo("GET /api/v4/personal_access_tokens/self")); n != 1 {
		t.Errorf("scope checked %d times for 3 calls, want 1", n)
	}
}

func TestSigning(t *testing.T) {
	t.Parallel()
	const secret = "s3cret"
	call := `{"jsonrpc":"2.0","method":"list_projects","id":1}`
	for _, tc := range []struct {
		policy    gateway.SignaturePolicy
		signature string
		status    int
	}{
		// The specification's body-only form can be replayed: refused
		// unless the operator accepts it (TestBodyOnlySignature).
		{gateway.SignatureRequired, mcp.Sign([]byte(secret), []byte(call)), 401},
		{gateway.SignatureRequired, "", 401},
		{gateway.SignatureRequired, mcp.Sign([]byte("wrong"), []byte(call)), 401},
		{gateway.SignatureRequired, "sha256=zz", 401},
		{gateway.SignatureRequired, strings.TrimPrefix(mcp.Sign([]byte(secret), []byte(call)), "sha256="), 401},
		{gateway.SignatureOptional, "", 200},
		{gateway.SignatureOptional, mcp.Sign([]byte("wrong"), []byte(call)), 401},
		{gateway.SignatureOff, mcp.Sign([]byte("wrong"), []byte(call)), 200},
	} {
		t.Run(fmt.Sprintf("%s/%q", tc.policy, tc.signature), func(t *testing.T) {
			t.Parallel()
			srv := mcpfake.Start(t, mcpfake.WithConfig(gateway.Config{Security: gateway.SecurityConfig{SigningSecret: secret, Signature: tc.policy}}))
			status, _, body := post(t, srv, call, mcp.SignatureHeader, tc.signature)
			if status != tc.status {
				t.Errorf("status %d (%s), want %d", status, body, tc.status)
			}
		})
	}

	t.Run("client signs", func(t *testing.T) {
		t.Parallel()
		srv := mcpfake.Start(t, mcpfake.WithConfig(gateway.Config{Security: gateway.SecurityConfig{SigningSecret: secret}}))
		if _, err := srv.Client().ListProjects(context.Background(), nil); err != nil {
			t.Errorf("signed call: %v", err)
		}
		_, err := srv.Client(mcp.WithSigningSecret("other")).ListProjects(context.Background(), nil)
		if !errors.Is(err, mcp.ErrUnauthorized) || strings.Contains(err.Error(), "other") {
			t.Errorf("wrongly signed call: %v; want 401 without the secret in it", err)
		}
	})
}

func TestIPAccessControl(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		sec    gateway.SecurityConfig
		remote string
		xff    string
		status int
	}{
		{"no lists", gateway.SecurityConfig{}, "198.51.100.4:5000", "", 200},
		{"blocked", gateway.SecurityConfig{BlockedIPs: []string{"198.51.100.4"}}, "198.51.100.4:5000", "", 403},
		{"inside allow list", gateway.SecurityConfig{IPWhitelist: []string{"198.51.100.0/24"}}, "198.51.100.4:5000", "", 200},
		{"outside allow list", gateway.SecurityConfig{IPWhitelist: []string{"10.0.0.0/8"}}, "198.51.100.4:5000", "", 403},
		{"blocked inside allow list", gateway.SecurityConfig{IPWhitelist: []string{"198.51.100.0/24"}, BlockedIPs: []string{"198.51.100.4"}}, "198.51.100.4:5000", "", 403},
		{"IPv6 allowed", gateway.SecurityConfig{IPWhitelist: []string{"2001:db8::/32"}}, "[2001:db8::1]:5000", "", 200},
		{"forwarded-for ignored from an untrusted peer", gateway.SecurityConfig{BlockedIPs: []string{"203.0.113.7"}}, "198.51.100.4:5000", "203.0.113.7", 200},
		{"forwarded-for believed from a trusted proxy", gateway.SecurityConfig{BlockedIPs: []string{"203.0.113.7"}, TrustedProxies: []string{"198.51.100.0/24"}}, "198.51.100.4:5000", "203.0.113.7", 403},
		{"spoofed left-most hop ignored", gateway.SecurityConfig{IPWhitelist: []string{"203.0.113.0/24", "198.51.100.0/24"}, TrustedProxies: []string{"198.51.100.0/24"}}, "198.51.100.4:5000", "203.0.113.7, 192.0.2.99", 403},
		// Issue 16, finding 7: forwarded addresses in other shapes do not
		// slip past the block list, and one that cannot be read is refused.
		{"forwarded hop with a port", gateway.SecurityConfig{BlockedIPs: []string{"203.0.113.7"}, TrustedProxies: []string{"198.51.100.0/24"}}, "198.51.100.4:5000", "203.0.113.7:4711", 403},
		{"forwarded IPv6 hop with brackets and a port", gateway.SecurityConfig{BlockedIPs: []string{"2001:db8::7"}, TrustedProxies: []string{"198.51.100.0/24"}}, "198.51.100.4:5000", "[2001:db8::7]:4711", 403},
		{"forwarded IPv6 hop with a zone", gateway.SecurityConfig{BlockedIPs: []string{"fe80::/10"}, TrustedProxies: []string{"198.51.100.0/24"}}, "198.51.100.4:5000", "fe80::1%eth0", 403},
		{"forwarded garbage", gateway.SecurityConfig{BlockedIPs: []string{"203.0.113.7"}, TrustedProxies: []string{"198.51.100.0/24"}}, "198.51.100.4:5000", "not-an-address", 403},
		{"peer with a zone", gateway.SecurityConfig{BlockedIPs: []string{"fe80::/10"}}, "[fe80::1%eth0]:5000", "", 403},
		// A range written in IPv4-mapped IPv6 form covers the IPv4
		// addresses it maps, as a single address in that form already did
		// (the caller's address is unmapped before it is judged).
		{"IPv4-mapped range blocked", gateway.SecurityConfig{BlockedIPs: []string{"::ffff:198.51.100.0/120"}}, "198.51.100.4:5000", "", 403},
		{"IPv4-mapped range blocked, mapped peer", gateway.SecurityConfig{BlockedIPs: []string{"::ffff:198.51.100.0/120"}}, "[::ffff:198.51.100.4]:5000", "", 403},
		{"IPv4-mapped range allowed", gateway.SecurityConfig{IPWhitelist: []string{"::ffff:198.51.100.0/120"}}, "198.51.100.4:5000", "", 200},
		{"IPv4-mapped trusted proxy", gateway.SecurityConfig{BlockedIPs: []string{"203.0.113.7"}, TrustedProxies: []string{"::ffff:198.51.100.0/120"}}, "198.51.100.4:5000", "203.0.113.7", 403},
		{"forwarded hop with a port, allowed", gateway.SecurityConfig{BlockedIPs: []string{"203.0.113.7"}, TrustedProxies: []string{"198.51.100.0/24"}}, "198.51.100.4:5000", "203.0.113.8:4711", 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := mcpfake.Start(t, mcpfake.WithConfig(gateway.Config{Security: tc.sec}))
			req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{"jsonrpc":"2.0","method":"list_projects","id":1}`))
			req.RemoteAddr = tc.remote
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+srv.Token())
			if tc.xff != "" {
				req.Header.Set("X-Forwarded-For", tc.xff)
			}
			rec := httptest.NewRecorder()
			srv.Gateway().ServeHTTP(rec, req)
			if rec.Code != tc.status {
				t.Errorf("status %d (%s), want %d", rec.Code, rec.Body, tc.status)
			}
		})
	}
}

// ClientAddr is the address the access lists judge, for programs to log:
// behind a trusted proxy, the caller's, not the proxy's.
func TestClientAddr(t *testing.T) {
	t.Parallel()
	gw, err := gateway.New(gateway.Config{Upstream: "http://git.example.com/api/v4", Security: gateway.SecurityConfig{TrustedProxies: []string{"198.51.100.0/24"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ remote, xff, want string }{
		{"203.0.113.9:5000", "", "203.0.113.9"},
		{"203.0.113.9:5000", "192.0.2.1", "203.0.113.9"}, // not from a proxy: not believed
		{"198.51.100.4:5000", "", "198.51.100.4"},
		{"198.51.100.4:5000", "192.0.2.1, 198.51.100.5", "192.0.2.1"},
		{"198.51.100.4:5000", "[2001:db8::7]:4711", "2001:db8::7"},
		{"198.51.100.4:5000", "not-an-address", ""},
	} {
		req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		req.RemoteAddr = tc.remote
		if tc.xff != "" {
			req.Header.Set("X-Forwarded-For", tc.xff)
		}
		got, ok := gw.ClientAddr(req)
		if (tc.want == "") == ok || ok && got.String() != tc.want {
			t.Errorf("%s via %q: %v %v, want %q", tc.remote, tc.xff, got, ok, tc.want)
		}
	}
}

func TestRateLimit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv, _ := seeded(t, mcpfake.WithConfig(gateway.Config{RateLimit: gateway.RateLimitConfig{PerMinute: 60, Burst: 3}}))
	call := `{"jsonrpc":"2.0","method":"list_projects","id":1}`
	for i := range 3 {
		status, hdr, body := post(t, srv, call)
		if status != 200 || hdr.Get("X-RateLimit-Limit") != "60" || hdr.Get("X-RateLimit-Remaining") != fmt.Sprint(2-i) || hdr.Get("X-RateLimit-Reset") == "" {
			t.Fatalf("call %d: %d %v %s", i, status, hdr, body)
		}
	}
	status, hdr, body := post(t, srv, call)
	want := `{"jsonrpc":"2.0","error":{"code":-32000,"message":"source-hosting API Error","data":{"status":429,"message":"rate limit of 60 requests a minute exceeded; retry in 1 s"}},"id":1}`
	if status != http.StatusTooManyRequests || hdr.Get("Retry-After") != "1" || body != want {
		t.Fatalf("exhausted: %d Retry-After %q %s", status, hdr.Get("Retry-After"), body)
	}
	// A batch of one is answered as a batch.
	if status, _, body = post(t, srv, `[`+call+`]`); status != http.StatusTooManyRequests || body != `[`+want+`]` {
		t.Fatalf("exhausted, batch of one: %d %s", status, body)
	}
	// A batch is counted per request: two need two tokens.
	srv.Clock().Advance(time.Second)
	status, _, body = post(t, srv, `[`+call+`,{"jsonrpc":"2.0","method":"list_projects","id":2}]`)
	if status != http.StatusTooManyRequests || strings.Count(body, `"status":429`) != 2 {
		t.Fatalf("batch of 2 with 1 token: %d %s", status, body)
	}
	// Recovered: the refused batch spent nothing, one more second gives two.
	srv.Clock().Advance(time.Second)
	if status, _, body = post(t, srv, `[`+call+`,{"jsonrpc":"2.0","method":"list_projects","id":2}]`); status != 200 {
		t.Fatalf("after recovery: %d %s", status, body)
	}

	// The client's retry waits on the fake clock (1 s, doubling) and gets through.
	before := srv.Clock().Now()
	if _, err := srv.Client().ListProjects(ctx, nil); err != nil {
		t.Fatalf("client retry: %v", err)
	}
	if waited := srv.Clock().Now().Sub(before); waited < time.Second {
		t.Errorf("client waited %v, want at least 1 s", waited)
	}
	// Without retries the caller sees the error.
	_, err := srv.Client(mcp.WithoutRetries()).ListProjects(ctx, nil)
	if !errors.Is(err, mcp.ErrRateLimited) || !errors.Is(err, mcp.ErrUpstream) {
		t.Errorf("without retries: %v", err)
	}
}

func TestCache(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv, pid := seeded(t)
	up := srv.Upstream()
	c := srv.Client()
	issuesRoute := "GET /api/v4/projects/{id}/issues"
	list := func() *mcp.IssueList {
		t.Helper()
		l, err := c.ListIssues(ctx, &mcp.ListIssuesParams{ProjectID: pid, CacheOptions: mcp.CacheOptions{Cache: mcp.Ptr(true), CacheTTL: 30}})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	first := list()
	up.ResetRequests()
	if second := list(); second.TotalCount != first.TotalCount {
		t.Errorf("cached answer differs: %d vs %d", second.TotalCount, first.TotalCount)
	}
	if n := len(up.Requests()); n != 0 {
		t.Fatalf("cache hit made %d upstream requests", n)
	}
	// Without cache the same call goes upstream.
	if _, err := c.ListIssues(ctx, &mcp.ListIssuesParams{ProjectID: pid}); err != nil {
		t.Fatal(err)
	}
	if n := len(up.RequestsTo(issuesRoute)); n != 1 {
		t.Fatalf("uncached call: %d upstream requests", n)
	}
	// A write to the project drops its cached reads.
	if _, err := c.CreateIssue(ctx, &mcp.CreateIssueParams{ProjectID: pid, Title: "Third"}); err != nil {
		t.Fatal(err)
	}
	up.ResetRequests()
	if after := list(); after.TotalCount != first.TotalCount+1 {
		t.Errorf("after a write: total %d, want %d", after.TotalCount, first.TotalCount+1)
	}
	if n := len(up.RequestsTo(issuesRoute)); n != 1 {
		t.Errorf("after a write: %d upstream requests, want 1", n)
	}
	// And it expires on the clock.
	list()
	srv.Clock().Advance(31 * time.Second)
	up.ResetRequests()
	list()
	if n := len(up.RequestsTo(issuesRoute)); n != 1 {
		t.Errorf("after expiry: %d upstream requests, want 1", n)
	}
	// Another token does not see this token's cached answer.
	if _, err := up.AddUser(sourcehostfake.UserSeed{Username: "other", Name: "Other"}); err != nil {
		t.Fatal(err)
	}
	tok, _ := up.IssueToken("other", "api", "read_user", "read_repository")
	up.ResetRequests()
	_, err := srv.ClientWithToken(tok).ListIssues(ctx, &mcp.ListIssuesParams{ProjectID: pid, CacheOptions: mcp.CacheOptions{Cache: mcp.Ptr(true)}})
	if !errors.Is(err, mcp.ErrNotFound) { // a private project of root's
		t.Errorf("other token: %v, want not found", err)
	}
}

func TestBatchThroughClient(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv, pid := seeded(t)
	b := srv.Client().NewBatch()
	get := b.Call("get_project", &mcp.GetProjectParams{ProjectID: pid})
	missing := b.Call("get_project", &mcp.GetProjectParams{ProjectID: 999})
	bad := b.Call("nope", nil)
	b.Notify("list_projects", nil)
	if err := b.Send(ctx); err != nil {
		t.Fatal(err)
	}
	var p mcp.ProjectDetail
	if err := get.Decode(&p); err != nil || p.ID != pid || p.DefaultBranch != "main" || p.Statistics.CommitCount != 1 {
		t.Errorf("get_project: %+v, %v", p, err)
	}
	if !errors.Is(missing.Err(), mcp.ErrNotFound) {
		t.Errorf("missing project: %v", missing.Err())
	}
	if !errors.Is(bad.Err(), mcp.ErrMethodNotFound) {
		t.Errorf("unknown method: %v", bad.Err())
	}
}

func TestNotify(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv, pid := seeded(t)
	c := srv.Client()
	if err := c.Notify(ctx, "create_issue", &mcp.CreateIssueParams{ProjectID: pid, Title: "Told, not asked"}); err != nil {
		t.Fatal(err)
	}
	issues := srv.Upstream().Issues(pid)
	if len(issues) != 3 || issues[len(issues)-1].Title != "Told, not asked" {
		t.Errorf("the notification did not run: %d issues", len(issues))
	}
	// A notification runs unanswered, its failures too...
	if err := c.Notify(ctx, "get_project", &mcp.GetProjectParams{ProjectID: 999999}); err != nil {
		t.Errorf("a failing notification was answered: %v", err)
	}
	// ...but a request the gateway refuses whole reports why: a token the
	// source-hosting API does not know, a missing signature.
	if err := srv.ClientWithToken("not-a-token").Notify(ctx, "list_projects", nil); !errors.Is(err, mcp.ErrUnauthorized) {
		t.Errorf("notification with an unknown token: %v, want 401", err)
	}
	signed := mcpfake.Start(t, mcpfake.WithConfig(gateway.Config{Security: gateway.SecurityConfig{SigningSecret: "s"}}))
	unsigned, err := mcp.New(signed.URL(), mcp.WithToken(signed.Token()))
	if err != nil {
		t.Fatal(err)
	}
	if err := unsigned.Notify(ctx, "list_projects", nil); !errors.Is(err, mcp.ErrUnauthorized) {
		t.Errorf("unsigned notification: %v, want 401", err)
	}
	if err := c.Notify(ctx, "", nil); err == nil {
		t.Error("an empty method name was sent")
	}
}

// holdingStore holds the first store of a cached answer until released, as
// a slow Redis round trip or a descheduled goroutine can.
type holdingStore struct {
	gateway.Store
	once             sync.Once
	reached, release chan struct{}
}

func (s *holdingStore) Set(ctx context.Context, key string, v []byte, ttl time.Duration, tags ...string) error {
	if strings.HasPrefix(key, "ans:") {
		s.once.Do(func() { close(s.reached); <-s.release })
	}
	return s.Store.Set(ctx, key, v, ttl, tags...)
}

// A read that met the upstream before a write to its project, and stores
// its answer after the write dropped the project's cached reads, does not
// leave that stale answer in the cache for its whole cache_ttl.
func TestCachedReadRacingAWriteIsNotKept(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := clock.NewFake(time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC))
	store := &holdingStore{Store: gateway.NewMemoryStore(clk, gateway.MemoryLimits{}), reached: make(chan struct{}), release: make(chan struct{})}
	srv, pid := seeded(t, control.WithClock(clk), mcpfake.WithConfig(gateway.Config{Store: store}))
	c := srv.Client()
	cached := &mcp.ListIssuesParams{ProjectID: pid, CacheOptions: mcp.CacheOptions{CacheTTL: 86400}}
	first := make(chan error, 1)
	go func() { _, err := c.ListIssues(ctx, cached); first <- err }()
	<-store.reached // the read has its answer (two issues) and is about to store it
	if _, err := c.CreateIssue(ctx, &mcp.CreateIssueParams{ProjectID: pid, Title: "Third"}); err != nil {
		t.Fatal(err)
	}
	close(store.release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	got, err := c.ListIssues(ctx, cached)
	if err != nil {
		t.Fatal(err)
	}
	if got.TotalCount != 3 {
		t.Errorf("after the write: %d issues from the cache, want 3", got.TotalCount)
	}
}
