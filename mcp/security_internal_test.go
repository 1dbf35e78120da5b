package mcp

import "testing"

// FuzzParseHop: any X-Forwarded-For hop or peer address is read or
// refused, never a panic; what is read has no zone, is not 4-in-6, and
// reads back as itself.
func FuzzParseHop(f *testing.F) {
	for _, s := range []string{"203.0.113.7", "203.0.113.7:4711", "[2001:db8::7]:4711", "fe80::1%eth0", "[fe80::1%25eth0]:1", "::ffff:10.0.0.1", "garbage", "", "[", "1.2.3.4:99999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		a, ok := parseHop(v)
		if !ok {
			return
		}
		if a.Zone() != "" || a.Is4In6() {
			t.Fatalf("%q read as %v", v, a)
		}
		if b, ok := parseHop(a.String()); !ok || b != a {
			t.Fatalf("%q read as %v, which reads back as %v %v", v, a, b, ok)
		}
	})
}
