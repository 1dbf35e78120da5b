package orchfake

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/internal/fakekit"
	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoregistry"
)

func FuzzPageTokens(f *testing.F) {
	f.Add(nameToken("default"))
	f.Add(historyToken("run-1", 7))
	f.Add(listToken([]byte{1, 2, 3}))
	f.Add(offsetToken(3))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, tok []byte) {
		if name, err := parseNameToken(tok); err == nil && !bytes.Equal(nameToken(name), tok) {
			t.Fatalf("name token %q does not round-trip", name)
		}
		if run, next, err := parseHistoryToken(tok); err == nil && !bytes.Equal(historyToken(run, next), tok) {
			t.Fatalf("history token (%q, %d) does not round-trip", run, next)
		}
		if p, err := parseListToken(tok); err == nil && !bytes.Equal(listToken(p), tok) {
			t.Fatal("list token does not round-trip")
		}
		if off, err := parseOffsetToken(tok); err == nil && !bytes.Equal(offsetToken(off), tok) {
			t.Fatal("offset token does not round-trip")
		}
	})
}

func FuzzTaskToken(f *testing.F) {
	f.Add(encodeTaskToken(taskToken{kind: tokenWorkflow, namespace: "default", workflowID: "w", runID: "r", scheduledID: 2, attempt: 1}))
	f.Add(encodeTaskToken(taskToken{kind: tokenActivity, namespace: "ns", workflowID: "", runID: "r", scheduledID: 1 << 30, attempt: 9}))
	f.Add([]byte("t"))
	f.Fuzz(func(t *testing.T, tok []byte) {
		tt, err := decodeTaskToken(tok)
		if err != nil {
			return
		}
		if !bytes.Equal(encodeTaskToken(tt), tok) {
			t.Fatalf("%+v does not round-trip", tt)
		}
	})
}

// fuzzCallTimeout bounds each fuzzed call: long polls and queries wait for
// a worker that never comes, and end empty or DEADLINE_EXCEEDED at it.
const fuzzCallTimeout = 10 * time.Millisecond

// newFuzzFake is the fake each fuzz input meets: a namespace with search
// attributes, executions open and closed, a worker's queue known.
func newFuzzFake(t *testing.T) *Server {
	s, err := New(control.WithClock(clock.NewFake(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))), control.WithMaxBody(64<<10))
	if err != nil {
		t.Fatal(err)
	}
	err = s.Load(Seed{
		Namespaces: []NamespaceSeed{{Name: "orders", SearchAttributes: map[string]SearchAttributeType{"CustomerId": Keyword, "Amount": Double}}},
		Executions: []ExecutionSeed{
			{Namespace: "orders", WorkflowID: "o-1", WorkflowType: "Order", TaskQueue: "q", SearchAttributes: map[string]any{"CustomerId": "acme", "Amount": 12.5}},
			{Namespace: "orders", WorkflowID: "o-2", WorkflowType: "Order", Status: "COMPLETED"},
			{WorkflowID: "d-1", WorkflowType: "Daily", TaskQueue: "q"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// FuzzFrontDoor sends scripts of arbitrary requests to the HTTP side: no
// handler may panic, every error must be {"error":{code,message,details}}
// with the status of its code, a read must still be answered after each
// script, and the state must keep its invariants (checkState).
func FuzzFrontDoor(f *testing.F) {
	const js = "Content-Type: application/json\n\n"
	ns := "/api/v1/namespaces/"
	seeds := []string{
		// Issue 14, finding 3 as orch meets it: a body over the limit (the
		// fuzzed fake's is 64 KiB).
		"POST " + ns + "default/workflows\n" + js + `{"workflow_id":"x","input":{"payloads":[{"data":"` + strings.Repeat("A", 70_000) + `"}]}}`,
		// Numbers and pages past every integer.
		"GET " + ns + "?page_size=2147483648\n===\nGET " + ns + "orders/workflows?page_size=-1&query=Amount%20%3E%201e309",
		"GET " + ns + "orders/workflows/o-1/history?maximum_page_size=2147483647&next_page_token=AAAA\n===\nGET /api/v1/cluster/shards/9223372036854775807",
		// A day's work.
		"POST " + ns + "default/workflows\n" + js + `{"workflow_id":"w","workflow_type":{"name":"W"},"task_queue":"q","workflow_execution_timeout":"60s"}` +
			"\n===\nPOST " + ns + "default/task-queues/q/workflow-tasks/poll\n" + js + `{"identity":"w1"}` +
			"\n===\nPOST " + ns + "default/workflows/w/signal/go\n" + js + `{"input":null}` +
			"\n===\nGET " + ns + "default/workflows?query=WorkflowType%3D%27W%27%20AND%20ExecutionStatus%3D%27Running%27",
		"POST " + ns + "orders/workflows/o-1/terminate\n" + js + `{"reason":"x"}` + "\n===\nPOST " + ns + "orders/workflows/o-1/query/state\n" + js + `{}`,
		"POST " + ns + "\n" + js + `{"namespace":"new-ns","workflow_execution_retention_period":"315360001s"}` + "\n===\nGET " + ns + "new-ns",
		// Versions, unknown paths and methods, malformed bodies.
		"GET /api/v1beta1/cluster\n===\nGET /api/v1/cluster\nOrch-API-Version: v9\n===\nDELETE /api/v1/cluster\n===\nGET /api/v2/x",
		"POST " + ns + "default/workflows\n" + js + `{"workflow_id":1}` + "\n===\nPOST " + ns + "default/workflows\n" + js + strings.Repeat("[", 10_000),
		"POST " + ns + "default/workflows\n" + js + `{"workflow_id":"w","workflow_type":{"name":"W"},"task_queue":"q","retry_policy":{"backoff_coefficient":"NaN"}}`,
		"GET " + ns + "de%2Ffault/workflows/a%2Fb\n===\nGET " + ns + "%00/workflows",
		// Issue 17's routes: signal-with-start, plain-JSON payloads, a cron
		// start, search-attribute admin, a worker shutdown.
		"POST " + ns + "default/workflows/w%2F1/signal-with-start/pay\n" + js + `{"workflow_type":{"name":"W"},"task_queue":"q","input":[1,"a",{"b":null}],"signal_input":{"x":1},"memo":{"fields":{"m":[]}}}` +
			"\n===\nGET " + ns + "default/workflows/w%2F1/runs/-/history\nOrch-Payloads: json",
		"POST " + ns + "default/workflows\n" + js + `{"workflow_id":"c","workflow_type":{"name":"W"},"task_queue":"q","cron_schedule":"*/5 1-3,7 * JAN-3 */2"}`,
		"POST " + ns + "default/search-attributes\n" + js + `{"search_attributes":{"Priority":"INT","WorkflowId":"KEYWORD"}}` +
			"\n===\nPOST " + ns + "default/search-attributes/remove\n" + js + `{"search_attributes":["Priority","Nope"]}` + "\n===\nGET " + ns + "default/search-attributes",
		"POST " + ns + "default/workers/shutdown\n" + js + `{"task_queue":"q","worker_instance_key":"k"}` +
			"\n===\nPOST " + ns + "default/task-queues/q/activity-tasks/poll\n" + js + `{"worker_instance_key":"k","task_queue_metadata":{"max_tasks_per_second":0.001}}`,
	}
	fakekitFuzz(f, seeds)
}

// FuzzGRPC sends scripts of arbitrary calls to the gRPC side: each call is
// an RPC's name on a line, then its request as protojson, or after "!" as
// raw bytes on the wire. The same checks as FuzzFrontDoor follow.
func FuzzGRPC(f *testing.F) {
	for _, seed := range []string{
		"StartWorkflowExecution\n{\"namespace\":\"default\",\"workflow_id\":\"w\",\"workflow_type\":{\"name\":\"W\"},\"task_queue\":\"q\"}\n===\nPollWorkflowTaskQueue\n{\"namespace\":\"default\",\"task_queue\":\"q\",\"identity\":\"w1\"}",
		"ListWorkflowExecutions\n{\"namespace\":\"orders\",\"page_size\":2147483647,\"query\":\"CustomerId = 'acme' ORDER BY StartTime\"}",
		"GetWorkflowExecutionHistory\n{\"namespace\":\"orders\",\"execution\":{\"workflow_id\":\"o-1\"},\"maximum_page_size\":-5,\"next_page_token\":\"AAAA\"}",
		"RespondWorkflowTaskCompleted\n{\"namespace\":\"default\",\"task_token\":\"dA==\"}\n===\nRespondActivityTaskFailed\n{\"task_token\":\"\"}",
		"DescribeShard\n{\"shard_id\":2147483647}\n===\nCloseShard\n{\"shard_id\":-1}",
		"StartWorkflowExecution\n!\x0a\xff\xff\xff\xff\x0f",
		"SignalWorkflowExecution\n{\"namespace\":\"orders\",\"workflow_execution\":{\"workflow_id\":\"o-2\"},\"signal_name\":\"\\u0000\"}",
		"RegisterNamespace\n{\"namespace\":\"a\\nb\"}\n===\nDescribeNamespace\n{\"namespace\":\"a\\nb\"}",
		"SignalWithStartWorkflowExecution\n{\"namespace\":\"default\",\"workflow_id\":\"w\",\"workflow_type\":{\"name\":\"W\"},\"task_queue\":\"q\",\"signal_name\":\"s\",\"cron_schedule\":\"@every 1s\",\"retry_policy\":{\"maximum_attempts\":2}}",
		"AddSearchAttributes\n{\"namespace\":\"default\",\"search_attributes\":{\"X\":\"KEYWORD_LIST\"}}\n===\nListSearchAttributes\n{\"namespace\":\"default\"}",
		"ShutdownWorker\n{\"namespace\":\"default\",\"task_queue\":\"q\",\"worker_instance_key\":\"k\"}",
		"StartWorkflowExecution\n{\"namespace\":\"default\",\"workflow_id\":\"w\",\"workflow_type\":{\"name\":\"W\"},\"task_queue\":\"q\"}\n===\nResetWorkflowExecution\n{\"namespace\":\"default\",\"workflow_execution\":{\"workflow_id\":\"w\"},\"workflow_task_finish_event_id\":-9223372036854775808}\n===\nDeleteWorkflowExecution\n{\"namespace\":\"default\",\"workflow_execution\":{\"workflow_id\":\"w\"}}",
		"UpdateNamespace\n{\"namespace\":\"default\",\"update_info\":{\"state\":99,\"data\":{\"\":\"\"}},\"config\":{\"workflow_execution_retention_ttl\":\"-1s\"}}\n===\nDeprecateNamespace\n{\"namespace\":\"default\"}\n===\nDeleteNamespace\n{\"namespace\":\"default\"}",
		"StartWorkflowExecution\n{\"namespace\":\"default\",\"workflow_id\":\"w\",\"workflow_type\":{\"name\":\"W\"},\"task_queue\":\"q\",\"workflow_id_conflict_policy\":7}",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, script string) {
		s := newFuzzFake(t)
		defer s.Close()
		conn := s.Conn()
		parts := strings.Split(script, "\n===\n")
		for _, part := range parts[:min(len(parts), 8)] {
			name, body, _ := strings.Cut(part, "\n")
			full, in := requestFor(name)
			if full == "" {
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), fuzzCallTimeout)
			var err error
			if raw, ok := strings.CutPrefix(body, "!"); ok {
				in, out := rawMessage(raw), rawMessage(nil)
				err = conn.Invoke(ctx, full, &in, &out, grpc.ForceCodecV2(rawCodec{}))
			} else if protojson.Unmarshal([]byte(body), in) == nil {
				err = conn.Invoke(ctx, full, in, respFor(full))
			}
			cancel()
			if st, ok := status.FromError(err); err != nil && (!ok || st.Code() == codes.Unknown) {
				t.Fatalf("%s: an error that is no status: %v", name, err)
			}
		}
		fakekit.CheckAfter(t, grpcTarget(s))
	})
}

func fakekitFuzz(f *testing.F, seeds []string) {
	fakekit.FuzzHTTP(f, seeds, func(t *testing.T) *fakekit.FuzzTarget {
		s := newFuzzFake(t)
		tg := grpcTarget(s)
		tg.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx, cancel := context.WithTimeout(r.Context(), fuzzCallTimeout)
			defer cancel()
			s.ServeHTTP(w, r.WithContext(ctx))
		})
		tg.ErrorShape = httpErrorShape
		return tg
	})
}

// grpcTarget is the fake as the harness checks it after an input: its
// request log, a probe over HTTP, the state's invariants.
func grpcTarget(s *Server) *fakekit.FuzzTarget {
	return &fakekit.FuzzTarget{
		Handler:  s,
		Requests: s.Requests,
		// ListNamespaces: it answers 200 whatever an input did (even
		// DeleteNamespace "default").
		Probe:       func() *http.Request { return httptest.NewRequest(http.MethodGet, "/api/v1/namespaces", nil) },
		ProbeStatus: http.StatusOK,
		Check:       func() error { return checkState(s) },
		Close:       s.Close,
	}
}

// httpErrorShape checks an HTTP error: the contract's body, with the status
// of its code (413 for a body over the limit, 405 for a method the path
// does not take).
func httpErrorShape(st int, h http.Header, body []byte) error {
	if h.Get("Content-Type") != "application/json" {
		return fmt.Errorf("Content-Type %q", h.Get("Content-Type"))
	}
	code, msg, _, ok := orchwire.ParseHTTPBody(body)
	if !ok || !orchwire.Known(code) || msg == "" {
		return fmt.Errorf("not an error body")
	}
	want := orchwire.HTTPStatus(code)
	switch {
	case st == http.StatusRequestEntityTooLarge && code == orchwire.ResourceExhausted:
	case st == http.StatusMethodNotAllowed && code == orchwire.Unimplemented:
	case st != want:
		return fmt.Errorf("status %d for %s (want %d)", st, code, want)
	}
	return nil
}

// checkState reports a broken invariant of the state: histories numbered
// from 1 with their start first and, once closed, their closing event
// last; at most one open run per workflow id, the latest; the open count
// of each namespace; task queue counters that never go negative.
func checkState(s *Server) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for name, ns := range s.st.namespaces {
		open := 0
		for id, wf := range ns.workflows {
			for i, e := range wf.runs {
				if len(e.history) == 0 || e.history[0].GetEventType() != orchpb.EventType_WorkflowExecutionStarted {
					return fmt.Errorf("%s/%s: history does not start with WorkflowExecutionStarted", name, id)
				}
				for j, ev := range e.history {
					if ev.GetEventId() != int64(j+1) {
						return fmt.Errorf("%s/%s: event %d has id %d", name, id, j+1, ev.GetEventId())
					}
				}
				if e.open() {
					open++
					if i != len(wf.runs)-1 {
						return fmt.Errorf("%s/%s: an open run is not the latest", name, id)
					}
					continue
				}
				if !closingEvent(e.history[len(e.history)-1].GetEventType()) {
					return fmt.Errorf("%s/%s: closed (%v) without a closing event last", name, id, e.status)
				}
			}
		}
		if open != ns.running {
			return fmt.Errorf("%s: %d open runs counted as %d", name, open, ns.running)
		}
		for qn, q := range ns.queues {
			for side := range q.sides {
				sd := &q.sides[side]
				if sd.inFlight < 0 || sd.handed < 0 || sd.handed > sd.added {
					return fmt.Errorf("%s/%s: counters in flight %d, handed %d, added %d", name, qn, sd.inFlight, sd.handed, sd.added)
				}
			}
		}
	}
	return nil
}

func closingEvent(t orchpb.EventType) bool {
	switch t {
	case orchpb.EventType_WorkflowExecutionCompleted, orchpb.EventType_WorkflowExecutionFailed,
		orchpb.EventType_WorkflowExecutionCanceled, orchpb.EventType_WorkflowExecutionTerminated,
		orchpb.EventType_WorkflowExecutionContinuedAsNew, orchpb.EventType_WorkflowExecutionTimedOut:
		return true
	}
	return false
}

// requestFor returns an RPC's full method and an empty request, "" for a
// name no RPC has.
func requestFor(name string) (string, proto.Message) {
	for _, svc := range []string{"WorkflowService", "AdminService"} {
		full := "/apitwin.orch.v1." + svc + "/" + name
		if r, ok := orchwire.RuleFor(full); ok {
			mt, err := protoregistry.GlobalTypes.FindMessageByName(r.Method.Input().FullName())
			if err != nil {
				return "", nil
			}
			return full, mt.New().Interface()
		}
	}
	return "", nil
}

func respFor(full string) proto.Message {
	r, _ := orchwire.RuleFor(full)
	mt, _ := protoregistry.GlobalTypes.FindMessageByName(r.Method.Output().FullName())
	return mt.New().Interface()
}

// rawMessage and rawCodec send bytes to the server as they are.
type rawMessage []byte

type rawCodec struct{}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(*v.(*rawMessage))}, nil
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	*v.(*rawMessage) = data.Materialize()
	return nil
}

func (rawCodec) Name() string { return "proto" }
