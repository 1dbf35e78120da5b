package sourcehostfake

import (
	"net/netip"
	"testing"
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
		{"127.0.0.1", blockedLocalhost, ""},
		{"::1", blockedLocalhost, ""},
		{"0.0.0.0", blockedLocalhost, ""},
		{"::", blockedLocalhost, ""},
		{"127.0.0.2", blockedLoopback, ""},
		{"::ffff:127.0.0.2", blockedLoopback, ""},
		{"10.1.2.3", blockedLocalNet, ""},
		{"172.16.0.1", blockedLocalNet, ""},
		{"172.31.255.255", blockedLocalNet, ""},
		{"192.168.1.1", blockedLocalNet, ""},
		{"fd12:3456::1", blockedLocalNet, ""},
		{"fec0::1", blockedLocalNet, ""},
		{"::ffff:10.0.0.1", blockedLocalNet, ""},
		{"64:ff9b::a00:1", blockedLocalNet, ""}, // NAT64 of 10.0.0.1
		{"100.64.0.1", blockedShared, ""},
		{"255.255.255.255", blockedBroadcast, ""},
		// Metadata and link-local: refused whatever the setting.
		{"169.254.169.254", blockedLinkLocal, blockedLinkLocal},
		{"169.254.170.2", blockedLinkLocal, blockedLinkLocal},
		{"::ffff:169.254.169.254", blockedLinkLocal, blockedLinkLocal},
		{"::ffff:a9fe:a9fe", blockedLinkLocal, blockedLinkLocal},
		{"64:ff9b::a9fe:a9fe", blockedLinkLocal, blockedLinkLocal},
		{"fe80::1", blockedLinkLocal, blockedLinkLocal},
		{"fe80::1%eth0", blockedLinkLocal, blockedLinkLocal},
		{"fd00:ec2::254", blockedLocalNet, blockedLocalNet},
		{"100.100.100.200", blockedShared, blockedShared},
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
	if got := blockedAddrs(mixed, true); got != blockedLinkLocal {
		t.Errorf("a public and a metadata address: %q", got)
	}
	// The real service's order: loopback is named before the local network.
	if got := blockedAddrs([]netip.Addr{netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("127.0.0.5")}, false); got != blockedLoopback {
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
		{"http://169.254.169.254/latest/meta-data/", true, blockedLinkLocal},
		{"http://[::ffff:169.254.169.254]/", true, blockedLinkLocal},
		{"http://[fd00:ec2::254]/", true, blockedLocalNet},
		{"http://127.0.0.1:9000/hook", true, ""},
		{"http://127.0.0.1:9000/hook", false, blockedLocalhost},
		{"http://[::1]/", false, blockedLocalhost},
		{"http://receiver.test/hook", false, ""}, // a name not looked up (or not found) passes
	} {
		if got := hookURLProblem(tc.url, nil, tc.allowLocal); got != tc.want {
			t.Errorf("%s (local %v): %q, want %q", tc.url, tc.allowLocal, got, tc.want)
		}
	}
	if got := hookURLProblem("http://receiver.test/", []netip.Addr{netip.MustParseAddr("192.168.0.9")}, false); got != blockedLocalNet {
		t.Errorf("a name resolved to a private address: %q", got)
	}
}
