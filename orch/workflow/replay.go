package workflow

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// body runs the workflow function on its input and returns the command
// that closes the run.
type body func(ctx Context, input *orchpb.Payloads) (*orchpb.Command, error)

// command is one command the workflow code issued during a step.
type command struct {
	cmd     *orchpb.Command
	dropped bool                          // canceled in the same task: never sent
	matched func(ev *orchpb.HistoryEvent) // learns the event that recorded it
	msg     *orchpb.ProtocolMessage       // the message a PROTOCOL_MESSAGE command places
}

// execution is one replay of one workflow run: the coroutines of its code,
// what they wait on, and the commands they issue.
type execution struct {
	body       body
	info       Info
	input      *orchpb.Payloads
	lastResult *orchpb.Payloads
	// startedAttrs is the run's WorkflowExecutionStarted event: a
	// continue-as-new carries its memo, search attributes, retry policy
	// and header (the code changes none) to the next run, which the
	// service does not do by itself.
	startedAttrs *orchpb.WorkflowExecutionStartedEventAttributes
	now          time.Time
	replaying    bool
	query        bool // a query's replay: the code's next task runs it again
	answering    bool // a query handler runs: the code may only read

	stamp         int64
	seq           int64
	seqCoroutines int64
	coros         []*coroutine
	started       bool
	pending       []*command
	closing       *orchpb.Command
	// A run a worker keeps between its tasks (see cachedRun): the
	// started event of the last task it ran, the last event it has seen,
	// and the commands that task sent, which the next task's events
	// record.
	lastStarted int64
	lastEvent   int64
	sent        []*command
	closeErr    error

	deadlock time.Duration   // Options.DeadlockTimeout
	fire     <-chan struct{} // Options.fire
	watchdog *time.Timer
	// handback orders a coroutine's hand-back of the turn against the
	// dispatcher giving up on it; abandoned: the dispatcher gave up on
	// one (then it touches the execution no more).
	handback   sync.Mutex
	abandoned  bool
	baseLogger *slog.Logger // Options.Logger
	logger     *slog.Logger // GetLogger's

	// memo and search are the run's, with the code's upserts: what a
	// continue-as-new carries.
	memo   *orchpb.Memo
	search *orchpb.SearchAttributes

	root       *cancelScope
	activities map[int64]*activity // by scheduled event id
	children   map[int64]*child    // by initiated event id
	externals  map[int64]*external // signals and cancel requests sent, by initiated event id
	markers    map[markerKey]*orchpb.Payloads
	versions   map[string]Version
	timers     map[string]*timer
	signals    map[string]*channel
	queries    map[string]func(args *orchpb.Payloads) (any, error)
	updates    map[string]*updateHandler
	// live are the update requests of the task being answered; incoming
	// the updates the next step takes (update.go); replies the
	// rejections of the step, msgs every message of the last step.
	live     []*orchpb.ProtocolMessage
	incoming []incomingUpdate
	replies  []*orchpb.ProtocolMessage
	msgs     []*orchpb.ProtocolMessage
}

func newExecution(b body, o Options) *execution {
	if o.DeadlockTimeout == 0 {
		o.DeadlockTimeout = DefaultDeadlockTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	e := &execution{
		body:       b,
		deadlock:   o.DeadlockTimeout,
		fire:       o.fire,
		baseLogger: o.Logger,
		activities: map[int64]*activity{},
		children:   map[int64]*child{},
		externals:  map[int64]*external{},
		markers:    map[markerKey]*orchpb.Payloads{},
		versions:   map[string]Version{},
		timers:     map[string]*timer{},
		signals:    map[string]*channel{},
		queries:    map[string]func(*orchpb.Payloads) (any, error){},
		updates:    map[string]*updateHandler{},
	}
	e.root = &cancelScope{e: e}
	return e
}

func (e *execution) nextStamp() int64 {
	e.stamp++
	return e.stamp
}

func (e *execution) addCommand(cmd *orchpb.Command, matched func(*orchpb.HistoryEvent)) *command {
	c := &command{cmd: cmd, matched: matched}
	e.pending = append(e.pending, c)
	return c
}

// applyInput feeds one event that is not the record of a command to the
// workflow code's state.
func (e *execution) applyInput(ev *orchpb.HistoryEvent) {
	switch a := ev.GetAttributes().(type) {
	case *orchpb.HistoryEvent_ActivityTaskCompletedEventAttributes, *orchpb.HistoryEvent_ActivityTaskFailedEventAttributes,
		*orchpb.HistoryEvent_ActivityTaskTimedOutEventAttributes, *orchpb.HistoryEvent_ActivityTaskCanceledEventAttributes:
		e.activityEvent(ev)
	case *orchpb.HistoryEvent_StartChildWorkflowExecutionFailedEventAttributes, *orchpb.HistoryEvent_ChildWorkflowExecutionStartedEventAttributes,
		*orchpb.HistoryEvent_ChildWorkflowExecutionCompletedEventAttributes, *orchpb.HistoryEvent_ChildWorkflowExecutionFailedEventAttributes,
		*orchpb.HistoryEvent_ChildWorkflowExecutionCanceledEventAttributes, *orchpb.HistoryEvent_ChildWorkflowExecutionTimedOutEventAttributes,
		*orchpb.HistoryEvent_ChildWorkflowExecutionTerminatedEventAttributes:
		e.childEvent(ev)
	case *orchpb.HistoryEvent_ExternalWorkflowExecutionSignaledEventAttributes, *orchpb.HistoryEvent_SignalExternalWorkflowExecutionFailedEventAttributes,
		*orchpb.HistoryEvent_ExternalWorkflowExecutionCancelRequestedEventAttributes, *orchpb.HistoryEvent_RequestCancelExternalWorkflowExecutionFailedEventAttributes:
		e.externalEvent(ev)
	case *orchpb.HistoryEvent_TimerFiredEventAttributes:
		if t := e.timers[a.TimerFiredEventAttributes.GetTimerId()]; t != nil {
			t.f.settle(nil, nil)
		}
	case *orchpb.HistoryEvent_WorkflowExecutionSignaledEventAttributes:
		var p *orchpb.Payload
		if ps := a.WorkflowExecutionSignaledEventAttributes.GetInput().GetPayloads(); len(ps) > 0 {
			p = ps[0]
		}
		it := item{payload: p}
		if p == nil {
			it.payload = nullPayload
		}
		e.signalChannel(a.WorkflowExecutionSignaledEventAttributes.GetSignalName()).push(it)
	case *orchpb.HistoryEvent_WorkflowExecutionCancelRequestedEventAttributes:
		e.root.cancel()
	}
}

var nullPayload = &orchpb.Payload{Metadata: map[string][]byte{orch.MetadataEncoding: []byte(orch.EncodingNull)}}

// step runs the workflow code until it blocks (starting it on the first
// step) and returns the commands it issued, without those it dropped.
func (e *execution) step() ([]*command, error) {
	if !e.started {
		e.started = true
		ctx := &wctx{e: e, scope: e.root}
		ctx.co = e.newCoroutine("root", func(*coroutine) {
			cmd, err := e.body(ctx, e.input)
			if err != nil {
				e.closeErr = err
				cmd = orch.FailWorkflowCommand(err) // stands in; the task fails with closeErr
			}
			e.addCommand(cmd, nil)
			e.closing = cmd
		})
	}
	if err := e.dispatch(); err != nil {
		return nil, err
	}
	// Updates are taken once the code ran until it blocked, so that the
	// handlers the workflow function registers first are there.
	if in := e.incoming; len(in) > 0 {
		e.incoming = nil
		if err := e.takeUpdates(in); err != nil {
			return nil, err
		}
		if err := e.dispatch(); err != nil {
			return nil, err
		}
	}
	if e.closeErr != nil {
		return nil, e.closeErr
	}
	out := make([]*command, 0, len(e.pending))
	var closing *command
	e.msgs, e.replies = e.replies, nil
	for _, c := range e.pending {
		switch {
		case c.dropped:
		case c.cmd == e.closing && e.closing != nil:
			closing = c // last, after what update handlers sent
		default:
			out = append(out, c)
			if c.msg != nil {
				e.msgs = append(e.msgs, c.msg)
			}
		}
	}
	if closing != nil {
		out = append(out, closing)
	}
	e.pending = nil
	return out, nil
}

// wfTask is a workflow task the history records as completed.
type wfTask struct {
	startedID, completedID int64
	time                   time.Time
	commands               []*orchpb.HistoryEvent
	// accepted are the updates the task accepted: their
	// WorkflowExecutionUpdateAccepted events follow its
	// WorkflowTaskCompleted.
	accepted []incomingUpdate
}

// commandTask returns the WorkflowTaskCompleted event whose commands ev
// records, or 0 when ev is not a command's record.
func commandTask(ev *orchpb.HistoryEvent) int64 {
	switch a := ev.GetAttributes().(type) {
	case *orchpb.HistoryEvent_ActivityTaskScheduledEventAttributes:
		return a.ActivityTaskScheduledEventAttributes.GetWorkflowTaskCompletedEventId()
	case *orchpb.HistoryEvent_ActivityTaskCancelRequestedEventAttributes:
		return a.ActivityTaskCancelRequestedEventAttributes.GetWorkflowTaskCompletedEventId()
	case *orchpb.HistoryEvent_TimerStartedEventAttributes:
		return a.TimerStartedEventAttributes.GetWorkflowTaskCompletedEventId()
	case *orchpb.HistoryEvent_TimerCanceledEventAttributes:
		return a.TimerCanceledEventAttributes.GetWorkflowTaskCompletedEventId()
	case *orchpb.HistoryEvent_WorkflowExecutionCompletedEventAttributes:
		return a.WorkflowExecutionCompletedEventAttributes.GetWorkflowTaskCompletedEventId()
	case *orchpb.HistoryEvent_WorkflowExecutionFailedEventAttributes:
		return a.WorkflowExecutionFailedEventAttributes.GetWorkflowTaskCompletedEventId()
	case *orchpb.HistoryEvent_WorkflowExecutionCanceledEventAttributes:
		return a.WorkflowExecutionCanceledEventAttributes.GetWorkflowTaskCompletedEventId()
	case *orchpb.HistoryEvent_WorkflowExecutionContinuedAsNewEventAttributes:
		return a.WorkflowExecutionContinuedAsNewEventAttributes.GetWorkflowTaskCompletedEventId()
	case *orchpb.HistoryEvent_MarkerRecordedEventAttributes:
		return a.MarkerRecordedEventAttributes.GetWorkflowTaskCompletedEventId()
	case *orchpb.HistoryEvent_UpsertWorkflowSearchAttributesEventAttributes:
		return a.UpsertWorkflowSearchAttributesEventAttributes.GetWorkflowTaskCompletedEventId()
	case *orchpb.HistoryEvent_StartChildWorkflowExecutionInitiatedEventAttributes:
		return a.StartChildWorkflowExecutionInitiatedEventAttributes.GetWorkflowTaskCompletedEventId()
	case *orchpb.HistoryEvent_RequestCancelExternalWorkflowExecutionInitiatedEventAttributes:
		return a.RequestCancelExternalWorkflowExecutionInitiatedEventAttributes.GetWorkflowTaskCompletedEventId()
	case *orchpb.HistoryEvent_SignalExternalWorkflowExecutionInitiatedEventAttributes:
		return a.SignalExternalWorkflowExecutionInitiatedEventAttributes.GetWorkflowTaskCompletedEventId()
	case *orchpb.HistoryEvent_WorkflowPropertiesModifiedEventAttributes:
		return a.WorkflowPropertiesModifiedEventAttributes.GetWorkflowTaskCompletedEventId()
	}
	// StartChildWorkflowExecutionFailed,
	// RequestCancelExternalWorkflowExecutionFailed and
	// SignalExternalWorkflowExecutionFailed name the task too, but they are
	// outcomes, not the record of a command.
	return 0
}

// index reads the run's start and its completed workflow tasks, each with
// the events that record its commands.
func (e *execution) index(history []*orchpb.HistoryEvent) ([]*wfTask, error) {
	if len(history) == 0 {
		return nil, errors.New("workflow: empty history")
	}
	st := history[0].GetWorkflowExecutionStartedEventAttributes()
	if st == nil {
		return nil, fmt.Errorf("workflow: history starts with event %d %s, not WorkflowExecutionStarted", history[0].GetEventId(), history[0].GetEventType())
	}
	if e.info.RunID == "" && st.GetContinuedExecutionRunId() == "" {
		// The first run of a chain is the one its id names (a bare
		// history, in Replay, says no more; a continued run's id is in
		// the run before it).
		e.info.RunID = st.GetFirstExecutionRunId()
	}
	e.info.WorkflowType = st.GetWorkflowType().GetName()
	e.info.TaskQueue = st.GetTaskQueue()
	e.info.Attempt = max(st.GetAttempt(), 1)
	e.info.StartTime = history[0].GetEventTime().AsTime()
	e.input = st.GetInput()
	e.lastResult = st.GetLastCompletionResult()
	e.startedAttrs = st
	e.memo, e.search = st.GetMemo(), st.GetSearchAttributes()

	startedAt := map[int64]time.Time{}
	byCompleted := map[int64]*wfTask{}
	var tasks []*wfTask
	last := int64(0)
	for _, ev := range history {
		if ev.GetEventId() <= last {
			return nil, fmt.Errorf("workflow: history event ids are not increasing at event %d", ev.GetEventId())
		}
		last = ev.GetEventId()
		switch a := ev.GetAttributes().(type) {
		case *orchpb.HistoryEvent_WorkflowTaskStartedEventAttributes:
			startedAt[ev.GetEventId()] = ev.GetEventTime().AsTime()
		case *orchpb.HistoryEvent_WorkflowTaskCompletedEventAttributes:
			t := &wfTask{startedID: a.WorkflowTaskCompletedEventAttributes.GetStartedEventId(), completedID: ev.GetEventId()}
			t.time = startedAt[t.startedID]
			tasks = append(tasks, t)
			byCompleted[t.completedID] = t
		case *orchpb.HistoryEvent_WorkflowExecutionUpdateAcceptedEventAttributes:
			if len(tasks) == 0 {
				return nil, fmt.Errorf("workflow: event %d accepts an update before any workflow task completed", ev.GetEventId())
			}
			t := tasks[len(tasks)-1]
			t.accepted = append(t.accepted, acceptedUpdate(a.WorkflowExecutionUpdateAcceptedEventAttributes))
		}
		if m := ev.GetMarkerRecordedEventAttributes(); m != nil {
			e.markers[markerKey{m.GetMarkerName(), markerIDOf(m.GetDetails())}] = m.GetDetails()[markerData]
		}
		if id := commandTask(ev); id > 0 {
			t := byCompleted[id]
			if t == nil {
				return nil, fmt.Errorf("workflow: event %d %s names workflow task completed event %d, which the history does not have before it", ev.GetEventId(), ev.GetEventType(), id)
			}
			t.commands = append(t.commands, ev)
		}
	}
	return tasks, nil
}

// run replays history: each completed task's commands are checked against
// the code's; then, when upTo > 0, the events up to upTo (the current
// task's WorkflowTaskStarted) are fed to the code and the new commands
// returned. upTo < 0 feeds every event and returns nothing (a query).
func (e *execution) run(history []*orchpb.HistoryEvent, upTo int64) ([]*orchpb.Command, error) {
	tasks, err := e.index(history)
	if err != nil {
		return nil, err
	}
	next := 0
	feed := func(limit int64) {
		for next < len(history) && (limit < 0 || history[next].GetEventId() <= limit) {
			e.applyInput(history[next])
			next++
		}
	}
	e.replaying = true
	for _, t := range tasks {
		if upTo > 0 && t.startedID >= upTo {
			break
		}
		feed(t.startedID)
		e.now = t.time
		e.incoming = t.accepted
		cmds, err := e.step()
		if err != nil {
			return nil, err
		}
		if err := match(cmds, t); err != nil {
			return nil, err
		}
		if e.closing != nil {
			return nil, nil
		}
	}
	if upTo == 0 {
		return nil, nil
	}
	feed(upTo)
	// Past the completed tasks the code meets events for the first time,
	// also in a query: GetVersion then answers as the next task will.
	e.replaying = false
	if upTo > 0 {
		for _, ev := range history {
			if ev.GetEventId() == upTo {
				e.now = ev.GetEventTime().AsTime()
			}
		}
	}
	if upTo > 0 {
		e.incoming = liveUpdates(e.live)
	}
	cmds, err := e.step()
	if err != nil || upTo < 0 {
		return nil, err
	}
	return e.sentUpTo(upTo, cmds), nil
}

// sentUpTo remembers what the task started at upTo ran and sent, for
// the run's next task (advance), and returns the commands.
func (e *execution) sentUpTo(upTo int64, cmds []*command) []*orchpb.Command {
	e.lastStarted, e.lastEvent, e.sent = upTo, upTo, cmds
	out := make([]*orchpb.Command, len(cmds))
	for i, c := range cmds {
		out[i] = c.cmd
	}
	return out
}

// errStale says that a kept run cannot take a task: its events do not
// follow the last task it ran (that task failed, timed out, or its answer
// was refused). The worker then replays the whole history instead.
var errStale = errors.New("workflow: the task does not follow the last task this run ran")

// advance runs the next task of a run kept since its last task: events
// are the history's events after that task's WorkflowTaskStarted (events
// it has seen already are skipped, so a whole history does too) up to the
// new task's, upTo. The events recording the last task's commands are
// checked against them (a *NonDeterminismError when they differ, as in a
// replay), the others are fed to the code, which runs on; its new
// commands are the task's. Nothing is replayed: the cost is the new
// events', whatever the history's length.
func (e *execution) advance(events []*orchpb.HistoryEvent, upTo int64) ([]*orchpb.Command, error) {
	if e.closing != nil || e.lastStarted == 0 || upTo <= e.lastEvent {
		return nil, errStale
	}
	first := len(events)
	done := &wfTask{startedID: e.lastStarted}
	next := e.lastEvent + 1
	for i, ev := range events {
		id := ev.GetEventId()
		if id < next || id > upTo {
			continue
		}
		if id != next {
			return nil, fmt.Errorf("workflow: history event %d follows event %d: events are missing", id, next-1)
		}
		next++
		first = min(first, i)
		if a := ev.GetWorkflowTaskCompletedEventAttributes(); a != nil && a.GetStartedEventId() == e.lastStarted {
			done.completedID = id
		}
		if m := ev.GetMarkerRecordedEventAttributes(); m != nil {
			e.markers[markerKey{m.GetMarkerName(), markerIDOf(m.GetDetails())}] = m.GetDetails()[markerData]
		}
		if t := commandTask(ev); t > 0 {
			if t != done.completedID {
				return nil, errStale
			}
			done.commands = append(done.commands, ev)
		}
	}
	if next != upTo+1 || done.completedID == 0 {
		return nil, errStale
	}
	if err := match(e.sent, done); err != nil {
		return nil, err
	}
	e.sent = nil
	for _, ev := range events[first:] {
		if ev.GetEventId() > upTo {
			break
		}
		e.applyInput(ev)
		if ev.GetEventId() == upTo {
			e.now = ev.GetEventTime().AsTime()
		}
	}
	e.incoming = liveUpdates(e.live)
	cmds, err := e.step()
	if err != nil {
		return nil, err
	}
	return e.sentUpTo(upTo, cmds), nil
}

// match checks the commands the code issued in a replayed task against
// the events that recorded the task's commands, in order.
func match(cmds []*command, t *wfTask) error {
	cmds = slices.DeleteFunc(slices.Clone(cmds), isProtocolCommand)
	for i := range max(len(cmds), len(t.commands)) {
		if i >= len(t.commands) {
			return &NonDeterminismError{EventID: t.completedID, EventType: orchpb.EventType_WorkflowTaskCompleted,
				History: "no further command", Code: describeCommand(cmds[i].cmd)}
		}
		ev := t.commands[i]
		if i >= len(cmds) {
			return &NonDeterminismError{EventID: ev.GetEventId(), EventType: ev.GetEventType(), History: describeEvent(ev), Code: "no command"}
		}
		if !sameCommand(cmds[i].cmd, ev) {
			return &NonDeterminismError{EventID: ev.GetEventId(), EventType: ev.GetEventType(), History: describeEvent(ev), Code: describeCommand(cmds[i].cmd)}
		}
		if cmds[i].matched != nil {
			cmds[i].matched(ev)
		}
	}
	return nil
}

// NonDeterminismError says that the workflow code, replayed over its
// history, did not issue the commands the history recorded: the code
// changed in a way that breaks runs already under way (or reads the clock,
// random numbers, map order or the outside world).
type NonDeterminismError struct {
	// EventID is the event that does not match; when the code issued a
	// command the history does not have, the WorkflowTaskCompleted event
	// after which it would have been recorded.
	EventID   int64
	EventType orchpb.EventType
	// History is what the history recorded there, Code what the code did.
	History string
	Code    string
}

func (e *NonDeterminismError) Error() string {
	if e.EventType == orchpb.EventType_WorkflowTaskCompleted {
		return fmt.Sprintf("workflow: non-deterministic: the code issued %s, but the history records no further command after event %d (WorkflowTaskCompleted)", e.Code, e.EventID)
	}
	return fmt.Sprintf("workflow: non-deterministic: event %d records %s, but the code issued %s", e.EventID, e.History, e.Code)
}

func sameCommand(c *orchpb.Command, ev *orchpb.HistoryEvent) bool {
	switch c.GetCommandType() {
	case orchpb.CommandType_SCHEDULE_ACTIVITY_TASK:
		a, b := c.GetScheduleActivityTaskCommandAttributes(), ev.GetActivityTaskScheduledEventAttributes()
		return b != nil && a.GetActivityId() == b.GetActivityId() && a.GetActivityType().GetName() == b.GetActivityType().GetName()
	case orchpb.CommandType_REQUEST_CANCEL_ACTIVITY_TASK:
		b := ev.GetActivityTaskCancelRequestedEventAttributes()
		return b != nil && c.GetRequestCancelActivityTaskCommandAttributes().GetScheduledEventId() == b.GetScheduledEventId()
	case orchpb.CommandType_START_TIMER:
		b := ev.GetTimerStartedEventAttributes()
		return b != nil && c.GetStartTimerCommandAttributes().GetTimerId() == b.GetTimerId()
	case orchpb.CommandType_CANCEL_TIMER:
		b := ev.GetTimerCanceledEventAttributes()
		return b != nil && c.GetCancelTimerCommandAttributes().GetTimerId() == b.GetTimerId()
	case orchpb.CommandType_COMPLETE_WORKFLOW_EXECUTION:
		return ev.GetEventType() == orchpb.EventType_WorkflowExecutionCompleted
	case orchpb.CommandType_FAIL_WORKFLOW_EXECUTION:
		return ev.GetEventType() == orchpb.EventType_WorkflowExecutionFailed
	case orchpb.CommandType_CANCEL_WORKFLOW_EXECUTION:
		return ev.GetEventType() == orchpb.EventType_WorkflowExecutionCanceled
	case orchpb.CommandType_CONTINUE_AS_NEW_WORKFLOW_EXECUTION:
		return ev.GetEventType() == orchpb.EventType_WorkflowExecutionContinuedAsNew
	case orchpb.CommandType_RECORD_MARKER:
		return sameMarker(c.GetRecordMarkerCommandAttributes(), ev.GetMarkerRecordedEventAttributes())
	case orchpb.CommandType_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES:
		return ev.GetEventType() == orchpb.EventType_UpsertWorkflowSearchAttributes
	case orchpb.CommandType_START_CHILD_WORKFLOW_EXECUTION:
		a, b := c.GetStartChildWorkflowExecutionCommandAttributes(), ev.GetStartChildWorkflowExecutionInitiatedEventAttributes()
		return b != nil && a.GetWorkflowType().GetName() == b.GetWorkflowType().GetName() &&
			(a.GetControl() == b.GetControl() || a.GetWorkflowId() == b.GetWorkflowId())
	case orchpb.CommandType_REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION:
		b := ev.GetRequestCancelExternalWorkflowExecutionInitiatedEventAttributes()
		return b != nil && c.GetRequestCancelExternalWorkflowExecutionCommandAttributes().GetWorkflowId() == b.GetWorkflowExecution().GetWorkflowId()
	case orchpb.CommandType_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION:
		a, b := c.GetSignalExternalWorkflowExecutionCommandAttributes(), ev.GetSignalExternalWorkflowExecutionInitiatedEventAttributes()
		return b != nil && a.GetExecution().GetWorkflowId() == b.GetWorkflowExecution().GetWorkflowId() && a.GetSignalName() == b.GetSignalName()
	case orchpb.CommandType_UPSERT_WORKFLOW_PROPERTIES:
		return ev.GetEventType() == orchpb.EventType_WorkflowPropertiesModified
	}
	return false
}

func describeCommand(c *orchpb.Command) string {
	name := commandName(c.GetCommandType())
	switch a := c.GetAttributes().(type) {
	case *orchpb.Command_ScheduleActivityTaskCommandAttributes:
		return fmt.Sprintf("%s %s (activity id %s)", name, a.ScheduleActivityTaskCommandAttributes.GetActivityType().GetName(), a.ScheduleActivityTaskCommandAttributes.GetActivityId())
	case *orchpb.Command_StartTimerCommandAttributes:
		return fmt.Sprintf("%s (timer id %s, %s)", name, a.StartTimerCommandAttributes.GetTimerId(), a.StartTimerCommandAttributes.GetStartToFireTimeout().AsDuration())
	case *orchpb.Command_CancelTimerCommandAttributes:
		return fmt.Sprintf("%s (timer id %s)", name, a.CancelTimerCommandAttributes.GetTimerId())
	case *orchpb.Command_RequestCancelActivityTaskCommandAttributes:
		return fmt.Sprintf("%s (scheduled event %d)", name, a.RequestCancelActivityTaskCommandAttributes.GetScheduledEventId())
	case *orchpb.Command_RecordMarkerCommandAttributes:
		return fmt.Sprintf("%s %s %s", name, a.RecordMarkerCommandAttributes.GetMarkerName(), markerIDOf(a.RecordMarkerCommandAttributes.GetDetails()))
	case *orchpb.Command_StartChildWorkflowExecutionCommandAttributes:
		return fmt.Sprintf("%s %s (workflow id %s)", name, a.StartChildWorkflowExecutionCommandAttributes.GetWorkflowType().GetName(), a.StartChildWorkflowExecutionCommandAttributes.GetWorkflowId())
	case *orchpb.Command_RequestCancelExternalWorkflowExecutionCommandAttributes:
		return fmt.Sprintf("%s (workflow id %s)", name, a.RequestCancelExternalWorkflowExecutionCommandAttributes.GetWorkflowId())
	case *orchpb.Command_SignalExternalWorkflowExecutionCommandAttributes:
		return fmt.Sprintf("%s %s (workflow id %s)", name, a.SignalExternalWorkflowExecutionCommandAttributes.GetSignalName(), a.SignalExternalWorkflowExecutionCommandAttributes.GetExecution().GetWorkflowId())
	}
	return name
}

// commandName is a command type in the events' spelling:
// SCHEDULE_ACTIVITY_TASK is ScheduleActivityTask.
func commandName(t orchpb.CommandType) string {
	var b strings.Builder
	for _, w := range strings.Split(strings.ToLower(t.String()), "_") {
		if w != "" {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return b.String()
}

func describeEvent(ev *orchpb.HistoryEvent) string {
	name := ev.GetEventType().String()
	switch a := ev.GetAttributes().(type) {
	case *orchpb.HistoryEvent_ActivityTaskScheduledEventAttributes:
		return fmt.Sprintf("%s %s (activity id %s)", name, a.ActivityTaskScheduledEventAttributes.GetActivityType().GetName(), a.ActivityTaskScheduledEventAttributes.GetActivityId())
	case *orchpb.HistoryEvent_TimerStartedEventAttributes:
		return fmt.Sprintf("%s (timer id %s, %s)", name, a.TimerStartedEventAttributes.GetTimerId(), a.TimerStartedEventAttributes.GetStartToFireTimeout().AsDuration())
	case *orchpb.HistoryEvent_TimerCanceledEventAttributes:
		return fmt.Sprintf("%s (timer id %s)", name, a.TimerCanceledEventAttributes.GetTimerId())
	case *orchpb.HistoryEvent_ActivityTaskCancelRequestedEventAttributes:
		return fmt.Sprintf("%s (scheduled event %d)", name, a.ActivityTaskCancelRequestedEventAttributes.GetScheduledEventId())
	case *orchpb.HistoryEvent_MarkerRecordedEventAttributes:
		return fmt.Sprintf("%s %s %s", name, a.MarkerRecordedEventAttributes.GetMarkerName(), markerIDOf(a.MarkerRecordedEventAttributes.GetDetails()))
	case *orchpb.HistoryEvent_StartChildWorkflowExecutionInitiatedEventAttributes:
		return fmt.Sprintf("%s %s (workflow id %s)", name, a.StartChildWorkflowExecutionInitiatedEventAttributes.GetWorkflowType().GetName(), a.StartChildWorkflowExecutionInitiatedEventAttributes.GetWorkflowId())
	case *orchpb.HistoryEvent_RequestCancelExternalWorkflowExecutionInitiatedEventAttributes:
		return fmt.Sprintf("%s (workflow id %s)", name, a.RequestCancelExternalWorkflowExecutionInitiatedEventAttributes.GetWorkflowExecution().GetWorkflowId())
	case *orchpb.HistoryEvent_SignalExternalWorkflowExecutionInitiatedEventAttributes:
		return fmt.Sprintf("%s %s (workflow id %s)", name, a.SignalExternalWorkflowExecutionInitiatedEventAttributes.GetSignalName(), a.SignalExternalWorkflowExecutionInitiatedEventAttributes.GetWorkflowExecution().GetWorkflowId())
	}
	return name
}

// bodyOf adapts a typed workflow function.
func bodyOf[In, Out any](fn func(Context, In) (Out, error)) body {
	return func(ctx Context, input *orchpb.Payloads) (*orchpb.Command, error) {
		var in In
		if len(input.GetPayloads()) > 0 {
			if err := orch.DecodePayload(input.GetPayloads()[0], &in); err != nil {
				return orch.FailWorkflowCommand(orch.NonRetryable(fmt.Errorf("workflow %s: input: %w", GetInfo(ctx).WorkflowType, err))), nil
			}
		}
		out, err := fn(ctx, in)
		var can *ContinueAsNewError
		switch {
		case err == nil:
			return orch.CompleteWorkflowCommand(out)
		case errors.As(err, &can):
			e := must(ctx).e
			st := e.startedAttrs
			attrs := &orchpb.ContinueAsNewWorkflowExecutionCommandAttributes{TaskQueue: can.TaskQueue, Memo: e.memo,
				SearchAttributes: e.search, RetryPolicy: st.GetRetryPolicy(), Header: st.GetHeader()}
			if can.WorkflowType != "" {
				attrs.WorkflowType = &orchpb.WorkflowType{Name: can.WorkflowType}
			}
			if can.Input != nil {
				p, err := orch.EncodePayloads(can.Input)
				if err != nil {
					return nil, fmt.Errorf("workflow: continue as new: %w", err)
				}
				attrs.Input = p
			}
			return &orchpb.Command{CommandType: orchpb.CommandType_CONTINUE_AS_NEW_WORKFLOW_EXECUTION,
				Attributes: &orchpb.Command_ContinueAsNewWorkflowExecutionCommandAttributes{ContinueAsNewWorkflowExecutionCommandAttributes: attrs}}, nil
		case errors.Is(err, ErrCanceled) && must(ctx).e.root.canceled:
			return orch.CancelWorkflowCommand(), nil
		}
		return orch.FailWorkflowCommand(err), nil
	}
}

// New returns the orch.Workflow that runs fn, a workflow written as an
// ordinary function, on the worker's Decide model: on each workflow task
// fn is replayed from the start of the history (each completed task's
// commands are checked against the ones fn issues, a *NonDeterminismError
// when they differ), then fed the task's new events, and the commands it
// issues beyond the history are the task's. Its Query replays the history
// and calls the handler SetQueryHandler registered.
//
// fn's input is the workflow's first input payload (JSON; the zero In when
// there is none). Returning a value completes the run with it; an error
// fails it (an *orch.ApplicationError sets the failure's type and
// non-retryable mark); ErrCanceled after a cancel request cancels it; a
// *ContinueAsNewError continues it as a new run. A panic fails the
// workflow task, which the service retries.
func New[In, Out any](fn func(ctx Context, in In) (Out, error)) orch.Workflow {
	return NewWithOptions(fn, Options{})
}

// DefaultDeadlockTimeout is Options.DeadlockTimeout's default: longer than
// Temporal's one second, so a loaded test machine does not trip it.
const DefaultDeadlockTimeout = 10 * time.Second

// Options are the settings of NewWithOptions.
type Options struct {
	// DeadlockTimeout is how long a coroutine may run without blocking in
	// a call of this package before the task fails with a *DeadlockError,
	// and how long the end of a task waits for a coroutine's deferred
	// calls (0: DefaultDeadlockTimeout; negative: no limit).
	DeadlockTimeout time.Duration
	// Logger receives what workflow code logs through GetLogger (nil:
	// nothing is logged).
	Logger *slog.Logger

	fire <-chan struct{} // tests: the watchdog fires when it is closed
}

// NewWithOptions is New with options.
func NewWithOptions[In, Out any](fn func(ctx Context, in In) (Out, error), o Options) orch.Workflow {
	b := bodyOf(fn)
	start := func(ctx context.Context, t *orch.WorkflowTask) (*execution, []*orchpb.Command, error) {
		e := newExecution(b, o)
		e.info.WorkflowID, e.info.RunID = t.WorkflowID, t.RunID
		e.live = t.UpdateRequests()
		upTo := taskStarted(t)
		if upTo <= 0 {
			e.stop()
			return nil, nil, errors.New("workflow: the task's history has no WorkflowTaskStarted event")
		}
		cmds, err := e.run(t.History, upTo)
		if err != nil {
			e.probe(ctx)
			e.stop()
			return nil, nil, err
		}
		t.Reply(e.msgs...)
		return e, cmds, nil
	}
	return orch.Workflow{
		Decide: func(ctx context.Context, t *orch.WorkflowTask) ([]*orchpb.Command, error) {
			e, cmds, err := start(ctx, t)
			if e != nil {
				e.probe(ctx)
				e.stop()
			}
			return cmds, err
		},
		Start: func(ctx context.Context, t *orch.WorkflowTask) (orch.CachedRun, []*orchpb.Command, error) {
			e, cmds, err := start(ctx, t)
			if err != nil {
				return nil, nil, err
			}
			return (*cachedRun)(e), cmds, nil
		},
		Query: func(_ context.Context, t *orch.WorkflowTask, queryType string, args *orchpb.Payloads) (any, error) {
			e := newExecution(b, o)
			defer e.stop()
			e.query = true
			e.info.WorkflowID, e.info.RunID = t.WorkflowID, t.RunID
			if _, err := e.run(t.History, -1); err != nil {
				return nil, err
			}
			h := e.queries[queryType]
			if h == nil {
				known := slices.Sorted(maps.Keys(e.queries))
				return nil, fmt.Errorf("unknown query type %q (known: %s)", queryType, strings.Join(known, ", "))
			}
			return e.answer(queryType, h, args)
		},
	}
}

// answer runs a query handler read-only: a call that would issue a
// command or block panics (readOnly), and the panic is the query's error.
func (e *execution) answer(queryType string, h func(*orchpb.Payloads) (any, error), args *orchpb.Payloads) (answer any, err error) {
	e.answering = true
	defer func() {
		e.answering = false
		if r := recover(); r != nil {
			answer = nil
			if re, ok := r.(error); ok {
				err = fmt.Errorf("workflow: query %s: %w", queryType, re)
			} else {
				err = fmt.Errorf("workflow: query %s panicked: %v", queryType, r)
			}
		}
	}()
	return h(args)
}

// readOnly panics when a query handler makes call, which issues a command
// or runs code the history records: a query only reads (as in Temporal,
// whose query handlers may not schedule anything either).
func (e *execution) readOnly(call string) {
	if e.answering {
		panic(fmt.Errorf("%s called from a query handler or an update validator: they are read-only and may not issue commands, run side effects or start coroutines", call))
	}
}

// cachedRun is an execution a worker keeps between the run's tasks (the
// sticky cache): its coroutines stay blocked where the last task left
// them, and the next task feeds them the new events only.
type cachedRun execution

func (c *cachedRun) Continue(_ context.Context, t *orch.WorkflowTask, events []*orchpb.HistoryEvent) ([]*orchpb.Command, error) {
	e := (*execution)(c)
	upTo := taskStarted(&orch.WorkflowTask{History: events, Raw: t.Raw})
	if upTo <= 0 {
		return nil, errors.New("workflow: the task's history has no WorkflowTaskStarted event")
	}
	if e.abandoned {
		return nil, errStale
	}
	e.live = t.UpdateRequests()
	cmds, err := e.advance(events, upTo)
	if err == nil {
		t.Reply(e.msgs...)
	}
	return cmds, err
}

func (c *cachedRun) Close() { (*execution)(c).stop() }

// taskStarted is the WorkflowTaskStarted event of t.
func taskStarted(t *orch.WorkflowTask) int64 {
	if id := t.Raw.GetStartedEventId(); id > 0 {
		return id
	}
	return lastTaskStarted(t.History)
}

func lastTaskStarted(history []*orchpb.HistoryEvent) int64 {
	for i := len(history) - 1; i >= 0; i-- {
		if history[i].GetEventType() == orchpb.EventType_WorkflowTaskStarted {
			return history[i].GetEventId()
		}
	}
	return 0
}

// Register registers fn as the workflow type name of w (see New).
func Register[In, Out any](w *orch.Worker, name string, fn func(ctx Context, in In) (Out, error)) error {
	if fn == nil {
		return errors.New("workflow: Register needs a function")
	}
	return w.RegisterWorkflow(name, New(fn))
}

// Replay runs fn over a recorded history (oldest event first, as
// orch.Client.History gives it): every workflow task the history records
// as completed is replayed and the commands fn issues are checked against
// the recorded ones. It returns nil when fn reproduces the history, a
// *NonDeterminismError naming the first event that differs, or the error
// of a panic in fn. Run it in tests over histories of runs made with
// earlier versions of the code, before deploying a change.
//
// GetInfo gives fn what the history's WorkflowExecutionStarted event
// says: the type, task queue, attempt and start time, and the run id of
// the first run of a chain (its first_execution_run_id, when the event
// has no continued_execution_run_id). A history does not carry the
// workflow id, nor the run id of a run that continues another: GetInfo's
// WorkflowID is always "", and its RunID is "" for a continued run.
// ReplayWithOptions takes both from the caller; ReplayRun knows both.
// (Replay's checks need neither: a child started under its default
// workflow id, "<run id>_<n>", is matched by n and then known by the id
// the history records.)
func Replay[In, Out any](history []*orchpb.HistoryEvent, fn func(ctx Context, in In) (Out, error)) error {
	return ReplayWithOptions(history, fn, ReplayOptions{})
}

// ReplayOptions are the settings of ReplayWithOptions: the execution the
// history was recorded under, which the history does not say.
type ReplayOptions struct {
	// WorkflowID is the workflow id GetInfo gives the code ("": none,
	// as Replay).
	WorkflowID string
	// RunID is the run id GetInfo gives the code, whatever the history's
	// first_execution_run_id says ("": as Replay, that id for the first
	// run of a chain and "" for a run that continues another).
	RunID string
}

// ReplayWithOptions is Replay with options: GetInfo gives fn the
// workflow id and run id the history was recorded under, as it did when
// the run ran, for a history the caller holds (saved to a file, read
// back with ParseHistoryJSON).
func ReplayWithOptions[In, Out any](history []*orchpb.HistoryEvent, fn func(ctx Context, in In) (Out, error), o ReplayOptions) error {
	if fn == nil {
		return errors.New("workflow: Replay needs a function")
	}
	e := newExecution(bodyOf(fn), Options{})
	defer e.stop()
	e.info.WorkflowID, e.info.RunID = o.WorkflowID, o.RunID
	_, err := e.run(history, 0)
	return err
}

// ReplayRun fetches the history of a run from the service (runID "" is
// the latest run) and replays fn over it (see Replay); GetInfo gives fn
// the run's workflow id and run id, as it did when the run ran.
func ReplayRun[In, Out any](ctx context.Context, c *orch.Client, workflowID, runID string, fn func(ctx Context, in In) (Out, error)) error {
	if fn == nil {
		return errors.New("workflow: ReplayRun needs a function")
	}
	if runID == "" {
		info, err := c.DescribeWorkflow(ctx, workflowID, "")
		if err != nil {
			return err
		}
		runID = info.GetExecution().GetRunId() // the same run for History, should another start meanwhile
	}
	var history []*orchpb.HistoryEvent
	for ev, err := range c.History(ctx, workflowID, runID, nil) {
		if err != nil {
			return err
		}
		history = append(history, ev)
	}
	return ReplayWithOptions(history, fn, ReplayOptions{WorkflowID: workflowID, RunID: runID})
}

// ParseHistoryJSON reads a history saved as JSON: the answer of the HTTP
// API's GetWorkflowExecutionHistory ({"history": [...]}, what
// "orchctl workflow show --output json" prints), or a bare array of
// events. Fields it does not know are skipped.
func ParseHistoryJSON(data []byte) ([]*orchpb.HistoryEvent, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var raw []json.RawMessage
		if err := json.Unmarshal(trimmed, &raw); err != nil {
			return nil, fmt.Errorf("workflow: history JSON: %w", err)
		}
		out := make([]*orchpb.HistoryEvent, 0, len(raw))
		for i, r := range raw {
			ev := &orchpb.HistoryEvent{}
			if err := orchwire.LenientJSON.Unmarshal(r, ev); err != nil {
				return nil, fmt.Errorf("workflow: history JSON: event %d: %w", i, err)
			}
			out = append(out, ev)
		}
		return out, nil
	}
	var resp orchpb.GetWorkflowExecutionHistoryResponse
	if err := orchwire.LenientJSON.Unmarshal(trimmed, &resp); err != nil {
		return nil, fmt.Errorf("workflow: history JSON: %w", err)
	}
	if len(resp.GetHistory()) == 0 {
		return nil, errors.New(`workflow: history JSON: no events (want {"history": [...]} or an array)`)
	}
	return resp.GetHistory(), nil
}
