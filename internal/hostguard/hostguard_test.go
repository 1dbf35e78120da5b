package hostguard_test

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/internal/hostguard"
)

func TestClassify(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]hostguard.Kind{
		"0.0.0.0":                hostguard.Localhost,
		"0.1.2.3":                hostguard.Localhost,
		"::":                     hostguard.Localhost,
		"127.0.0.1":              hostguard.Loopback,
		"127.255.0.9":            hostguard.Loopback,
		"::1":                    hostguard.Loopback,
		"::ffff:127.0.0.1":       hostguard.Loopback,
		"64:ff9b::7f00:1":        hostguard.Loopback, // NAT64 of 127.0.0.1
		"10.1.2.3":               hostguard.LocalNetwork,
		"172.16.0.1":             hostguard.LocalNetwork,
		"172.31.255.255":         hostguard.LocalNetwork,
		"192.168.1.1":            hostguard.LocalNetwork,
		"::ffff:10.0.0.1":        hostguard.LocalNetwork,
		"fd12:3456::1":           hostguard.LocalNetwork,
		"fc00::1":                hostguard.LocalNetwork,
		"fec0::1":                hostguard.LocalNetwork,
		"64:ff9b:1::1":           hostguard.LocalNetwork,
		"169.254.1.1":            hostguard.LinkLocal,
		"fe80::1":                hostguard.LinkLocal,
		"fe80::1%eth0":           hostguard.LinkLocal,
		"100.64.0.1":             hostguard.SharedAddressSpace,
		"100.127.255.254":        hostguard.SharedAddressSpace,
		"255.255.255.255":        hostguard.LimitedBroadcast,
		"169.254.169.254":        hostguard.Metadata,
		"::ffff:169.254.169.254": hostguard.Metadata,
		"64:ff9b::a9fe:a9fe":     hostguard.Metadata,
		"169.254.170.2":          hostguard.Metadata,
		"fd00:ec2::254":          hostguard.Metadata,
		"100.100.100.200":        hostguard.Metadata,
		"192.0.2.1":              hostguard.Reserved,
		"198.51.100.7":           hostguard.Reserved,
		"203.0.113.9":            hostguard.Reserved,
		"198.18.0.1":             hostguard.Reserved,
		"224.0.0.1":              hostguard.Reserved,
		"240.0.0.1":              hostguard.Reserved,
		"::127.0.0.1":            hostguard.Reserved,
		"2001:db8::1":            hostguard.Reserved,
		"2001::1":                hostguard.Reserved, // Teredo
		"2002:7f00:1::1":         hostguard.Reserved, // 6to4
		"100::1":                 hostguard.Reserved,
		"ff02::1":                hostguard.Reserved,
		"4000::1":                hostguard.Reserved, // outside 2000::/3
		"8.8.8.8":                hostguard.Public,
		"100.63.255.255":         hostguard.Public,
		"100.128.0.0":            hostguard.Public,
		"172.32.0.1":             hostguard.Public,
		"169.255.0.1":            hostguard.Public,
		"2606:4700::1111":        hostguard.Public,
		"::ffff:8.8.8.8":         hostguard.Public,
	} {
		if got := hostguard.Classify(netip.MustParseAddr(addr)); got != want {
			t.Errorf("Classify(%s) = %v (%q), want %v (%q)", addr, got, got.Refusal(), want, want.Refusal())
		}
	}
	if hostguard.Classify(netip.Addr{}) != hostguard.Reserved {
		t.Error("the zero Addr is not refused")
	}
	for k := hostguard.Localhost; k <= hostguard.Reserved; k++ {
		if r := k.Refusal(); !strings.HasPrefix(r, "Requests to ") || !strings.HasSuffix(r, " are not allowed") {
			t.Errorf("kind %d: refusal %q", k, r)
		}
	}
	if hostguard.Public.Refusal() != "" {
		t.Error("Public has a refusal")
	}
}

func TestParseHost(t *testing.T) {
	t.Parallel()
	for host, want := range map[string]string{
		// Every spelling of 127.0.0.1 that inet_aton reads.
		"127.0.0.1":     "127.0.0.1",
		"2130706433":    "127.0.0.1",
		"0x7f000001":    "127.0.0.1",
		"0X7F000001":    "127.0.0.1",
		"017700000001":  "127.0.0.1",
		"0177.0.0.1":    "127.0.0.1",
		"0x7f.0.0.1":    "127.0.0.1",
		"127.1":         "127.0.0.1",
		"127.0.1":       "127.0.0.1",
		"0x7f.1":        "127.0.0.1",
		"127.0.0.1.":    "127.0.0.1",
		"0":             "0.0.0.0",
		"0x":            "0.0.0.0",
		"169.254.43518": "169.254.169.254",
		"0xa9fea9fe":    "169.254.169.254",
		"::1":           "::1",
		"fe80::1%eth0":  "fe80::1%eth0",
		"::ffff:7f00:1": "::ffff:127.0.0.1",
	} {
		a, isAddr, valid := hostguard.ParseHost(host)
		if !valid || !isAddr || a.String() != want {
			t.Errorf("ParseHost(%q) = %v, %v, %v; want the address %s", host, a, isAddr, valid, want)
		}
	}
	for _, name := range []string{"example.com", "hooks.example.com.", "localhost", "a-b_c.example", "xn--bcher-kva.example", "1.example", "0x.example"} {
		if _, isAddr, valid := hostguard.ParseHost(name); !valid || isAddr {
			t.Errorf("ParseHost(%q) = %v, %v; want a valid name", name, isAddr, valid)
		}
	}
	for _, bad := range []string{
		"", ".", "1.1.1.1.1", "256.1.1.1", "1.256.1.1", "1.2.65536", "4294967296", "08", "0x1.0x1g.1", "example.1",
		"bücher.example", "a..b", "-a.example", "a-.example", "a b", "a/b", "evil.com\\@127.0.0.1", "%31%32%37.0.0.1",
		"[::1]", "::1::", strings.Repeat("a.", 127) + "ab", strings.Repeat("a", 64) + ".example",
	} {
		if a, isAddr, valid := hostguard.ParseHost(bad); valid {
			t.Errorf("ParseHost(%q) = %v, %v, valid; want invalid", bad, a, isAddr)
		}
	}
}

func TestIsLocalhostName(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"localhost": true, "LocalHost.": true, "a.localhost": true, "x.y.LOCALHOST": true,
		"localhost.example.com": false, "notlocalhost": false, "example.com": false,
	} {
		if got := hostguard.IsLocalhostName(name); got != want {
			t.Errorf("IsLocalhostName(%q) = %v", name, got)
		}
	}
}

// FuzzParseHost reads any host: no panic, and an address it returns is
// one, classified without panic; a name it accepts is ASCII.
func FuzzParseHost(f *testing.F) {
	for _, s := range []string{"127.0.0.1", "0x7f.1", "017700000001", "example.com", "fe80::1%eth0", "1.1.1.1.1", "0x", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, host string) {
		a, isAddr, valid := hostguard.ParseHost(host)
		switch {
		case isAddr && (!valid || !a.IsValid()):
			t.Fatalf("ParseHost(%q) = %v, %v, %v", host, a, isAddr, valid)
		case isAddr:
			hostguard.Classify(a)
		case valid:
			for _, c := range []byte(host) {
				if c >= 0x80 {
					t.Fatalf("ParseHost(%q): a name that is not ASCII", host)
				}
			}
		}
	})
}

// TestRangeKindIgnoresMetadata: a metadata service keeps the kind of its
// range for a caller that judges ranges alone (sourcehostfake, as GitLab).
func TestRangeKindIgnoresMetadata(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		addr     string
		kind     hostguard.Kind
		metadata bool
	}{
		{"169.254.169.254", hostguard.LinkLocal, true},
		{"::ffff:169.254.169.254", hostguard.LinkLocal, true},
		{"fd00:ec2::254", hostguard.LocalNetwork, true},
		{"100.100.100.200", hostguard.SharedAddressSpace, true},
		{"192.0.0.192", hostguard.Reserved, true},
		{"169.254.1.1", hostguard.LinkLocal, false},
		{"8.8.8.8", hostguard.Public, false},
	} {
		a := netip.MustParseAddr(tc.addr)
		if got := hostguard.RangeKind(a); got != tc.kind {
			t.Errorf("hostguard.RangeKind(%s) = %v, want %v", tc.addr, got, tc.kind)
		}
		if got := hostguard.IsMetadata(a); got != tc.metadata {
			t.Errorf("hostguard.IsMetadata(%s) = %v", tc.addr, got)
		}
		if want := map[bool]hostguard.Kind{true: hostguard.Metadata, false: tc.kind}[tc.metadata]; hostguard.Classify(a) != want {
			t.Errorf("hostguard.Classify(%s) = %v, want %v", tc.addr, hostguard.Classify(a), want)
		}
	}
}
