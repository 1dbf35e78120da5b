package fakekit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/control"
)

// FuzzTarget is one fake as the fuzz harness attacks it, fresh for each
// input.
type FuzzTarget struct {
	// Handler is the fake's front door.
	Handler http.Handler
	// Header goes with every request whose script does not set the same
	// header: the credentials of a user who may do everything.
	Header http.Header
	// Requests is the fake's request log, where the guard writes panics.
	Requests func() []control.Request
	// ErrorShape reports whether an error answer (status 400 and up) is in
	// the service's own shape.
	ErrorShape func(status int, header http.Header, body []byte) error
	// Probe is a normal request, answered ProbeStatus, that must still be
	// answered within a second after each input: no lock was left held.
	Probe       func() *http.Request
	ProbeStatus int
	// Check reports a broken invariant of the fake's state.
	Check func() error
	// Close releases the fake, if it holds anything.
	Close func()
}

// ProbeWithin bounds the wait for the probe after an input. It is a
// failsafe, not a measure: a probe stuck behind a lock an input left held
// never answers, and one on a loaded machine answers late (the fuzz step
// of CI runs beside the race detector's tests, and a bound of a second
// failed there on an input that is answered at once alone), so the bound
// is far past any answer's time.
const ProbeWithin = 30 * time.Second

// maxScriptRequests caps the requests of one fuzz input.
const maxScriptRequests = 8

// FuzzHTTP fuzzes a fake through its HTTP front door. Each input is a
// script of requests (see ParseScript); seeds are scripts too. After each
// request an error answer must be in the service's shape; after each input
// no handler may have panicked, the probe must be answered within
// ProbeWithin, and the state's invariants must hold.
func FuzzHTTP(f *testing.F, seeds []string, newTarget func(t *testing.T) *FuzzTarget) {
	f.Helper()
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script string) {
		tg := newTarget(t)
		if tg.Close != nil {
			defer tg.Close()
		}
		for _, req := range ParseScript(script) {
			for name, vs := range tg.Header {
				if _, set := req.Header[name]; !set {
					req.Header[name] = vs
				}
			}
			rec := httptest.NewRecorder()
			tg.Handler.ServeHTTP(rec, req)
			if rec.Code >= 400 && tg.ErrorShape != nil {
				if err := tg.ErrorShape(rec.Code, rec.Header(), rec.Body.Bytes()); err != nil {
					t.Fatalf("%s %s: %d answered out of shape (%v): %.300q", req.Method, req.URL, rec.Code, err, rec.Body)
				}
			}
		}
		CheckAfter(t, tg)
	})
}

// CheckAfter runs the checks the harness makes after an input: no panic
// logged, the probe answered in time, the invariants held.
func CheckAfter(t testing.TB, tg *FuzzTarget) {
	t.Helper()
	if tg.Requests != nil {
		for _, r := range tg.Requests() {
			if r.Panic != "" {
				t.Fatalf("%s %s panicked: %s", r.Method, r.Path, r.Panic)
			}
		}
	}
	if tg.Probe != nil {
		rec := httptest.NewRecorder()
		done := make(chan struct{})
		go func() {
			defer close(done)
			tg.Handler.ServeHTTP(rec, tg.Probe())
		}()
		timer := time.NewTimer(ProbeWithin)
		defer timer.Stop()
		select {
		case <-done:
		case <-timer.C:
			buf := make([]byte, 1<<20)
			t.Fatalf("a normal request was not answered within %v (a lock left held?); goroutines:\n%s", ProbeWithin, buf[:runtime.Stack(buf, true)])
		}
		if rec.Code != tg.ProbeStatus {
			t.Fatalf("probe answered %d, want %d: %.300q", rec.Code, tg.ProbeStatus, rec.Body)
		}
	}
	if tg.Check != nil {
		if err := tg.Check(); err != nil {
			t.Fatalf("invariant broken: %v", err)
		}
	}
}

// ParseScript reads a script of up to 8 requests, separated by lines of
// "===". Each is a request line ("METHOD /target?query"), header lines
// ("Name: value"), an empty line, and the body:
//
//	POST /api/v4/projects
//	Content-Type: application/json
//
//	{"name":"shop"}
//	===
//	GET /api/v4/projects?page=2
//
// What a real server would refuse before any handler sees it (a malformed
// request line, method, target or header) is left out, as the server
// would leave it out.
func ParseScript(script string) []*http.Request {
	var out []*http.Request
	for chunk := range strings.SplitSeq(script, "\n===\n") {
		if len(out) == maxScriptRequests {
			break
		}
		head, body, _ := strings.Cut(chunk, "\n\n")
		lines := strings.Split(head, "\n")
		method, target, ok := strings.Cut(strings.TrimSpace(lines[0]), " ")
		if !ok || !strings.HasPrefix(target, "/") || !validToken(method) {
			continue
		}
		req, err := http.NewRequest(method, "http://fake.test"+target, nil)
		if err != nil {
			continue
		}
		for _, l := range lines[1:] {
			name, value, ok := strings.Cut(l, ":")
			value = strings.TrimSpace(value)
			if ok && validToken(name) && validValue(value) {
				req.Header.Add(name, value)
			}
		}
		req.Body = http.NoBody // as a server gives a request without one
		if body != "" {
			b := []byte(body)
			req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
		}
		req.RemoteAddr = "192.0.2.1:1234"
		req.RequestURI = target
		out = append(out, req)
	}
	return out
}

// validToken reports whether s is an HTTP token (a method, a header name).
func validToken(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// validValue reports whether s may be a header value on the wire.
func validValue(s string) bool {
	for _, c := range []byte(s) {
		if c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// ErrorJSON checks that an error body is a JSON object holding key at its
// top level, the usual shape check.
func ErrorJSON(body []byte, keys ...string) error {
	var obj map[string]any
	if err := json.Unmarshal(body, &obj); err != nil {
		return fmt.Errorf("not a JSON object: %v", err)
	}
	for _, k := range keys {
		if _, ok := obj[k]; ok {
			return nil
		}
	}
	return fmt.Errorf("no %s member", strings.Join(keys, " or "))
}
