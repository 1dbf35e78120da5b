// Package hostguard judges the hosts a server we ship is asked to have
// requests sent to on a caller's behalf (a webhook's URL), so that a
// caller cannot reach, through the server, what only the server's network
// can: the machine itself, private networks, link-local addresses and the
// cloud metadata services among them (server-side request forgery).
//
// Classify puts an address in the kind that refuses it, in the words GitLab
// uses for the same refusals ("Requests to the local network are not
// allowed"), or Public. ParseHost reads a URL's host as the resolvers that
// will connect to it read it: an IPv4 address may be written in any of the
// forms inet_aton(3) accepts (2130706433, 0x7f.1, 0177.0.0.1, 127.1), and
// a host that ends in a number but is no address is no host at all (as the
// WHATWG URL standard has it), so that no spelling of an address passes
// for a name.
package hostguard

import (
	"net/netip"
	"strconv"
	"strings"
)

// Kind is why an address is not on the public internet, or Public.
type Kind int

// The kinds, each with the refusal Refusal gives.
const (
	Public Kind = iota
	// Localhost: "this host" (0.0.0.0/8, ::), which reaches the machine
	// itself.
	Localhost
	// Loopback: 127.0.0.0/8, ::1.
	Loopback
	// LocalNetwork: private networks (10/8, 172.16/12, 192.168/16, unique
	// local fc00::/7, the old site-local fec0::/10, local-use NAT64
	// 64:ff9b:1::/48).
	LocalNetwork
	// LinkLocal: 169.254.0.0/16, fe80::/10, where most clouds serve their
	// instances' metadata and credentials.
	LinkLocal
	// SharedAddressSpace: 100.64.0.0/10, carrier-grade NAT.
	SharedAddressSpace
	// LimitedBroadcast: 255.255.255.255.
	LimitedBroadcast
	// Metadata: a cloud's instance metadata service (169.254.169.254 and
	// the others of metadataAddrs), whichever range it lies in.
	Metadata
	// Reserved: every other address that is not public: documentation
	// and benchmarking ranges, multicast, 240.0.0.0/4, the IETF's protocol
	// assignments, deprecated IPv6 forms (IPv4-compatible ::a.b.c.d,
	// 6to4, Teredo), and IPv6 outside 2000::/3.
	Reserved
)

// Refusal is the reason a request to an address of kind k is refused, ""
// for Public: GitLab's words where GitLab refuses the same kind.
func (k Kind) Refusal() string {
	switch k {
	case Localhost:
		return "Requests to localhost are not allowed"
	case Loopback:
		return "Requests to loopback addresses are not allowed"
	case LocalNetwork:
		return "Requests to the local network are not allowed"
	case LinkLocal:
		return "Requests to the link local network are not allowed"
	case SharedAddressSpace:
		return "Requests to the shared address space are not allowed"
	case LimitedBroadcast:
		return "Requests to the limited broadcast address are not allowed"
	case Metadata:
		return "Requests to cloud metadata services are not allowed"
	case Reserved:
		return "Requests to reserved addresses are not allowed"
	}
	return ""
}

// metadataAddrs are the instance metadata services of the clouds: AWS, Google
// Cloud, Azure, Oracle, OpenStack and DigitalOcean (169.254.169.254), AWS ECS
// tasks (169.254.170.2), Tencent Cloud (169.254.0.23), AWS over IPv6
// (fd00:ec2::254), Alibaba Cloud (100.100.100.200) and Oracle Cloud Classic
// (192.0.0.192).
var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("169.254.169.254"), netip.MustParseAddr("169.254.170.2"), netip.MustParseAddr("169.254.0.23"),
	netip.MustParseAddr("fd00:ec2::254"), netip.MustParseAddr("100.100.100.200"), netip.MustParseAddr("192.0.0.192"),
}

type rangeKind struct {
	p    netip.Prefix
	kind Kind
}

// ranges are the IPv4 and IPv6 special-purpose ranges (IANA's registries)
// that are not public, most specific first where they nest.
var ranges = func() []rangeKind {
	table := []struct {
		prefix string
		kind   Kind
	}{
		{"255.255.255.255/32", LimitedBroadcast},
		{"0.0.0.0/8", Localhost},
		{"127.0.0.0/8", Loopback},
		{"10.0.0.0/8", LocalNetwork},
		{"172.16.0.0/12", LocalNetwork},
		{"192.168.0.0/16", LocalNetwork},
		{"169.254.0.0/16", LinkLocal},
		{"100.64.0.0/10", SharedAddressSpace},
		{"192.0.0.0/24", Reserved},
		{"192.0.2.0/24", Reserved},
		{"192.88.99.0/24", Reserved},
		{"198.18.0.0/15", Reserved},
		{"198.51.100.0/24", Reserved},
		{"203.0.113.0/24", Reserved},
		{"224.0.0.0/4", Reserved},
		{"240.0.0.0/4", Reserved},

		{"::/128", Localhost},
		{"::1/128", Loopback},
		{"::/96", Reserved}, // IPv4-compatible, deprecated
		{"64:ff9b:1::/48", LocalNetwork},
		{"100::/64", Reserved},
		{"2001::/23", Reserved},
		{"2001:db8::/32", Reserved},
		{"2002::/16", Reserved},
		{"3fff::/20", Reserved},
		{"5f00::/16", Reserved},
		{"fc00::/7", LocalNetwork},
		{"fec0::/10", LocalNetwork},
		{"fe80::/10", LinkLocal},
		{"ff00::/8", Reserved},
	}
	out := make([]rangeKind, len(table))
	for i, r := range table {
		out[i] = rangeKind{netip.MustParsePrefix(r.prefix), r.kind}
	}
	return out
}()

var (
	nat64      = netip.MustParsePrefix("64:ff9b::/96")
	globalIPv6 = netip.MustParsePrefix("2000::/3")
)

// maxNameBytes is the longest DNS name, without its final dot.
const maxNameBytes = 253

// GitLab's words for a host that is neither a name nor an address, and for
// a name that does not resolve.
const (
	InvalidHost      = "Hostname or IP address invalid"
	UnresolvableHost = "Host cannot be resolved or invalid"
)

// Canonical is a as it is reached: without its zone, and an IPv4 address
// written as IPv6 (IPv4-mapped ::ffff:a.b.c.d, or in the NAT64 prefix
// 64:ff9b::/96, which a NAT64 gateway translates to it) as that IPv4
// address.
func Canonical(a netip.Addr) netip.Addr {
	a = a.WithZone("")
	if a.Is4In6() {
		return a.Unmap()
	}
	if a.Is6() && nat64.Contains(a) {
		b := a.As16()
		return netip.AddrFrom4([4]byte(b[12:]))
	}
	return a
}

// Classify returns the kind of a (see Canonical): Metadata for a cloud's
// metadata service, else its RangeKind. The invalid zero Addr is Reserved.
func Classify(a netip.Addr) Kind {
	if IsMetadata(a) {
		return Metadata
	}
	return RangeKind(a)
}

// IsMetadata reports whether a (see Canonical) is a cloud's instance
// metadata service.
func IsMetadata(a netip.Addr) bool {
	a = Canonical(a)
	for _, m := range metadataAddrs {
		if a == m {
			return true
		}
	}
	return false
}

// RangeKind returns the kind of the first special-purpose range a (see
// Canonical) is in, else Public, whether or not a is a metadata service:
// the kind a service that knows no metadata addresses (GitLab) gives it.
// The invalid zero Addr is Reserved.
func RangeKind(a netip.Addr) Kind {
	if !a.IsValid() {
		return Reserved
	}
	a = Canonical(a)
	for _, r := range ranges {
		if r.p.Contains(a) {
			return r.kind
		}
	}
	if a.Is6() && !globalIPv6.Contains(a) {
		return Reserved
	}
	return Public
}

// ParseHost reads host, a URL's host without brackets or port (what
// url.URL.Hostname returns). It returns the address when host is one (an
// IPv6 address, with a zone or not, or an IPv4 address in any form
// inet_aton accepts), or isAddr false for a name; valid is false for a
// host that is neither (InvalidHost): one that ends in a number but is no
// IPv4 address (1.1.1.1.1, 0x1g, 256.1.1.1), or a name that is not a DNS
// name of ASCII letters, digits, hyphens and underscores (an
// internationalized name must come in its xn-- form).
func ParseHost(host string) (addr netip.Addr, isAddr, valid bool) {
	if strings.Contains(host, ":") {
		a, err := netip.ParseAddr(host)
		return a, err == nil, err == nil
	}
	name := strings.TrimSuffix(host, ".")
	if name == "" || len(name) > maxNameBytes {
		return netip.Addr{}, false, false
	}
	labels := strings.Split(name, ".")
	if endsInNumber(labels[len(labels)-1]) {
		a, ok := parseIPv4(labels)
		return a, ok, ok
	}
	for _, l := range labels {
		if !validLabel(l) {
			return netip.Addr{}, false, false
		}
	}
	return netip.Addr{}, false, true
}

// IsLocalhostName reports whether name is "localhost" or a name under it,
// which resolve to loopback without asking DNS (RFC 6761, section 6.3).
func IsLocalhostName(name string) bool {
	name = strings.ToLower(strings.TrimSuffix(name, "."))
	return name == "localhost" || strings.HasSuffix(name, ".localhost")
}

// endsInNumber reports whether a host's last label makes it an IPv4
// address, as the WHATWG URL standard decides it: all decimal digits, or
// 0x followed by hex digits (or nothing).
func endsInNumber(label string) bool {
	if label == "" {
		return false
	}
	if h, ok := cutHex(label); ok {
		return strings.Trim(h, "0123456789abcdefABCDEF") == ""
	}
	return strings.Trim(label, "0123456789") == ""
}

func cutHex(s string) (string, bool) {
	if len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		return s[2:], true
	}
	return s, false
}

// parseIPv4 reads the labels of an address as inet_aton does: one to four
// parts, each decimal, octal (a leading 0) or hexadecimal (0x); the last
// part fills the bytes the others leave.
func parseIPv4(parts []string) (netip.Addr, bool) {
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var n [4]uint64
	for i, p := range parts {
		v, ok := parsePart(p)
		if !ok {
			return netip.Addr{}, false
		}
		n[i] = v
	}
	last := len(parts) - 1
	for i := range last {
		if n[i] > 0xff {
			return netip.Addr{}, false
		}
	}
	if n[last] >= 1<<(8*(4-last)) {
		return netip.Addr{}, false
	}
	var v uint64
	for i := range last {
		v |= n[i] << (8 * (3 - i))
	}
	v |= n[last]
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

func parsePart(p string) (uint64, bool) {
	base := 10
	switch h, hex := cutHex(p); {
	case hex:
		if h == "" {
			return 0, true // "0x" alone is 0, as inet_aton and the URL standard read it
		}
		p, base = h, 16
	case len(p) > 1 && p[0] == '0':
		p, base = p[1:], 8
	}
	if p == "" {
		return 0, false
	}
	v, err := strconv.ParseUint(p, base, 32)
	return v, err == nil
}

// validLabel reports whether l is a DNS label a host name may hold:
// 1 to 63 ASCII letters, digits, hyphens or underscores (which some
// names hold, though RFC 1123 has none), not beginning or ending with a
// hyphen.
func validLabel(l string) bool {
	if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
		return false
	}
	for i := 0; i < len(l); i++ {
		c := l[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
