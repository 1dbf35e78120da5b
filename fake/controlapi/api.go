package controlapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// The control API's own JSON shapes, beside those of the values it
// passes through as they are: control.ActiveFault (a fault),
// control.Request (a logged request), sourcehostfake.Delivery,
// orchfake.WorkflowSummary and orchfake.TaskQueueSummary, each of which
// writes and reads its own JSON. Durations are Go duration strings
// ("250ms") or milliseconds (duration_ms), times RFC 3339.

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

// checkFault holds f to the control API's bounds, then to the rules every
// fake applies (control.Fault.Validate).
func checkFault(f control.Fault) error {
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
		return errors.New("invalid fault: " + strings.Join(errs, "; "))
	}
	return f.Validate()
}

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

// SnapshotInfo is what POST /api/snapshot answers: the snapshot of every
// fake that apitwin-fake (run with -state-dir) wrote, and where.
type SnapshotInfo struct {
	// Path is the file written: state.json in the -state-dir.
	Path string `json:"path"`
	// Bytes is its size.
	Bytes int64 `json:"bytes"`
	// Clock is the fakes' time in the snapshot, Taken the wall clock's.
	Clock time.Time `json:"clock"`
	Taken time.Time `json:"taken"`
}

// APIError is the control API's refusal: {"error": "..."} with its status.
type APIError struct {
	Status  int    `json:"-"`
	Message string `json:"error"`
}

func (e *APIError) Error() string {
	return fmt.Sprintf("control API: %d %s: %s", e.Status, http.StatusText(e.Status), e.Message)
}

// historyEvent is one event of a workflow run's history as GET
// /api/orch/history gives it: its attributes as the HTTP/JSON API writes
// them, as text, beside its id, time and type.
type historyEvent struct {
	EventID    int64     `json:"event_id"`
	Time       time.Time `json:"time"`
	Type       string    `json:"type"`
	Attributes string    `json:"attributes,omitempty"`
}

// historyJSON is a run's history as GET /api/orch/history gives it.
func historyJSON(events []*orchpb.HistoryEvent) []historyEvent {
	out := make([]historyEvent, 0, len(events))
	for _, ev := range events {
		h := historyEvent{EventID: ev.GetEventId(), Time: ev.GetEventTime().AsTime(), Type: ev.GetEventType().String()}
		// The event without its id, time and type: its attributes.
		if b, err := orchwire.MarshalJSON.Marshal(&orchpb.HistoryEvent{Attributes: ev.GetAttributes()}); err == nil {
			h.Attributes = string(b)
		}
		out = append(out, h)
	}
	return out
}

// event is the history event h describes.
func (h historyEvent) event() (*orchpb.HistoryEvent, error) {
	ev := &orchpb.HistoryEvent{}
	if h.Attributes != "" {
		if err := orchwire.StrictJSON.Unmarshal([]byte(h.Attributes), ev); err != nil {
			return nil, fmt.Errorf("event %d: attributes: %w", h.EventID, err)
		}
	}
	typ, ok := orchpb.EventType_value[h.Type]
	if !ok {
		return nil, fmt.Errorf("event %d: unknown type %q", h.EventID, h.Type)
	}
	ev.EventId, ev.EventType = h.EventID, orchpb.EventType(typ)
	ev.EventTime = timestamppb.New(h.Time)
	return ev, nil
}

// decodeHistory reads GET /api/orch/history's answer.
func decodeHistory(data []byte) ([]*orchpb.HistoryEvent, error) {
	var hs []historyEvent
	if err := json.Unmarshal(data, &hs); err != nil {
		return nil, err
	}
	out := make([]*orchpb.HistoryEvent, 0, len(hs))
	for _, h := range hs {
		ev, err := h.event()
		if err != nil {
			return nil, err
		}
		out = append(out, ev)
	}
	return out, nil
}
