// Package control holds what every apitwin fake shares, and nothing any one
// fake owns: [Controls], the methods every fake offers to drive it and
// read it back; the [Fault] a test injects and the [ActiveFault] in force;
// the [Request] a fake logs; and [Option], with the options every fake
// takes (WithClock, WithFault, WithMaxBody, WithRequestLog,
// WithMaxRecords, WithTLS, WithInMemory). Each has one Go type, which is
// also its JSON shape in apitwin-fake's control API (package controlapi).
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
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/internal/bodytext"
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

// Fault is an answer a test forces on the next requests to a route. In
// JSON (the control API's) its fields are snake_case and Latency is a Go
// duration ("250ms"); unknown fields are refused.
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

// faultJSON is a Fault in JSON.
type faultJSON struct {
	Status  int         `json:"status,omitempty"`
	Code    string      `json:"code,omitempty"`
	Message string      `json:"message,omitempty"`
	Body    string      `json:"body,omitempty"`
	Header  http.Header `json:"header,omitempty"`
	Latency string      `json:"latency,omitempty"`
	OnClock bool        `json:"on_clock,omitempty"`
	Drop    bool        `json:"drop,omitempty"`
	Times   int         `json:"times,omitempty"`
}

func (f Fault) wire() faultJSON {
	w := faultJSON{Status: f.Status, Code: f.Code, Message: f.Message, Body: f.Body, Header: f.Header,
		OnClock: f.OnClock, Drop: f.Drop, Times: f.Times}
	if f.Latency != 0 {
		w.Latency = f.Latency.String()
	}
	return w
}

func (w faultJSON) fault() (Fault, error) {
	f := Fault{Status: w.Status, Code: w.Code, Message: w.Message, Body: w.Body, Header: w.Header,
		OnClock: w.OnClock, Drop: w.Drop, Times: w.Times}
	if w.Latency != "" {
		d, err := time.ParseDuration(w.Latency)
		if err != nil {
			return Fault{}, fmt.Errorf("invalid fault: latency %q is not a duration (say \"250ms\" or \"2s\")", w.Latency)
		}
		f.Latency = d
	}
	return f, nil
}

// MarshalJSON writes f as the control API gives a fault.
func (f Fault) MarshalJSON() ([]byte, error) { return json.Marshal(f.wire()) }

// UnmarshalJSON reads a fault as the control API takes it.
func (f *Fault) UnmarshalJSON(b []byte) error {
	var w faultJSON
	if err := strictJSON(b, &w); err != nil {
		return err
	}
	v, err := w.fault()
	if err == nil {
		*f = v
	}
	return err
}

// strictJSON decodes one JSON value into v, refusing unknown fields.
func strictJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// ActiveFault is a fault in force, or one to inject on a route. In JSON it
// is the fault's fields with "route" and "remaining" beside them.
type ActiveFault struct {
	// Route is the route the fault was injected on ("" for every request).
	Route string
	Fault
	// Remaining is how many more requests it affects; -1 for every request
	// until ClearFaults (never 0: a fault used up is gone).
	Remaining int
}

// activeFaultJSON is an ActiveFault in JSON.
type activeFaultJSON struct {
	Route string `json:"route"`
	faultJSON
	Remaining int `json:"remaining,omitempty"`
}

// MarshalJSON writes af as the control API lists a fault in force.
func (af ActiveFault) MarshalJSON() ([]byte, error) {
	return json.Marshal(activeFaultJSON{Route: af.Route, faultJSON: af.Fault.wire(), Remaining: af.Remaining})
}

// UnmarshalJSON reads a fault as the control API takes or lists it.
func (af *ActiveFault) UnmarshalJSON(b []byte) error {
	var w activeFaultJSON
	if err := strictJSON(b, &w); err != nil {
		return err
	}
	f, err := w.fault()
	if err == nil {
		*af = ActiveFault{Route: w.Route, Fault: f, Remaining: w.Remaining}
	}
	return err
}

// Transports a request can arrive by.
const (
	TransportHTTP = "http"
	TransportGRPC = "grpc"
)

// Request is one request a fake received, as its request log keeps it
// (and, in JSON, as the control API gives it: Duration in milliseconds,
// duration_ms; bodies as text, or base64 when they are not UTF-8, with
// body_encoding and response_encoding saying so). The log is bounded (see each fake's documentation): it keeps the newest
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

// requestJSON is a Request in JSON.
type requestJSON struct {
	Time                  time.Time   `json:"time"`
	DurationMS            float64     `json:"duration_ms"`
	Transport             string      `json:"transport"`
	Method                string      `json:"method"`
	Path                  string      `json:"path"`
	Query                 url.Values  `json:"query,omitempty"`
	Header                http.Header `json:"header,omitempty"`
	HeaderTruncated       bool        `json:"header_truncated,omitempty"`
	Body                  string      `json:"body,omitempty"`
	BodyEncoding          string      `json:"body_encoding,omitempty"`
	BodySize              int64       `json:"body_size"`
	BodyTruncated         bool        `json:"body_truncated,omitempty"`
	ResponseBody          string      `json:"response_body,omitempty"`
	ResponseEncoding      string      `json:"response_encoding,omitempty"`
	ResponseSize          int64       `json:"response_size"`
	ResponseBodyTruncated bool        `json:"response_truncated,omitempty"`
	Route                 string      `json:"route"`
	Caller                string      `json:"caller,omitempty"`
	Status                int         `json:"status"`
	Code                  string      `json:"code,omitempty"`
	Fault                 bool        `json:"fault,omitempty"`
	Panic                 string      `json:"panic,omitempty"`
}

// MarshalJSON writes r as the control API gives a logged request. The
// values of credential headers and query parameters are "[REDACTED]" in
// it, as the log keeps them, and for a Request made by hand too.
func (r Request) MarshalJSON() ([]byte, error) {
	w := requestJSON{
		Time: r.Time, DurationMS: float64(r.Duration.Microseconds()) / 1000, Transport: r.Transport,
		Method: r.Method, Path: r.Path, HeaderTruncated: r.HeaderTruncated,
		BodySize: r.BodySize, BodyTruncated: r.BodyTruncated, ResponseSize: r.ResponseSize,
		ResponseBodyTruncated: r.ResponseBodyTruncated, Route: r.Route, Caller: r.Caller, Status: r.Status,
		Code: r.Code, Fault: r.Fault, Panic: r.Panic,
	}
	if len(r.Header) > 0 {
		w.Header = credential.RedactHeader(r.Header, credential.Redacted)
	}
	if len(r.Query) > 0 {
		w.Query = credential.RedactQuery(r.Query)
	}
	w.Body, w.BodyEncoding = bodytext.Encode(r.Body)
	w.ResponseBody, w.ResponseEncoding = bodytext.Encode(r.ResponseBody)
	return json.Marshal(w)
}

// UnmarshalJSON reads a logged request as the control API gives it.
func (r *Request) UnmarshalJSON(b []byte) error {
	var w requestJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	body, err := bodytext.Decode(w.Body, w.BodyEncoding)
	if err != nil {
		return fmt.Errorf("body: %w", err)
	}
	answer, err := bodytext.Decode(w.ResponseBody, w.ResponseEncoding)
	if err != nil {
		return fmt.Errorf("response_body: %w", err)
	}
	*r = Request{
		Time: w.Time, Duration: time.Duration(w.DurationMS * float64(time.Millisecond)).Round(time.Microsecond),
		Transport: w.Transport, Method: w.Method, Path: w.Path, Query: w.Query, Header: w.Header,
		HeaderTruncated: w.HeaderTruncated, Body: body, BodySize: w.BodySize, BodyTruncated: w.BodyTruncated,
		ResponseBody: answer, ResponseSize: w.ResponseSize, ResponseBodyTruncated: w.ResponseBodyTruncated,
		Route: w.Route, Caller: w.Caller, Status: w.Status, Code: w.Code, Fault: w.Fault, Panic: w.Panic,
	}
	return nil
}
