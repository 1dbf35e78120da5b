package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/internal/testtools"
)

// rawExchange sends raw on a new connection to addr and reads one answer;
// it reports its status (0: none) and whether the server then closed the
// connection.
func rawExchange(t *testing.T, addr, raw string) (status int, closed bool) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Minute)) // a bound for a failing test, not a measure
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return 0, true
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	// Closed: the next read ends rather than waiting for an answer.
	if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"); err != nil {
		return resp.StatusCode, true
	}
	if _, err := http.ReadResponse(br, nil); err != nil {
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Fatalf("the connection after a %d waits", resp.StatusCode)
		}
		return resp.StatusCode, true
	}
	return resp.StatusCode, false
}

func headerFields(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "X-F%d: v\r\n", i)
	}
	return b.String()
}

// What net/http would serve but must not is refused on the wire, on the
// gateway's listener and on the metrics one: a request with both
// Content-Length and Transfer-Encoding (which a proxy in front may frame
// differently: request smuggling), or with more than 100 header fields,
// is answered 400 and its connection closed, and never reaches the
// gateway (no request line in the log). Each listener holds at most
// max_connections connections: one more is closed at once. The old
// program served both requests and kept their connections, and knew no
// max_connections.
func TestWireRefusalsAgainstTheProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the program as a process")
	}
	t.Parallel()
	up := upstream(t)
	pt := &procTest{bin: testtools.ProgramPath(t, "mcp-gateway")}
	p := pt.start(t, "upstream: "+up.URL()+"\nmax_connections: 3\n", nil)
	gw, _ := url.Parse(p.base)
	metrics, _ := url.Parse(p.metrics)
	smuggle := "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
	for addr, path := range map[string]string{gw.Host: healthzPath, metrics.Host: metrics.Path} {
		for _, c := range []struct {
			name, raw string
			status    int
			closed    bool
		}{
			{"Content-Length and Transfer-Encoding", smuggle, 400, true},
			{"101 header fields", "GET " + path + " HTTP/1.1\r\nHost: x\r\n" + headerFields(100) + "\r\n", 400, true},
			{"100 header fields", "GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + headerFields(98) + "\r\n", 200, true},
		} {
			if status, closed := rawExchange(t, addr, c.raw); status != c.status || closed != c.closed {
				t.Errorf("%s, %s: %d, closed %v; want %d, closed %v", addr, c.name, status, closed, c.status, c.closed)
			}
		}
	}
	if logs := p.logs.String(); strings.Contains(logs, `"path":"/mcp"`) {
		t.Errorf("a refused request reached the gateway:\n%s", logs)
	}

	// Three connections held, each with an answer read (so the server
	// has taken it); the fourth is closed at once.
	for range 3 {
		c, err := net.Dial("tcp", gw.Host)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
		if _, err := http.ReadResponse(bufio.NewReader(c), nil); err != nil {
			t.Fatal(err)
		}
	}
	if status, _ := rawExchange(t, gw.Host, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); status != 0 {
		t.Fatalf("a fourth connection with max_connections 3 was answered %d", status)
	}
	// The metrics listener has connections of its own.
	if code, _, _ := get(t, p.metrics); code != 200 {
		t.Fatalf("/metrics while the gateway's listener is full: %d", code)
	}
}
