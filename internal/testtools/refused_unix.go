//go:build unix

package testtools

import (
	"net"
	"strconv"
	"syscall"
	"testing"
)

// RefusedAddr returns a loopback address ("127.0.0.1:port") that refuses
// every connection for as long as tb runs.
//
// Its port is bound but never listened on: a dial is reset at once, and no
// other socket (a server another test starts, a redis-server on a "free"
// port) can take the port meanwhile, nor can a dial's own source port be
// it, which would connect the dial to itself. A port listened on and
// closed again, the usual way to find an unused one, promises none of
// that: under a busy go test ./..., a test for "nothing answers" once met
// another test's Redis there.
func RefusedAddr(tb testing.TB) string {
	tb.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		tb.Fatalf("testtools: RefusedAddr: socket: %v", err)
	}
	syscall.CloseOnExec(fd) // the programs a test starts do not hold it
	tb.Cleanup(func() { _ = syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		tb.Fatalf("testtools: RefusedAddr: bind: %v", err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		tb.Fatalf("testtools: RefusedAddr: getsockname: %v", err)
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(sa.(*syscall.SockaddrInet4).Port))
}
