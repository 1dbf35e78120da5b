package orchtest

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/apitwin/apitwin/internal/orchact"
	"github.com/apitwin/apitwin/internal/orchsem"
	"github.com/apitwin/apitwin/internal/wfprobe"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// defaultTaskTimeout is the workflow task timeout the service records
// when the start names none, as orchfake does.
const defaultTaskTimeout = 10 * time.Second

// due is a pending timer or callback at a workflow time.
type due struct {
	at   time.Time
	seq  int64
	fn   func()
	dead bool
}

func (e *Env) addDue(at time.Time, fn func()) *due {
	e.dueSeq++
	d := &due{at: at, seq: e.dueSeq, fn: fn}
	e.dues = append(e.dues, d)
	return d
}

func (d *due) stop() {
	if d != nil {
		d.dead = true
	}
}

// nextDue removes and returns the earliest live due (by time, then the
// order it was added), or nil.
func (e *Env) nextDue() *due {
	e.dues = slices.DeleteFunc(e.dues, func(d *due) bool { return d.dead })
	if len(e.dues) == 0 {
		return nil
	}
	i := 0
	for j, d := range e.dues {
		if d.at.Before(e.dues[i].at) || d.at.Equal(e.dues[i].at) && d.seq < e.dues[i].seq {
			i = j
		}
	}
	return e.dues[i]
}

// loop runs the env until the executed workflow's chain closes or nothing
// can happen. One step at a time, in a fixed order, so a test sees the
// same history on every run: an activity attempt that is ready, else a
// timer or callback due now, else a workflow task (runs in the order they
// started), else the clock skips to the next due.
func (e *Env) loop() {
	for e.err == nil {
		if e.root.closed && e.root.next == nil {
			return
		}
		if len(e.ready) > 0 {
			a := e.ready[0]
			e.ready = e.ready[1:]
			e.runAttempt(a)
			continue
		}
		d := e.nextDue()
		if d != nil && !d.at.After(e.now) {
			d.dead = true
			d.fn()
			continue
		}
		if r := e.nextTask(); r != nil {
			if e.tasks >= e.opts.MaxWorkflowTasks {
				e.err = fmt.Errorf("orchtest: more than %d workflow tasks (Options.MaxWorkflowTasks): a workflow that never ends?", e.opts.MaxWorkflowTasks)
				return
			}
			e.tasks++
			r.runTask()
			continue
		}
		if d != nil {
			e.now = d.at
			continue
		}
		e.err = e.blocked()
	}
}

func (e *Env) nextTask() *run {
	for _, r := range e.runs {
		if !r.closed && r.taskScheduled > 0 {
			return r
		}
	}
	return nil
}

// run is one workflow run in the env, with its history and what its
// workflow task's commands started.
type run struct {
	env        *Env
	id, runID  string
	typ        string
	firstRunID string
	wf         orch.Workflow
	history    []*orchpb.HistoryEvent
	started    *orchpb.WorkflowExecutionStartedEventAttributes
	search     *orchpb.SearchAttributes
	memo       *orchpb.Memo

	closed bool
	status orchpb.WorkflowExecutionStatus
	next   *run // the run it continued as

	taskScheduled int64 // the WorkflowTaskScheduled of the pending task, 0 for none
	lastStarted   int64 // the WorkflowTaskStarted of the last completed task
	timeouts      []*due

	activities map[int64]*activity
	timers     map[string]*userTimer
	children   map[int64]*childRef // open children, by initiated event id
	pending    []int64             // children initiated by the task being completed
	signalsOut []signalOut         // signals initiated by the task being completed

	// signals are the signal channels the code waits on, as its last
	// task left them (see orch/workflow's probe).
	signals []string

	parent       *run
	parentInit   int64
	parentPolicy orchpb.ParentClosePolicy

	// updates are the run's updates by id (update.go); admitted those
	// waiting for its next task.
	updates  map[string]*Update
	admitted []*Update
}

type userTimer struct {
	startedID int64
	d         *due
}

// childRef is a child as its parent knows it: run in the env (run) or
// answered by a mock (mocked).
type childRef struct {
	initiatedID, startedID int64
	attrs                  *orchpb.StartChildWorkflowExecutionCommandAttributes
	run                    *run
	mockID                 string // the mocked child's run id
	mockDue                *due
}

// startRun starts a run of workflow id; parent is the run that started it
// as a child, or nil.
func (e *Env) startRun(id string, attrs *orchpb.WorkflowExecutionStartedEventAttributes, parent *run) *run {
	e.runSeq++
	r := &run{env: e, id: id, runID: fmt.Sprintf("orchtest-run-%d", e.runSeq), typ: attrs.GetWorkflowType().GetName(),
		started: attrs, search: attrs.GetSearchAttributes(), memo: attrs.GetMemo(), status: orchpb.WorkflowExecutionStatus_RUNNING,
		activities: map[int64]*activity{}, timers: map[string]*userTimer{}, children: map[int64]*childRef{}}
	r.firstRunID = r.runID
	if cont := attrs.GetContinuedExecutionRunId(); cont != "" {
		r.firstRunID = attrs.GetFirstExecutionRunId()
	}
	attrs.FirstExecutionRunId = r.firstRunID
	if attrs.GetWorkflowTaskTimeout() == nil {
		attrs.WorkflowTaskTimeout = durationpb.New(defaultTaskTimeout)
	}
	attrs.Attempt = max(attrs.GetAttempt(), 1)
	e.runs = append(e.runs, r)
	e.open[id] = r
	r.add(orchpb.EventType_WorkflowExecutionStarted, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_WorkflowExecutionStartedEventAttributes{WorkflowExecutionStartedEventAttributes: attrs}
	})
	wf, ok := e.workflows[r.typ]
	if !ok {
		// Nothing would ever answer its tasks: say so rather than wait.
		msg := fmt.Sprintf("orchtest: workflow type %s is neither registered (RegisterWorkflow) nor mocked (OnWorkflow)", r.typ)
		e.report(msg)
		e.err = errors.New(msg)
		return r
	}
	r.wf = wf
	if d := attrs.GetWorkflowRunTimeout().AsDuration(); d > 0 {
		r.timeouts = append(r.timeouts, e.addDue(e.now.Add(d), r.timedOut))
	}
	if exp := attrs.GetWorkflowExecutionExpirationTime(); exp != nil {
		r.timeouts = append(r.timeouts, e.addDue(exp.AsTime(), r.timedOut))
	} else if d := attrs.GetWorkflowExecutionTimeout().AsDuration(); d > 0 {
		attrs.WorkflowExecutionExpirationTime = timestamppb.New(e.now.Add(d))
		r.timeouts = append(r.timeouts, e.addDue(e.now.Add(d), r.timedOut))
	}
	r.scheduleTask()
	return r
}

// report fails the test with msg, when the env has a T.
func (e *Env) report(msg string) {
	if e.t != nil {
		e.t.Helper()
		e.t.Errorf("%s", msg)
	}
}

func (r *run) add(typ orchpb.EventType, set func(*orchpb.HistoryEvent)) *orchpb.HistoryEvent {
	ev := &orchpb.HistoryEvent{EventId: int64(len(r.history) + 1), EventTime: timestamppb.New(r.env.now), EventType: typ}
	if set != nil {
		set(ev)
	}
	r.history = append(r.history, ev)
	return ev
}

func (r *run) scheduleTask() {
	if r.closed || r.taskScheduled > 0 {
		return
	}
	r.taskScheduled = r.add(orchpb.EventType_WorkflowTaskScheduled, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_WorkflowTaskScheduledEventAttributes{WorkflowTaskScheduledEventAttributes: &orchpb.WorkflowTaskScheduledEventAttributes{
			TaskQueue: &orchpb.TaskQueue{Name: r.started.GetTaskQueue(), Kind: orchpb.TaskQueueKind_NORMAL}, StartToCloseTimeout: r.started.GetWorkflowTaskTimeout(), Attempt: 1}}
	}).GetEventId()
}

// newEvents is called after an event the workflow must see: a task is
// scheduled unless one is.
func (r *run) newEvents() { r.scheduleTask() }

// task is the workflow task Decide (or Query) sees: the whole history,
// the last WorkflowTaskStarted being startedID (0: none, a query).
func (r *run) task(startedID int64) *orch.WorkflowTask {
	h := r.history[:len(r.history):len(r.history)]
	return &orch.WorkflowTask{WorkflowID: r.id, RunID: r.runID, WorkflowType: r.typ, History: h,
		PreviousStartedEventID: r.lastStarted, Attempt: 1,
		Raw: &orchpb.PollWorkflowTaskQueueResponse{WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: r.id, RunId: r.runID},
			WorkflowType: &orchpb.WorkflowType{Name: r.typ}, PreviousStartedEventId: r.lastStarted, StartedEventId: startedID, Attempt: 1}}
}

// runTask runs the pending workflow task: WorkflowTaskStarted, Decide,
// then WorkflowTaskCompleted and the events of its commands, as the
// service records them.
func (r *run) runTask() {
	e := r.env
	sched := r.taskScheduled
	started := r.add(orchpb.EventType_WorkflowTaskStarted, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_WorkflowTaskStartedEventAttributes{WorkflowTaskStartedEventAttributes: &orchpb.WorkflowTaskStartedEventAttributes{
			ScheduledEventId: sched, Identity: Identity}}
	}).GetEventId()
	probe := &wfprobe.Probe{}
	t := r.task(started)
	t.Raw.ProtocolMessages = r.deliverUpdates(started)
	cmds, err := safeDecide(wfprobe.With(context.Background(), probe), r.wf, t)
	r.signals = slices.Clone(probe.Signals)
	msgs := t.Answers()
	if err == nil {
		err = checkCommands(r, cmds)
	}
	if err == nil {
		err = checkMessages(r, msgs, cmds)
	}
	if err != nil {
		// The service would retry the task; the same code over the same
		// history fails the same way, so the env stops and says why.
		r.add(orchpb.EventType_WorkflowTaskFailed, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_WorkflowTaskFailedEventAttributes{WorkflowTaskFailedEventAttributes: &orchpb.WorkflowTaskFailedEventAttributes{
				ScheduledEventId: sched, StartedEventId: started, Cause: orchpb.WorkflowTaskFailedCause_WORKFLOW_WORKER_UNHANDLED_FAILURE,
				Failure: &orchpb.Failure{Message: err.Error(), Source: Identity}, Identity: Identity}}
		})
		e.err = &TaskFailedError{WorkflowID: r.id, RunID: r.runID, WorkflowType: r.typ, EventID: started, Err: err}
		return
	}
	done := r.add(orchpb.EventType_WorkflowTaskCompleted, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_WorkflowTaskCompletedEventAttributes{WorkflowTaskCompletedEventAttributes: &orchpb.WorkflowTaskCompletedEventAttributes{
			ScheduledEventId: sched, StartedEventId: started, Identity: Identity}}
	}).GetEventId()
	r.taskScheduled = 0
	r.lastStarted = started
	askedToCancel := false
	applied := map[string]bool{}
	for _, c := range cmds {
		if r.closed {
			break
		}
		if id := c.GetProtocolMessageCommandAttributes().GetMessageId(); c.GetCommandType() == orchpb.CommandType_PROTOCOL_MESSAGE {
			for _, m := range msgs {
				if m.GetId() == id && !applied[id] {
					applied[id] = true
					r.applyMessage(m)
				}
			}
			continue
		}
		r.apply(c, done)
		askedToCancel = askedToCancel || c.GetCommandType() == orchpb.CommandType_REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION
	}
	for _, m := range msgs { // the messages no command placed come after the commands
		if !applied[m.GetId()] {
			r.applyMessage(m)
		}
	}
	r.startChildren()
	r.sendSignals()
	if askedToCancel {
		r.newEvents()
	}
}

func safeDecide(ctx context.Context, wf orch.Workflow, t *orch.WorkflowTask) (cmds []*orchpb.Command, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("workflow task panicked: %v\n%s", p, debug.Stack())
		}
	}()
	return wf.Decide(ctx, t)
}

// TaskFailedError stops an Env whose workflow task failed: Decide returned
// an error (a panic in workflow code, a *workflow.NonDeterminismError, a
// *workflow.DeadlockError) or a command the service refuses. The service
// would retry the task; the env does not, as the same code fails the same
// way. errors.As reaches the cause.
type TaskFailedError struct {
	WorkflowID, RunID, WorkflowType string
	// EventID is the task's WorkflowTaskStarted event.
	EventID int64
	Err     error
}

func (e *TaskFailedError) Error() string {
	return fmt.Sprintf("orchtest: workflow %s (%s, run %s): workflow task %d failed: %v", e.WorkflowID, e.WorkflowType, e.RunID, e.EventID, e.Err)
}

func (e *TaskFailedError) Unwrap() error { return e.Err }

// checkCommands refuses what the service refuses before applying any
// command (the checks that matter to workflow code written with this
// module's packages).
func checkCommands(r *run, cmds []*orchpb.Command) error {
	ids := map[string]bool{}
	for _, a := range r.activities {
		ids[a.attrs.GetActivityId()] = true
	}
	timers := map[string]bool{}
	for id := range r.timers {
		timers[id] = true
	}
	for i, c := range cmds {
		closes := orchsem.ClosesRun(c.GetCommandType())
		switch c.GetCommandType() {
		case orchpb.CommandType_SCHEDULE_ACTIVITY_TASK:
			a := c.GetScheduleActivityTaskCommandAttributes()
			switch {
			case a.GetActivityId() == "" || a.GetActivityType().GetName() == "":
				return fmt.Errorf("command %d: BAD_SCHEDULE_ACTIVITY_ATTRIBUTES: activity_id and activity_type are required", i)
			case a.GetScheduleToCloseTimeout().AsDuration() <= 0 && a.GetStartToCloseTimeout().AsDuration() <= 0:
				return fmt.Errorf("command %d: BAD_SCHEDULE_ACTIVITY_ATTRIBUTES: one of schedule_to_close_timeout and start_to_close_timeout is required", i)
			case ids[a.GetActivityId()]:
				return fmt.Errorf("command %d: BAD_SCHEDULE_ACTIVITY_ATTRIBUTES: activity_id %q is already in use", i, a.GetActivityId())
			}
			ids[a.GetActivityId()] = true
		case orchpb.CommandType_REQUEST_CANCEL_ACTIVITY_TASK:
			if r.activities[c.GetRequestCancelActivityTaskCommandAttributes().GetScheduledEventId()] == nil {
				return fmt.Errorf("command %d: BAD_REQUEST_CANCEL_ACTIVITY_ATTRIBUTES: no open activity scheduled by event %d", i, c.GetRequestCancelActivityTaskCommandAttributes().GetScheduledEventId())
			}
		case orchpb.CommandType_START_TIMER:
			a := c.GetStartTimerCommandAttributes()
			if a.GetTimerId() == "" || a.GetStartToFireTimeout().AsDuration() <= 0 || timers[a.GetTimerId()] {
				return fmt.Errorf("command %d: BAD_START_TIMER_ATTRIBUTES: a timer needs a new timer_id and a positive start_to_fire_timeout", i)
			}
			timers[a.GetTimerId()] = true
		case orchpb.CommandType_CANCEL_TIMER:
			id := c.GetCancelTimerCommandAttributes().GetTimerId()
			if !timers[id] {
				return fmt.Errorf("command %d: BAD_CANCEL_TIMER_ATTRIBUTES: no open timer %q", i, id)
			}
			delete(timers, id)
		case orchpb.CommandType_RECORD_MARKER:
			if c.GetRecordMarkerCommandAttributes().GetMarkerName() == "" {
				return fmt.Errorf("command %d: BAD_RECORD_MARKER_ATTRIBUTES: marker_name is required", i)
			}
		case orchpb.CommandType_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES:
			if len(c.GetUpsertWorkflowSearchAttributesCommandAttributes().GetSearchAttributes().GetIndexedFields()) == 0 {
				return fmt.Errorf("command %d: BAD_SEARCH_ATTRIBUTES: no search attributes", i)
			}
		case orchpb.CommandType_START_CHILD_WORKFLOW_EXECUTION:
			a := c.GetStartChildWorkflowExecutionCommandAttributes()
			if a.GetWorkflowId() == "" || a.GetWorkflowType().GetName() == "" {
				return fmt.Errorf("command %d: BAD_START_CHILD_EXECUTION_ATTRIBUTES: workflow_id and workflow_type are required", i)
			}
		case orchpb.CommandType_PROTOCOL_MESSAGE:
			// checked with the task's messages (checkMessages)
		case orchpb.CommandType_REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION:
			if c.GetRequestCancelExternalWorkflowExecutionCommandAttributes().GetWorkflowId() == "" {
				return fmt.Errorf("command %d: BAD_REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION_ATTRIBUTES: workflow_id is required", i)
			}
		case orchpb.CommandType_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION:
			a := c.GetSignalExternalWorkflowExecutionCommandAttributes()
			if a.GetExecution().GetWorkflowId() == "" || a.GetSignalName() == "" {
				return fmt.Errorf("command %d: BAD_SIGNAL_WORKFLOW_EXECUTION_ATTRIBUTES: execution.workflow_id and signal_name are required", i)
			}
		case orchpb.CommandType_UPSERT_WORKFLOW_PROPERTIES:
			if len(c.GetUpsertWorkflowPropertiesCommandAttributes().GetUpsertedMemo().GetFields()) == 0 {
				return fmt.Errorf("command %d: BAD_MODIFY_WORKFLOW_PROPERTIES_ATTRIBUTES: upserted_memo has no fields", i)
			}
		default:
			if !closes { // the commands that end the run need no check here
				return fmt.Errorf("command %d: BAD_COMMAND: unknown command_type %d", i, c.GetCommandType())
			}
		}
		if closes && i != len(cmds)-1 {
			return fmt.Errorf("command %d: BAD_COMMAND: it closes the workflow but is not the last", i)
		}
	}
	return nil
}

// apply writes a checked command's events and does what it says.
func (r *run) apply(c *orchpb.Command, done int64) {
	switch a := c.GetAttributes().(type) {
	case *orchpb.Command_ScheduleActivityTaskCommandAttributes:
		r.scheduleActivity(a.ScheduleActivityTaskCommandAttributes, done)
	case *orchpb.Command_RequestCancelActivityTaskCommandAttributes:
		r.requestCancelActivity(a.RequestCancelActivityTaskCommandAttributes.GetScheduledEventId(), done)
	case *orchpb.Command_StartTimerCommandAttributes:
		x := a.StartTimerCommandAttributes
		ev := r.add(orchpb.EventType_TimerStarted, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_TimerStartedEventAttributes{TimerStartedEventAttributes: &orchpb.TimerStartedEventAttributes{
				TimerId: x.GetTimerId(), StartToFireTimeout: x.GetStartToFireTimeout(), WorkflowTaskCompletedEventId: done}}
		})
		ut := &userTimer{startedID: ev.GetEventId()}
		id := x.GetTimerId()
		ut.d = r.env.addDue(r.env.now.Add(x.GetStartToFireTimeout().AsDuration()), func() {
			delete(r.timers, id)
			r.add(orchpb.EventType_TimerFired, func(ev *orchpb.HistoryEvent) {
				ev.Attributes = &orchpb.HistoryEvent_TimerFiredEventAttributes{TimerFiredEventAttributes: &orchpb.TimerFiredEventAttributes{TimerId: id, StartedEventId: ut.startedID}}
			})
			r.newEvents()
		})
		r.timers[id] = ut
	case *orchpb.Command_CancelTimerCommandAttributes:
		id := a.CancelTimerCommandAttributes.GetTimerId()
		ut := r.timers[id]
		delete(r.timers, id)
		ut.d.stop()
		r.add(orchpb.EventType_TimerCanceled, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_TimerCanceledEventAttributes{TimerCanceledEventAttributes: &orchpb.TimerCanceledEventAttributes{
				TimerId: id, StartedEventId: ut.startedID, WorkflowTaskCompletedEventId: done, Identity: Identity}}
		})
	case *orchpb.Command_CompleteWorkflowExecutionCommandAttributes:
		r.add(orchpb.EventType_WorkflowExecutionCompleted, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_WorkflowExecutionCompletedEventAttributes{WorkflowExecutionCompletedEventAttributes: &orchpb.WorkflowExecutionCompletedEventAttributes{
				Result: a.CompleteWorkflowExecutionCommandAttributes.GetResult(), WorkflowTaskCompletedEventId: done}}
		})
		r.close(orchpb.WorkflowExecutionStatus_COMPLETED)
	case *orchpb.Command_FailWorkflowExecutionCommandAttributes:
		r.add(orchpb.EventType_WorkflowExecutionFailed, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_WorkflowExecutionFailedEventAttributes{WorkflowExecutionFailedEventAttributes: &orchpb.WorkflowExecutionFailedEventAttributes{
				Failure: a.FailWorkflowExecutionCommandAttributes.GetFailure(), RetryState: orchpb.RetryState_RETRY_POLICY_NOT_SET, WorkflowTaskCompletedEventId: done}}
		})
		r.close(orchpb.WorkflowExecutionStatus_FAILED)
	case *orchpb.Command_CancelWorkflowExecutionCommandAttributes:
		r.add(orchpb.EventType_WorkflowExecutionCanceled, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_WorkflowExecutionCanceledEventAttributes{WorkflowExecutionCanceledEventAttributes: &orchpb.WorkflowExecutionCanceledEventAttributes{
				WorkflowTaskCompletedEventId: done, Details: a.CancelWorkflowExecutionCommandAttributes.GetDetails()}}
		})
		r.close(orchpb.WorkflowExecutionStatus_CANCELED)
	case *orchpb.Command_RecordMarkerCommandAttributes:
		x := a.RecordMarkerCommandAttributes
		r.add(orchpb.EventType_MarkerRecorded, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_MarkerRecordedEventAttributes{MarkerRecordedEventAttributes: &orchpb.MarkerRecordedEventAttributes{
				MarkerName: x.GetMarkerName(), Details: x.GetDetails(), WorkflowTaskCompletedEventId: done, Header: x.GetHeader(), Failure: x.GetFailure()}}
		})
	case *orchpb.Command_UpsertWorkflowSearchAttributesCommandAttributes:
		x := a.UpsertWorkflowSearchAttributesCommandAttributes
		merged := &orchpb.SearchAttributes{IndexedFields: map[string]*orchpb.Payload{}}
		for k, v := range r.search.GetIndexedFields() {
			merged.IndexedFields[k] = v
		}
		for k, v := range x.GetSearchAttributes().GetIndexedFields() {
			merged.IndexedFields[k] = v
		}
		r.search = merged
		r.add(orchpb.EventType_UpsertWorkflowSearchAttributes, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_UpsertWorkflowSearchAttributesEventAttributes{UpsertWorkflowSearchAttributesEventAttributes: &orchpb.UpsertWorkflowSearchAttributesEventAttributes{
				WorkflowTaskCompletedEventId: done, SearchAttributes: x.GetSearchAttributes()}}
		})
	case *orchpb.Command_ContinueAsNewWorkflowExecutionCommandAttributes:
		r.continueAsNew(a.ContinueAsNewWorkflowExecutionCommandAttributes, done)
	case *orchpb.Command_StartChildWorkflowExecutionCommandAttributes:
		r.initiateChild(a.StartChildWorkflowExecutionCommandAttributes, done)
	case *orchpb.Command_RequestCancelExternalWorkflowExecutionCommandAttributes:
		r.requestCancelExternal(a.RequestCancelExternalWorkflowExecutionCommandAttributes, done)
	case *orchpb.Command_SignalExternalWorkflowExecutionCommandAttributes:
		r.initiateSignal(a.SignalExternalWorkflowExecutionCommandAttributes, done)
	case *orchpb.Command_UpsertWorkflowPropertiesCommandAttributes:
		r.upsertProperties(a.UpsertWorkflowPropertiesCommandAttributes, done)
	}
}

// close ends the run: its pending work is withdrawn, its parent told, its
// open children handled by their parent close policy.
func (r *run) close(status orchpb.WorkflowExecutionStatus) {
	e := r.env
	r.closed, r.status = true, status
	r.taskScheduled = 0
	r.abortUpdates()
	if e.open[r.id] == r {
		delete(e.open, r.id)
	}
	for _, d := range r.timeouts {
		d.stop()
	}
	for _, ut := range r.timers {
		ut.d.stop()
	}
	for _, a := range r.activities {
		a.closed = true
		a.stopTimers()
	}
	e.ready = slices.DeleteFunc(e.ready, func(a *activity) bool { return a.run == r })
	children := r.children
	r.activities, r.timers, r.children = nil, nil, nil
	for _, id := range sortedKeys(children) {
		ref := children[id]
		ref.mockDue.stop()
		c := ref.run
		for c != nil && c.next != nil {
			c = c.next
		}
		if c == nil || c.closed || c.parent != r {
			continue
		}
		switch c.parentPolicy {
		case orchpb.ParentClosePolicy_ABANDON:
			c.parent = nil
		case orchpb.ParentClosePolicy_REQUEST_CANCEL:
			c.cancelRequested(&orchpb.WorkflowExecutionCancelRequestedEventAttributes{Cause: "by parent close policy",
				ExternalNamespace: e.opts.Namespace, ExternalWorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: r.id, RunId: r.runID}})
		default:
			c.terminate("by parent close policy", r.id)
		}
	}
	if status != orchpb.WorkflowExecutionStatus_CONTINUED_AS_NEW {
		r.parentTold()
	}
}

func sortedKeys[V any](m map[int64]V) []int64 {
	keys := make([]int64, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func (r *run) terminate(reason, identity string) {
	r.add(orchpb.EventType_WorkflowExecutionTerminated, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_WorkflowExecutionTerminatedEventAttributes{WorkflowExecutionTerminatedEventAttributes: &orchpb.WorkflowExecutionTerminatedEventAttributes{
			Reason: reason, Identity: identity}}
	})
	r.close(orchpb.WorkflowExecutionStatus_TERMINATED)
}

func (r *run) timedOut() {
	if r.closed {
		return
	}
	r.add(orchpb.EventType_WorkflowExecutionTimedOut, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_WorkflowExecutionTimedOutEventAttributes{WorkflowExecutionTimedOutEventAttributes: &orchpb.WorkflowExecutionTimedOutEventAttributes{
			RetryState: orchpb.RetryState_TIMEOUT}}
	})
	r.close(orchpb.WorkflowExecutionStatus_TIMED_OUT)
}

func (r *run) cancelRequested(a *orchpb.WorkflowExecutionCancelRequestedEventAttributes) {
	r.add(orchpb.EventType_WorkflowExecutionCancelRequested, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_WorkflowExecutionCancelRequestedEventAttributes{WorkflowExecutionCancelRequestedEventAttributes: a}
	})
	r.newEvents()
}

// continueAsNew closes the run and starts the next with what the command
// gives (the type, task queue and timeouts inherited when it gives none;
// header, memo, search attributes and retry policy only the command's), as
// the service and orchfake do.
func (r *run) continueAsNew(a *orchpb.ContinueAsNewWorkflowExecutionCommandAttributes, done int64) {
	e := r.env
	st := r.started
	attrs := &orchpb.WorkflowExecutionStartedEventAttributes{
		WorkflowType: st.GetWorkflowType(), TaskQueue: st.GetTaskQueue(), Input: a.GetInput(),
		WorkflowExecutionTimeout: st.GetWorkflowExecutionTimeout(), WorkflowRunTimeout: st.GetWorkflowRunTimeout(),
		WorkflowTaskTimeout: st.GetWorkflowTaskTimeout(), Identity: st.GetIdentity(), ContinuedExecutionRunId: r.runID,
		FirstExecutionRunId: r.firstRunID, RetryPolicy: a.GetRetryPolicy(), Memo: a.GetMemo(), SearchAttributes: a.GetSearchAttributes(),
		Header: a.GetHeader(), WorkflowExecutionExpirationTime: st.GetWorkflowExecutionExpirationTime(),
		ParentWorkflowNamespace: st.GetParentWorkflowNamespace(), ParentWorkflowExecution: st.GetParentWorkflowExecution(), ParentInitiatedEventId: st.GetParentInitiatedEventId(),
	}
	if a.GetWorkflowType().GetName() != "" {
		attrs.WorkflowType = a.GetWorkflowType()
	}
	if a.GetTaskQueue() != "" {
		attrs.TaskQueue = a.GetTaskQueue()
	}
	if a.GetWorkflowRunTimeout() != nil {
		attrs.WorkflowRunTimeout = a.GetWorkflowRunTimeout()
	}
	if a.GetWorkflowTaskTimeout() != nil {
		attrs.WorkflowTaskTimeout = a.GetWorkflowTaskTimeout()
	}
	nextID := fmt.Sprintf("orchtest-run-%d", e.runSeq+1)
	r.add(orchpb.EventType_WorkflowExecutionContinuedAsNew, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_WorkflowExecutionContinuedAsNewEventAttributes{WorkflowExecutionContinuedAsNewEventAttributes: &orchpb.WorkflowExecutionContinuedAsNewEventAttributes{
			NewExecutionRunId: nextID, WorkflowType: attrs.GetWorkflowType(), TaskQueue: attrs.GetTaskQueue(),
			Input: attrs.GetInput(), WorkflowRunTimeout: attrs.GetWorkflowRunTimeout(), WorkflowTaskTimeout: attrs.GetWorkflowTaskTimeout(),
			WorkflowTaskCompletedEventId: done, Header: attrs.GetHeader(), Memo: attrs.GetMemo(), SearchAttributes: attrs.GetSearchAttributes()}}
	})
	r.close(orchpb.WorkflowExecutionStatus_CONTINUED_AS_NEW)
	next := e.startRun(r.id, attrs, nil)
	next.parent, next.parentInit, next.parentPolicy = r.parent, r.parentInit, r.parentPolicy
	r.next = next
	if e.root == r {
		e.root = next
	}
}

// parentTold tells the parent of a closed child (the last run of its
// chain) how it ended.
func (r *run) parentTold() {
	p := r.parent
	if p == nil || p.closed {
		return
	}
	ref := p.children[r.parentInit]
	if ref == nil {
		return
	}
	delete(p.children, r.parentInit)
	last := r.history[len(r.history)-1]
	p.childClosed(ref, r.id, r.runID, r.status, last)
}

// childClosed writes the event of a child's end in its parent.
func (p *run) childClosed(ref *childRef, id, runID string, status orchpb.WorkflowExecutionStatus, last *orchpb.HistoryEvent) {
	ns, we, typ := p.env.opts.Namespace, &orchpb.WorkflowExecution{WorkflowId: id, RunId: runID}, ref.attrs.GetWorkflowType()
	init, started := ref.initiatedID, ref.startedID
	switch status {
	case orchpb.WorkflowExecutionStatus_COMPLETED:
		p.add(orchpb.EventType_ChildWorkflowExecutionCompleted, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_ChildWorkflowExecutionCompletedEventAttributes{ChildWorkflowExecutionCompletedEventAttributes: &orchpb.ChildWorkflowExecutionCompletedEventAttributes{
				Result: last.GetWorkflowExecutionCompletedEventAttributes().GetResult(), Namespace: ns, WorkflowExecution: we, WorkflowType: typ, InitiatedEventId: init, StartedEventId: started}}
		})
	case orchpb.WorkflowExecutionStatus_FAILED:
		fa := last.GetWorkflowExecutionFailedEventAttributes()
		p.add(orchpb.EventType_ChildWorkflowExecutionFailed, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_ChildWorkflowExecutionFailedEventAttributes{ChildWorkflowExecutionFailedEventAttributes: &orchpb.ChildWorkflowExecutionFailedEventAttributes{
				Failure: fa.GetFailure(), Namespace: ns, WorkflowExecution: we, WorkflowType: typ, InitiatedEventId: init, StartedEventId: started, RetryState: fa.GetRetryState()}}
		})
	case orchpb.WorkflowExecutionStatus_CANCELED:
		p.add(orchpb.EventType_ChildWorkflowExecutionCanceled, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_ChildWorkflowExecutionCanceledEventAttributes{ChildWorkflowExecutionCanceledEventAttributes: &orchpb.ChildWorkflowExecutionCanceledEventAttributes{
				Details: last.GetWorkflowExecutionCanceledEventAttributes().GetDetails(), Namespace: ns, WorkflowExecution: we, WorkflowType: typ, InitiatedEventId: init, StartedEventId: started}}
		})
	case orchpb.WorkflowExecutionStatus_TIMED_OUT:
		p.add(orchpb.EventType_ChildWorkflowExecutionTimedOut, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_ChildWorkflowExecutionTimedOutEventAttributes{ChildWorkflowExecutionTimedOutEventAttributes: &orchpb.ChildWorkflowExecutionTimedOutEventAttributes{
				Namespace: ns, WorkflowExecution: we, WorkflowType: typ, InitiatedEventId: init, StartedEventId: started,
				RetryState: last.GetWorkflowExecutionTimedOutEventAttributes().GetRetryState()}}
		})
	case orchpb.WorkflowExecutionStatus_TERMINATED:
		p.add(orchpb.EventType_ChildWorkflowExecutionTerminated, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_ChildWorkflowExecutionTerminatedEventAttributes{ChildWorkflowExecutionTerminatedEventAttributes: &orchpb.ChildWorkflowExecutionTerminatedEventAttributes{
				Namespace: ns, WorkflowExecution: we, WorkflowType: typ, InitiatedEventId: init, StartedEventId: started}}
		})
	}
	p.newEvents()
}

// initiateChild writes StartChildWorkflowExecutionInitiated; the child
// starts once the task's commands are applied (startChildren).
func (r *run) initiateChild(a *orchpb.StartChildWorkflowExecutionCommandAttributes, done int64) {
	a = proto.Clone(a).(*orchpb.StartChildWorkflowExecutionCommandAttributes)
	if a.GetNamespace() == "" {
		a.Namespace = r.env.opts.Namespace
	}
	if a.GetTaskQueue() == "" {
		a.TaskQueue = r.started.GetTaskQueue()
	}
	ev := r.add(orchpb.EventType_StartChildWorkflowExecutionInitiated, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_StartChildWorkflowExecutionInitiatedEventAttributes{StartChildWorkflowExecutionInitiatedEventAttributes: &orchpb.StartChildWorkflowExecutionInitiatedEventAttributes{
			Namespace: a.GetNamespace(), WorkflowId: a.GetWorkflowId(), WorkflowType: a.GetWorkflowType(),
			TaskQueue: &orchpb.TaskQueue{Name: a.GetTaskQueue(), Kind: orchpb.TaskQueueKind_NORMAL}, Input: a.GetInput(),
			WorkflowExecutionTimeout: a.GetWorkflowExecutionTimeout(), WorkflowRunTimeout: a.GetWorkflowRunTimeout(),
			WorkflowTaskTimeout: a.GetWorkflowTaskTimeout(), ParentClosePolicy: a.GetParentClosePolicy(), Control: a.GetControl(),
			WorkflowTaskCompletedEventId: done, WorkflowIdReusePolicy: a.GetWorkflowIdReusePolicy(), RetryPolicy: a.GetRetryPolicy(),
			CronSchedule: a.GetCronSchedule(), Header: a.GetHeader(), Memo: a.GetMemo(), SearchAttributes: a.GetSearchAttributes()}}
	})
	r.children[ev.GetEventId()] = &childRef{initiatedID: ev.GetEventId(), attrs: a}
	r.pending = append(r.pending, ev.GetEventId())
}

// startChildren starts the children the task just completed initiated:
// a mock answers for a mocked type, a registered type runs in the env.
func (r *run) startChildren() {
	e := r.env
	pending := r.pending
	r.pending = nil
	for _, id := range pending {
		ref := r.children[id]
		if ref == nil || r.closed {
			continue
		}
		a := ref.attrs
		name := a.GetWorkflowType().GetName()
		if e.open[a.GetWorkflowId()] != nil || r.mockedChildOpen(a.GetWorkflowId()) {
			delete(r.children, id)
			r.add(orchpb.EventType_StartChildWorkflowExecutionFailed, func(ev *orchpb.HistoryEvent) {
				ev.Attributes = &orchpb.HistoryEvent_StartChildWorkflowExecutionFailedEventAttributes{StartChildWorkflowExecutionFailedEventAttributes: &orchpb.StartChildWorkflowExecutionFailedEventAttributes{
					Namespace: a.GetNamespace(), WorkflowId: a.GetWorkflowId(), WorkflowType: a.GetWorkflowType(),
					Cause: orchpb.StartChildWorkflowExecutionFailedCause_WORKFLOW_ALREADY_EXISTS, Control: a.GetControl(), InitiatedEventId: id}}
			})
			r.newEvents()
			continue
		}
		var childRunID string
		m := e.mockFor("workflow", name)
		_, registered := e.workflows[name]
		switch {
		case m != nil || !registered:
			e.runSeq++
			childRunID = fmt.Sprintf("orchtest-run-%d", e.runSeq)
			ref.mockID = childRunID
		default:
			attrs := &orchpb.WorkflowExecutionStartedEventAttributes{
				WorkflowType: a.GetWorkflowType(), TaskQueue: a.GetTaskQueue(), Input: a.GetInput(),
				WorkflowExecutionTimeout: a.GetWorkflowExecutionTimeout(), WorkflowRunTimeout: a.GetWorkflowRunTimeout(),
				WorkflowTaskTimeout: a.GetWorkflowTaskTimeout(), Identity: r.id, RetryPolicy: a.GetRetryPolicy(),
				CronSchedule: a.GetCronSchedule(), Memo: a.GetMemo(), SearchAttributes: a.GetSearchAttributes(), Header: a.GetHeader(),
				ParentWorkflowNamespace: e.opts.Namespace, ParentWorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: r.id, RunId: r.runID},
				ParentInitiatedEventId: id,
			}
			child := e.startRun(a.GetWorkflowId(), attrs, r)
			child.parent, child.parentInit, child.parentPolicy = r, id, a.GetParentClosePolicy()
			ref.run = child
			childRunID = child.runID
		}
		ref.startedID = r.add(orchpb.EventType_ChildWorkflowExecutionStarted, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_ChildWorkflowExecutionStartedEventAttributes{ChildWorkflowExecutionStartedEventAttributes: &orchpb.ChildWorkflowExecutionStartedEventAttributes{
				Namespace: a.GetNamespace(), InitiatedEventId: id, WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: a.GetWorkflowId(), RunId: childRunID},
				WorkflowType: a.GetWorkflowType(), Header: a.GetHeader()}}
		}).GetEventId()
		r.newEvents()
		if ref.mockID != "" {
			r.answerChild(ref, m)
		}
	}
}

func (r *run) mockedChildOpen(workflowID string) bool {
	for _, x := range r.env.runs {
		for _, ref := range x.children {
			if ref.mockID != "" && ref.attrs.GetWorkflowId() == workflowID {
				return true
			}
		}
	}
	return false
}

// answerChild closes a child that no run stands for: the mock's answer
// (after its delay), or a failure naming a type neither mocked nor
// registered.
func (r *run) answerChild(ref *childRef, m *Mock) {
	e := r.env
	a := ref.attrs
	fn := func(context.Context, *orchpb.Payloads) (*orchpb.Payloads, error) {
		msg := fmt.Sprintf("orchtest: child workflow type %s is neither registered (RegisterWorkflow) nor mocked (OnWorkflow)", a.GetWorkflowType().GetName())
		e.report(msg)
		return nil, &orch.ApplicationError{Message: msg, Type: "WorkflowTypeNotRegistered", NonRetryable: true}
	}
	var after time.Duration
	if m != nil {
		fn, after = m.record(Call{ID: a.GetWorkflowId(), Attempt: 1, Input: a.GetInput(), Time: e.now})
	}
	finish := func() {
		if r.closed || r.children[ref.initiatedID] != ref {
			return
		}
		delete(r.children, ref.initiatedID)
		result, err := safeCall(fn, context.Background(), a.GetInput(), "child workflow "+a.GetWorkflowType().GetName())
		var last *orchpb.HistoryEvent
		status := orchpb.WorkflowExecutionStatus_COMPLETED
		if err != nil {
			status = orchpb.WorkflowExecutionStatus_FAILED
			last = &orchpb.HistoryEvent{Attributes: &orchpb.HistoryEvent_WorkflowExecutionFailedEventAttributes{WorkflowExecutionFailedEventAttributes: &orchpb.WorkflowExecutionFailedEventAttributes{
				Failure: failureOf(err), RetryState: orchpb.RetryState_RETRY_POLICY_NOT_SET}}}
		} else {
			last = &orchpb.HistoryEvent{Attributes: &orchpb.HistoryEvent_WorkflowExecutionCompletedEventAttributes{WorkflowExecutionCompletedEventAttributes: &orchpb.WorkflowExecutionCompletedEventAttributes{Result: result}}}
		}
		r.childClosed(ref, a.GetWorkflowId(), ref.mockID, status, last)
	}
	ref.mockDue = e.addDue(e.now.Add(after), finish)
}

// requestCancelExternal delivers a cancel request to another run of the
// env (a child, usually): ExternalWorkflowExecutionCancelRequested, or
// RequestCancelExternalWorkflowExecutionFailed when no such run is open.
// A mocked child asked to cancel ends canceled at once.
func (r *run) requestCancelExternal(a *orchpb.RequestCancelExternalWorkflowExecutionCommandAttributes, done int64) {
	e := r.env
	ns := a.GetNamespace()
	if ns == "" {
		ns = e.opts.Namespace
	}
	target := &orchpb.WorkflowExecution{WorkflowId: a.GetWorkflowId(), RunId: a.GetRunId()}
	init := r.add(orchpb.EventType_RequestCancelExternalWorkflowExecutionInitiated, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_RequestCancelExternalWorkflowExecutionInitiatedEventAttributes{RequestCancelExternalWorkflowExecutionInitiatedEventAttributes: &orchpb.RequestCancelExternalWorkflowExecutionInitiatedEventAttributes{
			WorkflowTaskCompletedEventId: done, Namespace: ns, WorkflowExecution: target, Control: a.GetControl(), ChildWorkflowOnly: a.GetChildWorkflowOnly(), Reason: a.GetReason()}}
	}).GetEventId()
	t := e.open[a.GetWorkflowId()]
	if t != nil && (a.GetRunId() != "" && t.runID != a.GetRunId() || a.GetChildWorkflowOnly() && t.parent != r) {
		t = nil
	}
	var mocked *childRef
	if t == nil {
		for _, ref := range r.children {
			if ref.mockID != "" && ref.attrs.GetWorkflowId() == a.GetWorkflowId() {
				mocked = ref
			}
		}
	}
	if t == nil && mocked == nil {
		r.add(orchpb.EventType_RequestCancelExternalWorkflowExecutionFailed, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_RequestCancelExternalWorkflowExecutionFailedEventAttributes{RequestCancelExternalWorkflowExecutionFailedEventAttributes: &orchpb.RequestCancelExternalWorkflowExecutionFailedEventAttributes{
				Cause: orchpb.CancelExternalWorkflowExecutionFailedCause_EXTERNAL_WORKFLOW_EXECUTION_NOT_FOUND, WorkflowTaskCompletedEventId: done,
				Namespace: ns, WorkflowExecution: target, InitiatedEventId: init, Control: a.GetControl()}}
		})
		return
	}
	runID := ""
	if t != nil {
		t.cancelRequested(&orchpb.WorkflowExecutionCancelRequestedEventAttributes{Cause: a.GetReason(), ExternalNamespace: e.opts.Namespace,
			ExternalWorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: r.id, RunId: r.runID}, ExternalInitiatedEventId: init})
		runID = t.runID
	} else {
		runID = mocked.mockID
	}
	r.add(orchpb.EventType_ExternalWorkflowExecutionCancelRequested, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_ExternalWorkflowExecutionCancelRequestedEventAttributes{ExternalWorkflowExecutionCancelRequestedEventAttributes: &orchpb.ExternalWorkflowExecutionCancelRequestedEventAttributes{
			InitiatedEventId: init, Namespace: ns, WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: a.GetWorkflowId(), RunId: runID}}}
	})
	if mocked != nil {
		mocked.mockDue.stop()
		delete(r.children, mocked.initiatedID)
		r.childClosed(mocked, a.GetWorkflowId(), mocked.mockID, orchpb.WorkflowExecutionStatus_CANCELED,
			&orchpb.HistoryEvent{Attributes: &orchpb.HistoryEvent_WorkflowExecutionCanceledEventAttributes{WorkflowExecutionCanceledEventAttributes: &orchpb.WorkflowExecutionCanceledEventAttributes{}}})
	}
}

// activity is one scheduled activity, through its attempts.
type activity struct {
	run         *run
	scheduledID int64
	attrs       *orchpb.ScheduleActivityTaskCommandAttributes
	retry       *orchpb.RetryPolicy
	attempt     int32
	scheduled   time.Time
	started     bool // the current attempt is running (a mock's After)
	closed      bool
	lastFailure *orchpb.Failure
	cancelEvent int64

	// details are the last heartbeat's, which the next attempt reads
	// (HeartbeatDetails); an activity may heartbeat from a goroutine.
	mu      sync.Mutex
	details *orchpb.Payloads

	s2c, st2c, answer *due
}

func (a *activity) stopTimers() {
	for _, d := range []*due{a.s2c, a.st2c, a.answer} {
		d.stop()
	}
}

// scheduleActivity writes ActivityTaskScheduled with the timeouts and
// retry policy filled in as the service fills them, and queues the first
// attempt.
func (r *run) scheduleActivity(c *orchpb.ScheduleActivityTaskCommandAttributes, done int64) {
	e := r.env
	c = orchsem.ScheduledActivity(c, r.started.GetTaskQueue())
	retry := c.GetRetryPolicy()
	ev := r.add(orchpb.EventType_ActivityTaskScheduled, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_ActivityTaskScheduledEventAttributes{ActivityTaskScheduledEventAttributes: &orchpb.ActivityTaskScheduledEventAttributes{
			ActivityId: c.GetActivityId(), ActivityType: c.GetActivityType(), TaskQueue: &orchpb.TaskQueue{Name: c.GetTaskQueue(), Kind: orchpb.TaskQueueKind_NORMAL},
			Header: c.GetHeader(), Input: c.GetInput(), ScheduleToCloseTimeout: c.GetScheduleToCloseTimeout(),
			ScheduleToStartTimeout: c.GetScheduleToStartTimeout(), StartToCloseTimeout: c.GetStartToCloseTimeout(),
			HeartbeatTimeout: c.GetHeartbeatTimeout(), WorkflowTaskCompletedEventId: done, RetryPolicy: retry}}
	})
	a := &activity{run: r, scheduledID: ev.GetEventId(), attrs: c, retry: retry, attempt: 1, scheduled: e.now}
	r.activities[a.scheduledID] = a
	if d := c.GetScheduleToCloseTimeout().AsDuration(); d > 0 {
		a.s2c = e.addDue(e.now.Add(d), func() { a.timedOut(orchpb.TimeoutType_SCHEDULE_TO_CLOSE) })
	}
	e.ready = append(e.ready, a)
}

// runAttempt runs the activity's current attempt: the first mock of its
// type that takes the call, else its registered implementation, else a
// failure naming it (and the test failed).
func (e *Env) runAttempt(a *activity) {
	if a.closed {
		return
	}
	r := a.run
	name := a.attrs.GetActivityType().GetName()
	call := Call{ID: a.attrs.GetActivityId(), Attempt: a.attempt, Input: a.attrs.GetInput(), Time: e.now}
	e.calls[name] = append(e.calls[name], call)
	var fn func(context.Context, *orchpb.Payloads) (*orchpb.Payloads, error)
	var after time.Duration
	if m := e.mockFor("activity", name); m != nil {
		fn, after = m.record(call)
	} else if impl := e.activities[name]; impl != nil {
		fn = impl
	} else {
		msg := fmt.Sprintf("orchtest: activity type %s (activity id %s of workflow %s) is neither mocked (OnActivity) nor registered (RegisterActivity)", name, call.ID, r.id)
		e.report(msg)
		fn = func(context.Context, *orchpb.Payloads) (*orchpb.Payloads, error) {
			return nil, &orch.ApplicationError{Message: msg, Type: "ActivityTypeNotRegistered", NonRetryable: true}
		}
	}
	if fn == nil {
		fn = func(context.Context, *orchpb.Payloads) (*orchpb.Payloads, error) {
			return nil, orch.NonRetryable(fmt.Errorf("orchtest: activity mock %s has neither Return nor Do", name))
		}
	}
	result, err := safeCall(fn, a.context(), a.attrs.GetInput(), "activity "+name)
	if errors.Is(err, orch.ErrActivityResultPending) {
		// Nobody outside the env can answer it: say so rather than retry
		// it for ever.
		msg := fmt.Sprintf("orchtest: activity %s (activity id %s) returned orch.ErrActivityResultPending, which the env cannot complete from outside: mock it (OnActivity) with the answer its completer would give", name, call.ID)
		e.report(msg)
		err = &orch.ApplicationError{Message: msg, Type: "ActivityResultPending", NonRetryable: true}
	}
	if after <= 0 {
		a.started = true
		a.ended(result, err)
		return
	}
	// The answer comes later in workflow time; the start-to-close timeout
	// may come first.
	a.started = true
	a.answer = e.addDue(e.now.Add(after), func() { a.ended(result, err) })
	if d := a.attrs.GetStartToCloseTimeout().AsDuration(); d > 0 {
		a.st2c = e.addDue(e.now.Add(d), func() { a.timedOut(orchpb.TimeoutType_START_TO_CLOSE) })
	}
}

// context is the attempt's context: orch.GetActivityInfo,
// orch.HeartbeatDetails and orch.RecordHeartbeat work in it as under a
// worker.
func (a *activity) context() context.Context {
	r, e := a.run, a.run.env
	a.mu.Lock()
	details := a.details
	a.mu.Unlock()
	return orchact.With(context.Background(), &orchact.Activity{
		Info: orchact.Info{ActivityID: a.attrs.GetActivityId(), ActivityType: a.attrs.GetActivityType().GetName(), WorkflowID: r.id, RunID: r.runID,
			WorkflowType: r.typ, TaskQueue: a.attrs.GetTaskQueue(), Attempt: a.attempt, ScheduledTime: a.scheduled, StartedTime: e.now,
			HeartbeatTimeout: a.attrs.GetHeartbeatTimeout().AsDuration(), TaskToken: fmt.Appendf(nil, "orchtest/%s/%s/%d/%d", r.id, r.runID, a.scheduledID, a.attempt)},
		Details: details,
		Heartbeat: func(d *orchpb.Payloads) error {
			a.mu.Lock()
			defer a.mu.Unlock()
			a.details = d
			return nil
		},
	})
}

func safeCall(fn func(context.Context, *orchpb.Payloads) (*orchpb.Payloads, error), ctx context.Context, input *orchpb.Payloads, what string) (out *orchpb.Payloads, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%s panicked: %v\n%s", what, p, debug.Stack())
		}
	}()
	return fn(ctx, input)
}

// failureOf is the Failure a worker reports for err.
func failureOf(err error) *orchpb.Failure {
	return orch.FailWorkflowCommand(err).GetFailWorkflowExecutionCommandAttributes().GetFailure()
}

// ended handles the current attempt's outcome: completed, failed for good,
// or retried after the retry policy's backoff.
func (a *activity) ended(result *orchpb.Payloads, err error) {
	if a.closed {
		return
	}
	r := a.run
	a.answer.stop()
	a.st2c.stop()
	if err == nil {
		started := a.writeStarted()
		r.add(orchpb.EventType_ActivityTaskCompleted, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_ActivityTaskCompletedEventAttributes{ActivityTaskCompletedEventAttributes: &orchpb.ActivityTaskCompletedEventAttributes{
				Result: result, ScheduledEventId: a.scheduledID, StartedEventId: started, Identity: Identity}}
		})
		a.finish()
		return
	}
	f := failureOf(err)
	if state := a.retryState(f); state != orchpb.RetryState_IN_PROGRESS {
		started := a.writeStarted()
		r.add(orchpb.EventType_ActivityTaskFailed, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_ActivityTaskFailedEventAttributes{ActivityTaskFailedEventAttributes: &orchpb.ActivityTaskFailedEventAttributes{
				Failure: f, ScheduledEventId: a.scheduledID, StartedEventId: started, Identity: Identity, RetryState: state}}
		})
		a.finish()
		return
	}
	a.retryAfter(f)
}

// writeStarted writes ActivityTaskStarted for the attempt that closes the
// activity (as the service writes it: when the attempt ends).
func (a *activity) writeStarted() int64 {
	if !a.started {
		return 0
	}
	return a.run.add(orchpb.EventType_ActivityTaskStarted, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_ActivityTaskStartedEventAttributes{ActivityTaskStartedEventAttributes: &orchpb.ActivityTaskStartedEventAttributes{
			ScheduledEventId: a.scheduledID, Identity: Identity, Attempt: a.attempt, LastFailure: a.lastFailure}}
	}).GetEventId()
}

func (a *activity) finish() {
	a.closed = true
	a.stopTimers()
	delete(a.run.activities, a.scheduledID)
	a.run.newEvents()
}

// retryState says whether a failed attempt is retried (IN_PROGRESS) or
// why not, as the service (and orchfake) decides.
func (a *activity) retryState(f *orchpb.Failure) orchpb.RetryState {
	return orchsem.ActivityRetryState(a.attrs, f, a.attempt, a.scheduled, a.run.env.now)
}

func (a *activity) retryAfter(f *orchpb.Failure) {
	e := a.run.env
	a.lastFailure = f
	wait := orchsem.Backoff(a.retry, a.attempt)
	a.attempt++
	a.started = false
	a.answer = e.addDue(e.now.Add(wait), func() {
		if !a.closed {
			e.ready = append(e.ready, a)
		}
	})
}

// timedOut handles an activity timeout: schedule-to-close ends it;
// start-to-close fails the attempt, retried as a failure would be.
func (a *activity) timedOut(typ orchpb.TimeoutType) {
	if a.closed {
		return
	}
	r := a.run
	f := &orchpb.Failure{Message: "activity " + typ.String() + " timeout", Source: Identity,
		FailureInfo: &orchpb.Failure_TimeoutFailureInfo{TimeoutFailureInfo: &orchpb.TimeoutFailureInfo{TimeoutType: typ, LastHeartbeatDetails: a.lastDetails()}}}
	state := orchpb.RetryState_TIMEOUT
	if typ == orchpb.TimeoutType_START_TO_CLOSE {
		a.answer.stop()
		if state = a.retryState(f); state == orchpb.RetryState_IN_PROGRESS {
			a.retryAfter(f)
			return
		}
	}
	started := a.writeStarted()
	r.add(orchpb.EventType_ActivityTaskTimedOut, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_ActivityTaskTimedOutEventAttributes{ActivityTaskTimedOutEventAttributes: &orchpb.ActivityTaskTimedOutEventAttributes{
			Failure: f, ScheduledEventId: a.scheduledID, StartedEventId: started, RetryState: state}}
	})
	a.finish()
}

func (a *activity) lastDetails() *orchpb.Payloads {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.details
}

// requestCancelActivity cancels an activity: one not running is canceled
// at once; a running one (a mock's After) too, as its worker would report
// on its next heartbeat, which the env does not wait for.
func (r *run) requestCancelActivity(scheduledID, done int64) {
	a := r.activities[scheduledID]
	a.cancelEvent = r.add(orchpb.EventType_ActivityTaskCancelRequested, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_ActivityTaskCancelRequestedEventAttributes{ActivityTaskCancelRequestedEventAttributes: &orchpb.ActivityTaskCancelRequestedEventAttributes{
			ScheduledEventId: scheduledID, WorkflowTaskCompletedEventId: done}}
	}).GetEventId()
	r.env.ready = slices.DeleteFunc(r.env.ready, func(x *activity) bool { return x == a })
	started := a.writeStarted()
	r.add(orchpb.EventType_ActivityTaskCanceled, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_ActivityTaskCanceledEventAttributes{ActivityTaskCanceledEventAttributes: &orchpb.ActivityTaskCanceledEventAttributes{
			LatestCancelRequestedEventId: a.cancelEvent, ScheduledEventId: a.scheduledID, StartedEventId: started, Identity: Identity}}
	})
	a.finish()
}

func durationOrNil(d time.Duration) *durationpb.Duration {
	if d <= 0 {
		return nil
	}
	return durationpb.New(d)
}
