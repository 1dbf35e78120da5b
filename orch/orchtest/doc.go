// Package orchtest runs workflow code in a test's own process: no
// service, no worker, no sockets, and no waiting for time to pass. It is
// to workflows written with orch/workflow what Temporal's testsuite is to
// that SDK's, in this module's names:
//
//	env := orchtest.New(t)
//	orchtest.RegisterWorkflow(env, "OrderFlow", OrderFlow)
//	env.OnActivity("ChargeCard").Return("ch_1", nil).Once()
//	orchtest.RegisterActivity(env, "ShipParcel", shipParcel) // the real one
//	env.OnWorkflow("Notify").Return("sent", nil)             // a mocked child
//	env.After(2*time.Hour, func() { env.SignalWorkflow("approve", Approval{By: "ops"}) })
//	env.ExecuteWorkflow("OrderFlow", order, nil)
//	var r Receipt
//	err := env.Result(&r)                       // as orch.Client.GetResult answers
//	err = workflow.Replay(env.History(), OrderFlow) // the history, replayable
//
// # What it does
//
// ExecuteWorkflow runs the workflow until its run closes (a continue-as-new
// is followed to the next run), one step at a time in a fixed order, so a
// test sees the same history every time: an activity attempt that is
// ready; else a timer or a callback due now; else a workflow task (the
// workflow's Decide over the whole history, as a worker runs it); else the
// clock skips to the next timer, retry backoff, timeout or callback.
// Nothing waits on the wall clock: a week-long timer costs what a
// one-second one does.
//
// Activities: a call goes to the first mock of its type (OnActivity) that
// takes it (Return, Do, Times, Once, Maybe, After; Calls records the
// inputs), else to the implementation registered with RegisterActivity,
// else it fails the test naming the activity (T.Errorf) and fails
// non-retryably, so the workflow sees an error rather than a retry loop.
// Failed attempts are retried as the service retries them: the retry
// policy's backoff (1 s doubling up to 100 s by default), maximum attempts,
// non-retryable types and marks, schedule-to-close. A mock's After delays
// its answer in workflow time, so a start-to-close timeout can win.
// Expected call counts (at least one call unless Times, Once or Maybe say
// otherwise) are checked when the test ends, and by Verify.
//
// Children run in the env when their type is registered (RegisterWorkflow,
// RegisterWorkflowHandler), or are answered by a mock (OnWorkflow); a
// child of neither kind fails the test and fails in the parent. Parent
// close policies, cancel requests to children (RequestCancelExternal),
// continue-as-new, markers (SideEffect, GetVersion), search attribute
// upserts (SearchAttributes gives the latest values), memo upserts (Memo),
// signals between the env's workflows (SignalExternalWorkflow: the target
// gets the signal, the sender its outcome; a mocked child takes it), run
// and execution timeouts are handled as the service (and orchfake)
// handles them.
//
// From callbacks (After) a test signals (SignalWorkflow,
// SignalWorkflowByID), asks for cancellation (CancelWorkflow,
// CancelWorkflowByID), queries (QueryWorkflow, QueryWorkflowByID; any
// time, also after the run closed) and sends updates (UpdateWorkflow,
// UpdateWorkflowByID: the run's next task takes them, as a worker takes
// them from the service; the *Update returned tells, once the env ran,
// whether it was accepted and its result or rejection).
//
// The outcome: Err is nil when the run completed; an
// *orch.WorkflowExecutionError, as orch.Client.GetResult returns it, when
// it failed, was canceled, timed out or was terminated; a *BlockedError
// when the workflow can make no progress and nothing is due (it waits for
// a signal nobody sends, say), naming what each open run waits on: the
// signal channels it opened that hold nothing, its open activities,
// timers and children; a *TaskFailedError when a workflow task failed (a
// panic, a *workflow.NonDeterminismError, a command the service refuses).
// History is the latest run's history in the service's form, ready for
// workflow.Replay or to be saved as JSON; Runs gives every run's.
//
// # Bounds
//
// One ExecuteWorkflow runs at most Options.MaxWorkflowTasks workflow tasks
// (DefaultMaxWorkflowTasks, 1,000, all runs together), then stops with an
// error: a workflow that never ends (a timer loop, an endless chain of
// continue-as-new) stops rather than spinning in skipped time; a timer
// loop reaches the bound in about 3.6 s. Each task replays the whole
// history (orch/workflow's Decide), so a run of n tasks costs O(n²)
// events fed: measured, a workflow of 10 activities in sequence takes
// 2.1 ms, of 100 41 ms, of 500 2.2 s (2 shared cores). Keep test
// workflows' histories short, or use continue-as-new as in production;
// raise the bound for a long one. Code that busy-loops inside a task is
// stopped by orch/workflow's own DeadlockTimeout.
//
// # How it is built, and why
//
// The env drives the workflow through its orch.Workflow (Decide and
// Query): the code under test runs exactly as a worker runs it, with the
// same replay, determinism checks and commands. What the service does
// with the commands (the events it writes, their attributes and order,
// activity defaults, retry backoff, timeouts, children, continue-as-new)
// is a small engine in this package that follows orchfake's, and shares
// with it the rules of activity defaults, backoff and retry states (one
// internal package both call). Driving
// orchfake's own engine in process was considered and not done: it lives
// inside orchfake's Server, fused with its gRPC and HTTP service, locks,
// rate limits, task queues and polls, and importing orchfake links gRPC's
// server and net/http; the test environment must link nothing that dials
// or serves (a deps test checks that it links nothing orch/workflow does
// not). The cost shows the difference: a workflow of two activities takes
// about 0.1 to 0.2 ms and 27 KB (400 allocations) here, against 2 to 4 ms
// and 295 KB (4,400 allocations) through a worker and the in-memory fake
// (BenchmarkExecuteWorkflow against orch/workflow's
// BenchmarkWorkflowThroughTheFake/function, 2 shared cores). The engines
// are kept in step by tests that run the same workflows, actions and
// checks against both (signals, queries, cancellation, children,
// continue-as-new, SideEffect, GetVersion, upserts, retries) and require
// the same result, query answers, search attributes, and event types and
// times in the history.
//
// # Known differences from the service (and orchfake)
//
//   - A failed workflow task is not retried: the env stops with a
//     *TaskFailedError, since the same code over the same history fails
//     the same way.
//   - Activities run on the env's goroutine, one at a time, in the order
//     they were scheduled; a registered implementation takes no workflow
//     time. In their context orch.GetActivityInfo answers (the task token
//     is the env's own), orch.RecordHeartbeat records details that the
//     next attempt reads with orch.HeartbeatDetails (orch.HasHeartbeatDetails
//     tells), as on the service, and never reports a cancellation.
//     Heartbeat and schedule-to-start timeouts never fire. An activity
//     that returns orch.ErrActivityResultPending (completed from outside
//     on the service) fails the test and fails non-retryably: mock it
//     with the answer its completer would give.
//   - Workflow tasks of several runs (a parent and its children) run one
//     at a time, the runs in the order they started; a worker runs them at
//     once, so on the service a child's events may fall before or after
//     the parent's task that started it, here always after.
//   - A cancel request to a running activity (a mock's After) ends it
//     canceled at once; the service waits for the worker to report.
//   - Workflow retry policies and cron schedules (a child's) are not acted
//     on: a failed run stays failed, a cron child runs once.
//   - Run ids are "orchtest-run-1", "orchtest-run-2", … in the order runs
//     start, not random, so histories are the same on every run.
package orchtest
