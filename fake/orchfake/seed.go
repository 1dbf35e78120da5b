package orchfake

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// Client returns an orch client over gRPC, pointed at the fake: over the
// in-memory connection (Conn), on the fake's clock, with a token holding
// orch:* when auth is on. Options are applied after those.
func (s *Server) Client(opts ...orch.Option) *orch.Client {
	c, err := orch.NewFromConn(s.Conn(), s.clientOptions(opts)...)
	if err != nil {
		panic(fmt.Sprintf("orchfake: client: %v", err))
	}
	return c
}

// HTTPClient returns an orch client over HTTP/JSON, pointed at URL() (so
// the fake must be listening: Start or Listen), set up as Client is.
func (s *Server) HTTPClient(opts ...orch.Option) *orch.Client {
	u := s.URL()
	if u == "" {
		panic("orchfake: HTTPClient needs a listening fake (Start or Listen)")
	}
	c, err := orch.NewHTTP(u, s.clientOptions(opts)...)
	if err != nil {
		panic(fmt.Sprintf("orchfake: HTTP client: %v", err))
	}
	return c
}

// GRPCClient returns an orch client that dials GRPCAddr() in plaintext,
// set up as Client is.
func (s *Server) GRPCClient(opts ...orch.Option) *orch.Client {
	addr := s.GRPCAddr()
	if addr == "" {
		panic("orchfake: GRPCClient needs a listening fake (Start or Listen)")
	}
	c, err := orch.Dial(addr, append([]orch.Option{orch.WithInsecure()}, s.clientOptions(opts)...)...)
	if err != nil {
		panic(fmt.Sprintf("orchfake: gRPC client: %v", err))
	}
	return c
}

func (s *Server) clientOptions(opts []orch.Option) []orch.Option {
	base := []orch.Option{orch.WithClock(s.clk)}
	if s.cfg.auth {
		base = append(base, orch.WithToken(s.IssueToken("orchfake-admin", "", PermAll)))
	}
	return append(base, opts...)
}

// AddNamespace registers a namespace as RegisterNamespace does (same
// validation), without auth or limits.
func (s *Server) AddNamespace(req *orchpb.RegisterNamespaceRequest) error {
	if err := validateNamespaceRequest(req); err != nil {
		return fmt.Errorf("orchfake: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.st.namespaces[req.GetNamespace()]; dup {
		return fmt.Errorf("orchfake: namespace %q already exists", req.GetNamespace())
	}
	s.st.addNamespace(req)
	return nil
}

// StartExecution starts a workflow as StartWorkflowExecution does (same
// validation and reuse rules), without auth or rate limits, and returns
// its run id.
func (s *Server) StartExecution(req *orchpb.StartWorkflowExecutionRequest) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, _, err := s.startLocked(req, false)
	if err != nil {
		return "", fmt.Errorf("orchfake: %w", err)
	}
	return e.runID, nil
}

// ExecutionSeed describes an execution put in place by SeedExecution.
type ExecutionSeed struct {
	Namespace    string // default "default"
	WorkflowID   string // required
	WorkflowType string // required
	TaskQueue    string // default "default"
	// Status is the execution's status (default RUNNING). A closed seed
	// gets its closing event: Completed, Failed, Canceled, Terminated,
	// ContinuedAsNew or TimedOut.
	Status    orchpb.WorkflowExecutionStatus
	StartTime time.Time // default now on the fake clock
	CloseTime time.Time // for a closed seed; default StartTime
	// SearchAttributes are values of registered custom attributes, written
	// as JSON (a string, a number, a bool, a []string; a time.Time for a
	// Datetime).
	SearchAttributes map[string]any
	// Memo values, written as JSON.
	Memo map[string]any
}

// SeedExecution puts an execution in place as seed says, with its start
// (and closing) events at the seed's times; no rate limit applies and no
// timer is set. It returns the run id.
func (s *Server) SeedExecution(seed ExecutionSeed) (string, error) {
	if seed.Namespace == "" {
		seed.Namespace = DefaultNamespace
	}
	if seed.TaskQueue == "" {
		seed.TaskQueue = "default"
	}
	req := &orchpb.StartWorkflowExecutionRequest{
		Namespace: seed.Namespace, WorkflowId: seed.WorkflowID,
		WorkflowType: &orchpb.WorkflowType{Name: seed.WorkflowType}, TaskQueue: seed.TaskQueue,
		WorkflowIdReusePolicy: orchpb.WorkflowIdReusePolicy_ALLOW_DUPLICATE,
	}
	var err error
	if req.SearchAttributes, err = jsonFields(seed.SearchAttributes); err != nil {
		return "", err
	}
	if len(seed.Memo) > 0 {
		m, err := jsonFields(seed.Memo)
		if err != nil {
			return "", err
		}
		req.Memo = &orchpb.Memo{Fields: m.GetIndexedFields()}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, _, err := s.startLocked(req, false)
	if err != nil {
		return "", fmt.Errorf("orchfake: %w", err)
	}
	if !seed.StartTime.IsZero() {
		e.start, e.execTime = seed.StartTime, seed.StartTime
		for _, ev := range e.history {
			ev.EventTime = timestamppb.New(seed.StartTime)
		}
	}
	st := seed.Status
	if st == orchpb.WorkflowExecutionStatus_WORKFLOW_EXECUTION_STATUS_UNSPECIFIED || st == orchpb.WorkflowExecutionStatus_RUNNING {
		return e.runID, nil
	}
	closeAt := seed.CloseTime
	if closeAt.IsZero() {
		closeAt = e.start
	}
	s.closeSeed(e, st)
	e.closeTime = closeAt
	e.history[len(e.history)-1].EventTime = timestamppb.New(closeAt)
	return e.runID, nil
}

// closeSeed closes a seeded execution with the event of its status.
func (s *Server) closeSeed(e *execution, st orchpb.WorkflowExecutionStatus) {
	switch st {
	case orchpb.WorkflowExecutionStatus_COMPLETED:
		s.add(e, orchpb.EventType_WorkflowExecutionCompleted, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_WorkflowExecutionCompletedEventAttributes{WorkflowExecutionCompletedEventAttributes: &orchpb.WorkflowExecutionCompletedEventAttributes{}}
		})
	case orchpb.WorkflowExecutionStatus_FAILED:
		s.add(e, orchpb.EventType_WorkflowExecutionFailed, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_WorkflowExecutionFailedEventAttributes{WorkflowExecutionFailedEventAttributes: &orchpb.WorkflowExecutionFailedEventAttributes{
				Failure: &orchpb.Failure{Message: "seeded failure"}, RetryState: orchpb.RetryState_RETRY_POLICY_NOT_SET}}
		})
	case orchpb.WorkflowExecutionStatus_CANCELED:
		s.add(e, orchpb.EventType_WorkflowExecutionCanceled, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_WorkflowExecutionCanceledEventAttributes{WorkflowExecutionCanceledEventAttributes: &orchpb.WorkflowExecutionCanceledEventAttributes{}}
		})
	case orchpb.WorkflowExecutionStatus_TERMINATED:
		s.add(e, orchpb.EventType_WorkflowExecutionTerminated, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_WorkflowExecutionTerminatedEventAttributes{WorkflowExecutionTerminatedEventAttributes: &orchpb.WorkflowExecutionTerminatedEventAttributes{Reason: "seeded"}}
		})
	case orchpb.WorkflowExecutionStatus_CONTINUED_AS_NEW:
		s.add(e, orchpb.EventType_WorkflowExecutionContinuedAsNew, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_WorkflowExecutionContinuedAsNewEventAttributes{WorkflowExecutionContinuedAsNewEventAttributes: &orchpb.WorkflowExecutionContinuedAsNewEventAttributes{
				WorkflowType: &orchpb.WorkflowType{Name: e.typ}, TaskQueue: e.queue}}
		})
	default:
		s.add(e, orchpb.EventType_WorkflowExecutionTimedOut, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_WorkflowExecutionTimedOutEventAttributes{WorkflowExecutionTimedOutEventAttributes: &orchpb.WorkflowExecutionTimedOutEventAttributes{RetryState: orchpb.RetryState_TIMEOUT}}
		})
		st = orchpb.WorkflowExecutionStatus_TIMED_OUT
	}
	s.closeExecution(e, st)
}

func jsonFields(m map[string]any) (*orchpb.SearchAttributes, error) {
	if len(m) == 0 {
		return nil, nil
	}
	out := &orchpb.SearchAttributes{IndexedFields: map[string]*orchpb.Payload{}}
	for k, v := range m {
		if t, ok := v.(time.Time); ok {
			v = t.Format(time.RFC3339Nano)
		}
		data, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("orchfake: value of %s: %w", k, err)
		}
		out.IndexedFields[k] = &orchpb.Payload{Metadata: map[string][]byte{"encoding": []byte("json/plain")}, Data: data}
	}
	return out, nil
}

// ExecutionState is a copy of one run as the fake holds it.
type ExecutionState struct {
	Info    *orchpb.WorkflowExecutionInfo
	History []*orchpb.HistoryEvent
}

// Execution returns a copy of a run (runID "" for the latest) with its
// whole history, and false when there is none.
func (s *Server) Execution(namespace, workflowID, runID string) (ExecutionState, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.lookup(namespace, &orchpb.WorkflowExecution{WorkflowId: workflowID, RunId: runID}, "execution")
	if err != nil {
		return ExecutionState{}, false
	}
	return ExecutionState{Info: e.info(), History: cloneEvents(e.history)}, true
}

// Namespace returns a copy of a namespace's description, and false when
// there is none.
func (s *Server) Namespace(name string) (*orchpb.DescribeNamespaceResponse, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ns := s.st.namespaces[name]
	if ns == nil {
		return nil, false
	}
	return proto.Clone(ns.describe()).(*orchpb.DescribeNamespaceResponse), true
}
