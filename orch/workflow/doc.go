// Package workflow writes orchestration workflows as ordinary Go functions
// on top of the orch worker's Decide model:
//
//	func Order(ctx workflow.Context, o Order) (Receipt, error) {
//		ctx = workflow.WithActivityOptions(ctx, orch.ActivityOptions{StartToCloseTimeout: time.Minute})
//		var charge string
//		if err := workflow.ExecuteActivity(ctx, "ChargeCard", o).Get(ctx, &charge); err != nil {
//			return Receipt{}, err
//		}
//		var ok Approval
//		workflow.GetSignalChannel(ctx, "approve").Receive(ctx, &ok)
//		if err := workflow.Sleep(ctx, time.Hour); err != nil {
//			return Receipt{}, err
//		}
//		…
//	}
//
//	workflow.Register(worker, "Order", Order)
//
// # How it runs
//
// The worker hands each workflow task to Decide with the run's whole
// history. Decide runs the function from its start in coroutines (one
// goroutine each, only one running at a time, in a fixed order) and feeds
// it the history one completed workflow task at a time: the events the
// task saw (activity results, timers fired, signals, a cancel request)
// settle the futures and fill the channels the code waits on; when every
// coroutine is blocked, the commands the code issued are checked against
// the events that recorded that task's commands. After the last completed
// task it feeds the new events, and the commands the code issues then are
// the task's answer. A worker with a workflow cache (the default; see
// "Sticky cache" in package orch) keeps the run's coroutines blocked where
// the task left them, and hands its next task only the new events: the
// events that record the last task's commands are checked against them
// (the same *NonDeterminismError as a replay), the others are fed to the
// code, and a task costs the same at event 2,000 as at event 100. Without
// the run in the cache (the first task on a worker, an eviction, a restart,
// another worker) the task replays the whole history as above, so a worker
// that stops and another that starts pick a run up where it stopped. Long
// histories still cost a replay on each such miss, and the service bounds
// them: keep them short with ContinueAsNewError, whose next run keeps the
// run's memo, search attributes, retry policy and header (the package names
// them in the command, as the service carries none by itself).
//
// The code must therefore make the same calls in the same order on every
// replay: no time.Now (use Now), no time.Sleep or timers of package time
// (Sleep, NewTimer), no go statements, Go channels or select (Go, NewChannel,
// GetSignalChannel, Selector), no random numbers, no map iteration whose
// order matters, no I/O (do it in activities). A replay whose commands
// differ from the history fails the workflow task with a
// *NonDeterminismError naming the event and both sides; the service
// retries the task, so a fixed deployment resumes the run. Replay (and
// ReplayRun) run a recorded history against the current code: the test
// to run before deploying a change. A history does not name its workflow
// id, nor a continued run's run id: ReplayWithOptions takes them for
// GetInfo, ReplayRun knows them. GetVersion lets a change keep runs
// started before it on the old path; SideEffect records a value the code
// must not recompute (a random id) in the history.
//
// # Choices
//
// Activity, timer and child ids are one sequence ("1", "2", …) in the order
// the code asks for them; a child's default workflow id is "<parent run
// id>_<n>", and n also travels in the command's control field. Commands are
// matched to events by type and id (activity type and id, timer id,
// scheduled event id, child workflow type and control or workflow id,
// marker name and id); their other attributes (inputs, timeouts) may change
// between versions. When several cases of a Selector are ready, the one
// whose event came first in the history wins. Canceling a context
// (WithCancel, or the workflow's cancel request for the root context)
// cancels its timers, asks its activities to stop and fails their futures
// with ErrCanceled at once, as Temporal's default for activities (not
// waiting for the cancellation's outcome; a child workflow is asked to
// cancel the same way); a command canceled in the task that issued it is
// never sent. A signal whose payload does not decode into the value asked
// for is skipped. SignalExternalWorkflow and RequestCancelExternalWorkflow
// reach other workflows (their futures settle when the service delivered
// the request, or fail with an *ExternalWorkflowError); UpsertMemo and
// UpsertSearchAttributes change the run's, and a continue-as-new carries
// the changed ones. Queries replay the whole history known, then call the
// handler, which may only read: calls that would issue commands, run a
// side effect or block fail the query. A panic in workflow code (or
// runtime.Goexit, which t.Fatal calls) fails the workflow task, never the
// run; so does code that runs for Options.DeadlockTimeout (10 s by default)
// without blocking in this package's calls, with a *DeadlockError: the
// task returns without waiting for it, and leaves it the execution; it
// exits when it next blocks in this package or returns, and only then are
// the other coroutines ended (their deferred calls run), so two never run
// at once. The same bound holds for deferred calls while a task ends.
// Updates (SetUpdateHandler) are taken once the code of the task ran until
// it blocked, so handlers set at the top of the function are there for
// an update that comes with the run's first task; a validator runs
// read-only as a query handler does; an update with no handler, or one
// that comes while the function has returned, is rejected. A replay runs
// the handlers of the updates the history records as accepted in the
// task that accepted them, without their validators.
package workflow
