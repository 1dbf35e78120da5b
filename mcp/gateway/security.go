package gateway

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/apitwin/apitwin/internal/hostguard"
	"github.com/apitwin/apitwin/internal/mcpwire"
	"github.com/apitwin/apitwin/mcp"
)

// requestSignature is a parsed X-MCP-Signature of the gateway's form.
type requestSignature struct {
	ts    string
	unix  int64
	nonce string
	mac   []byte
}

// parseRequestSignature reads "t=…,nonce=…,v2=…" (the parts in any order,
// each once); anything else is not one.
func parseRequestSignature(h string) (requestSignature, bool) {
	var sig requestSignature
	var seen [3]bool
	parts := strings.Split(strings.TrimSpace(h), ",")
	if len(parts) != 3 {
		return sig, false
	}
	for _, p := range parts {
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok {
			return sig, false
		}
		switch k {
		case "t":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n <= 0 || seen[0] {
				return sig, false
			}
			sig.ts, sig.unix, seen[0] = v, n, true
		case "nonce":
			if !validNonce(v) || seen[1] {
				return sig, false
			}
			sig.nonce, seen[1] = v, true
		case "v2":
			mac, err := hex.DecodeString(v)
			if err != nil || len(mac) != sha256.Size || seen[2] {
				return sig, false
			}
			sig.mac, seen[2] = mac, true
		default:
			return sig, false
		}
	}
	return sig, seen[0] && seen[1] && seen[2]
}

func validNonce(n string) bool {
	if len(n) < 16 || len(n) > 64 {
		return false
	}
	for _, c := range n {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// verifySignature checks a body-only header against body in constant time.
// A value in another form is simply wrong: the comparison itself never
// short-cuts on the secret's bytes.
func verifySignature(secret, body []byte, header string) bool {
	hexSum, ok := strings.CutPrefix(strings.TrimSpace(header), mcpwire.BodyOnlyPrefix)
	if !ok {
		return false
	}
	got, err := hex.DecodeString(hexSum)
	if err != nil {
		return false
	}
	return hmac.Equal(got, mcpwire.BodyMAC(secret, body))
}

// checkSignature refuses a request whose signature the policy does not
// accept: missing when required, wrong, outside the window, or seen before.
func (g *Gateway) checkSignature(ctx context.Context, r *http.Request, body []byte) *refusal {
	sec := g.cfg.Security
	header := r.Header.Get(mcp.SignatureHeader)
	unsigned := g.unsigned
	switch {
	case sec.Signature == SignatureOff:
		return nil
	case header == "" && sec.Signature == SignatureRequired:
		return unsigned(mcp.SignatureHeader + " is required")
	case header == "":
		return nil
	case strings.HasPrefix(strings.TrimSpace(header), mcpwire.BodyOnlyPrefix):
		if !sec.AcceptBodyOnlySignature {
			return unsigned(mcp.SignatureHeader + " of the body alone is not accepted: sign t=<unix time>,nonce=<nonce>,v2=<HMAC of time, nonce, method, path and body>")
		}
		if !verifySignature(g.secret(), body, header) {
			return unsigned(mcp.SignatureHeader + " does not match the body")
		}
		return nil
	}
	sig, ok := parseRequestSignature(header)
	if !ok {
		return unsigned(mcp.SignatureHeader + " is not of the form t=<unix time>,nonce=<nonce>,v2=<hex HMAC-SHA256>")
	}
	window := time.Duration(sec.SignatureWindowSeconds) * time.Second
	now := g.clk.Now()
	signedAt := time.Unix(sig.unix, 0)
	if signedAt.Before(now.Add(-window)) || signedAt.After(now.Add(window)) {
		return unsigned(fmt.Sprintf("%s was made at %s, more than %d s from the gateway's time %s", mcp.SignatureHeader,
			signedAt.UTC().Format(time.RFC3339), sec.SignatureWindowSeconds, now.UTC().Format(time.RFC3339)))
	}
	if !hmac.Equal(sig.mac, mcpwire.RequestMAC(g.secret(), sig.ts, sig.nonce, r.Method, r.URL.EscapedPath(), body)) {
		return unsigned(mcp.SignatureHeader + " does not match the request (its time, nonce, method, path and body)")
	}
	// Only now, with the signature known good, is it remembered: made-up
	// signatures cannot fill the store. It is kept until it falls out of
	// the window, plus a second for the rounding of t.
	claim := g.store.Claim
	if sec.SharedReplayCheckOnly && g.shared != nil {
		claim = g.shared.claimShared
	}
	fresh, err := claim(ctx, "sig:"+hex.EncodeToString(sig.mac), signedAt.Add(window).Sub(now)+time.Second)
	switch {
	case errors.Is(err, errSharedStoreDown):
		// The outage itself is logged once, by the fallback, not per request.
		return &refusal{status: http.StatusServiceUnavailable, code: mcp.CodeInternalError, retryAfter: sharedRetryEvery,
			reason: "the gateway cannot reach its shared replay store, and checks signed requests only there; retry shortly"}
	case errors.Is(err, ErrStoreFull):
		g.log.ErrorContext(ctx, "the replay store is full; refusing signed requests until signatures age out")
		return &refusal{status: http.StatusServiceUnavailable, code: mcp.CodeInternalError, retryAfter: time.Second,
			reason: "the gateway cannot remember more signatures now; retry shortly"}
	case err != nil:
		g.log.ErrorContext(ctx, "the replay store failed", "error", err)
		return &refusal{status: http.StatusServiceUnavailable, code: mcp.CodeInternalError, retryAfter: time.Second,
			reason: "the gateway cannot check the signature for replays now; retry shortly"}
	case !fresh:
		g.metrics.replaysRefused.Add(1)
		return unsigned(mcp.SignatureHeader + " was already used: a signed request is accepted once")
	}
	return nil
}

// unsigned is the refusal of a request for its signature.
func (g *Gateway) unsigned(reason string) *refusal {
	g.metrics.signaturesRefused.Add(1)
	return &refusal{status: http.StatusUnauthorized, code: mcp.CodeUpstreamError, reason: reason}
}

// ipFilter decides which callers may talk to the gateway.
type ipFilter struct {
	allow, block, proxies []netip.Prefix
}

func newIPFilter(s SecurityConfig) *ipFilter {
	parse := func(list []string) []netip.Prefix {
		out := make([]netip.Prefix, 0, len(list))
		for _, v := range list {
			if p, err := parsePrefix(v); err == nil { // checked in withDefaults
				out = append(out, p)
			}
		}
		return out
	}
	return &ipFilter{allow: parse(s.IPWhitelist), block: parse(s.BlockedIPs), proxies: parse(s.TrustedProxies)}
}

func inAny(list []netip.Prefix, a netip.Addr) bool {
	for _, p := range list {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// clientAddr is the caller's address: the connection's, or, when the
// connection comes from a trusted proxy, the right-most address of
// X-Forwarded-For that is not itself a trusted proxy. Addresses a client
// wrote further left are never believed. A hop is read in any of the
// shapes proxies write (with a port, in brackets, with an IPv6 zone, which
// is dropped); one that cannot be read at all makes the caller unknown
// (ok false), and an unknown caller is refused: access control fails
// closed.
func (f *ipFilter) clientAddr(r *http.Request) (netip.Addr, bool) {
	addr, ok := parseHop(r.RemoteAddr)
	if !ok {
		return netip.Addr{}, false
	}
	if !inAny(f.proxies, addr) {
		return addr, true
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		if strings.TrimSpace(hops[i]) == "" && len(hops) == 1 {
			break // no header: the proxy is the caller
		}
		hop, ok := parseHop(hops[i])
		if !ok {
			return netip.Addr{}, false
		}
		if !inAny(f.proxies, hop) {
			return hop, true
		}
		addr = hop
	}
	return addr, true
}

// parseHop reads an address as proxies and listeners write them:
// "203.0.113.7", "203.0.113.7:4711", "[2001:db8::7]:4711", "2001:db8::7",
// "fe80::1%eth0" (the zone is dropped: block and allow lists hold no
// zones, and a zoned address would match none of them).
func parseHop(v string) (netip.Addr, bool) {
	v = strings.TrimSpace(v)
	if ap, err := netip.ParseAddrPort(v); err == nil {
		return ap.Addr().WithZone("").Unmap(), true
	}
	if host, _, err := net.SplitHostPort(v); err == nil {
		v = host
	}
	v = strings.TrimSuffix(strings.TrimPrefix(v, "["), "]")
	a, err := netip.ParseAddr(v)
	if err != nil {
		return netip.Addr{}, false
	}
	return a.WithZone("").Unmap(), true
}

// allowed reports whether a caller at addr may pass: not blocked, and inside
// the allow list when there is one.
func (f *ipFilter) allowed(addr netip.Addr) bool {
	if inAny(f.block, addr) {
		return false
	}
	return len(f.allow) == 0 || inAny(f.allow, addr)
}

// webhookLookupTimeout bounds the lookup of a hook URL's host name.
const webhookLookupTimeout = 5 * time.Second

// hookGuard decides where configure_webhook may have the source-hosting
// API send hooks (SecurityConfig.AllowLocalWebhooks): only to the public
// internet, unless the configuration allows more. The source-hosting API
// sends them from its own network, where a caller's URL could otherwise
// reach what only that network can: the server itself, private services,
// a cloud's metadata service and the credentials it hands out.
//
// The check is made when the hook is configured, on the addresses the
// host resolves to then; a name that resolves elsewhere later (DNS
// rebinding) is for the source-hosting API to refuse when it delivers, as
// GitLab does. The addresses of the source-hosting server itself, which
// the gateway cannot know, are refused only when they are not public.
type hookGuard struct {
	allowLocal bool
	allow      []netip.Prefix
	resolver   Resolver
}

func newHookGuard(cfg Config) *hookGuard {
	h := &hookGuard{allowLocal: cfg.Security.AllowLocalWebhooks, resolver: cfg.Resolver}
	for _, v := range cfg.Security.LocalWebhookAllowlist {
		if p, err := parsePrefix(v); err == nil { // checked in withDefaults
			h.allow = append(h.allow, p)
		}
	}
	if h.resolver == nil {
		h.resolver = net.DefaultResolver
	}
	return h
}

// loopbackAddrs are what "localhost" and the names under it reach,
// without asking a resolver (RFC 6761).
var loopbackAddrs = []netip.Addr{netip.AddrFrom4([4]byte{127, 0, 0, 1}), netip.IPv6Loopback()}

// check refuses a hook URL (already an absolute http or https URL: see
// ConfigureWebhookParams.validate) whose host is, or resolves to, any
// address the configuration does not allow: -32602 on url, with the
// reason in GitLab's words ("is blocked: Requests to the local network
// are not allowed").
func (h *hookGuard) check(ctx context.Context, raw string) *mcp.Error {
	u, err := url.Parse(raw)
	if err != nil {
		return paramError("url", "must be an absolute http or https URL")
	}
	host := u.Hostname()
	addr, isAddr, valid := hostguard.ParseHost(host)
	var addrs []netip.Addr
	switch {
	case !valid:
		return paramError("url", "is blocked: "+hostguard.InvalidHost)
	case isAddr:
		addrs = []netip.Addr{addr}
	case hostguard.IsLocalhostName(host):
		addrs = loopbackAddrs
	default:
		ctx, cancel := context.WithTimeout(ctx, webhookLookupTimeout)
		defer cancel()
		if addrs, err = h.resolver.LookupNetIP(ctx, "ip", host); err != nil || len(addrs) == 0 {
			return paramError("url", "is blocked: "+hostguard.UnresolvableHost)
		}
	}
	for _, a := range addrs {
		if why := h.refusal(a); why != "" {
			return paramError("url", "is blocked: "+why)
		}
	}
	return nil
}

// refusal is why a hook may not go to a, or "".
func (h *hookGuard) refusal(a netip.Addr) string {
	a = hostguard.Canonical(a)
	switch k := hostguard.Classify(a); {
	case k == hostguard.Public, inAny(h.allow, a):
		return ""
	case h.allowLocal && k != hostguard.LinkLocal && k != hostguard.Metadata:
		return ""
	default:
		return k.Refusal()
	}
}
