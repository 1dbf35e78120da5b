package fakekit

import (
	"net/http"
	"net/url"
	"time"
)

// Request is one request a fake received, as its request log keeps it.
type Request struct {
	Time   time.Time // on the fake's clock
	Method string
	Path   string // unescaped
	Query  url.Values
	Header http.Header
	Body   []byte
	Route  string // the route pattern the request matched (faulted or not), "" if none
	Status int    // the status answered; 0 if the connection was dropped
	Fault  bool   // an injected fault matched it
}

func (k *Kit) record(e Request) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.log) < k.logLimit {
		k.log = append(k.log, e)
		return
	}
	k.log[k.logStart] = e
	k.logStart = (k.logStart + 1) % k.logLimit
}

// Requests returns the logged requests, oldest first. A request is logged
// once its answer is written.
func (k *Kit) Requests() []Request {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := make([]Request, 0, len(k.log))
	out = append(out, k.log[k.logStart:]...)
	return append(out, k.log[:k.logStart]...)
}

// RequestsTo returns the logged requests that matched a route, in
// http.ServeMux pattern syntax as registered ("GET /api/v4/projects").
func (k *Kit) RequestsTo(route string) []Request {
	var out []Request
	for _, r := range k.Requests() {
		if r.Route == route {
			out = append(out, r)
		}
	}
	return out
}

// ResetRequests empties the request log.
func (k *Kit) ResetRequests() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.log, k.logStart = nil, 0
}
