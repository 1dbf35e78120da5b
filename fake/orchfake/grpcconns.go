package orchfake

import (
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
