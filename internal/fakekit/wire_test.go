package fakekit_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// failAfter bounds every wait of these tests: reaching it is the failure,
// never a measure.
const failAfter = 30 * time.Second

// wireServer is an Endpoint serving a handler that reads each request's
// body and answers "ok <n>" (n: the bytes read), counting the requests it
// saw.
type wireServer struct {
	ep   *fakekit.Endpoint
	seen atomic.Int64
}

func (ws *wireServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ws.seen.Add(1)
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	fmt.Fprintf(w, "ok %d", len(b))
}

// wireServes are the ways an Endpoint serves a handler over plain HTTP.
func wireServes() map[string]func(t *testing.T, ep *fakekit.Endpoint, h http.Handler) func(t *testing.T) net.Conn {
	tcp := func(t *testing.T, u string) func(t *testing.T) net.Conn {
		pu, err := url.Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		return func(t *testing.T) net.Conn {
			c, err := net.Dial("tcp", pu.Host)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			return c
		}
	}
	return map[string]func(t *testing.T, ep *fakekit.Endpoint, h http.Handler) func(t *testing.T) net.Conn{
		"Start": func(t *testing.T, ep *fakekit.Endpoint, h http.Handler) func(t *testing.T) net.Conn {
			return tcp(t, ep.Start(t, h))
		},
		"Listen": func(t *testing.T, ep *fakekit.Endpoint, h http.Handler) func(t *testing.T) net.Conn {
			u, err := ep.Listen("127.0.0.1:0", h)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(ep.Close)
			return tcp(t, u)
		},
		"in memory": func(t *testing.T, ep *fakekit.Endpoint, h http.Handler) func(t *testing.T) net.Conn {
			l := fakekit.NewMemListener("wire")
			ep.Serve(l, h)
			t.Cleanup(ep.Close)
			return func(t *testing.T) net.Conn {
				c, err := l.DialContext(t.Context(), "", "")
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { c.Close() })
				return c
			}
		},
	}
}

// exchange writes raw on a new connection and reads the answers to it
// until the connection ends or want answers are in; it reports the
// statuses and bodies read, and whether the server closed the connection.
func exchange(t *testing.T, dial func(*testing.T) net.Conn, raw string, want int) (answers []string, closed bool) {
	t.Helper()
	c := dial(t)
	_ = c.SetDeadline(time.Now().Add(failAfter))
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	for len(answers) < want {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			return answers, true
		}
		b, _ := io.ReadAll(resp.Body) // a 400 of net/http's runs to the close
		resp.Body.Close()
		answers = append(answers, fmt.Sprintf("%d %s", resp.StatusCode, b))
		if resp.Close {
			break
		}
	}
	// Closed: the next read ends (EOF, or a reset) rather than waiting for
	// more; open: a request sent now is answered.
	if _, err := io.WriteString(c, "GET /again HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		return answers, true
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return answers, true
	}
	resp.Body.Close()
	return answers, false
}

func fields(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "X-F%d: v\r\n", i)
	}
	return b.String()
}

// Requests net/http would serve but whose framing is ambiguous, or whose
// header fields are too many, are refused on the wire: 400, and the
// connection closed, before any handler sees them; the requests before
// them on the connection are served. Before the follower, each was served
// and its connection kept open.
func TestRequestsRefusedOnTheWire(t *testing.T) {
	t.Parallel()
	const good = "POST /good HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"
	for _, c := range []struct {
		name string
		raw  string
		want []string // answers before the refusal
	}{
		{"Content-Length and Transfer-Encoding", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", nil},
		{"Transfer-Encoding and Content-Length", "POST / HTTP/1.1\r\nHost: x\r\ntransfer-encoding: chunked\r\ncontent-length: 0\r\n\r\n0\r\n\r\n", nil},
		{"Transfer-Encoding in HTTP/1.0", "POST / HTTP/1.0\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", nil},
		{"two Transfer-Encodings", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", nil},
		{"a folded field", "GET / HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n  2\r\n\r\n", nil},
		{"101 header fields", "GET / HTTP/1.1\r\nHost: x\r\n" + fields(100) + "\r\n", nil},
		{"a smuggled request behind a good one", good + "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", []string{"200 ok 3"}},
		{"a chunk not ended by CRLF", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcXY0\r\n\r\n", nil},
	} {
		for how, serve := range wireServes() {
			t.Run(c.name+"/"+how, func(t *testing.T) {
				t.Parallel()
				ws := &wireServer{ep: &fakekit.Endpoint{}}
				dial := serve(t, ws.ep, ws)
				answers, closed := exchange(t, dial, c.raw, len(c.want)+1)
				want := append(append([]string(nil), c.want...), "400 400 Bad Request")
				if fmt.Sprint(answers) != fmt.Sprint(want) || !closed {
					t.Fatalf("answers %q, closed %v; want %q and the connection closed", answers, closed, want)
				}
				if ws.seen.Load() != int64(len(c.want)) {
					t.Fatalf("the handler saw %d requests, want %d", ws.seen.Load(), len(c.want))
				}
			})
		}
	}
}

// What clients send is served as before, the connection kept: the
// follower agrees with net/http on where each request ends.
func TestRequestsServedThroughTheWireFollower(t *testing.T) {
	t.Parallel()
	const smuggler = "POST / HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n"
	for _, c := range []struct {
		name string
		raw  string
		want []string
	}{
		{"100 header fields", "GET / HTTP/1.1\r\nHost: x\r\n" + fields(99) + "\r\n", []string{"200 ok 0"}},
		{"pipelined bodies", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabcPOST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n",
			[]string{"200 ok 3", "200 ok 0", "200 ok 0"}},
		{"chunked, extensions and trailers", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: Chunked\r\n\r\n3;x=y\r\nabc\r\n0A \r\n0123456789\r\n0\r\nX-Sum: 13\r\n\r\n" +
			"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", []string{"200 ok 13", "200 ok 0"}},
		{"a body that looks like a request", fmt.Sprintf("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s", len(smuggler), smuggler),
			[]string{fmt.Sprintf("200 ok %d", len(smuggler))}},
		{"bare LF line ends", "GET / HTTP/1.1\nHost: x\nX-A: 1\n\n", []string{"200 ok 0"}},
		{"HTTP/1.0 kept alive", "POST / HTTP/1.0\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nab", []string{"200 ok 2"}},
	} {
		for how, serve := range wireServes() {
			t.Run(c.name+"/"+how, func(t *testing.T) {
				t.Parallel()
				ws := &wireServer{ep: &fakekit.Endpoint{}}
				dial := serve(t, ws.ep, ws)
				answers, closed := exchange(t, dial, c.raw, len(c.want))
				if fmt.Sprint(answers) != fmt.Sprint(c.want) || closed {
					t.Fatalf("answers %q, closed %v; want %q and the connection kept", answers, closed, c.want)
				}
			})
		}
	}
}

// A Go client's requests, chunked or not, over one kept-alive connection,
// are served whole.
func TestGoClientThroughTheWireFollower(t *testing.T) {
	t.Parallel()
	ws := &wireServer{ep: &fakekit.Endpoint{}}
	u := ws.ep.Start(t, ws)
	for i, body := range []io.Reader{strings.NewReader("abc"), io.MultiReader(strings.NewReader("ab"), strings.NewReader("cd")), http.NoBody} {
		req, _ := http.NewRequest("POST", u, body)
		if i == 1 {
			req.ContentLength = -1 // sent chunked
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if want := fmt.Sprintf("ok %d", []int{3, 4, 0}[i]); string(b) != want {
			t.Fatalf("request %d: %q, want %q", i, b, want)
		}
	}
}

// recordingListener records, for each connection it accepts, the read
// deadlines set on it.
type recordingListener struct {
	net.Listener
	mu        sync.Mutex
	deadlines []time.Time
}

func (l *recordingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &recordingConn{Conn: c, l: l}, nil
}

func (l *recordingListener) last() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.deadlines[len(l.deadlines)-1]
}

type recordingConn struct {
	net.Conn
	l *recordingListener
}

func (c *recordingConn) SetReadDeadline(t time.Time) error {
	c.l.mu.Lock()
	c.l.deadlines = append(c.l.deadlines, t)
	c.l.mu.Unlock()
	return c.Conn.SetReadDeadline(t)
}

// A client that sends its body slowly is cut off once Timeouts.Body has
// passed, whatever the handler: one that reads its body itself (as the
// control API does) has its read fail, and the connection closes. The old
// Endpoint left that to the Kit, so a handler of its own (the control
// API's) could be held forever by a byte a second.
func TestEndpointCutsASlowBody(t *testing.T) {
	t.Parallel()
	for name, serve := range map[string]func(*fakekit.Endpoint, http.Handler) string{
		"Serve": func(ep *fakekit.Endpoint, h http.Handler) string {
			l, err := fakekit.ListenTCP("127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			return ep.Serve(l, h)
		},
		"Start": func(ep *fakekit.Endpoint, h http.Handler) string { return ep.Start(t, h) },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			failed := make(chan error, 1)
			ep := &fakekit.Endpoint{Timeouts: fakekit.Timeouts{Body: 100 * time.Millisecond}}
			u := serve(ep, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, err := io.ReadAll(r.Body)
				failed <- err
			}))
			t.Cleanup(ep.Close)
			pu, _ := url.Parse(u)
			c, err := net.Dial("tcp", pu.Host)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\na") // and nothing more
			select {
			case err := <-failed:
				if err == nil {
					t.Fatal("the body was read whole")
				}
			case <-time.After(failAfter):
				t.Fatal("a slow body is held past the body timeout")
			}
			_ = c.SetReadDeadline(time.Now().Add(failAfter))
			if _, err := io.ReadAll(c); err != nil && !errors.Is(err, syscall.ECONNRESET) {
				t.Fatalf("the connection stays open: %v", err)
			}
		})
	}
}

// The body's deadline is lifted once the body is in: a handler that then
// waits (a long poll) is not cut off by it.
func TestEndpointLiftsTheBodyDeadline(t *testing.T) {
	t.Parallel()
	l, err := fakekit.ListenTCP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rl := &recordingListener{Listener: l}
	read := make(chan time.Time, 1)
	var ep fakekit.Endpoint
	u := ep.Serve(rl, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		read <- rl.last()
	}))
	defer ep.Close()
	resp, err := http.Post(u, "text/plain", strings.NewReader("body"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if d := <-read; !d.IsZero() {
		t.Fatalf("read deadline once the body is in: %v, want none", d)
	}
}

// An Endpoint holds at most Timeouts.MaxConns connections: one more is
// closed at once, and a slot frees when a connection closes.
func TestEndpointLimitsConnections(t *testing.T) {
	t.Parallel()
	for how, serve := range wireServes() {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			ws := &wireServer{ep: &fakekit.Endpoint{Timeouts: fakekit.Timeouts{MaxConns: 2}}}
			dial := serve(t, ws.ep, ws)
			get := "GET / HTTP/1.1\r\nHost: x\r\n\r\n"
			var held []net.Conn
			for range 2 {
				c := dial(t)
				io.WriteString(c, get)
				if _, err := http.ReadResponse(bufio.NewReader(c), nil); err != nil {
					t.Fatal(err)
				}
				held = append(held, c)
			}
			over := dial(t)
			_ = over.SetDeadline(time.Now().Add(failAfter))
			io.WriteString(over, get)
			if _, err := http.ReadResponse(bufio.NewReader(over), nil); err == nil {
				t.Fatal("a connection over the limit was served")
			} else if isTimeout(err) {
				t.Fatal("a connection over the limit waits instead of being closed")
			}
			// The server closes the first connection after its answer; once
			// its close is seen, the slot is free, and a new connection is
			// served.
			io.WriteString(held[0], "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
			_ = held[0].SetDeadline(time.Now().Add(failAfter))
			if _, err := io.ReadAll(held[0]); err != nil {
				t.Fatal(err)
			}
			c := dial(t)
			_ = c.SetDeadline(time.Now().Add(failAfter))
			io.WriteString(c, get)
			if _, err := http.ReadResponse(bufio.NewReader(c), nil); err != nil {
				t.Fatalf("no slot freed after a connection closed: %v", err)
			}
		})
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
