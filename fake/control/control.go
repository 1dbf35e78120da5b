// Package control holds what every apitwin fake is driven and read by: the
// [Fault] a test injects, the [Request] a fake logs, the [ActiveFault] in
// force, and [Controls], the methods every fake offers for them.
//
// Every fake (erpfake, cloudauthfake, orchfake, sourcehostfake, mcpfake)
// implements Controls in the same way:
//
//	srv := sourcehostfake.Start(t)
//	srv.InjectFault("POST /api/v4/projects/{id}/issues", control.Fault{Status: 503, Times: 1})
//	… run the code under test …
//	for _, r := range srv.RequestsTo("POST /api/v4/projects/{id}/issues") {
//		fmt.Println(r.Status, r.Fault) // 503 true, then 201 false
//	}
//
// A route is what the fake names its endpoints by: an http.ServeMux pattern
// for the HTTP fakes ("GET /api/v4/projects/{id}", "/api/v4/" for every
// path below, "" for every request), an operation name for orchfake
// ("StartWorkflowExecution", over gRPC and HTTP alike).
package control

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/internal/credential"
)

// Controls are the methods every fake offers to drive it and read it back.
type Controls interface {
	// InjectFault makes the requests matching route answer as f says.
	// Faults apply in the order they were injected; the first that matches
	// and has requests left wins. A route or fault the fake cannot use is
	// an error, and nothing is injected.
	InjectFault(route string, f Fault) error
	// ClearFaults removes every injected fault.
	ClearFaults()
	// Faults returns the faults in force, in the order they apply.
	Faults() []ActiveFault
	// Requests returns the logged requests, oldest first.
	Requests() []Request
	// RequestsTo returns the logged requests that matched route, as the
	// fake registers it ("GET /api/v4/projects", "StartWorkflowExecution").
	RequestsTo(route string) []Request
	// RequestCount is how many requests the log holds: len(Requests()),
	// without copying the log.
	RequestCount() int
	// ResetRequests empties the request log.
	ResetRequests()
	// Reset puts the fake back as New left it: its data, faults, request
	// log and pending work are dropped; its credentials, options and clock
	// stay.
	Reset()
	// Clock is the fake's time, which tests move instead of sleeping.
	Clock() *clock.Fake
}

// Fault is an answer a test forces on the next requests to a route.
type Fault struct {
	// Status answers with this HTTP status instead of the route's answer,
	// in the service's own error shape (unless Body is set). 0 lets the
	// request through to its route (after Latency), unless Code or Drop
	// say otherwise.
	Status int
	// Code is the service's own error code, for services that have codes
	// (orchfake: "UNAVAILABLE", "RESOURCE_EXHAUSTED", …); it answers with
	// that code and the status the service gives it. A fake without codes
	// refuses a fault that names one.
	Code string
	// Message is the error's text in the service's shape; empty means the
	// service's own text for Status or Code.
	Message string
	// Body is the raw answer body (JSON unless Header says otherwise);
	// empty means the service's error body. HTTP fakes only.
	Body string
	// Header is added to the answer. HTTP fakes only.
	Header http.Header
	// Latency delays the answer by this much before it is given (or the
	// request goes on to its route). It is wall-clock time unless OnClock
	// is set; either way it ends early when the caller gives up or the
	// fake closes.
	Latency time.Duration
	// OnClock makes Latency a wait on the fake's clock: the answer comes
	// when the test advances the clock past it.
	OnClock bool
	// Drop closes the connection without answering (HTTP fakes).
	Drop bool
	// Times is how many requests the fault affects; 0 means every request
	// until ClearFaults.
	Times int
}

// Validate reports what makes f unusable by any fake: negative counts or
// latencies, a status outside 100–999, or a body without a status.
func (f Fault) Validate() error {
	var errs []string
	if f.Times < 0 {
		errs = append(errs, "times "+strconv.Itoa(f.Times)+" is negative")
	}
	if f.Latency < 0 {
		errs = append(errs, "latency "+f.Latency.String()+" is negative")
	}
	if f.Status != 0 && (f.Status < 100 || f.Status > 999) {
		errs = append(errs, "status "+strconv.Itoa(f.Status)+" is not an HTTP status")
	}
	if f.Body != "" && f.Status == 0 {
		errs = append(errs, "a body needs a status")
	}
	if f.Drop && (f.Status != 0 || f.Code != "") {
		errs = append(errs, "a dropped connection has no status or code")
	}
	if len(errs) > 0 {
		return errors.New("invalid fault: " + strings.Join(errs, "; "))
	}
	return nil
}

// String describes the fault without its body or headers.
func (f Fault) String() string {
	var parts []string
	switch {
	case f.Drop:
		parts = append(parts, "drop")
	case f.Code != "":
		parts = append(parts, f.Code)
	case f.Status != 0:
		parts = append(parts, strconv.Itoa(f.Status))
	default:
		parts = append(parts, "pass")
	}
	if f.Latency > 0 {
		w := "after " + f.Latency.String()
		if f.OnClock {
			w += " on the clock"
		}
		parts = append(parts, w)
	}
	if f.Times > 0 {
		parts = append(parts, "×"+strconv.Itoa(f.Times))
	}
	return strings.Join(parts, " ")
}

// ActiveFault is a fault in force.
type ActiveFault struct {
	// Route is the route the fault was injected on ("" for every request).
	Route string
	Fault Fault
	// Remaining is how many more requests it affects; -1 for every request
	// until ClearFaults.
	Remaining int
}

// Transports a request can arrive by.
const (
	TransportHTTP = "http"
	TransportGRPC = "grpc"
)

// Request is one request a fake received, as its request log keeps it. The
// log is bounded (see each fake's documentation): it keeps the newest
// requests, of each body its first bytes, of each header its first fields.
//
// The log never holds a secret: the values of credential headers
// (Authorization, Cookie, PRIVATE-TOKEN, ERPAPIKEY, X-MCP-Signature, …) and
// credential query parameters (private_token, api_key, …), and the values
// of the fields each service keeps its secrets in (passwords, the tokens a
// login answers, webhook secrets: each fake's SecretFields), in JSON
// bodies at any depth and in form bodies, request and answer alike, are
// "[REDACTED]" in it, masked before the log stores them. What says how a
// credential was sent stays: an Authorization keeps its scheme ("Bearer
// [REDACTED]"), a Cookie its cookies' names. A check of the log sees the
// marker where a secret was sent; that the right one was sent, Caller
// says (who the fake authenticated the request as).
type Request struct {
	// Time is when the request arrived, on the fake's clock.
	Time time.Time
	// Duration is the wall-clock time the fake took to answer.
	Duration time.Duration
	// Transport is TransportHTTP or TransportGRPC.
	Transport string
	// Method is the HTTP method ("POST" for gRPC).
	Method string
	// Path is the HTTP path, unescaped, or the gRPC method
	// ("/apitwin.orch.v1.WorkflowService/StartWorkflowExecution").
	Path string
	// Query is the HTTP query string's parameters.
	Query url.Values
	// Header is the request's headers (gRPC: its metadata), credential
	// headers redacted; at most the log's header bound of them
	// (HeaderTruncated says when some were left out).
	Header http.Header
	// HeaderTruncated reports that the log left out some of the request's
	// header fields, past its header bound.
	HeaderTruncated bool
	// Body is the start of the request body (gRPC: the request message as
	// JSON), at most the log's body limit, its secrets masked (which may
	// make it shorter or longer than what was sent).
	Body []byte
	// BodySize is the size of the whole body received, in bytes.
	BodySize int64
	// BodyTruncated reports that the log kept only the start of the body
	// (or none of it: a body refused as too large).
	BodyTruncated bool
	// ResponseBody is the start of the answer's body, at most the log's
	// body limit, its secrets masked (HTTP only: a gRPC answer is not
	// kept).
	ResponseBody []byte
	// ResponseSize is the size of the whole answer body written, in bytes.
	ResponseSize int64
	// ResponseBodyTruncated reports that the log kept only the start of
	// the answer's body.
	ResponseBodyTruncated bool
	// Route is the route the request matched ("GET /api/v4/projects/{id}",
	// "StartWorkflowExecution"), "" if none.
	Route string
	// Caller is who the fake authenticated the request as (a user name, a
	// token's subject), "" when anonymous or refused.
	Caller string
	// Status is the HTTP status answered (for gRPC, the HTTP status of the
	// code); 0 when the connection was dropped or the caller left first.
	Status int
	// Code is the service's error code answered (orchfake), "" otherwise.
	Code string
	// Fault reports whether an injected fault matched the request.
	Fault bool
	// Panic is what a handler panicked with, and where; the fake answered
	// 500 in its error shape. It is always a bug in the fake: please report
	// it.
	Panic string
}

// Truncated reports whether the log kept only the start of the body
// (BodyTruncated).
func (r Request) Truncated() bool { return r.BodyTruncated }

// ResponseTruncated reports whether the log kept only the start of the
// answer's body (ResponseBodyTruncated).
func (r Request) ResponseTruncated() bool { return r.ResponseBodyTruncated }

// String is a one-line summary ("GET /api/v4/projects?page=2 → 200"). It
// leaves out headers and body, and shows credential query parameters as
// "[REDACTED]" (as the log keeps them, and for a Request made by hand).
func (r Request) String() string {
	var b strings.Builder
	b.WriteString(r.Method)
	b.WriteByte(' ')
	b.WriteString(r.Path)
	if len(r.Query) > 0 {
		b.WriteByte('?')
		b.WriteString(credential.RedactQuery(r.Query).Encode())
	}
	b.WriteString(" → ")
	switch {
	case r.Status == 0:
		b.WriteString("no answer")
	case r.Code != "":
		fmt.Fprintf(&b, "%d %s", r.Status, r.Code)
	default:
		b.WriteString(strconv.Itoa(r.Status))
	}
	if r.Fault {
		b.WriteString(" (fault)")
	}
	if r.Panic != "" {
		b.WriteString(" (panic)")
	}
	return b.String()
}

// GoString is String, so that %#v shows no credentials either.
func (r Request) GoString() string { return "control.Request{" + strconv.Quote(r.String()) + "}" }
