package cloudauth_test

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/cloudauthfake"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/internal/testtools"
)

// t0 is the time every test's fake clock starts at.
var t0 = time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)

// testKey is the signing key shared by the tests' fakes: making a 2048-bit
// key costs tens of milliseconds, too much to pay in every test.
var testKey = sync.OnceValue(func() *rsa.PrivateKey { return newKey() })

// otherKey is a second key, for tokens the fake's key did not sign.
var otherKey = sync.OnceValue(func() *rsa.PrivateKey { return newKey() })

func newKey() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
}

// fakeOpts are the options of a test fake: the shared key, a clock at t0.
func fakeOpts(opts ...cloudauthfake.Option) []cloudauthfake.Option {
	return append([]cloudauthfake.Option{
		cloudauthfake.WithKey(testKey(), "test-key"),
		control.WithClock(clock.NewFake(t0)),
	}, opts...)
}

func startFake(t *testing.T, opts ...cloudauthfake.Option) *cloudauthfake.Server {
	t.Helper()
	return cloudauthfake.Start(t, fakeOpts(opts...)...)
}

func startFakeTLS(t *testing.T, opts ...cloudauthfake.Option) *cloudauthfake.Server {
	t.Helper()
	return cloudauthfake.Start(t, append(fakeOpts(opts...), control.WithTLS())...)
}

// silentServer accepts connections and never answers; it returns its URL.
func silentServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		conns []net.Conn
	)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return "http://" + l.Addr().String()
}

// closedPort returns a loopback URL that refuses connections.
func closedPort(t *testing.T) string {
	t.Helper()
	return "http://" + testtools.RefusedAddr(t)
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	return mustJSONAny(v)
}

func mustJSONAny(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
