package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apitwin/apitwin/internal/testtools"
)

// TestMain lets the test binary be the program its process tests start
// (testtools.ProgramPath), so that they need no build of it.
func TestMain(m *testing.M) {
	testtools.Programs(map[string]func(){"apitwin-fake": main})
	os.Exit(m.Run())
}

// process is apitwin-fake running as its own process.
type process struct {
	cmd      *exec.Cmd
	stderr   *bytes.Buffer
	services map[string]map[string]string
}

// startProcess starts the program on free ports and reads the
// addresses and credentials it prints.
func startProcess(t *testing.T, args ...string) *process {
	t.Helper()
	bin := testtools.ProgramPath(t, "apitwin-fake")
	args = append([]string{"--erp-port", "0", "--cloudauth-port", "0", "--orch-grpc-port", "0", "--orch-http-port", "0",
		"--sourcehost-port", "0", "--mcp-port", "0", "--control-port", "0"}, args...)
	cmd := exec.Command(bin, args...)
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

// hostOf is the host:port of a printed URL.
func hostOf(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// rss is the resident memory of a process, in bytes, from /proc.
func rss(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

// slowClients opens n connections to each address and sends each one byte
// of a request line: clients that send their headers a byte at a time.
func slowClients(t *testing.T, n int, addrs ...string) []net.Conn {
	t.Helper()
	var out []net.Conn
	for _, a := range addrs {
		for range n {
			c, err := net.Dial("tcp", a)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			if _, err := c.Write([]byte("G")); err != nil {
				t.Fatal(err)
			}
			out = append(out, c)
		}
	}
	return out
}

// hostileClient bounds each call, so that a fake that hangs fails the test
// instead of stalling it; the bound is far past any answer's time.
var hostileClient = &http.Client{Timeout: 30 * time.Second}

type hostileCall struct {
	name   string
	method string
	url    string
	header map[string]string
	body   io.Reader
	length int64 // -1: send without Content-Length
	// ok reports whether the answer is what a robust fake gives.
	ok func(status int, body string) bool
}

func (h hostileCall) do(t *testing.T) (int, string, error) {
	t.Helper()
	req, err := http.NewRequest(h.method, h.url, h.body)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = h.length
	for k, v := range h.header {
		req.Header.Set(k, v)
	}
	resp, err := hostileClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, string(b), nil
}

// TestHostileRequestsAgainstTheProcess attacks apitwin-fake as a hostile or
// careless caller would, in one process: huge numbers and pages, huge
// bodies, slow clients, a webhook receiver that never answers, ids with
// slashes and control characters. Afterwards every service answers a
// normal request, the memory is within 50 MB of where it started, the slow
// clients have been cut off, and SIGTERM ends the process with status 0
// although 120 more slow clients are connected, without any of its servers
// reporting that it had to close connections by force after its grace
// ("apitwin-fake: shutdown: … still busy …, closed" on stderr): slow
// clients must not hold the shutdown, which a bound on its time could not
// tell from a loaded machine.
// The control port is attacked with the rest (and with made-up tokens).
func TestHostileRequestsAgainstTheProcess(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the program as a process")
	}
	if runtime.GOOS != "linux" {
		t.Skip("reads the process's memory from /proc")
	}
	p := startProcess(t, "--seed", "demo")
	erpURL, cloudURL := p.services["erp"]["url"], p.services["cloudauth"]["url"]
	// The printed URLs of sourcehost and mcp are their APIs' (…/api/v4,
	// …/mcp); these calls write the paths out.
	shURL, shToken := strings.TrimSuffix(p.services["sourcehost"]["url"], "/api/v4"), p.services["sourcehost"]["token"]
	mcpURL, orchURL := strings.TrimSuffix(p.services["mcp"]["url"], "/mcp"), p.services["orch"]["url"]
	ctlURL := p.services["control"]["url"]
	ctlAuth := map[string]string{"Authorization": "Bearer " + p.services["control"]["token"], "Content-Type": "application/json"}
	erpKey := map[string]string{"ERPAPIKEY": p.services["erp"]["api_key"], "Content-Type": "application/json"}
	shAuth := map[string]string{"PRIVATE-TOKEN": shToken, "Content-Type": "application/json"}
	mcpAuth := map[string]string{"Authorization": "Bearer " + p.services["mcp"]["token"], "Content-Type": "application/json"}
	before := rss(t, p.cmd.Process.Pid)

	// 160 clients sending their headers a byte at a time, on every HTTP
	// listener; the server must cut them off (ReadHeaderTimeout).
	held := slowClients(t, 32, hostOf(t, erpURL), hostOf(t, cloudURL), hostOf(t, shURL), hostOf(t, mcpURL), hostOf(t, orchURL), hostOf(t, ctlURL))

	// A webhook receiver that never answers: it hands each delivery's
	// context to the test (it ends when the sender gives up on it) and
	// holds the delivery until the test ends.
	deliveries := make(chan context.Context, 8)
	released := make(chan struct{})
	silent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case deliveries <- r.Context():
		default:
		}
		select {
		case <-r.Context().Done():
		case <-released:
		}
	}))
	defer silent.Close()
	defer close(released) // before Close, which waits for the handlers

	status := func(want ...int) func(int, string) bool {
		return func(got int, _ string) bool {
			for _, w := range want {
				if got == w {
					return true
				}
			}
			return false
		}
	}
	digits := func(n int) string { return "1" + strings.Repeat("0", n-1) }
	calls := []hostileCall{
		{name: "sourcehost page past int64 offsets", method: "GET", url: shURL + "/api/v4/projects?page=9223372036854775807&per_page=100", header: shAuth, ok: status(200, 400, 405)},
		{name: "sourcehost page beyond int64", method: "GET", url: shURL + "/api/v4/projects?page=99999999999999999999", header: shAuth, ok: status(400)},
		{name: "sourcehost id with a slash and a control character", method: "GET", url: shURL + "/api/v4/projects/a%2F..%2F%00b", header: shAuth, ok: status(404)},
		{name: "mcp list_issues with a huge page", method: "POST", url: mcpURL + "/mcp", header: mcpAuth, length: -1,
			body: strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"list_issues","params":{"project_id":1,"page":9223372036854775807}}`), ok: status(200)},
		{name: "erp qty of 900,000 digits", method: "POST", url: erpURL + "/api/index.php/invoices", header: erpKey, length: -1,
			body: strings.NewReader(`{"socid":1,"type":0,"lines":[{"fk_product":1,"qty":"` + digits(900_000) + `"}]}`), ok: status(400)},
		{name: "erp qty of 1.5 million digits", method: "POST", url: erpURL + "/api/index.php/invoices", header: erpKey, length: -1,
			body: strings.NewReader(`{"socid":1,"type":0,"lines":[{"fk_product":1,"qty":"` + digits(1_500_000) + `"}]}`), ok: status(400, 413)},
		{name: "erp limit beyond int64", method: "GET", url: erpURL + "/api/index.php/products?limit=99999999999999999999", header: erpKey, ok: status(400)},
		{name: "erp page times limit past int64", method: "GET", url: erpURL + "/api/index.php/products?limit=100&page=9223372036854775807", header: erpKey, ok: status(200, 400, 404)},
		{name: "erp id with a control character", method: "GET", url: erpURL + "/api/index.php/thirdparties/1%00", header: erpKey, ok: status(400, 404)},
		{name: "cloudauth username with control characters", method: "POST", url: cloudURL + "/csp/gateway/am/api/login", length: -1,
			body: strings.NewReader(`{"username":"ad\u0000min\r\n","password":"x"}`), ok: status(401)},
		{name: "orch workflow id with slashes", method: "GET", url: orchURL + "/api/v1/namespaces/default/workflows/a%2Fb%2F..", ok: status(200, 400, 404)},
		{name: "control: a 9 MiB seed", method: "POST", url: ctlURL + "/api/seed", header: ctlAuth, length: -1,
			body: bytes.NewReader(bytes.Repeat([]byte(" "), 9<<20)), ok: status(413)},
		{name: "control: a fault that would hold requests a day", method: "POST", url: ctlURL + "/api/erp/faults", header: ctlAuth, length: -1,
			body: strings.NewReader(`{"latency":"24h"}`), ok: status(400)},
		{name: "control: an advance of a century", method: "POST", url: ctlURL + "/api/clock/advance", header: ctlAuth, length: -1,
			body: strings.NewReader(`{"by":"876000h"}`), ok: status(400)},
		{name: "control: a service name with a slash", method: "POST", url: ctlURL + "/api/erp%2F..%2Fclock/reset", header: ctlAuth, ok: status(404)},
	}
	// A flood of made-up control tokens: each refused, none changes anything.
	for i := range 500 {
		calls = append(calls, hostileCall{name: fmt.Sprintf("control: made-up token %d", i), method: "POST", url: ctlURL + "/api/erp/reset",
			header: map[string]string{"Authorization": fmt.Sprintf("Bearer made-up-token-%08d", i)}, ok: status(401)})
	}
	// 40 bodies of 8 MiB, 8 to each HTTP service, half announced by
	// Content-Length (refused before a byte is read), half streamed.
	big := bytes.Repeat([]byte("x"), 8<<20)
	for i := range 40 {
		length := int64(len(big))
		if i%2 == 1 {
			length = -1
		}
		target := []struct{ url string }{{erpURL + "/api/index.php/products"}, {cloudURL + "/csp/gateway/am/api/login"},
			{shURL + "/api/v4/projects"}, {mcpURL + "/mcp"}, {orchURL + "/api/v1/namespaces/default/workflows/big"}}[i%5]
		hdr := map[string]string{"Content-Type": "application/json"}
		calls = append(calls, hostileCall{name: fmt.Sprintf("8 MiB body %d", i), method: "POST", url: target.url, header: hdr,
			body: bytes.NewReader(big), length: length, ok: status(413, 429)})
	}
	for _, c := range calls {
		st, body, err := c.do(t)
		if err != nil {
			// A refused 8 MiB body may be cut off while it is still being
			// sent: the connection's close is the answer then.
			if strings.HasPrefix(c.name, "8 MiB body") {
				continue
			}
			t.Errorf("%s: %v (the connection dropped?)", c.name, err)
			continue
		}
		if !c.ok(st, body) {
			t.Errorf("%s: %d %.200s", c.name, st, body)
		}
	}

	// A webhook to a receiver that never answers does not hold the call
	// that triggered it.
	hook := hostileCall{method: "POST", url: shURL + "/api/v4/projects/1/hooks", header: shAuth, length: -1,
		body: strings.NewReader(`{"url":"http://` + strings.TrimPrefix(silent.URL, "http://") + `/hook","issues_events":true}`)}
	if st, body, err := hook.do(t); err != nil || st != 201 {
		t.Fatalf("adding a hook: %d %s %v", st, body, err)
	}
	issue := hostileCall{method: "POST", url: shURL + "/api/v4/projects/1/issues", header: shAuth, length: -1,
		body: strings.NewReader(`{"title":"while the receiver sleeps"}`)}
	if st, body, err := issue.do(t); err != nil || st != 201 {
		t.Fatalf("an issue with a silent hook: %d %s %v", st, body, err)
	}
	// The call has its answer; its delivery is held by the receiver, or
	// on its way. A call that waited for its delivery would have answered
	// only once the delivery had ended (the receiver's 10 s were up), and
	// its context with it.
	select {
	case delivery := <-deliveries:
		if delivery.Err() != nil {
			t.Error("the issue's delivery had ended when the call answered: the call waited for a receiver that never answers")
		}
	case <-time.After(30 * time.Second): // a bound for a failing test, not a measure
		t.Fatal("the issue's hook was never delivered")
	}

	// Afterwards: a normal request to every service, each in under a
	// second.
	normal := []hostileCall{
		{name: "erp", method: "GET", url: erpURL + "/api/index.php/products", header: erpKey},
		{name: "cloudauth", method: "GET", url: cloudURL + "/csp/gateway/am/api/auth/token-public-key"},
		{name: "sourcehost", method: "GET", url: shURL + "/api/v4/projects", header: shAuth},
		{name: "mcp", method: "POST", url: mcpURL + "/mcp", header: mcpAuth, length: -1,
			body: strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"list_projects","params":{}}`)},
		{name: "orch", method: "GET", url: orchURL + "/api/v1/namespaces/default"},
		{name: "control", method: "GET", url: ctlURL + "/api/services", header: ctlAuth},
	}
	for _, c := range normal {
		// A service the attack left stuck fails here on hostileClient's
		// timeout; how fast the others answer is not measured in a test.
		st, body, err := c.do(t)
		if err != nil || st != 200 {
			t.Errorf("%s after the attack: %d %.200s %v", c.name, st, body, err)
		}
	}

	runtime.GC() // our own garbage is not the process's
	// Under the race detector the program is race-built too (it is this
	// test binary), and its shadow memory grows with every goroutine and
	// byte touched: the bound is checked by the plain run.
	if after := rss(t, p.cmd.Process.Pid); after-before > 50<<20 && !testtools.RaceEnabled {
		t.Errorf("memory grew from %d MB to %d MB", before>>20, after>>20)
	} else {
		t.Logf("memory: %d MB before, %d MB after", before>>20, after>>20)
	}

	// The slow clients have been cut off by now or soon: each read ends
	// (with a 408 or the connection's close) instead of waiting forever.
	for _, c := range held {
		_ = c.SetReadDeadline(time.Now().Add(30 * time.Second)) // 3× the header timeout: a bound for a failing test, not a measure
		if _, err := io.ReadAll(c); err != nil && !isReset(err) {
			t.Fatalf("a slow client still connected: %v", err)
		}
	}

	// The demo's data is still there: no made-up token reset the ERP.
	if st, body, _ := (hostileCall{method: "GET", url: erpURL + "/api/index.php/products", header: erpKey}).do(t); st != 200 || !strings.Contains(body, "WIDGET") {
		t.Errorf("the ERP's products after the token flood: %d %.200s", st, body)
	}

	// SIGTERM with 120 slow clients connected: a clean exit, and no server
	// held past its grace (each would say so on stderr).
	slowClients(t, 20, hostOf(t, erpURL), hostOf(t, cloudURL), hostOf(t, shURL), hostOf(t, mcpURL), hostOf(t, orchURL), hostOf(t, ctlURL))
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Errorf("exit after SIGTERM: %v; stderr:\n%s", err, p.stderr)
	}
	if strings.Contains(p.stderr.String(), "apitwin-fake: shutdown:") {
		t.Errorf("SIGTERM with 120 slow clients: a server closed connections by force after its grace; stderr:\n%s", p.stderr)
	}
}

func isReset(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "reset by peer") || strings.Contains(err.Error(), "broken pipe"))
}
