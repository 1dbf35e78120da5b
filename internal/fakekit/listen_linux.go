package fakekit

import (
	"context"
	"net"
	"os"
	"syscall"
)

// listenAnyPort listens on a port Linux picks (addr's port is 0), searching
// the whole ephemeral range rather than the half Linux searches first for a
// socket with SO_REUSEADDR, which Go sets on every listener.
//
// Linux's bind to port 0 takes the first port no socket holds, walking one
// parity of the range from a random point; a listener with SO_REUSEADDR
// walks the lower half first. Every connection a server closes first
// holds its port in TIME_WAIT for a minute, and servers' ports come from
// that lower half, so a busy test run fills it: each such bind then walks
// thousands of held ports (a millisecond and more on a loaded machine,
// where an untroubled bind takes microseconds), and fake.New opens six. A
// socket without SO_REUSEADDR walks the whole range from a random point,
// and so starts in the upper half, which those binds leave free, half the
// time. The bet can lose: when the upper half is the fuller one (a run of
// little but these listeners, whose connections leave their ports there),
// such a bind walks further than the default one would (0.2 ms against
// 0.01 ms, measured with the upper half's odd ports all held).
//
// SO_REUSEADDR is set again as soon as the socket listens, before its
// address is handed out (and so before its first connection, whose socket
// takes the flag from it), so the listener ends as Go makes it: its
// connections' TIME_WAIT do not keep a program from listening on that
// port again.
func listenAnyPort(addr string) (net.Listener, error) {
	l, err := noReuseAddr.Listen(context.Background(), "tcp", addr)
	if err != nil {
		return nil, err
	}
	if err := setReuseAddr(l); err != nil {
		_ = l.Close()
		return nil, err
	}
	return l, nil
}

// noReuseAddr binds without SO_REUSEADDR (Go sets it before Control runs).
var noReuseAddr = net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
	return setsockoptReuseAddr(c, 0)
}}

// setReuseAddr sets SO_REUSEADDR on l, as Go sets it on every listener.
func setReuseAddr(l net.Listener) error {
	sc, ok := l.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return err
	}
	return setsockoptReuseAddr(rc, 1)
}

func setsockoptReuseAddr(c syscall.RawConn, v int) error {
	var serr error
	if err := c.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_REUSEADDR, v)
	}); err != nil {
		return err
	}
	return os.NewSyscallError("setsockopt", serr)
}
