package orch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/apitwin/apitwin/internal/orchsem"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// WorkerOptions are the optional settings of a Worker.
type WorkerOptions struct {
	// MaxConcurrentActivities bounds the activities running at once
	// (default 10). A poller asks for an activity only when one may run.
	MaxConcurrentActivities int
	// MaxConcurrentWorkflowTasks bounds the workflow tasks handled at once
	// (default 4).
	MaxConcurrentWorkflowTasks int
	// ActivityPollers and WorkflowPollers are the long polls kept open per
	// side (default 2 each). All long polls also count against the client's
	// limit of concurrent long polls (10 by default).
	ActivityPollers int
	WorkflowPollers int
	// WorkflowCacheSize bounds the runs whose state the worker keeps
	// between their workflow tasks, the least recently used evicted first
	// (0: DefaultWorkflowCacheSize; negative: none kept, every task
	// replays its whole history). See "Sticky cache" in the package doc.
	WorkflowCacheSize int
}

// DefaultWorkflowCacheSize is WorkerOptions.WorkflowCacheSize's default.
// Temporal's SDK keeps 10,000 runs per process; a kept run of package
// workflow holds its blocked coroutines (a few KiB of goroutine stack
// each), so a worker keeps fewer by default.
const DefaultWorkflowCacheSize = 1000

// Worker runs the workflows and activities registered with it for one task
// queue of the client's namespace: it polls the queue for workflow tasks
// (handing each to its workflow's Decide, and its queries to Query) and for
// activity tasks (running the registered function), and reports the
// outcomes. Register everything, then Start (or Run); Stop ends it
// gracefully.
type Worker struct {
	c         *Client
	taskQueue string
	opts      WorkerOptions

	mu         sync.Mutex
	activities map[string]activityFunc
	workflows  map[string]Workflow
	started    bool

	key        string          // worker_instance_key of its polls, for ShutdownWorker
	stopping   context.Context // ends when a stop begins: no new poll, no backoff
	beginStop  context.CancelFunc
	pollCtx    context.Context // ends the long polls in flight (a fallback: see Shutdown)
	stopPolls  context.CancelFunc
	taskCtx    context.Context // ends running activities on a hard stop
	stopTasks  context.CancelFunc
	actSlots   chan struct{}
	wfSlots    chan struct{}
	pollers    sync.WaitGroup
	running    sync.WaitGroup
	stopOnce   sync.Once
	stopResult error

	cache       *runCache // nil when off
	stickyQueue string    // the queue its sticky poller polls ("" when none)
}

// activityFunc runs one activity: decodes the input, calls the function,
// encodes the result.
type activityFunc func(ctx context.Context, input *orchpb.Payloads) (*orchpb.Payloads, error)

// NewWorker returns a worker for taskQueue in c's namespace.
func NewWorker(c *Client, taskQueue string, opts *WorkerOptions) (*Worker, error) {
	if c == nil {
		return nil, errors.New("orch: nil client")
	}
	if taskQueue == "" {
		return nil, errors.New("orch: empty task queue")
	}
	var o WorkerOptions
	if opts != nil {
		o = *opts
	}
	for _, v := range []int{o.MaxConcurrentActivities, o.MaxConcurrentWorkflowTasks, o.ActivityPollers, o.WorkflowPollers} { // WorkflowCacheSize < 0 turns the cache off
		if v < 0 {
			return nil, fmt.Errorf("orch: worker options: negative value in %+v", o)
		}
	}
	if o.MaxConcurrentActivities == 0 {
		o.MaxConcurrentActivities = 10
	}
	if o.MaxConcurrentWorkflowTasks == 0 {
		o.MaxConcurrentWorkflowTasks = 4
	}
	if o.ActivityPollers == 0 {
		o.ActivityPollers = 2
	}
	if o.WorkflowPollers == 0 {
		o.WorkflowPollers = 2
	}
	w := &Worker{
		c: c, taskQueue: taskQueue, opts: o,
		activities: map[string]activityFunc{},
		workflows:  map[string]Workflow{},
	}
	switch {
	case o.WorkflowCacheSize == 0:
		w.cache = newRunCache(DefaultWorkflowCacheSize)
	case o.WorkflowCacheSize > 0:
		w.cache = newRunCache(o.WorkflowCacheSize)
	}
	return w, nil
}

// RegisterActivity registers fn as the activity type name of w. Its input
// is decoded from the task's first payload (JSON; the zero In when there is
// none) and its output encoded as the result. Returning an error fails the
// attempt (the service retries it per the activity's retry policy; wrap it
// with NonRetryable, or return an *ApplicationError, to stop that). A panic
// is a failed attempt too. Register before Start.
func RegisterActivity[In, Out any](w *Worker, name string, fn func(ctx context.Context, in In) (Out, error)) error {
	if fn == nil || name == "" {
		return errors.New("orch: RegisterActivity needs a name and a function")
	}
	return w.register(name, func(ctx context.Context, input *orchpb.Payloads) (*orchpb.Payloads, error) {
		var in In
		if len(input.GetPayloads()) > 0 {
			if err := DecodePayload(input.GetPayloads()[0], &in); err != nil {
				return nil, NonRetryable(fmt.Errorf("activity %s: %w", name, err))
			}
		}
		out, err := fn(ctx, in)
		if err != nil {
			return nil, err
		}
		return EncodePayloads(out)
	})
}

func (w *Worker) register(name string, fn activityFunc) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.started {
		return errors.New("orch: register before the worker starts")
	}
	if _, dup := w.activities[name]; dup {
		return fmt.Errorf("orch: activity %s registered twice", name)
	}
	w.activities[name] = fn
	return nil
}

// Workflow is how a worker handles the workflow tasks of one workflow type.
// The worker hides nothing: Decide sees the whole history of the execution
// on every task and returns the commands for this task; the same history
// gives the same commands, so Decide must be a function of the history
// (no clock, no randomness, no I/O). A workflow that keeps state in memory
// between tasks (package workflow's do) sets Start as well.
type Workflow struct {
	// Decide returns the commands of a workflow task. An error fails the
	// task (RespondWorkflowTaskFailed); the service schedules it again.
	Decide func(ctx context.Context, task *WorkflowTask) ([]*orchpb.Command, error)
	// Query answers a query from the history; nil refuses every query.
	Query func(ctx context.Context, task *WorkflowTask, queryType string, args *orchpb.Payloads) (any, error)
	// Start, when set, is Decide for a worker with a workflow cache: it
	// also returns the run's state, which the worker keeps and hands the
	// run's next tasks with only their new events (CachedRun.Continue),
	// so a task costs what its new events cost rather than a replay of
	// the whole history. A worker without a cache uses Decide.
	Start func(ctx context.Context, task *WorkflowTask) (CachedRun, []*orchpb.Command, error)
}

// CachedRun is the in-memory state of one run that a worker keeps between
// the run's workflow tasks (Workflow.Start returns it).
type CachedRun interface {
	// Continue returns the commands of the run's next task. events are
	// the history's events after the WorkflowTaskStarted of the last task
	// this state handled, up to the new task's WorkflowTaskStarted
	// (task.History is nil). An error fails the task; the worker then
	// drops the state, and the task's next attempt starts from the whole
	// history.
	Continue(ctx context.Context, task *WorkflowTask, events []*orchpb.HistoryEvent) ([]*orchpb.Command, error)
	// Close releases the state (evicted, or the run closed).
	Close()
}

// RegisterWorkflow registers the handler of workflow type name.
func (w *Worker) RegisterWorkflow(name string, wf Workflow) error {
	if name == "" || wf.Decide == nil {
		return errors.New("orch: RegisterWorkflow needs a name and a Decide function")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.started {
		return errors.New("orch: register before the worker starts")
	}
	if _, dup := w.workflows[name]; dup {
		return fmt.Errorf("orch: workflow %s registered twice", name)
	}
	w.workflows[name] = wf
	return nil
}

// WorkflowTask is one workflow task as Decide and Query see it.
type WorkflowTask struct {
	WorkflowID   string
	RunID        string
	WorkflowType string
	// History is the execution's whole history, oldest first (pages the
	// poll did not carry are fetched before Decide runs).
	History []*orchpb.HistoryEvent
	// PreviousStartedEventID is the started event of the last task that
	// completed: events after it are new to this task.
	PreviousStartedEventID int64
	Attempt                int32
	// Raw is the poll's answer as the service sent it.
	Raw *orchpb.PollWorkflowTaskQueueResponse

	replies *[]*orchpb.ProtocolMessage // shared by the task's copies
}

// UpdateRequests returns the update requests the task carries (protocol
// messages whose body is a request). The task answers each with an
// acceptance (AcceptUpdate) or a rejection (RejectUpdate) through Reply;
// the worker rejects a request the workflow leaves unanswered, as a
// workflow with no handler for it.
func (t *WorkflowTask) UpdateRequests() []*orchpb.ProtocolMessage {
	var out []*orchpb.ProtocolMessage
	for _, m := range t.Raw.GetProtocolMessages() {
		if m.GetRequest() != nil {
			out = append(out, m)
		}
	}
	return out
}

// Reply adds protocol messages (update acceptances, rejections and
// responses) to the task's answer; the PROTOCOL_MESSAGE commands among
// the task's commands place acceptances and responses among its events.
func (t *WorkflowTask) Reply(msgs ...*orchpb.ProtocolMessage) {
	if t.replies == nil {
		t.replies = new([]*orchpb.ProtocolMessage)
	}
	*t.replies = append(*t.replies, msgs...)
}

// Answers are the protocol messages the task answers with: its replies,
// and a rejection of every update request the workflow neither accepted
// nor rejected (what the worker sends; orch/orchtest reads them too).
func (t *WorkflowTask) Answers() []*orchpb.ProtocolMessage {
	var out []*orchpb.ProtocolMessage
	if t.replies != nil {
		out = *t.replies
	}
	answered := map[string]bool{}
	for _, m := range out {
		if m.GetAcceptance() != nil || m.GetRejection() != nil {
			answered[m.GetProtocolInstanceId()] = true
		}
	}
	for _, req := range t.UpdateRequests() {
		if !answered[req.GetProtocolInstanceId()] {
			out = append(out, RejectUpdate(req, &ApplicationError{Type: "UpdateNotHandled",
				Message: fmt.Sprintf("workflow %s has no handler for update %q", t.WorkflowType, req.GetRequest().GetInput().GetName())}))
		}
	}
	return out
}

// CancelRequested reports whether someone asked the workflow to cancel
// itself (RequestCancelWorkflow, a parent's close policy or cancel
// command): the history holds WorkflowExecutionCancelRequested. Unlike a
// terminate, the workflow decides what to do, and ends with
// CancelWorkflowCommand when it agrees.
func (t *WorkflowTask) CancelRequested() bool {
	for _, ev := range t.History {
		if ev.GetEventType() == orchpb.EventType_WorkflowExecutionCancelRequested {
			return true
		}
	}
	return false
}

// Input decodes the workflow's input (its first payload) into out.
func (t *WorkflowTask) Input(out any) error {
	for _, ev := range t.History {
		if a := ev.GetWorkflowExecutionStartedEventAttributes(); a != nil {
			if len(a.GetInput().GetPayloads()) == 0 {
				return nil
			}
			return DecodePayloads(a.GetInput(), out)
		}
	}
	return ErrNoPayload
}

// Signals returns the signals recorded so far, in order.
func (t *WorkflowTask) Signals() []*orchpb.WorkflowExecutionSignaledEventAttributes {
	var out []*orchpb.WorkflowExecutionSignaledEventAttributes
	for _, ev := range t.History {
		if a := ev.GetWorkflowExecutionSignaledEventAttributes(); a != nil {
			out = append(out, a)
		}
	}
	return out
}

// Start registers the worker's types with the service (RegisterWorker) and
// starts polling in the background; the context bounds only the
// registration. It fails when nothing is registered or the registration
// fails (the worker may then be started again); a worker starts once.
func (w *Worker) Start(ctx context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.started {
		return errors.New("orch: worker already started")
	}
	if len(w.activities) == 0 && len(w.workflows) == 0 {
		return errors.New("orch: nothing registered")
	}
	req := &orchpb.RegisterWorkerRequest{Namespace: w.c.namespace, TaskQueue: w.taskQueue, Identity: w.c.identity}
	for name := range w.workflows {
		req.WorkflowTypes = append(req.WorkflowTypes, name)
	}
	for name := range w.activities {
		req.ActivityTypes = append(req.ActivityTypes, name)
	}
	slices.Sort(req.WorkflowTypes)
	slices.Sort(req.ActivityTypes)
	if _, err := w.c.Raw().RegisterWorker(ctx, req); err != nil {
		return err
	}
	w.started = true
	w.key = newUUID()
	w.stopping, w.beginStop = context.WithCancel(context.Background())
	w.pollCtx, w.stopPolls = context.WithCancel(context.Background())
	w.taskCtx, w.stopTasks = context.WithCancel(context.Background())
	if len(w.workflows) > 0 {
		w.wfSlots = make(chan struct{}, w.opts.MaxConcurrentWorkflowTasks)
		normal := pollTarget{w.taskQueue, orchpb.TaskQueueKind_TASK_QUEUE_KIND_UNSPECIFIED}
		polls := make([][]pollTarget, w.opts.WorkflowPollers)
		for i := range polls {
			polls[i] = []pollTarget{normal}
		}
		if w.cache != nil && w.anyCached() && len(polls) > 1 {
			// Temporal names a sticky queue "<host>:<uuid>"; the
			// instance key is already unique. One of the pollers polls
			// it, so the worker holds no more long polls than without
			// the cache. (A lone poller does not: a long poll on one
			// queue would keep tasks waiting on the other.)
			w.stickyQueue = "sticky-" + w.key
			polls[0] = []pollTarget{{w.stickyQueue, orchpb.TaskQueueKind_STICKY}}
		}
		for _, targets := range polls {
			w.pollers.Go(func() { w.pollWorkflowTasks(targets) })
		}
	}
	if len(w.activities) > 0 {
		w.actSlots = make(chan struct{}, w.opts.MaxConcurrentActivities)
		for range w.opts.ActivityPollers {
			w.pollers.Go(w.pollActivityTasks)
		}
	}
	return nil
}

// Run starts the worker and runs it until ctx ends, then stops it
// gracefully.
func (w *Worker) Run(ctx context.Context) error {
	if err := w.Start(ctx); err != nil {
		return err
	}
	<-ctx.Done()
	w.Stop()
	return nil
}

// Stop ends the worker gracefully: the long polls end, and the tasks
// running finish and report. It returns when all have. See Shutdown to
// bound the wait.
func (w *Worker) Stop() { _ = w.Shutdown(context.Background()) }

// pollGrace is how long Shutdown lets the long polls end by themselves
// after ShutdownWorker before it cancels them.
const pollGrace = 5 * time.Second

// Shutdown ends the long polls and waits for the running tasks to finish and
// report, until ctx ends; then it cancels the activities still running
// (their context ends; they report a canceled failure) and waits for them.
// It returns ctx's error when it had to cancel.
//
// The polls are ended by the service (ShutdownWorker: the polls carrying
// this worker's instance key answer empty), not by cancelling them, so a
// task the service handed to a poll just then is run rather than lost on
// the way. A service that does not know ShutdownWorker gets its polls
// cancelled, as do polls still open pollGrace after it.
func (w *Worker) Shutdown(ctx context.Context) error {
	w.mu.Lock()
	started := w.started
	w.mu.Unlock()
	if !started {
		return nil
	}
	w.stopOnce.Do(func() {
		w.beginStop()
		sctx, cancel := context.WithTimeout(ctx, pollGrace)
		_, err := w.c.Raw().ShutdownWorker(sctx, &orchpb.ShutdownWorkerRequest{
			Namespace: w.c.namespace, TaskQueue: w.taskQueue, Identity: w.c.identity, WorkerInstanceKey: w.key, Reason: "worker stopping"})
		cancel()
		if err != nil {
			w.stopPolls()
		} else {
			grace := time.AfterFunc(pollGrace, w.stopPolls)
			defer grace.Stop()
		}
		w.pollers.Wait()
		done := make(chan struct{})
		go func() { w.running.Wait(); close(done) }()
		select {
		case <-done:
		case <-ctx.Done():
			w.stopTasks()
			<-done
			w.stopResult = ctx.Err()
		}
		w.stopTasks()
		if w.cache != nil {
			w.cache.purge()
		}
	})
	return w.stopResult
}

// anyCached reports whether a registered workflow keeps state (Start).
func (w *Worker) anyCached() bool {
	for _, wf := range w.workflows {
		if wf.Start != nil {
			return true
		}
	}
	return false
}

// acquire takes a slot, or fails when the worker is stopping.
func (w *Worker) acquire(slots chan struct{}) bool {
	if w.stopping.Err() != nil {
		return false
	}
	select {
	case slots <- struct{}{}:
		if w.stopping.Err() != nil {
			<-slots
			return false
		}
		return true
	case <-w.stopping.Done():
		return false
	}
}

// pollBackoff waits after a failed poll: 100 ms doubling up to 10 s, on the
// client's clock.
func (w *Worker) pollBackoff(failures int) {
	d := 100 * time.Millisecond << min(failures, 7)
	_ = w.c.clk.Sleep(w.stopping, min(d, 10*time.Second))
}

func (w *Worker) logError(msg string, err error, attrs ...slog.Attr) {
	if w.c.log == nil || err == nil {
		return
	}
	attrs = append(attrs, slog.String("service", "orch"), slog.String("task_queue", w.taskQueue), slog.String("error", err.Error()))
	w.c.log.LogAttrs(context.Background(), slog.LevelWarn, msg, attrs...)
}

// pollTarget is a queue a workflow poller polls.
type pollTarget struct {
	queue string
	kind  orchpb.TaskQueueKind
}

// pollWorkflowTasks polls the targets in turn.
func (w *Worker) pollWorkflowTasks(targets []pollTarget) {
	failures := 0
	for n := 0; w.acquire(w.wfSlots); n++ {
		target := targets[n%len(targets)]
		task, err := w.c.Raw().PollWorkflowTaskQueue(w.pollCtx, &orchpb.PollWorkflowTaskQueueRequest{
			Namespace: w.c.namespace, TaskQueue: target.queue, Identity: w.c.identity, WorkerInstanceKey: w.key, TaskQueueKind: target.kind,
		})
		if err != nil || len(task.GetTaskToken()) == 0 {
			<-w.wfSlots
			if err != nil && w.stopping.Err() == nil {
				w.logError("workflow task poll failed", err)
				w.pollBackoff(failures)
				failures++
			}
			continue
		}
		failures = 0
		w.running.Go(func() {
			defer func() { <-w.wfSlots }()
			w.handleWorkflowTask(task)
		})
	}
}

func (w *Worker) pollActivityTasks() {
	failures := 0
	for w.acquire(w.actSlots) {
		task, err := w.c.Raw().PollActivityTaskQueue(w.pollCtx, &orchpb.PollActivityTaskQueueRequest{
			Namespace: w.c.namespace, TaskQueue: w.taskQueue, Identity: w.c.identity, WorkerInstanceKey: w.key,
		})
		if err != nil || len(task.GetTaskToken()) == 0 {
			<-w.actSlots
			if err != nil && w.stopping.Err() == nil {
				w.logError("activity task poll failed", err)
				w.pollBackoff(failures)
				failures++
			}
			continue
		}
		failures = 0
		w.running.Go(func() {
			defer func() { <-w.actSlots }()
			w.runActivity(task)
		})
	}
}

// reportCtx is the context of a task's answer: not the poll's, which a
// stop ends, so a task that finished during a stop still reports.
func reportCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), time.Minute)
}

func (w *Worker) handleWorkflowTask(task *orchpb.PollWorkflowTaskQueueResponse) {
	ctx, cancel := reportCtx()
	defer cancel()
	wt := &WorkflowTask{
		WorkflowID:             task.GetWorkflowExecution().GetWorkflowId(),
		RunID:                  task.GetWorkflowExecution().GetRunId(),
		WorkflowType:           task.GetWorkflowType().GetName(),
		History:                task.GetHistory(),
		PreviousStartedEventID: task.GetPreviousStartedEventId(),
		Attempt:                task.GetAttempt(),
		Raw:                    task,
		replies:                new([]*orchpb.ProtocolMessage),
	}
	if err := w.restOfHistory(ctx, task, wt); err != nil {
		w.failWorkflowTask(ctx, task, fmt.Errorf("reading the history: %w", err))
		return
	}
	w.mu.Lock()
	wf, ok := w.workflows[wt.WorkflowType]
	w.mu.Unlock()
	if !ok {
		w.failWorkflowTask(ctx, task, &ApplicationError{Message: "workflow type " + wt.WorkflowType + " is not registered with this worker", Type: "WorkflowTypeNotRegistered"})
		return
	}
	// Kept runs also serve tasks that come on the task queue (the worker
	// polls no sticky queue, or the service sent the task back there).
	cached := w.cache != nil && wf.Start != nil && task.GetQuery() == nil
	var kept *keptRun
	if cached {
		kept = w.cache.take(wt.RunID, task.GetPreviousStartedEventId())
	}
	// A sticky task carries only the events since the run's last task:
	// the kept state needs no more, anything else the whole history.
	newEvents := wt.History
	if partialHistory(wt.History) && (kept == nil || task.GetQuery() != nil || len(task.GetQueries()) > 0) {
		full, err := w.wholeHistory(ctx, task)
		if err != nil {
			kept.close()
			w.failWorkflowTask(ctx, task, fmt.Errorf("reading the history: %w", err))
			return
		}
		wt.History = full
	}
	results, failures := w.answerQueries(ctx, wf, wt, task.GetQueries())
	if task.GetQuery() != nil {
		// A query task: answers only, no commands, no history event.
		if len(task.GetQueries()) == 0 {
			results, failures = w.answerQueries(ctx, wf, wt, map[string]*orchpb.WorkflowQuery{"": task.GetQuery()})
		}
		_, err := w.c.Raw().RespondWorkflowTaskCompleted(ctx, &orchpb.RespondWorkflowTaskCompletedRequest{
			Namespace: w.c.namespace, TaskToken: task.GetTaskToken(), Identity: w.c.identity,
			QueryResults: results, QueryFailures: failures,
		})
		w.logError("answering a query task failed", err)
		return
	}
	var commands []*orchpb.Command
	var err error
	var state CachedRun
	if kept != nil {
		commands, err = safeContinue(ctx, kept.state, wt, newEvents)
		if err == nil {
			state = kept.state
			w.cache.hit()
		} else {
			// Whatever went wrong (a panic, a non-deterministic change,
			// events that do not follow), the whole history decides.
			kept.close()
			w.logError("a kept workflow run could not take its next task; replaying its history", err, slog.String("workflow_id", wt.WorkflowID))
		}
	}
	if state == nil {
		if partialHistory(wt.History) {
			full, ferr := w.wholeHistory(ctx, task)
			if ferr != nil {
				w.failWorkflowTask(ctx, task, fmt.Errorf("reading the history: %w", ferr))
				return
			}
			wt.History = full
		}
		if cached {
			w.cache.miss()
			state, commands, err = safeStart(ctx, wf, wt)
		} else {
			commands, err = safeDecide(ctx, wf, wt)
		}
	}
	if err != nil {
		w.failWorkflowTask(ctx, task, err)
		return
	}
	var k *keptRun
	switch {
	case state == nil:
	case closesRun(commands):
		state.Close()
	default:
		// sticky_attributes only with a sticky queue polled: without one
		// the task comes on the task queue, to this worker or another.
		// Kept before the answer goes: the run's next task may come
		// (to the sticky poller) as soon as the service has it.
		k = &keptRun{runID: wt.RunID, state: state, lastStarted: task.GetStartedEventId()}
		w.cache.put(k)
	}
	_, err = w.c.Raw().RespondWorkflowTaskCompleted(ctx, &orchpb.RespondWorkflowTaskCompletedRequest{
		Namespace: w.c.namespace, TaskToken: task.GetTaskToken(), Identity: w.c.identity, Commands: commands,
		Messages: wt.Answers(), QueryResults: results, QueryFailures: failures, StickyAttributes: k != nil && w.stickyQueue != "",
		SdkMetadata: &orchpb.WorkflowTaskCompletedMetadata{SdkName: sdkName},
	})
	w.logError("completing a workflow task failed", err, slog.String("workflow_id", wt.WorkflowID))
	if err != nil && k != nil {
		// The service did not take the answer: what the state ran is not
		// the run's. (No task of the run follows one not taken, so
		// nobody else took it meanwhile.)
		w.cache.drop(k)
	}
}

// partialHistory reports whether a task's history starts after the run's
// first event: a sticky task's, which holds the events since the run's
// last task only.
func partialHistory(h []*orchpb.HistoryEvent) bool {
	return len(h) == 0 || h[0].GetEventId() != 1
}

// restOfHistory appends the history pages the poll did not carry.
func (w *Worker) restOfHistory(ctx context.Context, task *orchpb.PollWorkflowTaskQueueResponse, wt *WorkflowTask) error {
	for token := task.GetNextPageToken(); len(token) > 0; {
		page, err := w.c.Raw().GetWorkflowExecutionHistory(ctx, &orchpb.GetWorkflowExecutionHistoryRequest{
			Namespace: w.c.namespace, Execution: task.GetWorkflowExecution(), NextPageToken: token,
		})
		if err != nil {
			return err
		}
		wt.History = append(wt.History, page.GetHistory()...)
		token = page.GetNextPageToken()
	}
	return nil
}

// wholeHistory reads a run's history from its first event up to the
// task's WorkflowTaskStarted, for a sticky task the worker has no state
// for (evicted, restarted, or another worker's).
func (w *Worker) wholeHistory(ctx context.Context, task *orchpb.PollWorkflowTaskQueueResponse) ([]*orchpb.HistoryEvent, error) {
	first := int64(math.MaxInt64) // an empty task history: all of it
	if h := task.GetHistory(); len(h) > 0 {
		first = h[0].GetEventId()
	}
	var out []*orchpb.HistoryEvent
	var token []byte
	for {
		page, err := w.c.Raw().GetWorkflowExecutionHistory(ctx, &orchpb.GetWorkflowExecutionHistoryRequest{
			Namespace: w.c.namespace, Execution: task.GetWorkflowExecution(), NextPageToken: token,
		})
		if err != nil {
			return nil, err
		}
		for _, ev := range page.GetHistory() {
			if ev.GetEventId() < first {
				out = append(out, ev)
			}
		}
		token = page.GetNextPageToken()
		if len(token) == 0 || (len(out) > 0 && out[len(out)-1].GetEventId() >= first-1) {
			break
		}
	}
	return append(out, task.GetHistory()...), nil
}

// closesRun reports whether commands end the run.
func closesRun(commands []*orchpb.Command) bool {
	return slices.ContainsFunc(commands, func(c *orchpb.Command) bool { return orchsem.ClosesRun(c.GetCommandType()) })
}

func safeStart(ctx context.Context, wf Workflow, wt *WorkflowTask) (state CachedRun, cmds []*orchpb.Command, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("workflow %s panicked: %v\n%s", wt.WorkflowType, r, debug.Stack())
		}
	}()
	return wf.Start(ctx, wt)
}

func safeContinue(ctx context.Context, state CachedRun, wt *WorkflowTask, events []*orchpb.HistoryEvent) (cmds []*orchpb.Command, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("workflow %s panicked: %v\n%s", wt.WorkflowType, r, debug.Stack())
		}
	}()
	cont := *wt
	cont.History = nil
	return state.Continue(ctx, &cont, events)
}

func safeDecide(ctx context.Context, wf Workflow, wt *WorkflowTask) (cmds []*orchpb.Command, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("workflow %s panicked: %v\n%s", wt.WorkflowType, r, debug.Stack())
		}
	}()
	return wf.Decide(ctx, wt)
}

func (w *Worker) answerQueries(ctx context.Context, wf Workflow, wt *WorkflowTask, queries map[string]*orchpb.WorkflowQuery) (map[string]*orchpb.Payloads, map[string]*orchpb.Failure) {
	if len(queries) == 0 {
		return nil, nil
	}
	results := map[string]*orchpb.Payloads{}
	failures := map[string]*orchpb.Failure{}
	for id, q := range queries {
		answer, err := safeQuery(ctx, wf, wt, q)
		if err == nil {
			var p *orchpb.Payloads
			if p, err = EncodePayloads(answer); err == nil {
				if p == nil {
					p = &orchpb.Payloads{}
				}
				results[id] = p
				continue
			}
		}
		failures[id] = failureFrom(err)
	}
	return results, failures
}

func safeQuery(ctx context.Context, wf Workflow, wt *WorkflowTask, q *orchpb.WorkflowQuery) (answer any, err error) {
	if wf.Query == nil {
		return nil, fmt.Errorf("workflow %s answers no queries", wt.WorkflowType)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("query %s panicked: %v", q.GetQueryType(), r)
		}
	}()
	return wf.Query(ctx, wt, q.GetQueryType(), q.GetQueryArgs())
}

func (w *Worker) failWorkflowTask(ctx context.Context, task *orchpb.PollWorkflowTaskQueueResponse, err error) {
	_, rerr := w.c.Raw().RespondWorkflowTaskFailed(ctx, &orchpb.RespondWorkflowTaskFailedRequest{
		Namespace: w.c.namespace, TaskToken: task.GetTaskToken(), Identity: w.c.identity,
		Cause: orchpb.WorkflowTaskFailedCause_WORKFLOW_WORKER_UNHANDLED_FAILURE, Failure: failureFrom(err),
	})
	w.logError("workflow task failed", err)
	w.logError("reporting a failed workflow task failed", rerr)
}
