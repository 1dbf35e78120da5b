// Package fakekit holds what every apitwin fake needs and nothing any one API
// decides: routing with a request log, fault injection per route, rate-limit
// windows per key with their headers, a settable clock, serving on loopback,
// and JSON answers. Each fake (fake/<api>fake) composes these with its own
// API's rules.
package fakekit

import (
	"bytes"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/apitwin/apitwin/clock"
)

// Config sets up a Kit.
type Config struct {
	// Clock is the fake's time; nil means a new fake clock at the current
	// wall time, truncated to the second.
	Clock *clock.Fake
	// FaultBody writes the answer of an injected fault that has a status but
	// no body, in the API's own error shape. Nil writes the status text.
	FaultBody func(w http.ResponseWriter, r *http.Request, status int)
	// LogLimit caps the request log; the oldest entries go first. 0 means
	// 10,000.
	LogLimit int
	// MaxBody caps a request body; a larger one is refused with 413 before
	// any route sees it. 0 means 10 MiB.
	MaxBody int64
	// Routes answers the requests that no fault stops (see Routes.Bind).
	Routes Router
}

// Kit routes a fake's requests through the request log and the injected
// faults to the fake's handlers. It is an http.Handler and safe for
// concurrent use.
type Kit struct {
	clock     *clock.Fake
	routes    Router
	faultBody func(http.ResponseWriter, *http.Request, int)
	maxBody   int64

	mu       sync.Mutex
	faults   []*faultRule
	log      []Request
	logStart int // index of the oldest entry once the log has wrapped
	logLimit int
}

// New builds a Kit.
func New(cfg Config) *Kit {
	k := &Kit{
		clock:     cfg.Clock,
		routes:    cfg.Routes,
		faultBody: cfg.FaultBody,
		logLimit:  cfg.LogLimit,
		maxBody:   cfg.MaxBody,
	}
	if k.clock == nil {
		k.clock = clock.NewFake(time.Now().Truncate(time.Second))
	}
	if k.logLimit <= 0 {
		k.logLimit = 10_000
	}
	if k.maxBody <= 0 {
		k.maxBody = 10 << 20
	}
	if k.routes == nil {
		k.routes = NewRoutes[struct{}]().Bind(struct{}{})
	}
	return k
}

// Clock returns the fake's clock.
func (k *Kit) Clock() *clock.Fake { return k.clock }

// ServeHTTP logs the request, applies the first matching fault, and otherwise
// passes the request to its route.
func (k *Kit) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	entry := Request{
		Time:   k.clock.Now(),
		Method: r.Method,
		Path:   r.URL.Path,
		Query:  r.URL.Query(),
		Header: r.Header.Clone(),
	}
	logged := false
	logNow := func(status int) {
		entry.Status = status
		entry.Route = k.routes.Match(r)
		k.record(entry)
		logged = true
	}
	// The request is logged when its status is written, before any of the
	// answer leaves: a body written in one large Write goes straight to the
	// connection, so a client could otherwise read the whole answer, look
	// at the log, and not find the request in it yet.
	rec := &statusRecorder{ResponseWriter: w, onStatus: logNow}
	defer func() {
		if !logged { // nothing was answered: a dropped connection
			logNow(rec.status)
		}
	}()

	if r.Body != nil && r.Body != http.NoBody {
		body, err := io.ReadAll(io.LimitReader(r.Body, k.maxBody+1))
		_ = r.Body.Close()
		if err != nil { // the client went away mid-body; nobody is left to answer
			return
		}
		if int64(len(body)) > k.maxBody {
			http.Error(rec, "request body too large", http.StatusRequestEntityTooLarge)
			return
		}
		entry.Body = body
		r.Body = io.NopCloser(bytes.NewReader(body))
	}

	if f, ok := k.takeFault(r); ok {
		entry.Fault = true
		if !k.applyFault(rec, r, f) {
			return
		}
	}
	k.routes.ServeHTTP(rec, r)
}

// statusRecorder notes the status a handler wrote, and calls onStatus with
// it before the status goes out.
type statusRecorder struct {
	http.ResponseWriter
	status   int
	onStatus func(int)
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 && code >= 200 {
		s.status = code
		if s.onStatus != nil {
			s.onStatus(code)
		}
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.WriteHeader(http.StatusOK)
	}
	return s.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection (for Hijack).
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }
