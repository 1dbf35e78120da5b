package fakekit

import (
	"crypto/tls"
	"net"
	"sync"
	"sync/atomic"
)

// The share of the process's open files one listener may hold: every
// connection is a file descriptor, and a process that has used them all
// can accept nothing more on any port, open no file and dial nothing. A
// tenth leaves room for the others: apitwin-fake serves on seven listeners
// (70% at most), and the rest is for its outgoing connections (webhooks,
// the mcp fake's calls to the sourcehost fake) and its files.
const (
	connShareOfFiles = 10
	// MinMaxConns and MaxMaxConns bound DefaultMaxConns: at least 64
	// connections per listener however low the limit on open files, and
	// at most 4,096 however high (each connection costs memory too: about
	// 20 KB for an idle HTTP one, more for gRPC).
	MinMaxConns = 64
	MaxMaxConns = 4096
)

// DefaultMaxConns is how many connections a listener holds at once by
// default: a tenth of the process's limit on open files (RLIMIT_NOFILE's
// soft limit, which Go raises to the hard limit when a program starts),
// between MinMaxConns and MaxMaxConns. With `ulimit -n` at 20,000 that is
// 2,000; where the limit cannot be read, 1,024.
func DefaultMaxConns() int { return defaultMaxConns() }

var defaultMaxConns = sync.OnceValue(func() int {
	files, ok := openFileLimit()
	if !ok {
		return 1024
	}
	return int(min(max(files/connShareOfFiles, MinMaxConns), MaxMaxConns))
})

// LimitListener returns l holding at most max connections at once (max <=
// 0: DefaultMaxConns): a connection accepted over the limit is closed at
// once, and its client sees the connection end (an EOF or a reset) rather
// than waiting in the kernel's backlog for a slot that may never free.
// A slot frees when the server closes the connection.
//
// A listener whose connections are *tls.Conn (tls.NewListener) is served
// unlimited, since wrapping them would hide TLS from an http.Server: limit
// the listener under it instead (tls.NewListener(LimitListener(l, n), cfg)).
func LimitListener(l net.Listener, max int) net.Listener {
	if max <= 0 {
		max = DefaultMaxConns()
	}
	return &limitListener{Listener: l, max: int64(max)}
}

type limitListener struct {
	net.Listener
	max  int64
	open atomic.Int64
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if _, ok := c.(*tls.Conn); ok {
			return c, nil
		}
		if l.open.Add(1) > l.max {
			l.open.Add(-1)
			_ = c.Close()
			continue
		}
		return &limitConn{Conn: c, l: l}, nil
	}
}

// limitConn is a connection that frees its listener's slot when it closes
// (once, however often Close is called).
type limitConn struct {
	net.Conn
	l      *limitListener
	closed atomic.Bool
}

func (c *limitConn) Close() error {
	if c.closed.CompareAndSwap(false, true) {
		c.l.open.Add(-1)
	}
	return c.Conn.Close()
}

// CloseWrite passes a half-close on (an http.Server half-closes before it
// hangs up on a client whose headers were too large).
func (c *limitConn) CloseWrite() error { return closeWrite(c.Conn) }

// NetConn returns the connection underneath.
func (c *limitConn) NetConn() net.Conn { return c.Conn }

func closeWrite(c net.Conn) error {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
