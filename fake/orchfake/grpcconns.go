package orchfake

import (
	"errors"
	"net"
	"sync"
	"time"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// grpcHandshakeTimeout bounds a gRPC connection's handshake (TLS, when
// served over TLS, and the HTTP/2 preface and settings): as long as an
// HTTP client has to send its headers. A client that connects and sends
// nothing is cut off then, rather than after gRPC's default two minutes.
const grpcHandshakeTimeout = fakekit.ReadHeaderTimeout

// handshakes tracks the connections the gRPC side has accepted until gRPC
// is done with their handshake, so that Close can close them: grpc.Server's
// Stop and GracefulStop wait for a connection in its handshake (it is not
// yet one of the server's), however long its client keeps it there.
//
// gRPC sets a connection's deadline for its handshake and clears it
// (SetDeadline with the zero time) once the handshake is over, whether it
// succeeded or not: that is the moment a connection leaves the set, and
// from then on the gRPC server's own Stop closes it. (Should a gRPC release
// stop clearing it, Close would cut running calls at once rather than after
// their grace; it would still not wait.)
type handshakes struct {
	mu     sync.Mutex
	closed bool
	m      map[*handshakeConn]struct{}
}

// listener wraps l: the connections it accepts are tracked until their
// handshake is over.
func (h *handshakes) listener(l net.Listener) net.Listener {
	return &handshakeListener{Listener: l, h: h}
}

// add tracks c, or closes it when Close has closed the others already.
func (h *handshakes) add(c *handshakeConn) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		_ = c.Conn.Close()
		return
	}
	if h.m == nil {
		h.m = map[*handshakeConn]struct{}{}
	}
	h.m[c] = struct{}{}
}

func (h *handshakes) remove(c *handshakeConn) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.m, c)
}

// close closes the connections still in their handshake, and from then on
// every connection accepted.
func (h *handshakes) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for c := range h.m {
		_ = c.Conn.Close()
	}
	h.m = nil
}

// handshakeListener is a listener whose connections a handshakes tracks.
type handshakeListener struct {
	net.Listener
	h *handshakes
}

func (l *handshakeListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	hc := &handshakeConn{Conn: c, h: l.h}
	l.h.add(hc)
	return hc, nil
}

// handshakeConn is a connection tracked until its handshake is over (its
// deadline cleared) or it closes.
type handshakeConn struct {
	net.Conn
	h *handshakes
}

func (c *handshakeConn) SetDeadline(t time.Time) error {
	err := c.Conn.SetDeadline(t)
	if t.IsZero() {
		c.h.remove(c)
	}
	return err
}

func (c *handshakeConn) Close() error {
	c.h.remove(c)
	return c.Conn.Close()
}

// The gRPC side's bounds on what one client can hold (doc.go, Bounds). The
// durations are Temporal's frontend defaults.
const (
	// grpcMaxHeaderList caps a call's metadata, checked by gRPC's framer
	// as the header block is decoded, before anything is kept of it or
	// the call is authenticated: gRPC's default is 16 MiB, which let 50
	// connections of 3 calls take the process to 3.7 GB. 64 KiB, as the
	// HTTP side's headers.
	grpcMaxHeaderList = 64 << 10
	// grpcMaxStreams caps the calls open at once on one connection; one
	// more is refused (REFUSED_STREAM), and gRPC stops reading the
	// connection while that many handlers run.
	grpcMaxStreams = 100
	// grpcIdle: a connection with no call open that long is sent GOAWAY
	// and closed.
	grpcIdle = 2 * time.Minute
	// grpcMaxAge and grpcAgeGrace: a connection is asked to go (GOAWAY)
	// after 5 minutes, give or take a tenth, and closed 70 s later, so
	// that a call that never sends its message holds its stream no longer
	// (the grace outlasts a long poll, MaxPollWait). Clients reconnect by
	// themselves.
	grpcMaxAge   = 5 * time.Minute
	grpcAgeGrace = 70 * time.Second
	// grpcPing and grpcPingTimeout: the fake pings a connection silent for
	// a minute and closes it when the ping is not answered within 10 s.
	grpcPing        = time.Minute
	grpcPingTimeout = 10 * time.Second
	// grpcMinPing: a client may ping every 10 s, with calls open or not;
	// more often is answered GOAWAY (ENHANCE_YOUR_CALM, "too_many_pings").
	grpcMinPing = 10 * time.Second
	// grpcResetBudget and grpcResetWindow: a client that cancels (resets)
	// more than 200 streams within 10 s has its connection closed. gRPC
	// itself only bounds the handlers running at once, so a client that
	// opens and resets streams in a loop ("rapid reset") kept the fake
	// starting and ending handlers as fast as it could send, 856,000 in
	// 10 s on one connection.
	grpcResetBudget = 2 * grpcMaxStreams
	grpcResetWindow = 10 * time.Second
)

// grpcWire are the bounds of the gRPC side's connections that tests
// change (zero fields take the defaults above).
type grpcWire struct {
	idle, maxAge, ageGrace time.Duration
	resetWindow            time.Duration
	maxConns               int // 0: fakekit.DefaultMaxConns
}

func (w grpcWire) withDefaults() grpcWire {
	if w.idle <= 0 {
		w.idle = grpcIdle
	}
	if w.maxAge <= 0 {
		w.maxAge = grpcMaxAge
	}
	if w.ageGrace <= 0 {
		w.ageGrace = grpcAgeGrace
	}
	if w.resetWindow <= 0 {
		w.resetWindow = grpcResetWindow
	}
	if w.maxConns <= 0 {
		w.maxConns = fakekit.DefaultMaxConns()
	}
	return w
}

// resetListener is a listener whose connections are closed when their
// client resets more than budget streams within window.
type resetListener struct {
	net.Listener
	budget int
	window time.Duration
}

func (l *resetListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &resetConn{Conn: c, budget: l.budget, window: l.window, preface: len(http2Preface)}, nil
}

// http2Preface is what an HTTP/2 client sends before its first frame.
const http2Preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

// resetConn follows the HTTP/2 frames its client sends, as far as their
// 9-byte headers (length, type, flags, stream), and counts the RST_STREAM
// frames among them. gRPC reads a connection from one goroutine, so it
// needs no lock.
type resetConn struct {
	net.Conn
	budget int
	window time.Duration

	preface int     // bytes of the client preface still to come
	head    [9]byte // the frame header being read
	headN   int
	skip    uint32 // payload bytes of the current frame still to come

	resets int       // RST_STREAM frames in the current window
	since  time.Time // the current window's start
	err    error     // once set, every read fails with it
}

// errResetFlood is the error a connection's reads fail with once its client
// has reset too many streams: gRPC closes the connection on it.
var errResetFlood = errors.New("orchfake: the client reset too many streams; connection closed")

func (c *resetConn) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.Conn.Read(p)
	if c.follow(p[:n]) {
		c.err = errResetFlood
		_ = c.Conn.Close()
		return 0, c.err
	}
	return n, err
}

// follow reads b's frame headers, and reports whether the client is past
// its budget of resets.
func (c *resetConn) follow(b []byte) bool {
	for len(b) > 0 {
		switch {
		case c.preface > 0:
			n := min(c.preface, len(b))
			c.preface -= n
			b = b[n:]
		case c.skip > 0:
			n := min(c.skip, uint32(len(b)))
			c.skip -= n
			b = b[n:]
		default:
			n := copy(c.head[c.headN:], b)
			c.headN += n
			b = b[n:]
			if c.headN < len(c.head) {
				continue
			}
			c.headN = 0
			c.skip = uint32(c.head[0])<<16 | uint32(c.head[1])<<8 | uint32(c.head[2])
			if c.head[3] == 0x3 && c.reset() { // RST_STREAM
				return true
			}
		}
	}
	return false
}

// reset counts one RST_STREAM, and reports whether the budget is spent.
func (c *resetConn) reset() bool {
	if now := time.Now(); now.Sub(c.since) > c.window {
		c.since, c.resets = now, 0
	}
	c.resets++
	return c.resets > c.budget
}
