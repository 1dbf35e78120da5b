package fakekit

import (
	"net/url"

	"github.com/apitwin/apitwin/fake/control"
)

// logEntry is one request in the log.
type logEntry struct {
	req control.Request
	// rawQuery is the query string, parsed into req.Query only when the
	// log is read: most requests are logged and never looked at.
	rawQuery string
	// header is the request's header, rebuilt into req.Header when the log
	// is read.
	header flatHeader
}

// request is the logged request, its query parsed and its header rebuilt.
func (e *logEntry) request() control.Request {
	r := e.req
	r.Header = e.header.header()
	if r.Query == nil && e.rawQuery != "" {
		r.Query, _ = url.ParseQuery(e.rawQuery) // what URL.Query keeps of a malformed query
	}
	return r
}

// size is about what the entry costs to keep: its body, headers, path,
// query and panic report, and a fixed part for the rest.
func (e *logEntry) size() int64 {
	r := &e.req
	n := int64(256 + len(r.Body) + len(r.ResponseBody) + len(r.Path) + len(r.Route) + len(r.Caller) + len(r.Panic) + 2*len(e.rawQuery))
	n += e.header.size()
	for k, vs := range r.Query {
		n += int64(len(k)) + 16
		for _, v := range vs {
			n += int64(len(v)) + 16
		}
	}
	return n
}

// Requests returns the logged requests, oldest first. A request is logged
// once its answer's status is written (or it ends with none).
func (k *Kit) Requests() []control.Request {
	k.logMu.Lock()
	defer k.logMu.Unlock()
	out := make([]control.Request, 0, k.log.len())
	k.log.each(func(e *logEntry) { out = append(out, e.request()) })
	return out
}

// RequestsTo returns the logged requests that matched a route: an
// http.ServeMux pattern as registered ("GET /api/v4/projects"), or an
// operation's name.
func (k *Kit) RequestsTo(route string) []control.Request {
	k.logMu.Lock()
	defer k.logMu.Unlock()
	var out []control.Request
	k.log.each(func(e *logEntry) {
		if e.req.Route == route {
			out = append(out, e.request())
		}
	})
	return out
}

// ResetRequests empties the request log.
func (k *Kit) ResetRequests() {
	k.logMu.Lock()
	defer k.logMu.Unlock()
	k.log.reset()
}

// Panics returns the logged requests whose handler panicked.
func (k *Kit) Panics() []control.Request {
	k.logMu.Lock()
	defer k.logMu.Unlock()
	var out []control.Request
	k.log.each(func(e *logEntry) {
		if e.req.Panic != "" {
			out = append(out, e.request())
		}
	})
	return out
}
