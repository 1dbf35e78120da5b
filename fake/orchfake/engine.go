package orchfake

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// engineState is an execution's worker side: its workflow task, its
// activities, its timers and the queries waiting for a worker.
type engineState struct {
	wft           *workflowTask // scheduled or started; nil when none is outstanding
	lastStartedID int64         // started event id of the last completed workflow task
	wftAttempt    int32         // attempt of the next workflow task (after failures and timeouts)
	newEvents     bool          // events the running workflow task has not seen arrived
	activities    map[int64]*activity
	userTimers    map[string]*userTimer // by timer id
	timers        map[*engineTimer]bool // every pending clock timer of the engine
	queries       map[int64]*pendingQuery
	children      map[int64]*childRef // open children, by initiated event id
	delayed       bool                // the first workflow task waits (cron, retry backoff)
	// sticky is the sticky queue of the worker that completed the last
	// task with sticky_attributes: the next task goes there (nil: to the
	// run's task queue).
	sticky *taskQueue
	// pendingChildren are initiated by the task being completed, started
	// once its commands are applied.
	pendingChildren []int64
	// admitted are the updates waiting for a task to carry them (while a
	// task is started, those that arrived since it started); messages are
	// the protocol messages of the task being completed.
	admitted []*update
	messages *taskMessages
	// pendingSignals are initiated by the task being completed, sent once
	// its commands are applied.
	pendingSignals []pendingSignal
}

// engineTimer is a pending clock timer with its due time (for time
// skipping).
type engineTimer struct {
	t  *clock.Timer
	at time.Time
}

func (es *engineState) stopTimers() {
	for et := range es.timers {
		et.t.Stop()
	}
	es.timers = nil
}

// after schedules fn (run with s.mu held) on the fake clock as one of e's
// engine timers, stopped when e closes.
func (s *Server) after(e *execution, d time.Duration, fn func()) *engineTimer {
	if e.eng.timers == nil {
		e.eng.timers = map[*engineTimer]bool{}
	}
	et := &engineTimer{at: s.clk.Now().Add(max(d, 0))}
	et.t = s.afterFunc(d, func() {
		if !e.eng.timers[et] {
			return
		}
		delete(e.eng.timers, et)
		fn()
		s.kickSkip()
	})
	e.eng.timers[et] = true
	return et
}

func (s *Server) cancelTimer(e *execution, et *engineTimer) {
	if et == nil {
		return
	}
	et.t.Stop()
	delete(e.eng.timers, et)
}

// workflowTask is one workflow task of an execution.
type workflowTask struct {
	e           *execution
	scheduledID int64
	startedID   int64 // 0 until a poll starts it
	attempt     int32
	scheduled   time.Time
	started     time.Time
	identity    string
	requestID   string
	token       []byte
	key         string // worker_instance_key of the poll that started it
	timeout     *engineTimer
	// onSticky is the sticky queue the task waits on (nil: the run's task
	// queue), until stickyTimeout moves it to the run's queue.
	onSticky      *taskQueue
	stickyTimeout *engineTimer
	delay         *engineTimer // the retry backoff before it is queued
	// updates are the updates the task carries (delivered when it started).
	updates []*update
	// transient: a retry (attempt 2 on) whose WorkflowTaskScheduled and
	// WorkflowTaskStarted events are not in the history, as the real
	// service does: a poll shows them at the end of the history it hands
	// out, and they are written when the task completes or another event
	// arrives; a failure or timeout of a transient task writes nothing.
	transient bool
}

func (t *workflowTask) live() bool {
	return t.e.open() && t.e.eng.wft == t && t.startedID == 0
}

// scheduleWorkflowTask schedules the execution's next workflow task: the
// first attempt writes WorkflowTaskScheduled, a retry is transient; a
// retry past the second waits out its backoff before it is queued. s.mu
// must be held.
func (s *Server) scheduleWorkflowTask(e *execution) {
	attempt := max(e.eng.wftAttempt, 1)
	t := &workflowTask{e: e, attempt: attempt, scheduled: s.clk.Now()}
	if attempt > 1 {
		t.transient = true
		t.scheduledID = int64(len(e.history) + 1)
	} else {
		t.onSticky = s.stickyTarget(e)
		ev := s.add(e, orchpb.EventType_WorkflowTaskScheduled, func(ev *orchpb.HistoryEvent) { ev.Attributes = wftScheduledAttrs(e, t.onSticky, attempt) })
		t.scheduledID = ev.GetEventId()
	}
	e.eng.wft = t
	e.eng.newEvents = false
	if d := workflowTaskRetryDelay(attempt); d > 0 {
		t.delay = s.after(e, d, func() { s.retryTaskDue(t) })
		return
	}
	if q := t.onSticky; q != nil {
		q.push(sideWorkflow, t)
		t.stickyTimeout = s.after(e, StickyScheduleToStartTimeout, func() { s.stickyTimedOut(t) })
		s.kickSkip() // its worker may be gone: skipping may move to the timeout
		return
	}
	e.ns.queue(e.queue).push(sideWorkflow, t)
}

// stickyTarget is the sticky queue e's next task goes to, or nil for the
// run's task queue: a first attempt goes to the sticky queue the last
// task named while its worker polls it (a poll waits, or one ended within
// StickyPollerUnavailable); otherwise the run stops being sticky, as the
// service schedules on the normal queue when the sticky worker is gone.
// s.mu must be held.
func (s *Server) stickyTarget(e *execution) *taskQueue {
	q := e.eng.sticky
	if q == nil {
		return nil
	}
	if max(e.eng.wftAttempt, 1) > 1 ||
		(len(q.sides[sideWorkflow].waiters) == 0 && s.clk.Now().Sub(q.lastPoll) > StickyPollerUnavailable) {
		e.eng.sticky = nil
		return nil
	}
	return q
}

// stickyTimedOut: no poll of the sticky queue took the task within
// StickyScheduleToStartTimeout. As the service does, the task is recorded
// as timed out (SCHEDULE_TO_START), the run stops being sticky, and a new
// task (a first attempt: the worker did not fail) goes to the run's task
// queue with the whole history. s.mu must be held.
func (s *Server) stickyTimedOut(t *workflowTask) {
	e := t.e
	t.stickyTimeout = nil
	if !t.live() {
		return
	}
	s.add(e, orchpb.EventType_WorkflowTaskTimedOut, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_WorkflowTaskTimedOutEventAttributes{
			WorkflowTaskTimedOutEventAttributes: &orchpb.WorkflowTaskTimedOutEventAttributes{ScheduledEventId: t.scheduledID, TimeoutType: orchpb.TimeoutType_SCHEDULE_TO_START},
		}
	})
	e.eng.wft = nil
	e.eng.sticky = nil
	e.eng.wftAttempt = 1
	s.scheduleWorkflowTask(e)
}

// retryTaskDue queues a retried workflow task once its backoff is over.
// s.mu must be held.
func (s *Server) retryTaskDue(t *workflowTask) {
	t.delay = nil
	if t.live() {
		t.scheduled = s.clk.Now()
		t.e.ns.queue(t.e.queue).push(sideWorkflow, t)
	}
}

func wftScheduledAttrs(e *execution, sticky *taskQueue, attempt int32) *orchpb.HistoryEvent_WorkflowTaskScheduledEventAttributes {
	tq := &orchpb.TaskQueue{Name: e.queue, Kind: orchpb.TaskQueueKind_NORMAL}
	if sticky != nil {
		tq = &orchpb.TaskQueue{Name: sticky.name, Kind: orchpb.TaskQueueKind_STICKY}
	}
	return &orchpb.HistoryEvent_WorkflowTaskScheduledEventAttributes{
		WorkflowTaskScheduledEventAttributes: &orchpb.WorkflowTaskScheduledEventAttributes{
			TaskQueue:           tq,
			StartToCloseTimeout: durationpb.New(e.taskTimeout),
			Attempt:             attempt,
		},
	}
}

func (t *workflowTask) startedAttrs() *orchpb.HistoryEvent_WorkflowTaskStartedEventAttributes {
	return &orchpb.HistoryEvent_WorkflowTaskStartedEventAttributes{
		WorkflowTaskStartedEventAttributes: &orchpb.WorkflowTaskStartedEventAttributes{ScheduledEventId: t.scheduledID, Identity: t.identity, RequestId: t.requestID},
	}
}

// transientEvents are the events of a transient task as a poll shows them
// (and as materialize writes them).
func (t *workflowTask) transientEvents() []*orchpb.HistoryEvent {
	evs := []*orchpb.HistoryEvent{{EventId: t.scheduledID, EventTime: timestamppb.New(t.scheduled),
		EventType: orchpb.EventType_WorkflowTaskScheduled, Attributes: wftScheduledAttrs(t.e, nil, t.attempt)}}
	if t.startedID != 0 {
		evs = append(evs, &orchpb.HistoryEvent{EventId: t.startedID, EventTime: timestamppb.New(t.started),
			EventType: orchpb.EventType_WorkflowTaskStarted, Attributes: t.startedAttrs()})
	}
	return evs
}

// materialize writes the events of the execution's transient workflow
// task, if it has one, before another event: from then on it is an
// ordinary task. s.mu must be held.
func (s *Server) materialize(e *execution) {
	t := e.eng.wft
	if t == nil || !t.transient {
		return
	}
	t.transient = false
	for _, ev := range t.transientEvents() {
		s.appendEvent(e, ev)
	}
}

// newEventsForWorker is called after an event the workflow must see (a
// signal, a cancel request, an activity's or a timer's end): a workflow
// task is scheduled unless one is outstanding; a running one is told it
// missed events. s.mu must be held.
func (s *Server) newEventsForWorker(e *execution) {
	switch {
	case !e.open():
	case e.eng.delayed: // a cron or retry run before its time: the task comes then
	case e.eng.wft == nil:
		s.scheduleWorkflowTask(e)
	case e.eng.wft.startedID != 0:
		e.eng.newEvents = true
	}
}

// engineClosed withdraws the worker side of a closed execution. s.mu must
// be held.
func (s *Server) engineClosed(e *execution) {
	e.eng.wft = nil
	e.eng.stopTimers()
	for _, a := range e.eng.activities {
		a.closed = true
	}
	e.eng.activities = nil
	e.eng.userTimers = nil
	e.eng.children = nil
	e.eng.pendingChildren = nil
	e.eng.pendingSignals = nil
	s.abortUpdates(e)
	// Pending queries stay: a closed execution can still be queried.
}

func (s *Server) pollWorkflowTask(ctx context.Context, req *orchpb.PollWorkflowTaskQueueRequest) (*orchpb.PollWorkflowTaskQueueResponse, error) {
	if err := s.checkQueueKind(req); err != nil {
		return nil, err
	}
	resp := &orchpb.PollWorkflowTaskQueueResponse{}
	got, err := s.poll(ctx, req.GetNamespace(), req.GetTaskQueue(), req.GetIdentity(), req.GetWorkerInstanceKey(), sideWorkflow, req.GetTaskQueueMetadata(),
		func(t task) {
			switch t := t.(type) {
			case *workflowTask:
				resp = s.startWorkflowTask(t, req.GetIdentity(), req.GetWorkerInstanceKey())
			case *queryTask:
				resp = s.startQueryTask(t)
			}
		})
	if err != nil || !got {
		return &orchpb.PollWorkflowTaskQueueResponse{}, err
	}
	s.kickSkip()
	return resp, nil
}

// startWorkflowTask appends WorkflowTaskStarted, starts the task's
// start-to-close timer and answers the poll. s.mu must be held.
func (s *Server) startWorkflowTask(t *workflowTask, identity, key string) *orchpb.PollWorkflowTaskQueueResponse {
	e := t.e
	t.identity, t.requestID, t.started, t.key = identity, newID(), s.clk.Now(), key
	e.ns.owesPoll(key) // it will answer this task and poll again
	s.cancelTimer(e, t.stickyTimeout)
	t.stickyTimeout = nil
	var history []*orchpb.HistoryEvent
	if t.transient {
		t.startedID = t.scheduledID + 1
		history = append(cloneEvents(e.history), t.transientEvents()...)
	} else {
		ev := s.add(e, orchpb.EventType_WorkflowTaskStarted, func(ev *orchpb.HistoryEvent) { ev.Attributes = t.startedAttrs() })
		t.startedID = ev.GetEventId()
		from := 0
		if t.onSticky != nil {
			// A sticky task: its worker keeps the run and needs only the
			// events since the last task's WorkflowTaskStarted.
			from = sinceEvent(e.history, e.eng.lastStartedID)
		}
		history = cloneEvents(e.history[from:])
	}
	t.token = encodeTaskToken(taskToken{kind: tokenWorkflow, namespace: e.ns.info.Name, workflowID: e.id, runID: e.runID, scheduledID: t.scheduledID, attempt: t.attempt})
	t.timeout = s.after(e, e.taskTimeout, func() { s.workflowTaskTimedOut(t) })
	q := e.ns.queue(e.queue)
	if t.onSticky != nil {
		q = t.onSticky
	}
	return &orchpb.PollWorkflowTaskQueueResponse{
		ProtocolMessages:           s.deliverUpdates(t),
		TaskToken:                  t.token,
		WorkflowExecution:          &orchpb.WorkflowExecution{WorkflowId: e.id, RunId: e.runID},
		WorkflowType:               &orchpb.WorkflowType{Name: e.typ},
		PreviousStartedEventId:     e.eng.lastStartedID,
		StartedEventId:             t.startedID,
		Attempt:                    t.attempt,
		BacklogCountHint:           q.backlogCount(sideWorkflow),
		ScheduledTime:              timestamppb.New(t.scheduled),
		StartedTime:                timestamppb.New(t.started),
		History:                    history,
		WorkflowExecutionTaskQueue: &orchpb.TaskQueue{Name: e.queue, Kind: orchpb.TaskQueueKind_NORMAL},
		WorkflowTaskTimeout:        durationpb.New(e.taskTimeout),
	}
}

// workflowTaskTimedOut: the worker did not answer in time. The task is
// recorded as timed out and scheduled again with the next attempt.
func (s *Server) workflowTaskTimedOut(t *workflowTask) {
	e := t.e
	if !e.open() || e.eng.wft != t {
		return
	}
	if !t.transient {
		s.add(e, orchpb.EventType_WorkflowTaskTimedOut, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_WorkflowTaskTimedOutEventAttributes{
				WorkflowTaskTimedOutEventAttributes: &orchpb.WorkflowTaskTimedOutEventAttributes{ScheduledEventId: t.scheduledID, StartedEventId: t.startedID, TimeoutType: orchpb.TimeoutType_START_TO_CLOSE},
			}
		})
	}
	e.eng.wft = nil
	e.eng.wftAttempt = t.attempt + 1
	e.eng.sticky = nil // as the service: the next attempt goes to the run's task queue
	s.undeliver(t)
	s.scheduleWorkflowTask(e)
}

// sinceEvent is the index in history of the first event after event id.
func sinceEvent(history []*orchpb.HistoryEvent, id int64) int {
	i, _ := slices.BinarySearchFunc(history, id+1, func(ev *orchpb.HistoryEvent, id int64) int { return cmp.Compare(ev.GetEventId(), id) })
	return i
}

// taskExecution finds the execution and checks the token's kind. s.mu
// must be held.
func (s *Server) taskExecution(nsName string, tok []byte, kind byte) (*execution, taskToken, error) {
	tt, err := decodeTaskToken(tok)
	if err != nil {
		return nil, tt, err
	}
	if tt.kind != kind {
		return nil, tt, badField("task_token", "not a token of this kind of task")
	}
	if nsName != "" && nsName != tt.namespace {
		return nil, tt, badField("namespace", "the task token belongs to namespace %q", tt.namespace)
	}
	e, err := s.lookup(tt.namespace, &orchpb.WorkflowExecution{WorkflowId: tt.workflowID, RunId: tt.runID}, "task_token")
	if err != nil {
		return nil, tt, err
	}
	if !e.open() {
		return nil, tt, completedError(e)
	}
	return e, tt, nil
}

// currentWorkflowTask finds the started workflow task a token names.
func (s *Server) currentWorkflowTask(nsName string, tok []byte) (*workflowTask, error) {
	e, tt, err := s.taskExecution(nsName, tok, tokenWorkflow)
	if err != nil {
		return nil, err
	}
	t := e.eng.wft
	if t == nil || t.startedID == 0 || t.scheduledID != tt.scheduledID || t.attempt != tt.attempt {
		return nil, errorf(orchwire.WorkflowTaskTimeout, "workflow task not found: it timed out or was already answered (workflow_id %q, scheduled event %d)", e.id, tt.scheduledID)
	}
	return t, nil
}

// workflowTaskRetryDelay is how long a failed or timed-out workflow task
// waits before its attempt is queued again: nothing for the first retry,
// then 1 s doubling up to 10 minutes.
func workflowTaskRetryDelay(attempt int32) time.Duration {
	if attempt < 3 {
		return 0
	}
	return min(time.Second<<min(attempt-3, 20), 10*time.Minute)
}

// pendingWorkflowTask is e's outstanding workflow task as describe shows
// it; nil when none is (a delayed first task is not scheduled yet). s.mu
// must be held.
func pendingWorkflowTask(e *execution) *orchpb.PendingWorkflowTaskInfo {
	t := e.eng.wft
	if t == nil || !e.open() {
		return nil
	}
	p := &orchpb.PendingWorkflowTaskInfo{State: orchpb.PendingWorkflowTaskState_PENDING_WORKFLOW_TASK_STATE_SCHEDULED,
		ScheduledTime: timestamppb.New(t.scheduled), OriginalScheduledTime: timestamppb.New(firstAttemptScheduled(t)),
		Attempt: t.attempt, StartToCloseTimeout: durationpb.New(e.taskTimeout)}
	if t.startedID != 0 {
		p.State = orchpb.PendingWorkflowTaskState_PENDING_WORKFLOW_TASK_STATE_STARTED
		p.StartedTime = timestamppb.New(t.started)
	}
	return p
}

// firstAttemptScheduled is when the first attempt of t's chain of
// attempts was scheduled: t's own time for a first attempt; for a retry,
// the time of the last WorkflowTaskScheduled written with attempt 1 (a
// retry's own events are written late, if ever).
func firstAttemptScheduled(t *workflowTask) time.Time {
	if t.attempt <= 1 {
		return t.scheduled
	}
	h := t.e.history
	for i := len(h) - 1; i >= 0; i-- {
		if a := h[i].GetWorkflowTaskScheduledEventAttributes(); a != nil && a.GetAttempt() <= 1 {
			return h[i].GetEventTime().AsTime()
		}
	}
	return t.scheduled
}
