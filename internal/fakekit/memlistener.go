package fakekit

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
)

// MemListener is a net.Listener whose connections are in memory, buffered
// as a socket's are (see MemConnBuffer): a fake served on one touches no
// socket and no port, so a suite that starts tens of thousands of fakes
// never waits for the kernel to free a port, and two suites never compete
// for one. Clients reach it through Dial, DialContext or HTTPClient.
type MemListener struct {
	addr memAddr
	// onDial, when set, runs before each dial: an Endpoint that promised
	// to serve on the listener keeps its promise there (see
	// Endpoint.ServeInMemoryOnDemand), so that a dial never waits for an
	// Accept that nothing will call.
	onDial func()

	mu     sync.Mutex
	closed bool
	port   int           // the last client "port" handed out
	queue  chan net.Conn // server ends, waiting for Accept
	done   chan struct{} // closed by Close
}

// NewMemListener returns a listener named name ("erpfake"); its address is
// name, a number that tells it from the others of the process, and
// ".invalid": a host no resolver answers (RFC 6761), so a client that is
// not wired to the listener fails at once with "no such host" rather than
// reaching something else.
func NewMemListener(name string) *MemListener { return newMemListener(name, nil) }

// newMemListener is NewMemListener with a hook that runs before each dial
// (set before the listener can be found by its address).
func newMemListener(name string, onDial func()) *MemListener {
	l := &MemListener{
		addr:   memAddr(name + "-" + strconv.FormatInt(memListeners.Add(1), 10) + ".invalid"),
		onDial: onDial,
		queue:  make(chan net.Conn),
		done:   make(chan struct{}),
	}
	memRegistry.Store(string(l.addr), l)
	return l
}

// memListeners counts the listeners made, for their names.
var memListeners atomic.Int64

// memRegistry holds the open listeners by address, for dialMemory.
var memRegistry sync.Map

// DialInMemory dials the open in-memory listener that addr ("host:port"
// or "host") names, and reports false when none does: for a fake's own
// outgoing connections (webhook deliveries), which reach a fake served in
// memory without any network, whatever transport they are given.
func DialInMemory(ctx context.Context, addr string) (net.Conn, bool, error) {
	return dialMemory(ctx, addr)
}

// dialMemory dials the in-memory listener that addr ("host:port" or
// "host") names, and reports false when none does.
func dialMemory(ctx context.Context, addr string) (net.Conn, bool, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	v, ok := memRegistry.Load(host)
	if !ok {
		return nil, false, nil
	}
	c, err := v.(*MemListener).DialContext(ctx, "", "")
	return c, true, err
}

// ErrMemListenerClosed is what dialling a closed MemListener returns.
var ErrMemListenerClosed = errors.New("fakekit: in-memory listener closed")

// Accept waits for the next connection.
func (l *MemListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.queue:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close stops accepting; connections already made stay open until their
// ends close them (as with TCP).
func (l *MemListener) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.closed {
		l.closed = true
		close(l.done)
		memRegistry.Delete(string(l.addr))
	}
	return nil
}

// Addr returns the listener's address (network "memory").
func (l *MemListener) Addr() net.Addr { return l.addr }

// DialContext connects to the listener, whatever network and address are
// asked for (an http.Transport passes the URL's host): it is the
// DialContext of a transport or gRPC dialer wired to the listener. It
// waits for Accept as long as ctx allows.
func (l *MemListener) DialContext(ctx context.Context, _, _ string) (net.Conn, error) {
	if l.onDial != nil {
		l.onDial()
	}
	l.mu.Lock()
	l.port = l.port%64511 + 1
	port := l.port + 1024
	l.mu.Unlock()
	// The server sees a loopback caller, as over TCP.
	caller := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port}
	client, server := newMemConns(caller, l.addr)
	select {
	case l.queue <- server:
		return client, nil
	case <-l.done:
	case <-ctx.Done():
		_ = client.Close()
		_ = server.Close()
		return nil, ctx.Err()
	}
	_ = client.Close()
	_ = server.Close()
	return nil, ErrMemListenerClosed
}

// HTTPClient returns an http.Client whose every connection goes to the
// listener, with keep-alive as a client of a loopback server has.
func (l *MemListener) HTTPClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		DialContext:       l.DialContext,
		ForceAttemptHTTP2: false,
		MaxIdleConns:      100,
		IdleConnTimeout:   IdleTimeout,
	}}
}

// memAddr is a MemListener's address.
type memAddr string

func (memAddr) Network() string  { return "memory" }
func (a memAddr) String() string { return string(a) }
