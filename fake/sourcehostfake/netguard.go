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

	"github.com/apitwin/apitwin/internal/fakekit"
	"github.com/apitwin/apitwin/internal/hostguard"
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
// NAT64 prefix 64:ff9b::/96) is judged as the IPv4 address it reaches, and
// so is one spelled as resolvers read it (2130706433, 0x7f.1, 127.1).
// The ranges are those of internal/hostguard, which the mcp gateway's own
// check of hook URLs shares.
//
// Whatever the setting, the fake never sends anything to the addresses
// where clouds serve their instances' metadata and credentials: all of
// link-local (169.254.0.0/16 and fe80::/10, which hold 169.254.169.254,
// the metadata service of AWS, Google Cloud, Azure, OpenStack and Oracle,
// AWS ECS's 169.254.170.2 and Tencent Cloud's 169.254.0.23), AWS's IPv6
// one fd00:ec2::254, Alibaba Cloud's 100.100.100.200 and Oracle Cloud
// Classic's 192.0.0.192; each refused as the real service refuses its kind
// of address ("Requests to cloud metadata services are not allowed" for
// the last, whose range the real service does not check).
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

// blockedNoHost is the real service's word for a hook host that does not
// resolve.
const blockedNoHost = hostguard.UnresolvableHost

// gitlabChecks are the real service's checks of a hook's addresses, in its
// order: each refuses the addresses of one kind (hostguard's ranges) when
// local requests are off; link-local is refused whatever the setting.
var gitlabChecks = []hostguard.Kind{
	hostguard.Localhost, hostguard.Loopback, hostguard.LocalNetwork,
	hostguard.LinkLocal, hostguard.SharedAddressSpace, hostguard.LimitedBroadcast,
}

// ownAddrs are the machine's own addresses, read once, with 127.0.0.1 and
// ::1 whatever its interfaces say: the real service counts them as
// localhost.
var ownAddrs = sync.OnceValue(func() map[netip.Addr]bool {
	own := map[netip.Addr]bool{netip.MustParseAddr("127.0.0.1"): true, netip.IPv6Loopback(): true}
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if p, err := netip.ParsePrefix(a.String()); err == nil {
			own[hostguard.Canonical(p.Addr())] = true
		}
	}
	return own
})

// gitlabKind is the kind the real service gives a: the machine's own
// addresses are localhost, the rest by their range (the ranges it does not
// check, documentation and multicast among them, pass).
func gitlabKind(a netip.Addr) hostguard.Kind {
	a = hostguard.Canonical(a)
	if a.IsUnspecified() || ownAddrs()[a] {
		return hostguard.Localhost
	}
	return hostguard.RangeKind(a)
}

// blockedAddrs says why a host with addresses addrs may not be sent hooks,
// or "": the first check any of them fails, as the real service checks
// them, in its words; a cloud's metadata service is refused whatever the
// setting, by the check of its range (link-local, local network, shared
// address space) or as a metadata service.
func blockedAddrs(addrs []netip.Addr, allowLocal bool) string {
	for _, k := range gitlabChecks {
		for _, a := range addrs {
			if gitlabKind(a) == k && (!allowLocal || k == hostguard.LinkLocal || hostguard.IsMetadata(a)) {
				return k.Refusal()
			}
		}
	}
	for _, a := range addrs {
		if hostguard.IsMetadata(a) {
			return hostguard.Metadata.Refusal()
		}
	}
	return ""
}

// literalAddr is the address a URL's host names, when it is one, in any
// spelling a resolver reads as one (2130706433, 0x7f.1, 127.1).
func literalAddr(host string) (netip.Addr, bool) {
	a, isAddr, _ := hostguard.ParseHost(host)
	return a, isAddr
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
		// A fake served in memory is no address on any network: it is
		// reached as it is, by its name.
		if c, ok, err := fakekit.DialInMemory(ctx, addr); ok {
			return c, err
		}
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
