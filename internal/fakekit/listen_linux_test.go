package fakekit_test

import (
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// A port ListenTCP picked ends as net.Listen's would: SO_REUSEADDR set, so
// a program can listen on it again while a connection it closed waits in
// TIME_WAIT.
func TestListenTCPAnyPortListensAgain(t *testing.T) {
	t.Parallel()
	l, err := fakekit.ListenTCP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rc, err := l.(syscall.Conn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var reuse int
	var serr error
	if err := rc.Control(func(fd uintptr) {
		reuse, serr = syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_REUSEADDR)
	}); err != nil || serr != nil {
		t.Fatal(err, serr)
	}
	if reuse == 0 {
		t.Error("the listener has no SO_REUSEADDR")
	}

	// The server closes a connection first, so its port holds it in
	// TIME_WAIT.
	accepted := make(chan error, 1)
	go func() {
		c, err := l.Accept()
		if err == nil {
			err = c.Close()
		}
		accepted <- err
	}()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	if err := <-accepted; err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(c); err != nil { // the server's close
		t.Fatal(err)
	}
	c.Close()
	l.Close()

	again, err := fakekit.ListenTCP(l.Addr().String())
	if err != nil {
		t.Fatalf("listening again on the port: %v", err)
	}
	again.Close()
}
