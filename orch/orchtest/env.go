package orchtest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
	"github.com/apitwin/apitwin/orch/workflow"
)

// T is where an Env reports a test's failures: *testing.T, *testing.B and
// testing.TB have these methods.
type T interface {
	Helper()
	Errorf(format string, args ...any)
	Cleanup(func())
}

// Bounds and defaults of an Env (see Options).
const (
	DefaultTaskQueue = "orchtest"
	DefaultNamespace = "default"
	// DefaultWorkflowID is the executed workflow's id when the start
	// options name none.
	DefaultWorkflowID = "orchtest-workflow"
	// DefaultMaxWorkflowTasks bounds the workflow tasks of one
	// ExecuteWorkflow, all runs together: a workflow that never ends (a
	// timer loop, a continue-as-new chain) stops with an error instead
	// of running on in skipped time.
	DefaultMaxWorkflowTasks = 1_000
	// Identity is the identity the env writes where a worker's goes.
	Identity = "orchtest"
)

// Options are the settings of NewWithOptions.
type Options struct {
	// StartTime is the workflow time the run starts at (zero: the wall
	// clock when the Env is made, to the second).
	StartTime time.Time
	// TaskQueue is the run's task queue ("": DefaultTaskQueue).
	TaskQueue string
	// Namespace is what the history names as the namespace of children
	// and parents ("": DefaultNamespace).
	Namespace string
	// MaxWorkflowTasks bounds the workflow tasks of one ExecuteWorkflow
	// (0: DefaultMaxWorkflowTasks).
	MaxWorkflowTasks int
}

// Env runs workflow code in the test's process (see the package doc). It
// is not safe for concurrent use: register, mock and schedule callbacks,
// then ExecuteWorkflow, then read the outcome; callbacks run on the
// goroutine of ExecuteWorkflow.
type Env struct {
	t    T
	opts Options
	now  time.Time

	workflows  map[string]orch.Workflow
	activities map[string]func(context.Context, *orchpb.Payloads) (*orchpb.Payloads, error)
	mocks      map[string][]*Mock // by kind + "/" + type

	calls map[string][]Call // every activity attempt, by type

	runs      []*run          // every run, in the order started
	open      map[string]*run // the open run of each workflow id
	root      *run            // the executed workflow's latest run
	ready     []*activity     // attempts to run, in the order queued
	dues      []*due          // pending timers and callbacks
	dueSeq    int64
	runSeq    int
	updateSeq int // ids of updates sent without one
	tasks     int

	executing, executed bool
	setupErr            error // a registration or mock the test got wrong
	err                 error // the env's own failure: a task failed, blocked, a bound
}

// New returns an Env that reports to t (nil: report nothing; then check
// Err and Verify yourself). When the test ends, the mocks' expected call
// counts are checked.
func New(t T) *Env { return NewWithOptions(t, Options{}) }

// NewWithOptions is New with options.
func NewWithOptions(t T, o Options) *Env {
	if o.StartTime.IsZero() {
		o.StartTime = time.Now().UTC().Truncate(time.Second)
	}
	if o.TaskQueue == "" {
		o.TaskQueue = DefaultTaskQueue
	}
	if o.Namespace == "" {
		o.Namespace = DefaultNamespace
	}
	if o.MaxWorkflowTasks <= 0 {
		o.MaxWorkflowTasks = DefaultMaxWorkflowTasks
	}
	e := &Env{
		t: t, opts: o, now: o.StartTime,
		workflows:  map[string]orch.Workflow{},
		activities: map[string]func(context.Context, *orchpb.Payloads) (*orchpb.Payloads, error){},
		mocks:      map[string][]*Mock{},
		calls:      map[string][]Call{},
		open:       map[string]*run{},
	}
	if t != nil {
		t.Cleanup(func() {
			if err := e.Verify(); err != nil {
				t.Errorf("%v", err)
			}
		})
	}
	return e
}

// RegisterWorkflow registers fn, written with orch/workflow, as the
// workflow type name of env (the executed workflow, or a child that runs
// in the env), as workflow.Register does for a worker.
func RegisterWorkflow[In, Out any](env *Env, name string, fn func(ctx workflow.Context, in In) (Out, error)) {
	if fn == nil {
		env.setupError("orchtest: RegisterWorkflow %q needs a function", name)
		return
	}
	env.RegisterWorkflowHandler(name, workflow.New(fn))
}

// RegisterWorkflowHandler registers a workflow written on the worker's
// Decide model (orch.Workflow, orch.Sequence, workflow.NewWithOptions).
func (e *Env) RegisterWorkflowHandler(name string, wf orch.Workflow) {
	if name == "" || wf.Decide == nil {
		e.setupError("orchtest: RegisterWorkflowHandler %q needs a name and a Decide function", name)
		return
	}
	e.workflows[name] = wf
}

// RegisterActivity registers fn as the real implementation of the activity
// type name, run when no mock of the type takes the call (as
// orch.RegisterActivity does for a worker).
func RegisterActivity[In, Out any](env *Env, name string, fn func(ctx context.Context, in In) (Out, error)) {
	if fn == nil || name == "" {
		env.setupError("orchtest: RegisterActivity %q needs a name and a function", name)
		return
	}
	env.activities[name] = func(ctx context.Context, input *orchpb.Payloads) (*orchpb.Payloads, error) {
		var in In
		if len(input.GetPayloads()) > 0 {
			if err := orch.DecodePayload(input.GetPayloads()[0], &in); err != nil {
				return nil, orch.NonRetryable(fmt.Errorf("activity %s: %w", name, err))
			}
		}
		out, err := fn(ctx, in)
		if err != nil {
			return nil, err
		}
		return orch.EncodePayloads(out)
	}
}

// setupError reports a mistake in the test's set-up (to T, and as
// ExecuteWorkflow's error): the env does not panic.
func (e *Env) setupError(format string, args ...any) {
	err := fmt.Errorf(format, args...)
	e.report(err.Error())
	e.setupErr = errors.Join(e.setupErr, err)
}

// OnActivity returns a new mock of the activity type name (see Mock).
func (e *Env) OnActivity(name string) *Mock { return e.newMock("activity", name) }

// OnWorkflow returns a new mock of the child workflow type name: a child
// of that type is not run, the mock answers for it (see Mock).
func (e *Env) OnWorkflow(name string) *Mock { return e.newMock("workflow", name) }

func (e *Env) newMock(kind, name string) *Mock {
	m := &Mock{env: e, kind: kind, name: name, times: -1}
	e.mocks[kind+"/"+name] = append(e.mocks[kind+"/"+name], m)
	return m
}

// mockFor is the mock that takes the next call of kind name, or nil.
func (e *Env) mockFor(kind, name string) *Mock {
	for _, m := range e.mocks[kind+"/"+name] {
		if m.usable() {
			return m
		}
	}
	return nil
}

// ActivityCalls returns every attempt of the activity type name so far,
// whoever answered it (a mock, the registered implementation, nobody):
// the way to check that an activity was never called.
func (e *Env) ActivityCalls(name string) []Call { return slices.Clone(e.calls[name]) }

// Verify returns an error naming every mock whose calls missed what the
// test expected (Times, Once, at least one by default). New's T gets it
// when the test ends.
func (e *Env) Verify() error {
	keys := make([]string, 0, len(e.mocks))
	for k := range e.mocks {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var errs []string
	for _, k := range keys {
		for _, m := range e.mocks[k] {
			if s := m.unmet(); s != "" {
				errs = append(errs, s)
			}
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return errors.New("orchtest: unmet mock expectations:\n\t" + strings.Join(errs, "\n\t"))
}

// After runs fn when the workflow time reaches d after the start (a signal
// two hours in, a cancel request after a day). Callbacks due at the same
// time run in the order they were registered, before the workflow task
// that sees what they did; one due at 0 runs before the first task.
func (e *Env) After(d time.Duration, fn func()) {
	e.addDue(e.opts.StartTime.Add(max(d, 0)), fn)
}

// Now is the env's workflow time.
func (e *Env) Now() time.Time { return e.now }

// ExecuteWorkflow runs the workflow type name with input (opts may be
// nil; its ID, Memo, SearchAttributes, Header, RunTimeout and
// ExecutionTimeout are used) until it closes (continue-as-new followed),
// or can make no progress, or runs past MaxWorkflowTasks. It returns when
// it is done: read the outcome with Completed, Result, Err and History.
// An Env executes one workflow (a second call is reported to T and does
// nothing); a mistake in the set-up (a registration without a function,
// a Do of the wrong shape) ends it at once with that mistake as Err.
func (e *Env) ExecuteWorkflow(name string, input any, opts *orch.StartWorkflowOptions) {
	if e.executing || e.executed {
		// The first run's outcome stays; an Env executes one workflow.
		e.report(fmt.Sprintf("orchtest: ExecuteWorkflow(%q) called again on an Env that executed a workflow: use a new Env", name))
		return
	}
	e.executing = true
	defer func() { e.executing, e.executed = false, true }()
	if e.setupErr != nil {
		e.err = e.setupErr
		return
	}
	if opts == nil {
		opts = &orch.StartWorkflowOptions{}
	}
	attrs, err := startAttrs(name, e.opts.TaskQueue, input, opts)
	if err != nil {
		e.err = fmt.Errorf("orchtest: start %s: %w", name, err)
		return
	}
	id := opts.ID
	if id == "" {
		id = DefaultWorkflowID
	}
	e.root = e.startRun(id, attrs, nil)
	e.loop()
}

// startAttrs is the WorkflowExecutionStarted event of a start request.
func startAttrs(name, queue string, input any, o *orch.StartWorkflowOptions) (*orchpb.WorkflowExecutionStartedEventAttributes, error) {
	a := &orchpb.WorkflowExecutionStartedEventAttributes{WorkflowType: &orchpb.WorkflowType{Name: name}, TaskQueue: queue, Identity: Identity}
	var err error
	if input != nil {
		if a.Input, err = orch.EncodePayloads(input); err != nil {
			return nil, err
		}
	}
	enc := func(m map[string]any) (map[string]*orchpb.Payload, error) {
		if len(m) == 0 {
			return nil, nil
		}
		out := make(map[string]*orchpb.Payload, len(m))
		for k, v := range m {
			p, err := orch.EncodePayload(v)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			out[k] = p
		}
		return out, nil
	}
	memo, err := enc(o.Memo)
	if err != nil {
		return nil, fmt.Errorf("memo %w", err)
	}
	if memo != nil {
		a.Memo = &orchpb.Memo{Fields: memo}
	}
	search, err := enc(o.SearchAttributes)
	if err != nil {
		return nil, fmt.Errorf("search attribute %w", err)
	}
	if search != nil {
		a.SearchAttributes = &orchpb.SearchAttributes{IndexedFields: search}
	}
	header, err := enc(o.Header)
	if err != nil {
		return nil, fmt.Errorf("header %w", err)
	}
	if header != nil {
		a.Header = &orchpb.Header{Fields: header}
	}
	a.WorkflowRunTimeout = durationOrNil(o.RunTimeout)
	a.WorkflowExecutionTimeout = durationOrNil(o.ExecutionTimeout)
	if o.TaskTimeout > 0 {
		a.WorkflowTaskTimeout = durationOrNil(o.TaskTimeout)
	}
	return a, nil
}

// Completed reports whether the executed workflow closed (completed,
// failed, canceled, timed out or terminated) and the env did not stop for
// its own reasons (Err is then not a *orch.WorkflowExecutionError).
func (e *Env) Completed() bool {
	return e.root != nil && e.root.closed && e.err == nil
}

// Err is the outcome's error: nil when the workflow completed; a
// *orch.WorkflowExecutionError when it closed otherwise (failed, canceled,
// timed out, terminated), as orch.Client.GetResult returns it; a
// *BlockedError when it could make no progress; a *TaskFailedError when
// a workflow task failed (a panic, non-determinism); or an error saying
// that ExecuteWorkflow was not called or ran past MaxWorkflowTasks.
func (e *Env) Err() error {
	switch {
	case e.err != nil:
		return e.err
	case e.root == nil:
		return errors.New("orchtest: ExecuteWorkflow was not called")
	}
	return closeError(e.root)
}

// Result decodes the completed workflow's result into out (nil: only the
// error), or returns Err.
func (e *Env) Result(out any) error {
	if err := e.Err(); err != nil {
		return err
	}
	last := e.root.history[len(e.root.history)-1]
	res := last.GetWorkflowExecutionCompletedEventAttributes().GetResult()
	if out == nil || len(res.GetPayloads()) == 0 {
		return nil
	}
	return orch.DecodePayloads(res, out)
}

// closeError is what orch.Client.GetResult returns for a closed run.
func closeError(r *run) error {
	if !r.closed {
		return fmt.Errorf("orchtest: workflow %s (run %s) is still running", r.id, r.runID)
	}
	ev := r.history[len(r.history)-1]
	werr := &orch.WorkflowExecutionError{WorkflowID: r.id, RunID: r.runID, Status: r.status, Event: ev}
	switch r.status {
	case orchpb.WorkflowExecutionStatus_COMPLETED:
		return nil
	case orchpb.WorkflowExecutionStatus_FAILED:
		werr.Failure = ev.GetWorkflowExecutionFailedEventAttributes().GetFailure()
	}
	return werr
}

// History returns the history of the executed workflow's latest run, in
// the form workflow.Replay takes (and orch.Client.History gives).
func (e *Env) History() []*orchpb.HistoryEvent {
	if e.root == nil {
		return nil
	}
	return slices.Clone(e.root.history)
}

// Runs describes every run the env started, the executed workflow's, its
// continue-as-new successors and the children run in the env, in the
// order they started.
func (e *Env) Runs() []RunInfo {
	out := make([]RunInfo, 0, len(e.runs))
	for _, r := range e.runs {
		out = append(out, RunInfo{WorkflowID: r.id, RunID: r.runID, WorkflowType: r.typ, Status: r.status, History: slices.Clone(r.history)})
	}
	return out
}

// RunInfo is one run of Env.Runs.
type RunInfo struct {
	WorkflowID, RunID, WorkflowType string
	// Status is RUNNING while the run is open.
	Status  orchpb.WorkflowExecutionStatus
	History []*orchpb.HistoryEvent
}

// SearchAttributes returns the search attributes of the executed
// workflow's latest run: those it started with, then its upserts.
func (e *Env) SearchAttributes() *orchpb.SearchAttributes {
	if e.root == nil {
		return nil
	}
	return e.root.search
}

// Memo returns the memo of the executed workflow's latest run: the one it
// started with, then its upserts (workflow.UpsertMemo).
func (e *Env) Memo() *orchpb.Memo {
	if e.root == nil {
		return nil
	}
	return e.root.memo
}

// SignalWorkflow sends a signal to the executed workflow's latest run (from
// a callback of After, or before ExecuteWorkflow's first task with a
// callback at 0).
func (e *Env) SignalWorkflow(name string, arg any) error {
	if e.root == nil {
		return errors.New("orchtest: SignalWorkflow before ExecuteWorkflow: send it from a callback (After)")
	}
	return e.SignalWorkflowByID(e.root.id, name, arg)
}

// SignalWorkflowByID sends a signal to the open run of workflowID (a child
// run in the env, say).
func (e *Env) SignalWorkflowByID(workflowID, name string, arg any) error {
	r := e.open[workflowID]
	if r == nil {
		return e.notOpen(workflowID)
	}
	p, err := orch.EncodePayloads(arg)
	if err != nil {
		return err
	}
	r.add(orchpb.EventType_WorkflowExecutionSignaled, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_WorkflowExecutionSignaledEventAttributes{WorkflowExecutionSignaledEventAttributes: &orchpb.WorkflowExecutionSignaledEventAttributes{
			SignalName: name, Input: p, Identity: Identity}}
	})
	r.newEvents()
	return nil
}

// CancelWorkflow asks the executed workflow's latest run to cancel
// (WorkflowExecutionCancelRequested): the workflow decides, as with
// orch.Client.RequestCancelWorkflow.
func (e *Env) CancelWorkflow() error {
	if e.root == nil {
		return errors.New("orchtest: CancelWorkflow before ExecuteWorkflow: send it from a callback (After)")
	}
	return e.CancelWorkflowByID(e.root.id)
}

// CancelWorkflowByID asks the open run of workflowID (a child run in the
// env, say) to cancel.
func (e *Env) CancelWorkflowByID(workflowID string) error {
	r := e.open[workflowID]
	if r == nil {
		return e.notOpen(workflowID)
	}
	r.cancelRequested(&orchpb.WorkflowExecutionCancelRequestedEventAttributes{Identity: Identity})
	return nil
}

func (e *Env) notOpen(workflowID string) error {
	for _, r := range e.runs {
		if r.id == workflowID {
			return fmt.Errorf("orchtest: workflow %s: workflow execution already completed", workflowID)
		}
	}
	return fmt.Errorf("orchtest: workflow %s not found", workflowID)
}

// QueryWorkflow asks the executed workflow's latest run (open or closed)
// the query queryType with arg (nil: none) and decodes the answer into out
// (nil: none), as orch.Client.QueryWorkflow does: the workflow's Query
// runs over the history known now.
func (e *Env) QueryWorkflow(queryType string, arg, out any) error {
	if e.root == nil {
		return errors.New("orchtest: QueryWorkflow before ExecuteWorkflow")
	}
	return e.QueryWorkflowByID(e.root.id, queryType, arg, out)
}

// QueryWorkflowByID is QueryWorkflow of the latest run of workflowID.
func (e *Env) QueryWorkflowByID(workflowID, queryType string, arg, out any) error {
	var r *run
	for _, x := range e.runs {
		if x.id == workflowID {
			r = x
		}
	}
	if r == nil {
		return fmt.Errorf("orchtest: workflow %s not found", workflowID)
	}
	if r.wf.Query == nil {
		return fmt.Errorf("orchtest: workflow %s answers no queries", r.typ)
	}
	var args *orchpb.Payloads
	if arg != nil {
		var err error
		if args, err = orch.EncodePayloads(arg); err != nil {
			return err
		}
	}
	answer, err := safeQuery(r.wf, r.task(0), queryType, args)
	if err != nil {
		return fmt.Errorf("orchtest: query %s: %w", queryType, err)
	}
	p, err := orch.EncodePayloads(answer)
	if err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	return orch.DecodePayloads(p, out)
}

func safeQuery(wf orch.Workflow, t *orch.WorkflowTask, queryType string, args *orchpb.Payloads) (answer any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("query handler panicked: %v", r)
		}
	}()
	return wf.Query(context.Background(), t, queryType, args)
}
