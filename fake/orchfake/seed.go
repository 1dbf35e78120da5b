package orchfake

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/apitwin/apitwin/fake/orchfake/internal/visibility"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
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
	base := s.clientOptions(nil)
	if hc := s.ep.HTTPClient(); hc != nil {
		base = append(base, orch.WithHTTPClient(hc))
	}
	c, err := orch.NewHTTP(u, append(base, opts...)...)
	if err != nil {
		panic(fmt.Sprintf("orchfake: HTTP client: %v", err))
	}
	return c
}

// GRPCClient returns an orch client that dials GRPCAddr() (over TLS,
// trusting the fake's certificate, after Start with control.WithTLS), set up as Client is.
func (s *Server) GRPCClient(opts ...orch.Option) *orch.Client {
	addr := s.GRPCAddr()
	if addr == "" {
		panic("orchfake: GRPCClient needs a listening fake (Start or Listen)")
	}
	base := []orch.Option{orch.WithInsecure()}
	if cert := s.ep.Certificate(); cert != nil && s.serveTLS() {
		pool := x509.NewCertPool()
		pool.AddCert(cert)
		base = []orch.Option{orch.WithTLSConfig(&tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12})}
	}
	if ml := s.grpcMemListener(); ml != nil {
		addr = "passthrough:///" + addr // no name to resolve: the dialer reaches the listener
		base = append(base, orch.WithGRPCDialOptions(grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) {
			return ml.DialContext(ctx, "", "")
		})))
	}
	c, err := orch.Dial(addr, append(base, s.clientOptions(opts)...)...)
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

// Seed is data to load into the fake at once (see [Server.Load]): the
// shape of the orch part of apitwin-fake's --seed files.
type Seed struct {
	Namespaces []NamespaceSeed `json:"namespaces,omitempty" yaml:"namespaces,omitempty"`
	Executions []ExecutionSeed `json:"executions,omitempty" yaml:"executions,omitempty"`
}

// NamespaceSeed describes a namespace put in place by AddNamespace.
type NamespaceSeed struct {
	// Name is required; "default" exists already, and naming it adds its
	// search attributes.
	Name        string `json:"name" yaml:"name"`
	Description string `json:"description,omitempty" yaml:"description,omitempty"`
	OwnerEmail  string `json:"owner_email,omitempty" yaml:"owner_email,omitempty"`
	// Retention is a Go duration ("72h"); empty means DefaultRetention.
	Retention string `json:"retention,omitempty" yaml:"retention,omitempty"`
	// SearchAttributes are custom search attributes by name, with their
	// type: Keyword, Text, Int, Double, Bool, Datetime or KeywordList.
	SearchAttributes map[string]SearchAttributeType `json:"search_attributes,omitempty" yaml:"search_attributes,omitempty"`
}

// AddNamespace registers a namespace as RegisterNamespace does (same
// validation), with its search attributes, without auth or limits. All of
// the seed applies or none of it.
func (s *Server) AddNamespace(seed NamespaceSeed) error {
	req := &orchpb.RegisterNamespaceRequest{Namespace: seed.Name, Description: seed.Description, OwnerEmail: seed.OwnerEmail}
	if seed.Retention != "" {
		d, err := time.ParseDuration(seed.Retention)
		if err != nil {
			return fmt.Errorf("orchfake: retention: %w", err)
		}
		req.WorkflowExecutionRetentionPeriod = durationpb.New(d)
	}
	existing := seed.Name == DefaultNamespace
	if !existing {
		if err := validateNamespaceRequest(req); err != nil {
			return fmt.Errorf("orchfake: %w", err)
		}
	}
	names := slices.Sorted(maps.Keys(seed.SearchAttributes)) // the first bad one named is always the same
	types := make([]visibility.Type, len(names))
	for i, name := range names {
		t, err := visibility.ParseType(string(seed.SearchAttributes[name]))
		if err != nil {
			return fmt.Errorf("orchfake: search attribute %s: %w", name, err)
		}
		types[i] = t
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ns := s.st.namespaces[seed.Name]
	switch {
	case existing && ns != nil:
	case ns != nil:
		return fmt.Errorf("orchfake: namespace %q already exists", seed.Name)
	}
	// Try the attributes on a scratch schema first, so that a refusal
	// leaves nothing behind.
	scratch := visibility.NewSchema()
	if ns != nil {
		for name, t := range ns.schema.Custom() {
			_ = scratch.Register(name, t)
		}
	}
	for i, name := range names {
		if err := scratch.Register(name, types[i]); err != nil {
			return fmt.Errorf("orchfake: search attribute %s: %w", name, err)
		}
	}
	if ns == nil {
		ns = s.st.addNamespace(req)
	}
	for i, name := range names {
		_ = ns.schema.Register(name, types[i]) // checked on the scratch schema
	}
	return nil
}

// Load puts a seed in place: its namespaces, then its executions, in
// order. The first refusal stops it, named by entry
// ("executions[2]: ..."); the entries before it stay.
func (s *Server) Load(seed Seed) error {
	for i, ns := range seed.Namespaces {
		if err := s.AddNamespace(ns); err != nil {
			return fmt.Errorf("namespaces[%d]: %w", i, err)
		}
	}
	for i, e := range seed.Executions {
		if _, err := s.AddExecution(e); err != nil {
			return fmt.Errorf("executions[%d]: %w", i, err)
		}
	}
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

// ExecutionSeed describes an execution put in place by AddExecution.
type ExecutionSeed struct {
	Namespace    string `json:"namespace,omitempty" yaml:"namespace,omitempty"`   // default "default"
	WorkflowID   string `json:"workflow_id" yaml:"workflow_id"`                   // required
	WorkflowType string `json:"workflow_type" yaml:"workflow_type"`               // required
	TaskQueue    string `json:"task_queue,omitempty" yaml:"task_queue,omitempty"` // default "default"
	// Status is the execution's status: RUNNING (the default), COMPLETED,
	// FAILED, CANCELED, TERMINATED, CONTINUED_AS_NEW or TIMED_OUT, in any
	// case. A closed seed gets its closing event.
	Status    string    `json:"status,omitempty" yaml:"status,omitempty"`
	StartTime time.Time `json:"start_time,omitzero" yaml:"start_time,omitempty"` // default now on the fake clock
	CloseTime time.Time `json:"close_time,omitzero" yaml:"close_time,omitempty"` // for a closed seed; default StartTime
	// SearchAttributes are values of registered custom attributes, written
	// as JSON (a string, a number, a bool, a []string; a time.Time or an
	// RFC 3339 string for a Datetime).
	SearchAttributes map[string]any `json:"search_attributes,omitempty" yaml:"search_attributes,omitempty"`
	// Memo values, written as JSON.
	Memo map[string]any `json:"memo,omitempty" yaml:"memo,omitempty"`
}

// seedStatus reads an ExecutionSeed's Status.
func seedStatus(name string) (orchpb.WorkflowExecutionStatus, error) {
	if name == "" {
		return orchpb.WorkflowExecutionStatus_RUNNING, nil
	}
	n := strings.TrimPrefix(strings.ToUpper(name), "WORKFLOW_EXECUTION_STATUS_")
	if n == "CANCELLED" {
		n = "CANCELED"
	}
	v, ok := orchpb.WorkflowExecutionStatus_value[n]
	if !ok || v == int32(orchpb.WorkflowExecutionStatus_WORKFLOW_EXECUTION_STATUS_UNSPECIFIED) {
		return 0, fmt.Errorf("orchfake: status %q: want RUNNING, COMPLETED, FAILED, CANCELED, TERMINATED, CONTINUED_AS_NEW or TIMED_OUT", name)
	}
	return orchpb.WorkflowExecutionStatus(v), nil
}

// AddExecution puts an execution in place as seed says, with its start
// (and closing) events at the seed's times, validated as a start is; no
// rate limit applies and no timer is set. It returns the run id.
func (s *Server) AddExecution(seed ExecutionSeed) (string, error) {
	st, err := seedStatus(seed.Status)
	if err != nil {
		return "", err
	}
	if seed.Namespace == "" {
		seed.Namespace = DefaultNamespace
	}
	if seed.TaskQueue == "" {
		seed.TaskQueue = "default"
	}
	if !seed.CloseTime.IsZero() && st == orchpb.WorkflowExecutionStatus_RUNNING {
		return "", errors.New("orchfake: a running execution has no close_time")
	}
	req := &orchpb.StartWorkflowExecutionRequest{
		Namespace: seed.Namespace, WorkflowId: seed.WorkflowID,
		WorkflowType: &orchpb.WorkflowType{Name: seed.WorkflowType}, TaskQueue: seed.TaskQueue,
		WorkflowIdReusePolicy: orchpb.WorkflowIdReusePolicy_ALLOW_DUPLICATE,
	}
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
	if st == orchpb.WorkflowExecutionStatus_RUNNING {
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
	default: // TIMED_OUT
		s.add(e, orchpb.EventType_WorkflowExecutionTimedOut, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_WorkflowExecutionTimedOutEventAttributes{WorkflowExecutionTimedOutEventAttributes: &orchpb.WorkflowExecutionTimedOutEventAttributes{RetryState: orchpb.RetryState_TIMEOUT}}
		})
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
