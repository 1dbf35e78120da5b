package fakekit

import (
	"bytes"
	"net/http"
	"net/url"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/internal/credential"
)

// What the request log keeps of a request, and what it costs. Nothing
// secret is kept: credential headers are redacted when the header is
// flattened (Begin); credential query parameters and the service's secret
// fields (Config.SecretFields) are masked in the query and the body, and
// its answer fields (SecretAnswerFields) in the answer's body, as they are
// kept. A secret is masked before it is stored, never when the log is
// read: a log that held it, however briefly, could show it (a panic, a
// heap dump).

// logEntry is one request in the log.
type logEntry struct {
	req control.Request
	// rawQuery is the query string, parsed into req.Query only when the
	// log is read: most requests are logged and never looked at.
	rawQuery string
	// header is the request's header, rebuilt into req.Header when the log
	// is read.
	header flatHeader
	// pooled says req.ResponseBody is a pooled answer's buffer
	// (Answer.Pooled): copied when the log is read, given back for reuse
	// when the entry is dropped.
	pooled bool
}

// dropped gives a pooled answer's buffer back once nothing can read it.
func (e *logEntry) dropped() {
	if e.pooled {
		e.pooled = false
		ReleaseAnswerBuffer(e.req.ResponseBody)
		e.req.ResponseBody = nil
	}
}

// request is the logged request, its query parsed and its header rebuilt.
func (e *logEntry) request() control.Request {
	r := e.req
	if e.pooled {
		r.ResponseBody = bytes.Clone(r.ResponseBody)
	}
	r.Header = e.header.header()
	if r.Query == nil && e.rawQuery != "" {
		r.Query, _ = url.ParseQuery(e.rawQuery) // what URL.Query keeps of a malformed query
	}
	return r
}

// size is about what the entry costs to keep: its bodies (their capacity:
// what is allocated), header, path, query and panic report, and a fixed
// part for the rest. The path and the query are slices of the request
// line, which they keep alive: the query is counted twice for it.
func (e *logEntry) size() int64 {
	r := &e.req
	n := int64(256 + cap(r.Body) + cap(r.ResponseBody) + len(r.Path) + len(r.Route) + len(r.Caller) + len(r.Panic) + 2*len(e.rawQuery))
	n += e.header.size()
	for k, vs := range r.Query {
		n += int64(len(k)) + 16
		for _, v := range vs {
			n += int64(len(v)) + 16
		}
	}
	return n
}

// keepBody keeps the start of a request body (at most the log's body
// limit), its secrets masked. The kept body is a copy: a slice of the
// request's buffer would keep all of it alive.
func (x *Exchange) keepBody(body []byte, contentType string) {
	if len(body) == 0 {
		return
	}
	limit := x.kit.limits.LogBodyBytes
	cut := len(body) > limit
	kept := bytes.Clone(bound(x.kit.secrets.MaskBody(body[:min(len(body), limit)], contentType), limit, cut))
	x.update(func(r *control.Request) { r.Body, r.BodyTruncated = kept, cut })
}

// keepResponse keeps the start of the answer's body (already a copy, at
// most the log's body limit), its secrets masked, and its full size, and
// counts them in the log's byte budget. A secretFree answer
// (Answer.SecretFree) is not searched for the secret answer fields, only
// for URLs' userinfo. A pooled body (Answer.Pooled) is kept itself when
// masking leaves it as it is, else given back.
func (x *Exchange) keepResponse(body []byte, size int64, contentType string, secretFree, pooled bool) {
	if size == 0 {
		if pooled {
			ReleaseAnswerBuffer(body)
		}
		return
	}
	k := x.kit
	cut := int64(len(body)) < size
	var masked []byte
	if secretFree {
		masked = credential.MaskUserinfo(body)
	} else {
		masked = k.answers.MaskAnswer(body, contentType)
	}
	kept := bound(masked, k.limits.LogBodyBytes, cut)
	if pooled && (len(kept) == 0 || &kept[0] != &body[0]) { // masked into a copy
		ReleaseAnswerBuffer(body)
		pooled = false
	}
	k.logMu.Lock()
	defer k.logMu.Unlock()
	x.req.ResponseBody, x.req.ResponseSize, x.req.ResponseBodyTruncated = kept, size, cut
	if x.entry != nil && !x.settled {
		x.entry.req.ResponseBody, x.entry.req.ResponseSize, x.entry.req.ResponseBodyTruncated = kept, size, cut
		entry := x.entry
		if k.log.resize(func(e *logEntry) bool { return e == entry }, int64(cap(kept))) {
			entry.pooled = pooled
			return
		}
	}
	// No entry in the log keeps it: nothing will read the Exchange's copy
	// once the request ends (it is cleared so that nothing can).
	if pooled {
		x.req.ResponseBody = nil
		if x.entry != nil {
			x.entry.req.ResponseBody = nil
		}
		ReleaseAnswerBuffer(body)
	}
}

// bound cuts a masked body that was cut at limit to limit again (a marker
// longer than the secret it replaced may have lengthened it), so that the
// log's body limit holds. A whole body is kept whole.
func bound(b []byte, limit int, truncated bool) []byte {
	if truncated && len(b) > limit {
		return b[:limit]
	}
	return b
}

// fieldCost is what the log counts for keeping one header field beyond its
// name and value: the two strings' headers in the flat header (32 bytes)
// and their allocations' rounding (16).
const fieldCost = 48

// keptHeader is what the log keeps of a request's header: each field, the
// values of credential headers redacted (credential.RedactValue: an
// Authorization keeps its scheme, a Cookie its names), up to
// LogHeaderBytes (fieldCost and the text of each field); fields past it are
// left out, and truncated says so. Which fields are kept then is the map's
// order: a request with that many fields is an attack or a bug, and what
// matters is that it cannot grow the log.
func (k *Kit) keptHeader(h http.Header) (f flatHeader, truncated bool) {
	n := 0
	for _, vs := range h {
		n += len(vs)
	}
	if n == 0 {
		return nil, false
	}
	budget := k.limits.LogHeaderBytes
	f = make(flatHeader, 0, 2*min(n, budget/fieldCost))
	for name, vs := range h {
		secret := credential.IsHeader(name)
		for _, v := range vs {
			if secret {
				v = credential.RedactValue(name, v)
			}
			cost := fieldCost + len(name) + len(v)
			if cost > budget {
				truncated = true
				continue
			}
			budget -= cost
			f = append(f, name, v)
		}
	}
	return f, truncated
}

// flatHeader is a request's header as the log keeps it: each value beside
// its name, name, value, name, value… A copy of the header's map would cost
// three allocations per request, most never looked at; this costs one, and
// the map is rebuilt when the log is read (logEntry.request). The strings
// are the request's own: strings do not change. A name with no value is
// not kept (it is not sent on the wire either).
type flatHeader []string

// header rebuilds the map, nil when there was no header.
func (f flatHeader) header() http.Header {
	if len(f) == 0 {
		return nil
	}
	h := make(http.Header, len(f)/2)
	for i := 0; i+1 < len(f); i += 2 {
		h[f[i]] = append(h[f[i]], f[i+1])
	}
	return h
}

// size is what the header costs to keep: its slice (its capacity: 16 bytes
// a string) and, for each field, its text and the rounding of its two
// strings' allocations.
func (f flatHeader) size() int64 {
	n := int64(16 * cap(f))
	for i := 0; i+1 < len(f); i += 2 {
		n += int64(fieldCost - 32 + len(f[i]) + len(f[i+1]))
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

// RequestCount is how many requests the log holds, without copying it.
func (k *Kit) RequestCount() int {
	k.logMu.Lock()
	defer k.logMu.Unlock()
	return k.log.len()
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
