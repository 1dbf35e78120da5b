package orchfake

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/orchfake/internal/visibility"
	"github.com/apitwin/apitwin/internal/cron"
	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// Execution defaults and bounds (see doc.go).
const (
	// DefaultWorkflowTaskTimeout applies when a start gives none.
	DefaultWorkflowTaskTimeout = 10 * time.Second
	// MaxWorkflowTaskTimeout bounds workflow_task_timeout.
	MaxWorkflowTaskTimeout = 120 * time.Second
	// MaxIDLength bounds workflow ids, request ids, task queue, type,
	// signal and identity names, in bytes.
	MaxIDLength = 1000
)

// execution is one run of a workflow.
type execution struct {
	ns          *namespace
	wf          *workflow
	id, runID   string
	firstRunID  string
	typ         string
	queue       string
	status      orchpb.WorkflowExecutionStatus
	start       time.Time
	execTime    time.Time
	closeTime   time.Time
	startReq    *orchpb.StartWorkflowExecutionRequest
	memo        *orchpb.Memo
	search      *orchpb.SearchAttributes
	searchVals  map[string]visibility.Value
	history     []*orchpb.HistoryEvent
	signals     map[string]bool    // request ids of recorded signals
	cancels     map[string]bool    // request ids of recorded cancel requests
	updates     map[string]*update // by update id, for the run's life (updates.go)
	wake        chan struct{}      // closed and replaced when an event is added
	timers      []*clock.Timer     // execution and run timeouts
	taskTimeout time.Duration
	// parent is the run that started this one as its child (nil for none),
	// with the parent's initiated event and the close policy it chose.
	parent          *execution
	parentInitiated int64
	parentPolicy    orchpb.ParentClosePolicy
	// resetBy is the request_id of the reset that made this run, if any.
	resetBy string
	// attempt counts the runs of a retry chain (1 for the first).
	attempt int32
	// expiry is when the whole execution times out (its first run's start
	// plus workflow_execution_timeout), kept across continue-as-new; zero
	// when it has no execution timeout.
	expiry time.Time

	eng engineState // the worker side: tasks, activities, timers

	// listed is the info List and Scan answer for this run, built by
	// listInfo and shared by every answer that holds it, so never changed
	// once built: a change to what it was built from (listedFrom) builds
	// a new one.
	listed     *orchpb.WorkflowExecutionInfo
	listedFrom infoStamp
	// listedJSON is listed as the HTTP side writes it (nil when
	// protoJSON declines it), for the info jsonFor.
	listedJSON []byte
	jsonFor    *orchpb.WorkflowExecutionInfo
	// infoEdits counts edits made in place to memo or search (an upsert):
	// whoever changes either without replacing it bumps it.
	infoEdits uint64
}

// infoStamp is everything info reads, to tell whether a listed info is
// still the run's.
type infoStamp struct {
	id, runID, firstRunID, typ, queue string
	status                            orchpb.WorkflowExecutionStatus
	historyLen                        int
	start, execTime, closeTime        time.Time
	memo                              *orchpb.Memo
	search                            *orchpb.SearchAttributes
	edits                             uint64
	parent                            *execution
}

func (e *execution) stamp() infoStamp {
	return infoStamp{
		id: e.id, runID: e.runID, firstRunID: e.firstRunID, typ: e.typ, queue: e.queue,
		status: e.status, historyLen: len(e.history),
		start: e.start, execTime: e.execTime, closeTime: e.closeTime,
		memo: e.memo, search: e.search, edits: e.infoEdits, parent: e.parent,
	}
}

// listInfo is the run's info for a List or Scan answer: the one built
// last while the run has not changed since, a new one otherwise. The
// message is shared with earlier answers, still being sent perhaps: it
// must not be changed. s.mu must be held.
func (e *execution) listInfo() *orchpb.WorkflowExecutionInfo {
	st := e.stamp()
	if e.listed == nil || st != e.listedFrom {
		e.listed, e.listedFrom = e.info(), st
	}
	return e.listed
}

// listJSON is listInfo's JSON as the HTTP side writes it, kept with it;
// nil when protoJSON declines it. s.mu must be held.
func (e *execution) listJSON() []byte {
	info := e.listInfo()
	if e.jsonFor != info {
		w := newProtoJSON(nil)
		w.writeWorkflowExecutionInfo(info)
		e.listedJSON, e.jsonFor = w.B, info
		if w.Bad {
			e.listedJSON = nil
		}
	}
	return e.listedJSON
}

func (e *execution) open() bool { return e.status == orchpb.WorkflowExecutionStatus_RUNNING }

func (e *execution) stopTimers() {
	for _, t := range e.timers {
		t.Stop()
	}
	e.timers = nil
	e.eng.stopTimers()
}

// add appends an event with the next id and the clock's time, and wakes
// every long poll on the history.
func (s *Server) add(e *execution, typ orchpb.EventType, set func(*orchpb.HistoryEvent)) *orchpb.HistoryEvent {
	s.materialize(e) // a transient workflow task's events come first
	ev := &orchpb.HistoryEvent{
		EventId:   int64(len(e.history) + 1),
		EventTime: timestamppb.New(s.clk.Now()),
		EventType: typ,
	}
	if set != nil {
		set(ev)
	}
	return s.appendEvent(e, ev)
}

// appendEvent appends ev (its id the next one) and wakes every long poll
// on the history.
func (s *Server) appendEvent(e *execution, ev *orchpb.HistoryEvent) *orchpb.HistoryEvent {
	e.history = append(e.history, ev)
	s.countEvents(1)
	close(e.wake)
	e.wake = make(chan struct{})
	s.limits.takeEvents(e.ns.info.Name, 1)
	return ev
}

// close ends the execution with status; the closing event is already in
// the history.
func (s *Server) closeExecution(e *execution, status orchpb.WorkflowExecutionStatus) {
	e.status = status
	e.closeTime = s.clk.Now()
	e.ns.running--
	e.stopTimers()
	children := e.eng.children
	s.engineClosed(e)
	s.applyParentClosePolicies(e, children)
	if status != orchpb.WorkflowExecutionStatus_CONTINUED_AS_NEW {
		s.continueChain(e, status)
		if e.wf.latest() == e { // a retry or cron run carries the chain on
			s.childClosed(e)
			if len(e.ns.scheduled) > 0 {
				s.scheduledRunClosed(e)
			}
		} else if next := e.wf.latest(); e.parent != nil {
			next.parent, next.parentInitiated, next.parentPolicy = e.parent, e.parentInitiated, e.parentPolicy
		}
	}
}

func (e *execution) info() *orchpb.WorkflowExecutionInfo {
	info := &orchpb.WorkflowExecutionInfo{
		Execution:           &orchpb.WorkflowExecution{WorkflowId: e.id, RunId: e.runID},
		Type:                &orchpb.WorkflowType{Name: e.typ},
		StartTime:           timestamppb.New(e.start),
		Status:              e.status,
		HistoryLength:       int64(len(e.history)),
		ExecutionTime:       timestamppb.New(e.execTime),
		TaskQueue:           e.queue,
		FirstExecutionRunId: e.firstRunID,
	}
	if !e.closeTime.IsZero() {
		info.CloseTime = timestamppb.New(e.closeTime)
	}
	if e.memo != nil {
		info.Memo = proto.Clone(e.memo).(*orchpb.Memo)
	}
	if p := e.parent; p != nil {
		info.ParentNamespace = p.ns.info.Name
		info.ParentExecution = &orchpb.WorkflowExecution{WorkflowId: p.id, RunId: p.runID}
	}
	if e.search != nil && len(e.search.GetIndexedFields()) > 0 {
		info.SearchAttributes = proto.Clone(e.search).(*orchpb.SearchAttributes)
	}
	return info
}

// Value implements visibility.Record.
func (e *execution) Value(name string) (visibility.Value, bool) {
	switch name {
	case visibility.AttrWorkflowID:
		return visibility.StringValue(e.id), true
	case visibility.AttrRunID:
		return visibility.StringValue(e.runID), true
	case visibility.AttrWorkflowType:
		return visibility.StringValue(e.typ), true
	case visibility.AttrExecutionStatus:
		return visibility.StringValue(statusName(e.status)), true
	case visibility.AttrTaskQueue:
		return visibility.StringValue(e.queue), true
	case visibility.AttrStartTime:
		return visibility.TimeValue(e.start), true
	case visibility.AttrExecutionTime:
		return visibility.TimeValue(e.execTime), true
	case visibility.AttrCloseTime:
		if e.closeTime.IsZero() {
			return visibility.Value{}, false
		}
		return visibility.TimeValue(e.closeTime), true
	}
	v, ok := e.searchVals[name]
	return v, ok
}

// Keyword implements visibility.KeywordRecord: Value's string values,
// without building a Value.
func (e *execution) Keyword(name string) (string, bool) {
	switch name {
	case visibility.AttrWorkflowID:
		return e.id, true
	case visibility.AttrRunID:
		return e.runID, true
	case visibility.AttrWorkflowType:
		return e.typ, true
	case visibility.AttrExecutionStatus:
		return statusName(e.status), true
	case visibility.AttrTaskQueue:
		return e.queue, true
	case visibility.AttrStartTime, visibility.AttrExecutionTime, visibility.AttrCloseTime:
		return "", false
	}
	v, ok := e.searchVals[name]
	if !ok {
		return "", false
	}
	return v.Str()
}

// statusName is a status as queries write it ("Running", "TimedOut").
func statusName(st orchpb.WorkflowExecutionStatus) string {
	switch st {
	case orchpb.WorkflowExecutionStatus_RUNNING:
		return visibility.StatusRunning
	case orchpb.WorkflowExecutionStatus_COMPLETED:
		return visibility.StatusCompleted
	case orchpb.WorkflowExecutionStatus_FAILED:
		return visibility.StatusFailed
	case orchpb.WorkflowExecutionStatus_CANCELED:
		return visibility.StatusCanceled
	case orchpb.WorkflowExecutionStatus_TERMINATED:
		return visibility.StatusTerminated
	case orchpb.WorkflowExecutionStatus_CONTINUED_AS_NEW:
		return visibility.StatusContinuedAsNew
	case orchpb.WorkflowExecutionStatus_TIMED_OUT:
		return visibility.StatusTimedOut
	}
	return ""
}

// expired reports whether a closed execution is past its namespace's
// retention: it is then gone, as if deleted.
func (s *Server) expired(e *execution) bool {
	return !e.open() && !e.closeTime.IsZero() && !s.clk.Now().Before(e.closeTime.Add(e.ns.retention()))
}

// lookup finds an execution: run "" (or "-") is the latest run. s.mu must
// be held.
func (s *Server) lookup(nsName string, we *orchpb.WorkflowExecution, field string) (*execution, error) {
	ns, err := s.st.namespace(nsName)
	if err != nil {
		return nil, err
	}
	id, run := we.GetWorkflowId(), trimRunID(we.GetRunId())
	if id == "" {
		return nil, badField(field+".workflow_id", "required")
	}
	var e *execution
	if run == "" {
		if wf := ns.workflows[id]; wf != nil {
			e = wf.latest()
		}
	} else if e = ns.runs[run]; e != nil && e.id != id {
		e = nil
	}
	if e == nil || s.expired(e) {
		if run == "" {
			return nil, errorf(orchwire.WorkflowExecutionNotFound, "workflow execution not found: workflow_id %q", id)
		}
		return nil, errorf(orchwire.WorkflowExecutionNotFound, "workflow execution not found: workflow_id %q, run_id %q", id, run)
	}
	return e, nil
}

// lookupOpen is lookup for an operation that needs a running execution.
func (s *Server) lookupOpen(nsName string, we *orchpb.WorkflowExecution, field string) (*execution, error) {
	e, err := s.lookup(nsName, we, field)
	if err != nil {
		return nil, err
	}
	if !e.open() {
		return nil, completedError(e)
	}
	return e, nil
}

func completedError(e *execution) *apiError {
	return errorf(orchwire.WorkflowExecutionCompleted, "workflow execution already completed: workflow_id %q, run_id %q, status %s",
		e.id, e.runID, e.status)
}

func validateStart(req *orchpb.StartWorkflowExecutionRequest, ns *namespace) (map[string]visibility.Value, error) {
	var v violations
	checkName(&v, "workflow_id", req.GetWorkflowId(), true)
	checkName(&v, "workflow_type.name", req.GetWorkflowType().GetName(), true)
	checkName(&v, "task_queue", req.GetTaskQueue(), true)
	checkName(&v, "request_id", req.GetRequestId(), false)
	checkName(&v, "identity", req.GetIdentity(), false)
	checkDuration(&v, "workflow_execution_timeout", req.GetWorkflowExecutionTimeout())
	checkDuration(&v, "workflow_run_timeout", req.GetWorkflowRunTimeout())
	checkDuration(&v, "workflow_task_timeout", req.GetWorkflowTaskTimeout())
	if d := req.GetWorkflowTaskTimeout(); d != nil && d.AsDuration() > MaxWorkflowTaskTimeout {
		v.add("workflow_task_timeout", "at most %s", MaxWorkflowTaskTimeout)
	}
	if _, ok := orchpb.WorkflowIdReusePolicy_name[int32(req.GetWorkflowIdReusePolicy())]; !ok {
		v.add("workflow_id_reuse_policy", "unknown policy %d", req.GetWorkflowIdReusePolicy())
	}
	if _, ok := orchpb.WorkflowIdConflictPolicy_name[int32(req.GetWorkflowIdConflictPolicy())]; !ok {
		v.add("workflow_id_conflict_policy", "unknown policy %d", req.GetWorkflowIdConflictPolicy())
	} else if req.GetWorkflowIdConflictPolicy() != orchpb.WorkflowIdConflictPolicy_WORKFLOW_ID_CONFLICT_POLICY_UNSPECIFIED &&
		req.GetWorkflowIdReusePolicy() == orchpb.WorkflowIdReusePolicy_TERMINATE_IF_RUNNING {
		// As the service: the reuse policy's TERMINATE_IF_RUNNING is the
		// old way to say TERMINATE_EXISTING; both at once is refused.
		v.add("workflow_id_reuse_policy", "TERMINATE_IF_RUNNING cannot be used together with a workflow_id_conflict_policy")
	}
	checkRetryPolicy(&v, "retry_policy", req.GetRetryPolicy())
	if c := req.GetCronSchedule(); c != "" {
		if err := checkCron(c); err != nil {
			v.add("cron_schedule", "%v", err)
		}
	}
	vals := searchValues(&v, ns, req.GetSearchAttributes())
	return vals, v.err()
}

// checkName checks an identifier-like string field.
func checkName(v *violations, field, s string, required bool) {
	switch {
	case s == "" && required:
		v.add(field, "required")
	case len(s) > MaxIDLength:
		v.add(field, "longer than %d bytes", MaxIDLength)
	}
}

func checkDuration(v *violations, field string, d *durationpb.Duration) {
	if d == nil {
		return
	}
	if !d.IsValid() || d.AsDuration() < 0 {
		v.add(field, "must be a non-negative duration such as \"30s\"")
	}
}

func checkRetryPolicy(v *violations, field string, p *orchpb.RetryPolicy) {
	if p == nil {
		return
	}
	checkDuration(v, field+".initial_interval", p.GetInitialInterval())
	checkDuration(v, field+".maximum_interval", p.GetMaximumInterval())
	if c := p.GetBackoffCoefficient(); math.IsNaN(c) || math.IsInf(c, 0) || (c != 0 && c < 1) {
		v.add(field+".backoff_coefficient", "must be a finite number of at least 1 (0 means 2), not %v", c)
	}
	if p.GetMaximumAttempts() < 0 {
		v.add(field+".maximum_attempts", "must not be negative (0 means unlimited)")
	}
	if mi, ii := p.GetMaximumInterval().AsDuration(), p.GetInitialInterval().AsDuration(); p.GetMaximumInterval() != nil && mi > 0 && mi < ii {
		v.add(field+".maximum_interval", "must not be less than initial_interval")
	}
}

// checkCron checks a cron_schedule (see cron.Parse).
func checkCron(c string) error {
	_, err := cron.Parse(c)
	return err
}

func (s *Server) startWorkflow(ctx context.Context, req *orchpb.StartWorkflowExecutionRequest) (*orchpb.StartWorkflowExecutionResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, started, err := s.startLocked(req, true)
	if err != nil {
		return nil, err
	}
	return &orchpb.StartWorkflowExecutionResponse{RunId: e.runID, Started: started}, nil
}

// startLocked starts a run; limited says whether the concurrency limit
// applies (not to seeding). s.mu must be held.
func (s *Server) startLocked(req *orchpb.StartWorkflowExecutionRequest, limited bool) (*execution, bool, error) {
	return s.startWith(req, limited, runExtras{})
}

// startWith is startLocked with what a run of a child, a signal-with-start
// (or, later, a retry or cron run) adds. s.mu must be held.
func (s *Server) startWith(req *orchpb.StartWorkflowExecutionRequest, limited bool, x runExtras) (*execution, bool, error) {
	if h := s.startHook.Load(); h != nil {
		(*h)()
	}
	ns, err := s.st.namespace(req.GetNamespace())
	if err != nil {
		return nil, false, err
	}
	vals, err := validateStart(req, ns)
	if err != nil {
		return nil, false, err
	}
	if limited {
		if err := ns.registered(); err != nil {
			return nil, false, err
		}
	}
	id := req.GetWorkflowId()
	if rid := req.GetRequestId(); rid != "" {
		if e := ns.starts[id+"\x00"+rid]; e != nil && !s.expired(e) {
			return e, false, nil
		}
	}
	wf := ns.workflows[id]
	if wf != nil && !s.expired(wf.latest()) {
		prev := wf.latest()
		policy := req.GetWorkflowIdReusePolicy()
		conflict := req.GetWorkflowIdConflictPolicy()
		switch {
		case prev.open() && conflict == orchpb.WorkflowIdConflictPolicy_WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING:
			return prev, false, nil
		case prev.open() && conflict == orchpb.WorkflowIdConflictPolicy_WORKFLOW_ID_CONFLICT_POLICY_TERMINATE_EXISTING:
			s.terminateLocked(prev, "terminated by a new start with WORKFLOW_ID_CONFLICT_POLICY_TERMINATE_EXISTING", nil, req.GetIdentity())
		case prev.open() && policy == orchpb.WorkflowIdReusePolicy_TERMINATE_IF_RUNNING:
			s.terminateLocked(prev, "terminated by a new start with TERMINATE_IF_RUNNING", nil, req.GetIdentity())
		case prev.open():
			return nil, false, alreadyStarted(prev, "is running")
		case policy == orchpb.WorkflowIdReusePolicy_REJECT_DUPLICATE:
			return nil, false, alreadyStarted(prev, "was used before and the reuse policy is REJECT_DUPLICATE")
		case policy == orchpb.WorkflowIdReusePolicy_ALLOW_DUPLICATE_FAILED_ONLY && prev.status == orchpb.WorkflowExecutionStatus_COMPLETED:
			return nil, false, alreadyStarted(prev, "completed successfully and the reuse policy is ALLOW_DUPLICATE_FAILED_ONLY")
		}
	}
	if limited {
		if lim := s.cfg.limits.NamespaceConcurrentExecutions; lim > 0 && ns.running >= lim {
			return nil, false, &apiError{
				code: orchwire.ResourceExhausted,
				msg:  fmt.Sprintf("rate limit exceeded for %s: at most %d concurrent workflow executions", scopeNamespace(ns.info.Name), lim),
				details: []*orchpb.ErrorDetail{{Type: orchwire.DetailRateLimitExceeded, Scope: scopeNamespace(ns.info.Name),
					Limit: int32(lim), Window: "concurrent", RetryAfter: 1}},
			}
		}
		if d := s.limits.eventsFull(ns.info.Name); !d.Allowed {
			return nil, false, rateErr(d)
		}
	}
	if !s.roomForRun() {
		return nil, false, s.full("workflow runs")
	}
	if err := s.eventsFull(); err != nil {
		return nil, false, err
	}
	if err := s.roomForQueue(ns, req.GetTaskQueue()); err != nil {
		return nil, false, err
	}
	return s.newRunWithID(ns, wf, req, vals, "", newID(), x), true, nil
}

// runExtras are what a new run may carry besides its start request.
type runExtras struct {
	// first writes events after WorkflowExecutionStarted and before the
	// first WorkflowTaskScheduled (a signal-with-start's signal).
	first func(e *execution)
	// parent, for a child workflow: the parent run and its initiated event.
	parent          *execution
	parentInitiated int64
	parentPolicy    orchpb.ParentClosePolicy
	// attempt (0 means 1), backoff before the first workflow task, and
	// what the previous run of a retry or cron chain left.
	attempt          int32
	backoff          time.Duration
	lastResult       *orchpb.Payloads
	continuedFailure *orchpb.Failure
}

func alreadyStarted(prev *execution, why string) *apiError {
	return &apiError{
		code: orchwire.WorkflowExecutionAlreadyStarted,
		msg:  fmt.Sprintf("workflow execution already started: workflow_id %q (run_id %q) %s", prev.id, prev.runID, why),
		details: []*orchpb.ErrorDetail{{Type: "WorkflowExecutionAlreadyStarted", Field: "workflow_id",
			Description: "run_id " + prev.runID}},
	}
}

// newRunWithID creates and starts a run with the given id:
// WorkflowExecutionStarted, then the first WorkflowTaskScheduled. continued
// is the run it continues, if any.
func (s *Server) newRunWithID(ns *namespace, wf *workflow, req *orchpb.StartWorkflowExecutionRequest, vals map[string]visibility.Value, continued, runID string, x runExtras) *execution {
	now := s.clk.Now()
	var wait time.Duration
	req = proto.Clone(req).(*orchpb.StartWorkflowExecutionRequest)
	if wf == nil {
		wf = &workflow{id: req.GetWorkflowId()}
		ns.workflows[wf.id] = wf
	}
	e := &execution{
		ns: ns, wf: wf, id: wf.id, runID: runID,
		typ: req.GetWorkflowType().GetName(), queue: req.GetTaskQueue(),
		status: orchpb.WorkflowExecutionStatus_RUNNING, start: now, execTime: now,
		startReq: req, memo: req.GetMemo(), search: req.GetSearchAttributes(), searchVals: vals,
		signals: map[string]bool{}, cancels: map[string]bool{}, wake: make(chan struct{}),
		taskTimeout: DefaultWorkflowTaskTimeout,
	}
	if d := req.GetWorkflowTaskTimeout(); d != nil && d.AsDuration() > 0 {
		e.taskTimeout = d.AsDuration()
	}
	e.firstRunID = e.runID
	if d := req.GetWorkflowExecutionTimeout().AsDuration(); d > 0 {
		e.expiry = now.Add(d)
	}
	e.parent, e.parentInitiated, e.parentPolicy = x.parent, x.parentInitiated, x.parentPolicy
	e.attempt = max(x.attempt, 1)
	if continued != "" {
		if c := ns.runs[continued]; c != nil {
			e.firstRunID = c.firstRunID
			e.expiry = c.expiry // the execution timeout runs across runs: the new run keeps what is left
			e.parent, e.parentInitiated, e.parentPolicy = c.parent, c.parentInitiated, c.parentPolicy
		}
	}
	wf.runs = append(wf.runs, e)
	ns.runs[e.runID] = e
	ns.unfiled = append(ns.unfiled, e)
	if rid := req.GetRequestId(); rid != "" {
		ns.starts[e.id+"\x00"+rid] = e
	}
	ns.running++
	s.st.shardFor(ns, e.id).executions++

	attrs := &orchpb.WorkflowExecutionStartedEventAttributes{
		WorkflowType:             req.GetWorkflowType(),
		TaskQueue:                req.GetTaskQueue(),
		Input:                    req.GetInput(),
		WorkflowExecutionTimeout: req.GetWorkflowExecutionTimeout(),
		WorkflowRunTimeout:       req.GetWorkflowRunTimeout(),
		WorkflowTaskTimeout:      durationpb.New(e.taskTimeout),
		Identity:                 req.GetIdentity(),
		ContinuedExecutionRunId:  continued,
		FirstExecutionRunId:      e.firstRunID,
		RetryPolicy:              req.GetRetryPolicy(),
		Attempt:                  e.attempt,
		LastCompletionResult:     x.lastResult,
		ContinuedFailure:         x.continuedFailure,
		CronSchedule:             req.GetCronSchedule(),
		Memo:                     req.GetMemo(),
		SearchAttributes:         req.GetSearchAttributes(),
		Header:                   req.GetHeader(),
	}
	if !e.expiry.IsZero() {
		attrs.WorkflowExecutionExpirationTime = timestamppb.New(e.expiry)
		s.after(e, e.expiry.Sub(now), func() { s.timeOut(e) })
	}
	if d := req.GetWorkflowRunTimeout().AsDuration(); d > 0 {
		s.after(e, d, func() { s.timeOut(e) })
	}
	if wait = s.firstTaskBackoff(req, x, now); wait > 0 {
		attrs.FirstWorkflowTaskBackoff = durationpb.New(wait)
		e.execTime = now.Add(wait)
	}
	if p := e.parent; p != nil {
		attrs.ParentWorkflowNamespace = p.ns.info.Name
		attrs.ParentWorkflowExecution = &orchpb.WorkflowExecution{WorkflowId: p.id, RunId: p.runID}
		attrs.ParentInitiatedEventId = e.parentInitiated
	}
	s.add(e, orchpb.EventType_WorkflowExecutionStarted, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_WorkflowExecutionStartedEventAttributes{WorkflowExecutionStartedEventAttributes: attrs}
	})
	if x.first != nil {
		x.first(e)
	}
	if wait > 0 {
		// A cron run waits for its time, a retry for its backoff: no
		// workflow task until then, whatever arrives.
		e.eng.delayed = true
		s.after(e, wait, func() { s.firstTaskDue(e) })
		return e
	}
	s.scheduleWorkflowTask(e)
	return e
}

// firstTaskDue ends the wait of a delayed run (cron, retry backoff): its
// first workflow task is scheduled. s.mu must be held.
func (s *Server) firstTaskDue(e *execution) {
	e.eng.delayed = false
	if e.open() && e.eng.wft == nil {
		s.scheduleWorkflowTask(e)
	}
}

// timeOut closes a run whose execution or run timeout fired.
func (s *Server) timeOut(e *execution) {
	if !e.open() {
		return
	}
	s.dropTransient(e)
	s.add(e, orchpb.EventType_WorkflowExecutionTimedOut, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_WorkflowExecutionTimedOutEventAttributes{
			WorkflowExecutionTimedOutEventAttributes: &orchpb.WorkflowExecutionTimedOutEventAttributes{RetryState: orchpb.RetryState_TIMEOUT},
		}
	})
	s.closeExecution(e, orchpb.WorkflowExecutionStatus_TIMED_OUT)
}

func (s *Server) getWorkflow(ctx context.Context, req *orchpb.GetWorkflowExecutionRequest) (*orchpb.GetWorkflowExecutionResponse, error) {
	size, err := pageSize(req.GetMaximumPageSize(), defaultHistoryPage, maxHistoryPage, "maximum_page_size")
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.lookup(req.GetNamespace(), req.GetExecution(), "execution")
	if err != nil {
		return nil, err
	}
	resp := &orchpb.GetWorkflowExecutionResponse{ExecutionInfo: e.info(), PendingActivities: s.pendingActivities(e),
		PendingChildren: pendingChildren(e), PendingWorkflowTask: pendingWorkflowTask(e)}
	end := min(size, len(e.history))
	resp.WorkflowExecutionHistory = cloneEvents(e.history[:end])
	if end < len(e.history) {
		resp.NextPageToken = historyToken(e.runID, int64(end+1))
	}
	return resp, nil
}

func cloneEvents(evs []*orchpb.HistoryEvent) []*orchpb.HistoryEvent {
	out := make([]*orchpb.HistoryEvent, len(evs))
	for i, ev := range evs {
		out[i] = proto.Clone(ev).(*orchpb.HistoryEvent)
	}
	return out
}

func (s *Server) terminateWorkflow(ctx context.Context, req *orchpb.TerminateWorkflowExecutionRequest) (*orchpb.TerminateWorkflowExecutionResponse, error) {
	var v violations
	checkName(&v, "identity", req.GetIdentity(), false)
	v.check(len(req.GetReason()) <= 4096, "reason", "longer than 4096 bytes")
	if err := v.err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.lookupOpen(req.GetNamespace(), req.GetWorkflowExecution(), "workflow_execution")
	if err != nil {
		return nil, err
	}
	s.terminateLocked(e, req.GetReason(), req.GetDetails(), req.GetIdentity())
	return &orchpb.TerminateWorkflowExecutionResponse{}, nil
}

func (s *Server) terminateLocked(e *execution, reason string, details *orchpb.Payloads, identity string) {
	s.dropTransient(e)
	s.add(e, orchpb.EventType_WorkflowExecutionTerminated, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_WorkflowExecutionTerminatedEventAttributes{
			WorkflowExecutionTerminatedEventAttributes: &orchpb.WorkflowExecutionTerminatedEventAttributes{Reason: reason, Details: details, Identity: identity},
		}
	})
	s.closeExecution(e, orchpb.WorkflowExecutionStatus_TERMINATED)
}

func (s *Server) signalWorkflow(ctx context.Context, req *orchpb.SignalWorkflowExecutionRequest) (*orchpb.SignalWorkflowExecutionResponse, error) {
	var v violations
	checkName(&v, "signal_name", req.GetSignalName(), true)
	checkName(&v, "identity", req.GetIdentity(), false)
	checkName(&v, "request_id", req.GetRequestId(), false)
	if err := v.err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.lookupOpen(req.GetNamespace(), req.GetWorkflowExecution(), "workflow_execution")
	if err != nil {
		return nil, err
	}
	if rid := req.GetRequestId(); rid != "" {
		if e.signals[rid] {
			return &orchpb.SignalWorkflowExecutionResponse{}, nil
		}
	}
	if err := s.historyFull(e); err != nil {
		return nil, err
	}
	if rid := req.GetRequestId(); rid != "" {
		e.signals[rid] = true
	}
	s.add(e, orchpb.EventType_WorkflowExecutionSignaled, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_WorkflowExecutionSignaledEventAttributes{
			WorkflowExecutionSignaledEventAttributes: &orchpb.WorkflowExecutionSignaledEventAttributes{
				SignalName: req.GetSignalName(), Input: req.GetInput(), Identity: req.GetIdentity(), Header: req.GetHeader(),
			},
		}
	})
	s.newEventsForWorker(e)
	return &orchpb.SignalWorkflowExecutionResponse{}, nil
}

func (s *Server) requestCancelWorkflow(ctx context.Context, req *orchpb.RequestCancelWorkflowExecutionRequest) (*orchpb.RequestCancelWorkflowExecutionResponse, error) {
	var v violations
	checkName(&v, "identity", req.GetIdentity(), false)
	checkName(&v, "request_id", req.GetRequestId(), false)
	v.check(len(req.GetReason()) <= 4096, "reason", "longer than 4096 bytes")
	if err := v.err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.lookupOpen(req.GetNamespace(), req.GetWorkflowExecution(), "workflow_execution")
	if err != nil {
		return nil, err
	}
	if rid := req.GetRequestId(); rid != "" {
		if e.cancels[rid] {
			return &orchpb.RequestCancelWorkflowExecutionResponse{}, nil
		}
	}
	if err := s.historyFull(e); err != nil {
		return nil, err
	}
	if rid := req.GetRequestId(); rid != "" {
		e.cancels[rid] = true
	}
	s.cancelRequested(e, &orchpb.WorkflowExecutionCancelRequestedEventAttributes{Cause: req.GetReason(), Identity: req.GetIdentity()})
	return &orchpb.RequestCancelWorkflowExecutionResponse{}, nil
}

// cancelRequested writes WorkflowExecutionCancelRequested and gives the
// workflow a task to decide on it (the workflow, not the service, ends
// itself: unlike terminate). s.mu must be held.
func (s *Server) cancelRequested(e *execution, a *orchpb.WorkflowExecutionCancelRequestedEventAttributes) {
	s.add(e, orchpb.EventType_WorkflowExecutionCancelRequested, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_WorkflowExecutionCancelRequestedEventAttributes{WorkflowExecutionCancelRequestedEventAttributes: a}
	})
	s.newEventsForWorker(e)
}

func (s *Server) signalWithStart(ctx context.Context, req *orchpb.SignalWithStartWorkflowExecutionRequest) (*orchpb.SignalWithStartWorkflowExecutionResponse, error) {
	var v violations
	checkName(&v, "signal_name", req.GetSignalName(), true)
	if err := v.err(); err != nil {
		return nil, err
	}
	start := &orchpb.StartWorkflowExecutionRequest{
		Namespace: req.GetNamespace(), WorkflowId: req.GetWorkflowId(), WorkflowType: req.GetWorkflowType(), TaskQueue: req.GetTaskQueue(),
		Input: req.GetInput(), WorkflowExecutionTimeout: req.GetWorkflowExecutionTimeout(), WorkflowRunTimeout: req.GetWorkflowRunTimeout(),
		WorkflowTaskTimeout: req.GetWorkflowTaskTimeout(), Identity: req.GetIdentity(), RequestId: req.GetRequestId(),
		WorkflowIdReusePolicy: req.GetWorkflowIdReusePolicy(), RetryPolicy: req.GetRetryPolicy(), CronSchedule: req.GetCronSchedule(),
		Memo: req.GetMemo(), SearchAttributes: req.GetSearchAttributes(), Header: req.GetHeader(),
		WorkflowIdConflictPolicy: req.GetWorkflowIdConflictPolicy(),
	}
	if req.GetWorkflowIdConflictPolicy() == orchpb.WorkflowIdConflictPolicy_WORKFLOW_ID_CONFLICT_POLICY_FAIL {
		// As the service: signal-with-start exists to reach the running run.
		return nil, badField("workflow_id_conflict_policy", "signal-with-start does not support WORKFLOW_ID_CONFLICT_POLICY_FAIL")
	}
	signal := func(e *execution) {
		if rid := req.GetRequestId(); rid != "" {
			e.signals[rid] = true
		}
		s.add(e, orchpb.EventType_WorkflowExecutionSignaled, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_WorkflowExecutionSignaledEventAttributes{
				WorkflowExecutionSignaledEventAttributes: &orchpb.WorkflowExecutionSignaledEventAttributes{
					SignalName: req.GetSignalName(), Input: req.GetSignalInput(), Identity: req.GetIdentity(), Header: req.GetHeader(),
				},
			}
		})
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ns, err := s.st.namespace(req.GetNamespace())
	if err != nil {
		return nil, err
	}
	if wf := ns.workflows[req.GetWorkflowId()]; wf != nil && wf.latest().open() &&
		start.GetWorkflowIdConflictPolicy() != orchpb.WorkflowIdConflictPolicy_WORKFLOW_ID_CONFLICT_POLICY_TERMINATE_EXISTING {
		// Running: validate as a start would, then only signal.
		if _, err := validateStart(start, ns); err != nil {
			return nil, err
		}
		e := wf.latest()
		if rid := req.GetRequestId(); rid == "" || !e.signals[rid] {
			if err := s.historyFull(e); err != nil {
				return nil, err
			}
			signal(e)
			s.newEventsForWorker(e)
		}
		return &orchpb.SignalWithStartWorkflowExecutionResponse{RunId: e.runID}, nil
	}
	e, started, err := s.startWith(start, true, runExtras{first: signal})
	if err != nil {
		return nil, err
	}
	return &orchpb.SignalWithStartWorkflowExecutionResponse{RunId: e.runID, Started: started}, nil
}

// dropTransient withdraws a transient workflow task before the execution
// closes from outside, so its events are never written.
func (s *Server) dropTransient(e *execution) {
	if t := e.eng.wft; t != nil && t.transient {
		s.cancelTimer(e, t.timeout)
		s.cancelTimer(e, t.delay)
		e.eng.wft = nil
	}
}
