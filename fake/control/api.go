package control

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/apitwin/apitwin/internal/credential"
)

// The JSON shapes of apitwin-fake's control API (see its /openapi.json),
// which Client sends and reads. They are the Go controls' values in a form
// any language reads: durations as Go duration strings ("250ms"), times in
// RFC 3339, bodies as text (or base64 when they are not UTF-8).

// Bounds of the control API: what it refuses with 400 rather than let a
// careless request hang or bloat the fakes.
const (
	// MaxFaultLatency is the longest latency a fault may hold a request.
	MaxFaultLatency = time.Hour
	// MaxFaultTimes is the most requests one fault may count.
	MaxFaultTimes = 1_000_000
	// MaxFaultBody is the largest body a fault may answer with.
	MaxFaultBody = 1 << 20
	// MaxAdvance is the furthest one clock advance may move the clock.
	MaxAdvance = 366 * 24 * time.Hour
	// MaxRequestsListed is the most log entries one listing returns.
	MaxRequestsListed = 1000
)

// FaultSpec is a fault as the control API takes and gives it.
type FaultSpec struct {
	// Route is the fake's route: an HTTP fake's ServeMux pattern
	// ("GET /api/v4/projects/{id}"), an orch operation
	// ("StartWorkflowExecution"), or "" for every request.
	Route   string      `json:"route"`
	Status  int         `json:"status,omitempty"`
	Code    string      `json:"code,omitempty"`
	Message string      `json:"message,omitempty"`
	Body    string      `json:"body,omitempty"`
	Header  http.Header `json:"header,omitempty"`
	// Latency is a Go duration ("250ms", "2s"), at most MaxFaultLatency.
	Latency string `json:"latency,omitempty"`
	OnClock bool   `json:"on_clock,omitempty"`
	Drop    bool   `json:"drop,omitempty"`
	// Times is how many requests the fault affects; 0 every request until
	// the faults are cleared.
	Times int `json:"times,omitempty"`
	// Remaining is set in answers: how many more requests the fault
	// affects, -1 for every request until cleared.
	Remaining *int `json:"remaining,omitempty"`
}

// Fault checks the spec against the control API's bounds and Fault's rules
// and returns the fault it describes.
func (s FaultSpec) Fault() (Fault, error) {
	f := Fault{Status: s.Status, Code: s.Code, Message: s.Message, Body: s.Body, Header: s.Header,
		OnClock: s.OnClock, Drop: s.Drop, Times: s.Times}
	if s.Latency != "" {
		d, err := time.ParseDuration(s.Latency)
		if err != nil {
			return Fault{}, fmt.Errorf("invalid fault: latency %q is not a duration (say \"250ms\" or \"2s\")", s.Latency)
		}
		f.Latency = d
	}
	var errs []string
	if f.Latency > MaxFaultLatency {
		errs = append(errs, fmt.Sprintf("latency %s is more than %s", f.Latency, MaxFaultLatency))
	}
	if f.Times > MaxFaultTimes {
		errs = append(errs, fmt.Sprintf("times %d is more than %d", f.Times, MaxFaultTimes))
	}
	if len(f.Body) > MaxFaultBody {
		errs = append(errs, fmt.Sprintf("the body is larger than %d bytes", MaxFaultBody))
	}
	if len(errs) > 0 {
		return Fault{}, errors.New("invalid fault: " + strings.Join(errs, "; "))
	}
	if err := f.Validate(); err != nil {
		return Fault{}, err
	}
	return f, nil
}

// SpecOf is an ActiveFault as the control API gives it.
func SpecOf(af ActiveFault) FaultSpec {
	f := af.Fault
	s := FaultSpec{Route: af.Route, Status: f.Status, Code: f.Code, Message: f.Message, Body: f.Body,
		Header: f.Header, OnClock: f.OnClock, Drop: f.Drop, Times: f.Times}
	if f.Latency > 0 {
		s.Latency = f.Latency.String()
	}
	remaining := af.Remaining
	s.Remaining = &remaining
	return s
}

// RequestRecord is a logged request as the control API gives it: as the
// log keeps it (see Request), secrets "[REDACTED]". Credential headers and
// query parameters are redacted here again, for a Request made by hand.
type RequestRecord struct {
	Time            time.Time   `json:"time"`
	DurationMS      float64     `json:"duration_ms"`
	Transport       string      `json:"transport"`
	Method          string      `json:"method"`
	Path            string      `json:"path"`
	Query           url.Values  `json:"query,omitempty"`
	Header          http.Header `json:"header,omitempty"`
	HeaderTruncated bool        `json:"header_truncated,omitempty"`
	// Body is the start of the request body the log kept: text, or base64
	// when BodyEncoding says so.
	Body          string `json:"body,omitempty"`
	BodyEncoding  string `json:"body_encoding,omitempty"`
	BodySize      int64  `json:"body_size"`
	BodyTruncated bool   `json:"body_truncated,omitempty"`
	// ResponseBody is the start of the answer's body, as Body is.
	ResponseBody          string `json:"response_body,omitempty"`
	ResponseEncoding      string `json:"response_encoding,omitempty"`
	ResponseSize          int64  `json:"response_size"`
	ResponseBodyTruncated bool   `json:"response_truncated,omitempty"`
	Route                 string `json:"route"`
	Caller                string `json:"caller,omitempty"`
	Status                int    `json:"status"`
	Code                  string `json:"code,omitempty"`
	Fault                 bool   `json:"fault,omitempty"`
	Panic                 string `json:"panic,omitempty"`
}

// RecordOf is r as the control API gives it.
func RecordOf(r Request) RequestRecord {
	rec := RequestRecord{
		Time: r.Time, DurationMS: float64(r.Duration.Microseconds()) / 1000, Transport: r.Transport,
		Method: r.Method, Path: r.Path, Header: RedactHeader(r.Header), HeaderTruncated: r.HeaderTruncated,
		BodySize: r.BodySize, BodyTruncated: r.BodyTruncated, ResponseSize: r.ResponseSize,
		ResponseBodyTruncated: r.ResponseBodyTruncated, Route: r.Route, Caller: r.Caller, Status: r.Status,
		Code: r.Code, Fault: r.Fault, Panic: r.Panic,
	}
	if len(r.Query) > 0 {
		rec.Query = credential.RedactQuery(r.Query)
	}
	rec.Body, rec.BodyEncoding = BodyText(r.Body)
	rec.ResponseBody, rec.ResponseEncoding = BodyText(r.ResponseBody)
	return rec
}

// BodyText is a kept body as the control API gives it: the text, or its
// base64 and "base64" when it is not UTF-8.
func BodyText(b []byte) (text, encoding string) {
	if utf8.Valid(b) {
		return string(b), ""
	}
	return base64.StdEncoding.EncodeToString(b), "base64"
}

// RedactHeader returns h with the values of headers that carry credentials
// replaced by "[REDACTED]", the one marker the module writes where a
// secret was; h itself is not changed.
func RedactHeader(h http.Header) http.Header { return credential.RedactHeader(h, credential.Redacted) }

// ClockState is the fakes' shared clock as the control API gives it.
type ClockState struct {
	Now time.Time `json:"now"`
	// FollowingWallClock is true while the clock moves with the wall clock
	// (keeping any advance made), false while it is frozen.
	FollowingWallClock bool `json:"following_wall_clock"`
}

// ServiceInfo is one fake as the control API lists it.
type ServiceInfo struct {
	Name     string `json:"name"`
	URL      string `json:"url"`
	GRPC     string `json:"grpc,omitempty"` // orch's gRPC address
	Requests int    `json:"requests"`       // entries in its request log
	Faults   int    `json:"faults"`         // faults in force
}

// DeliveryRecord is one webhook delivery of the sourcehost fake.
type DeliveryRecord struct {
	HookID      int64     `json:"hook_id"`
	ProjectID   int64     `json:"project_id"`
	URL         string    `json:"url"`
	Event       string    `json:"event"`
	UUID        string    `json:"uuid"`
	Payload     string    `json:"payload"`
	PayloadSize int       `json:"payload_size"`
	Time        time.Time `json:"time"`
	State       string    `json:"state"`
	Status      int       `json:"status,omitempty"`
	DurationMS  float64   `json:"duration_ms,omitempty"`
	Error       string    `json:"error,omitempty"`
}

// WorkflowRecord is one workflow run of the orch fake, at a glance.
type WorkflowRecord struct {
	Namespace     string     `json:"namespace"`
	WorkflowID    string     `json:"workflow_id"`
	RunID         string     `json:"run_id"`
	Type          string     `json:"type"`
	TaskQueue     string     `json:"task_queue"`
	Status        string     `json:"status"`
	StartTime     time.Time  `json:"start_time"`
	CloseTime     *time.Time `json:"close_time,omitempty"`
	HistoryLength int        `json:"history_length"`
}

// HistoryEventRecord is one event of a workflow run's history.
type HistoryEventRecord struct {
	EventID int64     `json:"event_id"`
	Time    time.Time `json:"time"`
	Type    string    `json:"type"`
	// Attributes are the event's attributes as the HTTP/JSON API gives
	// them.
	Attributes string `json:"attributes,omitempty"`
}

// TaskQueueRecord is one task queue of the orch fake, at a glance.
type TaskQueueRecord struct {
	Namespace       string `json:"namespace"`
	Name            string `json:"name"`
	WorkflowBacklog int    `json:"workflow_backlog"`
	ActivityBacklog int    `json:"activity_backlog"`
	WorkflowPollers int    `json:"workflow_pollers"`
	ActivityPollers int    `json:"activity_pollers"`
}

// APIError is the control API's refusal: {"error": "..."} with its status.
type APIError struct {
	Status  int    `json:"-"`
	Message string `json:"error"`
}

func (e *APIError) Error() string {
	return fmt.Sprintf("control API: %d %s: %s", e.Status, http.StatusText(e.Status), e.Message)
}
