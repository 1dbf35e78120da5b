package gateway

import (
	"crypto/sha256"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/mcp"
)

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

// FuzzRequestSignature: any X-MCP-Signature value is read or refused,
// never a panic; what is read has a positive time, a nonce the rules allow
// and a full-length MAC, and a value SignRequest made always reads back.
func FuzzRequestSignature(f *testing.F) {
	good := mcp.SignRequest([]byte("k"), time.Unix(1764000000, 0), "0123456789abcdef", "POST", "/mcp", []byte("{}"))
	for _, s := range []string{good, "t=1,nonce=0123456789abcdef,v2=00", "sha256=00", "", ",,", "t=,nonce=,v2=", "v2=" + strings.Repeat("a", 64) + ",t=5,nonce=" + strings.Repeat("-", 16)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		sig, ok := parseRequestSignature(v)
		if ok && (sig.unix <= 0 || !validNonce(sig.nonce) || len(sig.mac) != sha256.Size) {
			t.Fatalf("%q read as %+v", v, sig)
		}
		if _, ok := parseRequestSignature(good); !ok {
			t.Fatal("a signature SignRequest made does not read")
		}
	})
}
