package sourcehostfake

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"sync"
	"time"
)

// Where webhooks may be sent, as the real service decides it (its
// UrlBlocker), with one rule of the fake's own.
//
// The real service refuses hooks to the local network unless an
// administrator allows them with the application setting
// allow_local_requests_from_web_hooks_and_services. The fake offers the
// same setting, allowed by default (tests receive their hooks on
// loopback). With it off, an address is refused by the first of these
// that any of the host's addresses falls in, with the real service's
// words: the machine itself (0.0.0.0, ::, and its own addresses, 127.0.0.1
// and ::1 among them: "Requests to localhost are not allowed"), loopback
// ("Requests to loopback addresses are not allowed"), private networks
// (10/8, 172.16/12, 192.168/16, fc00::/7, fec0::/10: "Requests to the
// local network are not allowed"), link-local ("Requests to the link local
// network are not allowed"), the shared address space 100.64/10
// ("Requests to the shared address space are not allowed") and
// 255.255.255.255 ("Requests to the limited broadcast address are not
// allowed"). An IPv4 address written as IPv6 (::ffff:a.b.c.d, or in the
// NAT64 prefix 64:ff9b::/96) is judged as the IPv4 address it reaches.
//
// Whatever the setting, the fake never sends anything to the addresses
// where clouds serve their instances' metadata and credentials: all of
// link-local (169.254.0.0/16 and fe80::/10, which hold 169.254.169.254,
// the metadata service of AWS, Google Cloud, Azure, OpenStack and Oracle,
// and AWS ECS's 169.254.170.2), AWS's IPv6 one fd00:ec2::254, and
// Alibaba Cloud's 100.100.100.200; each refused as the real service
// refuses its kind of address.
//
// A hook's URL is checked when it is made (an address in the URL at
// once; a host name, when the setting is off, by the addresses it resolves
// to then, a name that does not resolve being let through as the real
// service lets it), and again at every delivery, against the addresses
// the name resolves to then, which are the only ones dialed: a name that
// resolved to a public address when the hook was made and resolves to a
// metadata address later (DNS rebinding) is refused, and so is a
// redirect to one. The resolver is WithHookResolver's.

// Resolver finds the addresses of a host name; *net.Resolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// hookLookupTimeout bounds a hook host's lookup.
const hookLookupTimeout = 10 * time.Second

// GitLab's words for the addresses it refuses.
const (
	blockedLocalhost = "Requests to localhost are not allowed"
	blockedLoopback  = "Requests to loopback addresses are not allowed"
	blockedLocalNet  = "Requests to the local network are not allowed"
	blockedLinkLocal = "Requests to the link local network are not allowed"
	blockedShared    = "Requests to the shared address space are not allowed"
	blockedBroadcast = "Requests to the limited broadcast address are not allowed"
	blockedNoHost    = "Host cannot be resolved or invalid"
)

var (
	privateNets = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("172.16.0.0/12"),
		netip.MustParsePrefix("192.168.0.0/16"), netip.MustParsePrefix("fc00::/7"), netip.MustParsePrefix("fec0::/10")}
	sharedNet = netip.MustParsePrefix("100.64.0.0/10")
	nat64     = netip.MustParsePrefix("64:ff9b::/96")
	broadcast = netip.MustParseAddr("255.255.255.255")
	// metadataAddrs are the cloud metadata services outside link-local.
	metadataAddrs = []netip.Addr{netip.MustParseAddr("fd00:ec2::254"), netip.MustParseAddr("100.100.100.200")}
)

// ownAddrs are the machine's own addresses, read once, with 127.0.0.1 and
// ::1 whatever its interfaces say.
var ownAddrs = sync.OnceValue(func() map[netip.Addr]bool {
	own := map[netip.Addr]bool{netip.MustParseAddr("127.0.0.1"): true, netip.IPv6Loopback(): true}
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if p, err := netip.ParsePrefix(a.String()); err == nil {
			own[canonical(p.Addr())] = true
		}
	}
	return own
})

// canonical is a as the checks see it: no zone, and an IPv4 address
// written as IPv6 (mapped, or NAT64) as that IPv4 address.
func canonical(a netip.Addr) netip.Addr {
	a = a.WithZone("")
	if a.Is4In6() {
		return a.Unmap()
	}
	if nat64.Contains(a) {
		b := a.As16()
		return netip.AddrFrom4([4]byte(b[12:]))
	}
	return a
}

// addrCheck is one of the real service's checks, in its order: its
// words, the addresses it refuses when local requests are off, and
// whether it refuses them whatever the setting (link-local); the metadata
// addresses are refused whatever the setting by the check they fall in.
type addrCheck struct {
	why    string
	local  func(netip.Addr) bool
	always bool
}

func isMetadata(a netip.Addr) bool {
	for _, m := range metadataAddrs {
		if a == m {
			return true
		}
	}
	return false
}

var addrChecks = []addrCheck{
	{blockedLocalhost, func(a netip.Addr) bool { return a.IsUnspecified() || ownAddrs()[a] }, false},
	{blockedLoopback, netip.Addr.IsLoopback, false},
	{blockedLocalNet, func(a netip.Addr) bool {
		for _, p := range privateNets {
			if p.Contains(a) {
				return true
			}
		}
		return false
	}, false},
	{blockedLinkLocal, netip.Addr.IsLinkLocalUnicast, true},
	{blockedShared, sharedNet.Contains, false},
	{blockedBroadcast, func(a netip.Addr) bool { return a == broadcast }, false},
}

// blockedAddrs says why a host with addresses addrs may not be sent hooks,
// or "": the first check any of them fails, as the real service checks
// them.
func blockedAddrs(addrs []netip.Addr, allowLocal bool) string {
	for _, c := range addrChecks {
		for _, a := range addrs {
			a = canonical(a)
			if c.local(a) && (!allowLocal || c.always || isMetadata(a)) {
				return c.why
			}
		}
	}
	return ""
}

// literalAddr is the address a URL's host names, when it is one.
func literalAddr(host string) (netip.Addr, bool) {
	a, err := netip.ParseAddr(host)
	return a, err == nil
}

// hookURLProblem says why a hook URL is refused when it is made, in the
// real service's words, or "": addrs are what its host name resolved to
// before the state was locked (nil: not looked up, or not found).
func hookURLProblem(raw string, addrs []netip.Addr, allowLocal bool) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "URI is invalid"
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "Only allowed schemes are http, https"
	}
	if a, ok := literalAddr(u.Hostname()); ok {
		addrs = []netip.Addr{a}
	}
	return blockedAddrs(addrs, allowLocal)
}

// lookupHookHost resolves a hook URL's host name when its check at
// creation needs it: a name, with local requests off. It runs before the
// state is locked; nil means not looked up, or not found (let through, as
// the real service lets an unresolved name through when a hook is saved).
func (s *Server) lookupHookHost(raw string) []netip.Addr {
	if s.localHooks.Load() {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil
	}
	host := u.Hostname()
	if _, ok := literalAddr(host); ok || host == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), hookLookupTimeout)
	defer cancel()
	addrs, _ := s.cfg.hookResolver.LookupNetIP(ctx, "ip", host)
	return addrs
}

// blockedError is a delivery refused for its address.
type blockedError struct{ why string }

func (e *blockedError) Error() string { return "URL is blocked: " + e.why }

// hookGuard checks where deliveries go, at the time they go.
type hookGuard struct {
	resolver   Resolver
	allowLocal func() bool
}

// addrs resolves host (an address stands for itself).
func (g *hookGuard) addrs(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, ok := literalAddr(host); ok {
		return []netip.Addr{a}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, hookLookupTimeout)
	defer cancel()
	addrs, err := g.resolver.LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		//lint:ignore ST1005 the real service's own words, as its delivery log shows them
		return nil, errors.New(blockedNoHost)
	}
	return addrs, nil
}

// dial wraps a transport's dialer: it resolves the host itself, refuses
// it when any of its addresses is refused, and dials only the addresses
// it checked, so a name cannot resolve to one address for the check and
// another for the connection.
func (g *hookGuard) dial(inner func(ctx context.Context, network, addr string) (net.Conn, error)) func(context.Context, string, string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		addrs, err := g.addrs(ctx, host)
		if err != nil {
			return nil, err
		}
		if why := blockedAddrs(addrs, g.allowLocal()); why != "" {
			return nil, &blockedError{why}
		}
		var first error
		for _, a := range addrs {
			c, err := inner(ctx, network, net.JoinHostPort(a.WithZone("").String(), port))
			if err == nil {
				return c, nil
			}
			if first == nil {
				first = err
			}
		}
		return nil, first
	}
}

// precheck is the check of a delivery whose transport the fake cannot
// guard (a client's own RoundTripper): the URL's address, or with local
// requests off the addresses its name resolves to.
func (g *hookGuard) precheck(ctx context.Context, raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	host := u.Hostname()
	allowLocal := g.allowLocal()
	if _, ok := literalAddr(host); !ok && allowLocal {
		return nil // nothing to learn without a lookup, and the client's transport dials as it will
	}
	addrs, err := g.addrs(ctx, host)
	if err != nil {
		return err
	}
	if why := blockedAddrs(addrs, allowLocal); why != "" {
		return &blockedError{why}
	}
	return nil
}

// guardedClient returns hc with its dialer guarded, or hc itself and false
// when its transport is not an *http.Transport the fake can guard (then
// each delivery gets precheck). The guarded transport does not use a
// proxy (the fake checks the address it connects to, which must be the
// receiver's), nor keeps connections.
func guardedClient(hc *http.Client, g *hookGuard) (*http.Client, bool) {
	var tr *http.Transport
	switch t := hc.Transport.(type) {
	case nil:
		tr = http.DefaultTransport.(*http.Transport).Clone()
	case *http.Transport:
		//lint:ignore SA1019 a caller's transport may still set DialTLS, which net/http honours
		if t.DialTLSContext != nil || t.DialTLS != nil {
			return hc, false
		}
		tr = t.Clone()
	default:
		return hc, false
	}
	inner := tr.DialContext
	//lint:ignore SA1019 a caller's transport may still set Dial, which net/http honours
	if dial := tr.Dial; inner == nil && dial != nil {
		inner = func(_ context.Context, network, addr string) (net.Conn, error) { return dial(network, addr) }
	}
	if inner == nil {
		inner = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	}
	tr.DialContext = g.dial(inner)
	//lint:ignore SA1019 cleared, so that the guarded DialContext is the one used
	tr.Dial = nil
	tr.Proxy = nil
	// Each delivery dials, so each is checked: a connection kept from an
	// earlier one would go where the name pointed then, under the setting
	// of then.
	tr.DisableKeepAlives = true
	out := *hc
	out.Transport = tr
	return &out, true
}
