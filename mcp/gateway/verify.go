package gateway

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/sourcehost"
)

// verdict is what the gateway remembers of a token, under "tok:" and the
// token's digest: who it is, or why it is refused.
type verdict struct {
	OK      bool     `json:"ok"`
	TokenID int64    `json:"token_id,omitempty"`
	UserID  int64    `json:"user_id,omitempty"`
	Missing []string `json:"missing,omitempty"` // scopes lacking: 403, not 401
	Reason  string   `json:"reason,omitempty"`  // why a token is refused
	Checked int64    `json:"checked"`           // when the API was asked, unix seconds
}

// knownTokenMemory is how long a good token's verdict is kept after it
// stops being fresh: asking again about a token known to have been good
// is revalidation, not one of the flood of made-up tokens the verification
// limits hold back.
const knownTokenMemory = 24 * time.Hour

// identity is the rate limit's key for a verified caller: its token's id at
// the source-hosting API, so that the allowance follows the token, however
// it is spelt and whichever replica sees it. A token the API accepts but
// will not describe (403 on /personal_access_tokens/self, good enough when
// no scopes are required) has no id to go by: it is counted by its digest,
// which is as much its own, rather than under the id 0 that every such
// token would share.
func (c *caller) identity() string { return identityOf(c.digest, c.who) }

// identityOf is the rate limit's key for the token with digest and verdict v.
func identityOf(digest string, v *verdict) string {
	if v.TokenID == 0 {
		return "rl:dig:" + digest
	}
	return "rl:tok:" + strconv.FormatInt(v.TokenID, 10)
}

// tokenDigest is the key of everything the gateway keeps about a token: the
// hex SHA-256 of it. The token itself is never stored, logged or used as a
// key.
func tokenDigest(token string) string {
	sum := sha256.Sum256([]byte(token))
	var digest [2 * sha256.Size]byte
	hex.Encode(digest[:], sum[:])
	return string(digest[:])
}

// refusal is an HTTP-level answer to a caller the gateway will not serve.
type refusal struct {
	status     int
	code       int
	reason     string
	authHeader string // WWW-Authenticate
	retryAfter time.Duration
}

func (r *refusal) write(w http.ResponseWriter) {
	if r.authHeader != "" {
		w.Header().Set("WWW-Authenticate", r.authHeader)
	}
	if r.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(wholeSeconds(r.retryAfter)))
	}
	refuse(w, r.status, r.code, r.reason)
}

func wholeSeconds(d time.Duration) int { return max(1, int((d+time.Second-1)/time.Second)) }

// verified is what verify found out about a request's token.
type verified struct {
	who *verdict // the verdict: a good one, with every required scope
	raw []byte   // who's bytes as the store holds them, nil when it does not
	// up is the source-hosting client with the token that asked the API,
	// when this request asked it (nil otherwise), for the caller to keep
	// rather than make another just like it.
	up *sourcehost.Client
	// n is the rate-limit tokens taken with the verdict's read (GetTaker),
	// 0 when none were, and taken the bucket's answer.
	n     int
	taken RateDecision
}

// verify returns the verdict on token, from the store while it is fresh,
// else from the source-hosting API (at most one call per token at a time
// in this process, and at most the per-address allowance of calls for
// tokens not remembered). A refused token is a refusal: 401 with
// WWW-Authenticate for a token the API does not accept, 403 for one
// lacking scopes.
//
// With take (the rate limit applies), a token whose good verdict this
// gateway has seen, still fresh, has its verdict read and the request's
// count of its rate limit taken (one a message of the body in early, one
// for a body with none) in one step of the store (GetTaker), which takes
// only when the store still holds that very verdict (verified's n and
// taken, for admit). A verdict
// the store no longer holds (forgotten after a 401, re-verified, expired)
// takes nothing, and is read and judged as before.
//
// early, when not nil, is the request's body, whose call's cached answer is
// read in that same step when the call asks for one (see earlyRead).
func (g *Gateway) verify(ctx context.Context, token, digest string, addr netip.Addr, take bool, early *earlyRead) (verified, *refusal) {
	var (
		v     *verdict
		raw   []byte
		up    *sourcehost.Client
		taken RateDecision
		n     int // the rate-limit tokens to take, then taken
		r     *refusal
	)
	key := "tok:" + digest
	now := g.clk.Now()
	ttl := time.Duration(g.cfg.Verify.TTLSeconds) * time.Second
	fresh := func(v *verdict) bool { return now.Before(time.Unix(v.Checked, 0).Add(ttl)) }
	// own is this replica's last good verdict on the token, seen that
	// verdict while it is fresh.
	var own, seen *seenVerdict
	c := g.knownCaller(digest)
	if c != nil {
		if s := c.seen.Load(); s != nil && s.v.OK && len(s.v.Missing) == 0 {
			own = s
			if fresh(s.v) {
				seen = s
			}
		}
	}
	var b []byte
	var ok bool
	also := ""
	if seen != nil && take && early != nil {
		also = early.key(digest)    // decodes the body
		n = max(1, len(early.msgs)) // what admit asks
	}
	took := false
	switch {
	case seen != nil && n > 0:
		q := GetTakeRequest{Key: key, Want: seen.raw, Bucket: identityOf(digest, seen.v), N: n, Rate: g.rate(), Now: now, Also: also}
		if also != "" {
			q.Marks = early.mc.marks
		}
		res, err := getTake(ctx, g.store, q)
		b, ok = res.Value, res.Found // a verdict read is a verdict, even if the take then failed
		if err == nil && res.Taken {
			taken, took = res.Decision, true
			if also != "" && (res.AlsoFound || res.Marks != nil) {
				early.mc.read, early.mc.hit, early.mc.found, early.mc.marked = true, res.Also, res.AlsoFound, res.Marks
			}
		}
	default:
		var err error
		b, ok, err = g.store.Get(ctx, key)
		ok = ok && err == nil
	}
	if ok {
		if seen != nil && bytes.Equal(b, seen.raw) {
			v, raw = seen.v, seen.raw // the same bytes read the same: not decoded again
		} else if v = new(verdict); json.Unmarshal(b, v) == nil {
			raw = b
		} else {
			v, ok = nil, false
		}
	}
	known := ok && v.OK && len(v.Missing) == 0
	if !ok && own != nil {
		// The store holds no verdict on a token this replica saw good: it
		// lost it (a Redis restarted empty; or down, with this replica's
		// memory never told; a token forgotten on purpose leaves a verdict
		// behind, see forgetToken). This replica's own verdict stands for
		// what is left of its TTL, as it would in the store, rather than
		// every caller being verified again at once through the
		// verification limit; then the token is asked about again, as one
		// known to have been good. A token revoked meanwhile is refused
		// within the TTL of the last verdict on it, as ever.
		v, ok, known = own.v, true, true
	}
	// (took is set only when the store held seen's bytes, so v is then
	// seen's verdict, good and fresh at now: it is never asked again.)
	if stale := known && !fresh(v); !ok || stale {
		if v, raw, up, r = g.verifyUpstream(ctx, token, key, addr, known); r != nil {
			return verified{}, r
		}
	}
	if c != nil && (!v.OK || len(v.Missing) > 0) {
		c.seen.Store(nil) // refused now: no older good verdict of this replica's stands for it
	}
	switch {
	case len(v.Missing) > 0:
		g.metrics.tokensRefused.Add(1)
		return verified{}, &refusal{status: http.StatusForbidden, code: mcp.CodeUpstreamError,
			reason:     "the token lacks the required scopes: " + strings.Join(v.Missing, ", "),
			authHeader: fmt.Sprintf(`Bearer realm="mcp", error="insufficient_scope", scope=%q`, strings.Join(g.cfg.Security.RequiredScopes, " "))}
	case !v.OK:
		g.metrics.tokensRefused.Add(1)
		return verified{}, &refusal{status: http.StatusUnauthorized, code: mcp.CodeUpstreamError,
			reason:     "the bearer token is not valid: " + v.Reason,
			authHeader: `Bearer realm="mcp", error="invalid_token", error_description="` + v.Reason + `"`}
	}
	if !took {
		n = 0
	}
	return verified{who: v, raw: raw, up: up, taken: taken, n: n}, nil
}

// unverified is the refusal of a token the source-hosting server could
// not be asked about (down, too slow, limiting the token's rate): 502, 504
// for an upstream that did not answer in time, 429 with the wait asked
// for. An OAuth lookup comes here only when no answer came: an error
// answer of the authorization server, 429 included, is refused as 502
// naming its status (verifyOAuth).
func (g *Gateway) unverified(ctx context.Context, err error) *refusal {
	e := g.upstreamFailure(ctx, "token verification", err)
	status := http.StatusBadGateway
	var rl *sourcehost.RateLimitError
	switch {
	case errors.As(err, &rl):
		status = http.StatusTooManyRequests
	case e.Status == http.StatusGatewayTimeout:
		status = http.StatusGatewayTimeout
	}
	r := &refusal{status: status, code: e.Code, reason: "the token could not be verified: " + e.Message, retryAfter: e.RetryAfter}
	if e.Detail != "" {
		r.reason = "the token could not be verified: " + e.Detail
	}
	return r
}

// verifyUpstream asks the source-hosting API about token
// (GET /personal_access_tokens/self: its id, its user, its scopes, whether
// it is active) and remembers the verdict, good or bad. Callers with the
// same token wait for one call. up is the client with token that asked,
// when this request was the one that asked (nil for those that waited).
func (g *Gateway) verifyUpstream(ctx context.Context, token, key string, addr netip.Addr, known bool) (*verdict, []byte, *sourcehost.Client, *refusal) {
	call, leader := g.verifying.join(key)
	for !leader {
		select {
		case <-call.done:
		case <-ctx.Done():
			return nil, nil, nil, &refusal{status: http.StatusServiceUnavailable, code: mcp.CodeInternalError, reason: "the request was canceled"}
		}
		if !call.abandoned {
			return call.v, call.raw, nil, call.r
		}
		// The request that asked gave up before the answer came: that
		// says nothing of the token, so ask again.
		call, leader = g.verifying.join(key)
	}
	defer g.verifying.finish(key, call)

	// A flood of made-up tokens would be a flood of calls to the
	// source-hosting API: each address gets only so many verifications.
	// And all addresses together only so many, against floods from many.
	vc := g.cfg.Verify
	// A token known to have been good is only revalidated: not held back.
	limits := []struct {
		key, who string
		rate     Rate
	}{
		{"rl:verify:" + addressKey(addr), "this address", Rate{vc.PerIPPerMinute, vc.PerIPBurst}},
		{"rl:verify:*", "all callers", Rate{vc.PerMinute, vc.Burst}},
	}
	if known {
		limits = nil
	}
	for _, lim := range limits {
		d, err := g.store.Take(ctx, lim.key, 1, lim.rate, g.clk.Now())
		if err == nil && !d.Allowed {
			g.metrics.verifyLimited.Add(1)
			call.r = &refusal{status: http.StatusTooManyRequests, code: mcp.CodeUpstreamError, retryAfter: d.RetryAfter,
				reason: fmt.Sprintf("too many token verifications from %s (%d a minute); retry in %d s", lim.who, d.Limit, wholeSeconds(d.RetryAfter))}
			return nil, nil, nil, call.r
		}
	}

	g.metrics.verifications.Add(1)
	up, err := g.upstreamClient(token)
	if err != nil {
		call.r = &refusal{status: http.StatusUnauthorized, code: mcp.CodeUpstreamError, reason: "the bearer token cannot be used: " + err.Error(),
			authHeader: `Bearer realm="mcp", error="invalid_token"`}
		return nil, nil, nil, call.r
	}
	tok, err := up.CurrentToken(ctx)
	v := &verdict{Checked: g.clk.Now().Unix()}
	ttl := time.Duration(g.cfg.Verify.NegativeTTLSeconds) * time.Second
	var se *sourcehost.Error
	switch {
	case err == nil && (tok.Revoked || !tok.Active):
		v.Reason = "revoked or expired"
	case err == nil:
		v.OK, v.TokenID, v.UserID = true, tok.ID, tok.UserID
		for _, s := range g.cfg.Security.RequiredScopes {
			if !tok.Grants(s) { // api grants read_user and read_repository, as in GitLab
				v.Missing = append(v.Missing, s)
			}
		}
		if len(v.Missing) == 0 {
			ttl = knownTokenMemory
		}
	case errors.As(err, &se) && se.StatusCode == http.StatusNotFound:
		// Not a personal access token: an OAuth token, which the
		// authorization server describes, its audience among it (oauth.go).
		if r := g.verifyOAuth(ctx, token, v); r != nil {
			call.r, call.abandoned = r, ctx.Err() != nil
			return nil, nil, nil, r
		}
		if v.OK && len(v.Missing) == 0 {
			ttl = knownTokenMemory
		}
	case errors.As(err, &se) && se.StatusCode == http.StatusUnauthorized:
		v.Reason = "unknown, revoked or expired"
	case errors.As(err, &se) && se.StatusCode == http.StatusForbidden:
		v.OK, v.Missing = true, g.cfg.Security.RequiredScopes
	default:
		// Not an answer about the token (the API is down, or limits this
		// token's rate): nothing is remembered, and the caller is told.
		r := g.unverified(ctx, err)
		call.r, call.abandoned = r, ctx.Err() != nil
		return nil, nil, nil, r
	}
	var raw []byte
	if b, err := json.Marshal(v); err == nil {
		if err := g.store.Set(ctx, key, b, ttl); err != nil {
			g.log.WarnContext(ctx, "remembering a token verdict failed", "error", err)
		} else {
			raw = b
		}
	}
	call.v, call.raw = v, raw
	return v, raw, up, nil
}

// forgetToken drops what is known of c's token, so that its next request
// is verified again (after the source-hosting API refused it mid-call: it
// may have been revoked), whichever replica it reaches. In the store, the
// verdict is not deleted but replaced by forgottenVerdict: a replica that
// found no verdict there would believe its own (see verify). That one is
// kept as long as any replica's own verdict could still be fresh, by the
// replicas' clocks, which may differ a little.
func (g *Gateway) forgetToken(ctx context.Context, c *caller) {
	c.seen.Store(nil)
	key := "tok:" + c.digest
	// Delete reaches the shared store even while it is thought down: a
	// verdict it holds must not outlive the forgetting once it answers.
	if err := g.store.Delete(ctx, key); err != nil {
		g.log.WarnContext(ctx, "forgetting a token verdict failed", "error", err)
	}
	ttl := time.Duration(g.cfg.Verify.TTLSeconds)*time.Second + time.Minute
	if err := g.store.Set(ctx, key, forgottenVerdict, ttl); err != nil {
		g.log.WarnContext(ctx, "forgetting a token verdict failed", "error", err)
	}
}

// forgottenVerdict is a good verdict that is never fresh: the token is
// asked about again at its next request, as one known to have been good.
var forgottenVerdict = []byte(`{"ok":true,"checked":0}`)

// addressKey is what the per-address limit counts by: the address, or its
// /64 for IPv6, which one subscriber usually holds whole.
func addressKey(a netip.Addr) string {
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.String()
	}
	return a.String()
}

// flights lets one goroutine verify a token while others with the same
// token wait for its verdict.
type flights struct {
	mu sync.Mutex
	m  map[string]*flight
	// onWait, when set (by tests), is called each time a goroutine joins a
	// flight under way.
	onWait func()
}

type flight struct {
	done chan struct{}
	v    *verdict
	raw  []byte // v as stored, nil if it was not
	r    *refusal
	// abandoned: the verification failed because the request that made
	// it gave up; those waiting on it ask again.
	abandoned bool
}

func (f *flights) join(key string) (*flight, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c := f.m[key]; c != nil {
		if f.onWait != nil {
			defer f.onWait()
		}
		return c, false
	}
	if f.m == nil {
		f.m = make(map[string]*flight)
	}
	c := &flight{done: make(chan struct{})}
	f.m[key] = c
	return c, true
}

func (f *flights) finish(key string, c *flight) {
	f.mu.Lock()
	delete(f.m, key)
	f.mu.Unlock()
	close(c.done)
}
