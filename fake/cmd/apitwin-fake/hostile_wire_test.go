package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/internal/testtools"
	"github.com/apitwin/apitwin/orch/orchpb"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// What one caller can still do to apitwin-fake over the wire (issue 38):
// each test here attacks the running program as a client would, modestly,
// and checks the bound that stops it. The campaign's figures (gigabytes,
// tens of thousands of connections) are measured outside the suite.

// startLimited is startProcess with the process's limit on open files
// (RLIMIT_NOFILE, soft and hard) set to nofile by the shell that starts
// it: each listener then holds a tenth of it.
func startLimited(t *testing.T, nofile int, args ...string) *process {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("sets the limit on open files with the shell's ulimit")
	}
	bin := testtools.ProgramPath(t, "apitwin-fake")
	args = append([]string{"-c", fmt.Sprintf(`ulimit -n %d && exec "$0" "$@"`, nofile), bin,
		"--erp-port", "0", "--cloudauth-port", "0", "--orch-grpc-port", "0", "--orch-http-port", "0",
		"--sourcehost-port", "0", "--mcp-port", "0", "--control-port", "0"}, args...)
	cmd := exec.Command("/bin/sh", args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &process{cmd: cmd, stderr: &bytes.Buffer{}, services: map[string]map[string]string{}}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := bufio.NewScanner(stdout)
	for lines.Scan() && lines.Text() != "ready" {
		fields := strings.Fields(lines.Text())
		kv := map[string]string{}
		for _, f := range fields[1:] {
			k, v, _ := strings.Cut(f, "=")
			kv[k] = v
		}
		p.services[fields[0]] = kv
	}
	if len(p.services) != 6 {
		t.Fatalf("services printed: %v; stderr:\n%s", p.services, p.stderr)
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	return p
}

// controlGet reads a control API path as JSON into v.
func controlGet(t *testing.T, p *process, path string, v any) {
	t.Helper()
	req, _ := http.NewRequest("GET", p.services["control"]["url"]+path, nil)
	req.Header.Set("Authorization", "Bearer "+p.services["control"]["token"])
	resp, err := hostileClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("control %s: %d", path, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

// h2 connects to the gRPC side and does the HTTP/2 handshake.
func h2(t *testing.T, addr string) *testtools.H2Client {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	return testtools.NewH2Client(t, c)
}

const describe = orchpb.WorkflowService_DescribeNamespace_FullMethodName

// The gRPC side over the wire: metadata over 64 KiB never reaches the
// fake (4 connections x 3 calls x 1 MiB here; 50 x 3 x 15 MB took the old
// program from 25 MB to 3.7 GB, each call kept in the request log), the
// 101st call open on a connection is refused, and a client that resets
// more than 200 calls in a row loses its connection (the old program
// served 856,000 in 10 s).
func TestGRPCFloodsAgainstTheProcess(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the program as a process")
	}
	p := startProcess(t)
	addr := p.services["orch"]["grpc"]

	big := make([]hpack.HeaderField, 256)
	for i := range big {
		big[i] = hpack.HeaderField{Name: fmt.Sprintf("x-m%d", i), Value: strings.Repeat("m", 4<<10)}
	}
	for range 4 {
		h := h2(t, addr)
		for call := range uint32(3) {
			id := 2*call + 1
			err := h.Headers(id, describe, false, big...)
			if err == nil {
				err = h.EmptyMessage(id)
			}
			var answered bool
			if err == nil {
				err = h.Until(func(f http2.Frame) bool {
					if f.Header().StreamID != id {
						return false
					}
					_, reset := f.(*http2.RSTStreamFrame)
					answered = !reset
					return true
				})
			}
			if answered || testtools.IsTimeout(err) {
				t.Fatalf("a call with 1 MiB of metadata: answered %v, %v", answered, err)
			}
		}
	}
	var logged []json.RawMessage
	controlGet(t, p, "/api/orch/requests", &logged)
	if len(logged) != 0 {
		t.Errorf("calls with 1 MiB of metadata reached the fake: %d in its request log", len(logged))
	}

	h := h2(t, addr)
	for i := range uint32(101) {
		if err := h.Headers(2*i+1, describe, false); err != nil { // calls that never send their message
			t.Fatal(err)
		}
	}
	resets, err := h.PingAcked()
	if err != nil || len(resets) != 1 || resets[201] != http2.ErrCodeRefusedStream {
		t.Errorf("101 calls open on one connection: resets %v, %v; want the 101st refused", resets, err)
	}

	h = h2(t, addr)
	for i := range uint32(201) {
		id := 2*i + 1
		if err := h.Headers(id, describe, false); err != nil {
			break // closed while the resets were still being sent
		}
		if err := h.Fr.WriteRSTStream(id, http2.ErrCodeCancel); err != nil {
			break
		}
	}
	if _, err := h.PingAcked(); err == nil || testtools.IsTimeout(err) {
		t.Errorf("a connection that reset 201 calls: %v, want it closed", err)
	}
}

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
	_ = c.SetDeadline(time.Now().Add(30 * time.Second)) // a bound for a failing test, not a measure
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
	if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"); err != nil {
		return resp.StatusCode, true
	}
	if _, err := http.ReadResponse(br, nil); err != nil {
		if testtools.IsTimeout(err) {
			t.Fatalf("the connection after a %d waits", resp.StatusCode)
		}
		return resp.StatusCode, true
	}
	return resp.StatusCode, false
}

// On every HTTP listener of the program, the control API's included, a
// request with both Content-Length and Transfer-Encoding (request
// smuggling behind a proxy that frames by Content-Length), or with more
// than 100 header fields (10,000 tiny ones took the old program's request
// log to +573 MB), is answered 400 and its connection closed; 100 fields
// are served. The old program served both and kept the connections.
func TestWireRefusalsAgainstTheProcess(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the program as a process")
	}
	p := startProcess(t)
	var fields strings.Builder
	for i := range 100 {
		fmt.Fprintf(&fields, "X-F%d: v\r\n", i)
	}
	hundred := strings.Join(strings.SplitAfter(fields.String(), "\r\n")[:99], "") // and Host
	for _, svc := range []string{"erp", "cloudauth", "orch", "sourcehost", "mcp", "control"} {
		addr := hostOf(t, p.services[svc]["url"])
		for _, c := range []struct {
			name, raw string
			refused   bool
		}{
			{"Content-Length and Transfer-Encoding", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", true},
			{"101 header fields", "GET / HTTP/1.1\r\nHost: x\r\n" + fields.String() + "\r\n", true},
			{"100 header fields", "GET / HTTP/1.1\r\nHost: x\r\n" + hundred + "\r\n", false},
		} {
			status, closed := rawExchange(t, addr, c.raw)
			if c.refused && (status != 400 || !closed) {
				t.Errorf("%s, %s: %d, closed %v; want 400 and the connection closed", svc, c.name, status, closed)
			}
			if !c.refused && (status == 0 || status == 400 || closed) {
				t.Errorf("%s, %s: %d, closed %v; want it served, the connection kept", svc, c.name, status, closed)
			}
		}
	}
}

// With a limit of 1,000 open files, each listener holds at most 100
// connections: 1,000 idle connections to the gRPC port (which the old
// program accepted until it had no file descriptor left, after which no
// port accepted anything, the control API's included, for as long as they
// stayed) leave every service answering, and one more gRPC connection is
// closed at once.
func TestFileDescriptorsAgainstTheProcess(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the program as a process")
	}
	p := startLimited(t, 1000, "--seed", "demo")
	grpcAddr := p.services["orch"]["grpc"]
	// Each connection done with its handshake, and idle: the old program
	// kept such connections for ever.
	hello := http2.ClientPreface + "\x00\x00\x00\x04\x00\x00\x00\x00\x00" // and an empty SETTINGS frame
	for range 1000 {
		c, err := net.Dial("tcp", grpcAddr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		_, _ = io.WriteString(c, hello) // fails on a connection closed at once
	}
	for _, c := range []hostileCall{
		{name: "erp", method: "GET", url: p.services["erp"]["url"] + "/api/index.php/products", header: map[string]string{"ERPAPIKEY": p.services["erp"]["api_key"]}},
		{name: "orch", method: "GET", url: p.services["orch"]["url"] + "/api/v1/namespaces/default"},
		{name: "sourcehost", method: "GET", url: p.services["sourcehost"]["url"] + "/projects", header: map[string]string{"PRIVATE-TOKEN": p.services["sourcehost"]["token"]}},
		{name: "control", method: "GET", url: p.services["control"]["url"] + "/api/services", header: map[string]string{"Authorization": "Bearer " + p.services["control"]["token"]}},
	} {
		if st, body, err := c.do(t); err != nil || st != 200 {
			t.Errorf("%s with 1,000 connections on the gRPC port: %d %.200s %v", c.name, st, body, err)
		}
	}
	c, err := net.Dial("tcp", grpcAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second)) // a bound for a failing test, not a measure
	if _, err := c.Read(make([]byte, 1)); err == nil || testtools.IsTimeout(err) {
		t.Errorf("a gRPC connection over the limit: %v, want it closed at once", err)
	}
}
