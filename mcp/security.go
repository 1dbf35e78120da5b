package mcp

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// SignatureHeader carries the request signature: "sha256=" and the hex
// HMAC-SHA256 of the raw body keyed with the signing secret.
const SignatureHeader = "X-MCP-Signature"

const signaturePrefix = "sha256="

// Sign returns the X-MCP-Signature value of body under secret.
func Sign(secret, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return signaturePrefix + hex.EncodeToString(m.Sum(nil))
}

// verifySignature checks header against body in constant time. A value in
// another form is simply wrong: the comparison itself never short-cuts on
// the secret's bytes.
func verifySignature(secret, body []byte, header string) bool {
	hexSum, ok := strings.CutPrefix(strings.TrimSpace(header), signaturePrefix)
	if !ok {
		return false
	}
	got, err := hex.DecodeString(hexSum)
	if err != nil {
		return false
	}
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return hmac.Equal(got, m.Sum(nil))
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
