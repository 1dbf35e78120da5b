//go:build !unix

package testtools

import (
	"net"
	"testing"
)

// RefusedAddr returns a loopback address that refuses connections: here,
// without the unix socket calls that hold a port bound and unlistened, a
// port listened on and closed again, which another socket may take later.
func RefusedAddr(tb testing.TB) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("testtools: RefusedAddr: %v", err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}
