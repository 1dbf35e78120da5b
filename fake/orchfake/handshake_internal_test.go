package orchfake

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"github.com/apitwin/apitwin/fake/control"
	"io"
	"net"
	"syscall"
	"testing"
	"time"
)

// failAfter bounds every wait of these tests: reaching it is the failure,
// never a measure (Close returns in milliseconds when it works).
const failAfter = 30 * time.Second

// clientPreface is the first thing an HTTP/2 client sends.
const clientPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

// silentClient is a client of the gRPC side that connects, then sends
// nothing more than send: it stays in gRPC's handshake.
type silentClient struct {
	conn net.Conn
	gone chan struct{} // closed when the fake closes the connection
}

// dialSilent connects to s's gRPC side as dial does, waits until the fake
// has begun its HTTP/2 handshake (its SETTINGS frame arrives), sends send,
// and sends nothing more.
//
// With mayBeCut, the fake may close the connection before its SETTINGS
// arrive: a short handshake bound can pass first on a loaded machine (the
// TLS handshake and the preface take real time), which is the outcome the
// caller waits for anyway; the client comes back already gone.
func dialSilent(t *testing.T, dial dialFunc, send string, mayBeCut bool) *silentClient {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), failAfter)
	defer cancel()
	c, err := dial(ctx)
	if err != nil {
		if mayBeCut && cut(err) { // in the TLS handshake
			return goneClient(nil)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	_ = c.SetDeadline(time.Now().Add(failAfter))
	var head [9]byte // an HTTP/2 frame header: length (3), type, flags, stream
	if _, err := io.ReadFull(c, head[:]); err != nil {
		if mayBeCut && cut(err) {
			return goneClient(c)
		}
		t.Fatalf("no SETTINGS from the fake: %v", err)
	}
	if head[3] != 0x4 { // SETTINGS
		t.Fatalf("the fake's first frame is of type %d, not SETTINGS", head[3])
	}
	if _, err := io.CopyN(io.Discard, c, int64(binary.BigEndian.Uint32(append([]byte{0}, head[:3]...)))); err != nil {
		t.Fatal(err)
	}
	sc := &silentClient{conn: c, gone: make(chan struct{})}
	go func() { // reads whatever else the fake sends, until it closes
		defer close(sc.gone)
		_ = c.SetReadDeadline(time.Time{})
		_, _ = io.Copy(io.Discard, c)
	}()
	if send != "" {
		if _, err := io.WriteString(c, send); err != nil {
			t.Fatal(err)
		}
	}
	return sc
}

// cut reports whether err says the other side closed the connection.
func cut(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET)
}

// goneClient is a client whose connection the fake closed already.
func goneClient(c net.Conn) *silentClient {
	sc := &silentClient{conn: c, gone: make(chan struct{})}
	close(sc.gone)
	return sc
}

// inHandshake is how many of s's gRPC connections are tracked as in
// their handshake.
func inHandshake(s *Server) int {
	s.grpcHandshakes.mu.Lock()
	defer s.grpcHandshakes.mu.Unlock()
	return len(s.grpcHandshakes.m)
}

// dialFunc connects to the gRPC side.
type dialFunc = func(context.Context) (net.Conn, error)

// grpcDial dials the gRPC side of s however it serves: on its in-memory
// listener (Start in a run with -fakes.inmemory), or on its port.
func grpcDial(s *Server) dialFunc {
	if l := s.grpcMemListener(); l != nil {
		return func(ctx context.Context) (net.Conn, error) { return l.DialContext(ctx, "", "") }
	}
	addr := s.GRPCAddr()
	return func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", addr)
	}
}

// grpcDialers are the ways a client reaches the gRPC side, each with the
// fake it reaches: every listener the fake serves gRPC on.
func grpcDialers() map[string]func(*testing.T, ...Option) (*Server, dialFunc) {
	return map[string]func(*testing.T, ...Option) (*Server, dialFunc){
		"start": func(t *testing.T, opts ...Option) (*Server, dialFunc) {
			s := Start(t, opts...)
			return s, grpcDial(s)
		},
		"start-tls": func(t *testing.T, opts ...Option) (*Server, dialFunc) {
			s := Start(t, append(opts, control.WithTLS())...)
			addr, pool := s.GRPCAddr(), x509.NewCertPool()
			pool.AppendCertsFromPEM(s.CertificatePEM())
			return s, func(ctx context.Context) (net.Conn, error) {
				d := tls.Dialer{Config: &tls.Config{RootCAs: pool, NextProtos: []string{"h2"}}}
				return d.DialContext(ctx, "tcp", addr) // the TLS handshake done, nothing more
			}
		},
		"in-memory": func(t *testing.T, opts ...Option) (*Server, dialFunc) {
			s := Start(t, append(opts, control.WithInMemory())...)
			l := s.grpcMemListener()
			return s, func(ctx context.Context) (net.Conn, error) { return l.DialContext(ctx, "", "") }
		},
		"listen": func(t *testing.T, opts ...Option) (*Server, dialFunc) {
			s := newTestServer(t, opts...) // the silent connection builds the gRPC server
			if err := s.Listen("127.0.0.1:0", ""); err != nil {
				t.Fatal(err)
			}
			return s, grpcDial(s)
		},
		"listen-after-a-call": func(t *testing.T, opts ...Option) (*Server, dialFunc) {
			s := newTestServer(t, opts...)
			if err := s.Listen("127.0.0.1:0", ""); err != nil {
				t.Fatal(err)
			}
			gc := s.GRPCClient() // the gRPC server is built before the silent connection
			defer gc.Close()
			if _, err := gc.DescribeNamespace(t.Context(), DefaultNamespace); err != nil {
				t.Fatal(err)
			}
			if n := inHandshake(s); n != 0 { // the client's connection is done with it
				t.Fatalf("%d connections tracked after a call", n)
			}
			// The tests dial a listener of their own, opened after the
			// call: the client's connection, closed on return, frees its
			// slot of the first listener only when the server has read
			// its end, which may come after a test's first dials (a
			// per-listener cap of 2 then refused the second).
			if err := s.Listen("127.0.0.1:0", ""); err != nil {
				t.Fatal(err)
			}
			return s, grpcDial(s)
		},
	}
}

// A client that connects to the gRPC side and sends nothing, or half the
// HTTP/2 preface, does not hold Close: gRPC's Stop waits for connections
// still in their handshake, for up to 120 s by default.
func TestCloseDoesNotWaitForAGRPCHandshake(t *testing.T) {
	t.Parallel()
	for name, fake := range grpcDialers() {
		for sendName, send := range map[string]string{"nothing": "", "half the preface": clientPreface[:12]} {
			t.Run(name+"/"+sendName, func(t *testing.T) {
				t.Parallel()
				s, dial := fake(t)
				c := dialSilent(t, dial, send, false)
				closed := make(chan struct{})
				go func() {
					defer close(closed)
					s.Close()
				}()
				select {
				case <-closed:
				case <-time.After(failAfter):
					t.Fatal("Close waits for a connection in its gRPC handshake")
				}
				select {
				case <-c.gone:
				case <-time.After(failAfter):
					t.Fatal("Close left the connection open")
				}
			})
		}
	}
}

// withHandshakeTimeout shortens the bound on a gRPC handshake, for a test
// that waits for it to pass.
func withHandshakeTimeout(d time.Duration) Option {
	return option("withHandshakeTimeout", func(c *config) { c.handshake = d })
}

// A client that stays in the gRPC handshake is cut off once the bound
// passes, while the fake runs: it does not hold a connection (and a
// goroutine) for as long as it likes.
func TestAGRPCHandshakeIsBounded(t *testing.T) {
	t.Parallel()
	for name, fake := range grpcDialers() {
		for sendName, send := range map[string]string{"nothing": "", "half the preface": clientPreface[:12]} {
			t.Run(name+"/"+sendName, func(t *testing.T) {
				t.Parallel()
				s, dial := fake(t, withHandshakeTimeout(500*time.Millisecond))
				c := dialSilent(t, dial, send, true)
				select {
				case <-c.gone:
				case <-time.After(failAfter):
					t.Fatal("a connection in its gRPC handshake stays open")
				}
				if n := inHandshake(s); n != 0 {
					t.Fatalf("%d connections still tracked after their handshake ended", n)
				}
			})
		}
	}
}
