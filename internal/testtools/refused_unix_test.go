//go:build unix

package testtools_test

import (
	"errors"
	"net"
	"syscall"
	"testing"

	"github.com/apitwin/apitwin/internal/testtools"
)

// RefusedAddr's port refuses a dial at once, keeps refusing while other
// sockets are bound to ports of their own, and cannot be taken by a
// listener while the test runs.
func TestRefusedAddr(t *testing.T) {
	t.Parallel()
	addr := testtools.RefusedAddr(t)
	for i := range 3 {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			t.Fatalf("dial %d to %s connected", i, addr)
		} else if !errors.Is(err, syscall.ECONNREFUSED) {
			t.Fatalf("dial %d to %s: %v, want connection refused", i, addr, err)
		}
	}
	if l, err := net.Listen("tcp", addr); err == nil {
		l.Close()
		t.Fatalf("a listener took %s while it was to refuse", addr)
	}
}
