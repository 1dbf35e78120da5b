package controlapi

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
)

// Each value the control API answers writes the shape openapi.json
// describes: with every field set, the fields of its JSON are the
// properties of its schema, no more and no fewer. The values are the Go
// types themselves (control.ActiveFault, control.Request,
// sourcehostfake.Delivery, …), one type per concept, so the document
// holds them, and so Client, which reads them back.
func TestOpenAPIDescribesEveryShape(t *testing.T) {
	t.Parallel()
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openAPI, &doc); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	hdr := http.Header{"X-A": {"b"}}
	full := map[string]any{
		"Error":   &APIError{Status: 400, Message: "m"},
		"Service": ServiceInfo{Name: "n", URL: "u", GRPC: "g", Requests: 1, Faults: 1},
		"Fault": control.ActiveFault{Route: "r", Remaining: -1, Fault: control.Fault{Status: 503, Code: "C", Message: "m",
			Body: "b", Header: hdr, Latency: time.Second, OnClock: true, Drop: true, Times: 2}},
		"Request": control.Request{Time: at, Duration: time.Millisecond, Transport: "http", Method: "GET", Path: "/p",
			Query: url.Values{"a": {"b"}}, Header: hdr, HeaderTruncated: true, Body: []byte{0xff}, BodySize: 1,
			BodyTruncated: true, ResponseBody: []byte{0xfe}, ResponseSize: 1, ResponseBodyTruncated: true,
			Route: "GET /p", Caller: "c", Status: 500, Code: "C", Fault: true, Panic: "p"},
		"Clock":    ClockState{Now: at, FollowingWallClock: true},
		"Snapshot": SnapshotInfo{Path: "p", Bytes: 1, Clock: at, Taken: at},
		"Delivery": sourcehostfake.Delivery{HookID: 1, ProjectID: 1, URL: "http://h/", Event: "e", UUID: "u",
			Payload: []byte{0xff}, PayloadSize: 1, Time: at, State: "failed", Status: 500, Duration: time.Millisecond, Error: "e"},
		"Workflow": orchfake.WorkflowSummary{Namespace: "n", WorkflowID: "w", RunID: "r", Type: "t", TaskQueue: "q",
			Status: "COMPLETED", StartTime: at, CloseTime: &at, HistoryLength: 2},
		"HistoryEvent": historyEvent{EventID: 1, Time: at, Type: "t", Attributes: "{}"},
		"KeyRotation":  KeyRotation{KeyID: "k2", PreviousKeyID: "k1"},
		"APIToken":     APIToken{Token: "t", Username: "u", Tenant: "t", ExpiresAt: &at},
		"ERPSettings":  ERPSettings{APIEnabled: true, NativeNumbers: true},
		"ERPAPIKey":    ERPAPIKey{Login: "admin", APIKey: "k"},
		"TaskQueue":    orchfake.TaskQueueSummary{Namespace: "n", Name: "q", WorkflowBacklog: 1, ActivityBacklog: 1, WorkflowPollers: 1, ActivityPollers: 1},
	}
	for name, schema := range doc.Components.Schemas {
		v, ok := full[name]
		if !ok {
			t.Errorf("schema %s: no Go value of the API has it", name)
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(b, &fields); err != nil {
			t.Fatal(err)
		}
		var written, described []string
		for f := range fields {
			written = append(written, f)
		}
		for p := range schema.Properties {
			described = append(described, p)
		}
		slices.Sort(written)
		slices.Sort(described)
		if !slices.Equal(written, described) {
			t.Errorf("%T writes %v\nschema %s describes %v", v, written, name, described)
		}
	}
}
