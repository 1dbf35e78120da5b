package sourcehostfake

import (
	"net/netip"
	"testing"

	"github.com/apitwin/apitwin/internal/hostguard"
)

// TestAddressesAreClassifiedAsTheRealServiceDoes holds each address to the
// real service's words, with local requests off and on; metadata and
// link-local addresses are refused either way, however they are written.
func TestAddressesAreClassifiedAsTheRealServiceDoes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		addr    string
		off, on string // the refusal with local requests off, and on ("": allowed)
	}{
		{"127.0.0.1", hostguard.Localhost.Refusal(), ""},
		{"::1", hostguard.Localhost.Refusal(), ""},
		{"0.0.0.0", hostguard.Localhost.Refusal(), ""},
		{"::", hostguard.Localhost.Refusal(), ""},
		{"127.0.0.2", hostguard.Loopback.Refusal(), ""},
		{"::ffff:127.0.0.2", hostguard.Loopback.Refusal(), ""},
		{"10.1.2.3", hostguard.LocalNetwork.Refusal(), ""},
		{"172.16.0.1", hostguard.LocalNetwork.Refusal(), ""},
		{"172.31.255.255", hostguard.LocalNetwork.Refusal(), ""},
		{"192.168.1.1", hostguard.LocalNetwork.Refusal(), ""},
		{"fd12:3456::1", hostguard.LocalNetwork.Refusal(), ""},
		{"fec0::1", hostguard.LocalNetwork.Refusal(), ""},
		{"::ffff:10.0.0.1", hostguard.LocalNetwork.Refusal(), ""},
		{"64:ff9b::a00:1", hostguard.LocalNetwork.Refusal(), ""}, // NAT64 of 10.0.0.1
		{"100.64.0.1", hostguard.SharedAddressSpace.Refusal(), ""},
		{"255.255.255.255", hostguard.LimitedBroadcast.Refusal(), ""},
		// Metadata and link-local: refused whatever the setting.
		{"169.254.169.254", hostguard.LinkLocal.Refusal(), hostguard.LinkLocal.Refusal()},
		{"169.254.170.2", hostguard.LinkLocal.Refusal(), hostguard.LinkLocal.Refusal()},
		{"::ffff:169.254.169.254", hostguard.LinkLocal.Refusal(), hostguard.LinkLocal.Refusal()},
		{"::ffff:a9fe:a9fe", hostguard.LinkLocal.Refusal(), hostguard.LinkLocal.Refusal()},
		{"64:ff9b::a9fe:a9fe", hostguard.LinkLocal.Refusal(), hostguard.LinkLocal.Refusal()},
		{"fe80::1", hostguard.LinkLocal.Refusal(), hostguard.LinkLocal.Refusal()},
		{"fe80::1%eth0", hostguard.LinkLocal.Refusal(), hostguard.LinkLocal.Refusal()},
		{"fd00:ec2::254", hostguard.LocalNetwork.Refusal(), hostguard.LocalNetwork.Refusal()},
		{"100.100.100.200", hostguard.SharedAddressSpace.Refusal(), hostguard.SharedAddressSpace.Refusal()},
		{"169.254.0.23", hostguard.LinkLocal.Refusal(), hostguard.LinkLocal.Refusal()},
		// A metadata service in a range the real service does not check.
		{"192.0.0.192", hostguard.Metadata.Refusal(), hostguard.Metadata.Refusal()},
		// Public addresses pass.
		{"203.0.113.7", "", ""},
		{"2001:db8::1", "", ""},
		{"172.32.0.1", "", ""},
	} {
		a := netip.MustParseAddr(tc.addr)
		if got := blockedAddrs([]netip.Addr{a}, false); got != tc.off {
			t.Errorf("%s, local requests off: %q, want %q", tc.addr, got, tc.off)
		}
		if got := blockedAddrs([]netip.Addr{a}, true); got != tc.on {
			t.Errorf("%s, local requests on: %q, want %q", tc.addr, got, tc.on)
		}
	}
	// A name is judged by all its addresses: one refused refuses it.
	mixed := []netip.Addr{netip.MustParseAddr("203.0.113.7"), netip.MustParseAddr("169.254.169.254")}
	if got := blockedAddrs(mixed, true); got != hostguard.LinkLocal.Refusal() {
		t.Errorf("a public and a metadata address: %q", got)
	}
	// The real service's order: loopback is named before the local network.
	if got := blockedAddrs([]netip.Addr{netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("127.0.0.5")}, false); got != hostguard.Loopback.Refusal() {
		t.Errorf("loopback and private: %q", got)
	}
}

func TestHookURLProblems(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		url        string
		allowLocal bool
		want       string
	}{
		{"ftp://h/", true, "Only allowed schemes are http, https"},
		{"http://", true, "URI is invalid"},
		{"http://169.254.169.254/latest/meta-data/", true, hostguard.LinkLocal.Refusal()},
		{"http://[::ffff:169.254.169.254]/", true, hostguard.LinkLocal.Refusal()},
		{"http://[fd00:ec2::254]/", true, hostguard.LocalNetwork.Refusal()},
		{"http://127.0.0.1:9000/hook", true, ""},
		{"http://127.0.0.1:9000/hook", false, hostguard.Localhost.Refusal()},
		{"http://[::1]/", false, hostguard.Localhost.Refusal()},
		{"http://receiver.test/hook", false, ""}, // a name not looked up (or not found) passes
		// Addresses in the spellings resolvers read (inet_aton's) are addresses.
		{"http://2130706433/hook", false, hostguard.Localhost.Refusal()},
		{"http://0x7f.1/hook", false, hostguard.Localhost.Refusal()},
		{"http://0251.0376.0251.0376/", true, hostguard.LinkLocal.Refusal()},
	} {
		if got := hookURLProblem(tc.url, nil, tc.allowLocal); got != tc.want {
			t.Errorf("%s (local %v): %q, want %q", tc.url, tc.allowLocal, got, tc.want)
		}
	}
	if got := hookURLProblem("http://receiver.test/", []netip.Addr{netip.MustParseAddr("192.168.0.9")}, false); got != hostguard.LocalNetwork.Refusal() {
		t.Errorf("a name resolved to a private address: %q", got)
	}
}
