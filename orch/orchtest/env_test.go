package orchtest_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
	"github.com/apitwin/apitwin/orch/orchtest"
	"github.com/apitwin/apitwin/orch/workflow"
)

var start = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// recorder is a T that keeps what the env reports, so a test can check
// that a mistake fails the test it happens in.
type recorder struct {
	mu       sync.Mutex
	errs     []string
	cleanups []func()
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) Cleanup(fn func()) { r.cleanups = append(r.cleanups, fn) }

// end runs the cleanups, as the test's end does, and returns the errors.
func (r *recorder) end() []string {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
	r.cleanups = nil
	return r.errs
}

func newEnv(t T) *orchtest.Env {
	return orchtest.NewWithOptions(t, orchtest.Options{StartTime: start})
}

type T = orchtest.T

var minute = orch.ActivityOptions{StartToCloseTimeout: time.Minute}

// charge is a workflow of one activity.
func charge(ctx workflow.Context, amount int) (string, error) {
	ctx = workflow.WithActivityOptions(ctx, minute)
	var id string
	err := workflow.ExecuteActivity(ctx, "Charge", amount).Get(ctx, &id)
	return id, err
}

func TestActivityMockReturnsAndRecordsCalls(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	orchtest.RegisterWorkflow(env, "Charge", charge)
	m := env.OnActivity("Charge").Return("ch_42", nil).Once()
	env.ExecuteWorkflow("Charge", 42, nil)
	var got string
	if err := env.Result(&got); err != nil || got != "ch_42" {
		t.Fatalf("result %q, %v", got, err)
	}
	calls := m.Calls()
	if len(calls) != 1 {
		t.Fatalf("calls %+v", calls)
	}
	var arg int
	if err := calls[0].Arg(&arg); err != nil || arg != 42 || calls[0].Attempt != 1 || !calls[0].Time.Equal(start) {
		t.Fatalf("call %+v arg %d %v", calls[0], arg, err)
	}
	if err := workflow.Replay(env.History(), charge); err != nil {
		t.Fatalf("the env's history does not replay: %v", err)
	}
}

func TestActivityMockFunctionAndRealImplementation(t *testing.T) {
	t.Parallel()
	twoSteps := func(ctx workflow.Context, n int) (string, error) {
		ctx = workflow.WithActivityOptions(ctx, minute)
		var doubled int
		if err := workflow.ExecuteActivity(ctx, "Double", n).Get(ctx, &doubled); err != nil {
			return "", err
		}
		var s string
		err := workflow.ExecuteActivity(ctx, "Format", doubled).Get(ctx, &s)
		return s, err
	}
	env := newEnv(t)
	orchtest.RegisterWorkflow(env, "TwoSteps", twoSteps)
	env.OnActivity("Double").Do(func(n int) (int, error) { return 2 * n, nil })
	orchtest.RegisterActivity(env, "Format", func(_ context.Context, n int) (string, error) { return fmt.Sprintf("n=%d", n), nil })
	env.ExecuteWorkflow("TwoSteps", 21, nil)
	var got string
	if err := env.Result(&got); err != nil || got != "n=42" {
		t.Fatalf("result %q, %v", got, err)
	}
	// ActivityCalls sees every attempt, the real implementation's too.
	var arg int
	if calls := env.ActivityCalls("Format"); len(calls) != 1 || calls[0].Arg(&arg) != nil || arg != 42 || len(env.ActivityCalls("Nope")) != 0 {
		t.Fatalf("calls %+v", calls)
	}
}

// An activity neither mocked nor registered fails the test, naming it,
// and fails the workflow rather than letting it retry for ever.
func TestUnknownActivityFailsTheTestByName(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	env := orchtest.NewWithOptions(rec, orchtest.Options{StartTime: start})
	orchtest.RegisterWorkflow(env, "Charge", charge)
	env.ExecuteWorkflow("Charge", 1, nil)
	var werr *orch.WorkflowExecutionError
	if err := env.Err(); !errors.As(err, &werr) || werr.Status != orchpb.WorkflowExecutionStatus_FAILED || !strings.Contains(err.Error(), "activity type Charge") {
		t.Fatalf("Err = %v", err)
	}
	errs := rec.end()
	if len(errs) != 1 || !strings.Contains(errs[0], "activity type Charge (activity id 1 of workflow orchtest-workflow) is neither mocked (OnActivity) nor registered (RegisterActivity)") {
		t.Fatalf("reported %q", errs)
	}
}

// An activity that returns orch.ErrActivityResultPending, which only an
// outside party completes on the service, fails the test naming it and
// fails the workflow instead of being retried for ever.
func TestPendingActivityResultFailsTheTest(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	env := orchtest.NewWithOptions(rec, orchtest.Options{StartTime: start})
	orchtest.RegisterWorkflow(env, "Charge", charge)
	orchtest.RegisterActivity(env, "Charge", func(context.Context, int) (string, error) { return "", orch.ErrActivityResultPending })
	env.ExecuteWorkflow("Charge", 1, nil)
	var werr *orch.WorkflowExecutionError
	if err := env.Err(); !errors.As(err, &werr) || werr.Status != orchpb.WorkflowExecutionStatus_FAILED {
		t.Fatalf("Err = %v", err)
	}
	if calls := env.ActivityCalls("Charge"); len(calls) != 1 {
		t.Errorf("%d attempts, want 1", len(calls))
	}
	errs := rec.end()
	if len(errs) != 1 || !strings.Contains(errs[0], "activity Charge (activity id 1) returned orch.ErrActivityResultPending") {
		t.Fatalf("reported %q", errs)
	}
}

func TestUnmetExpectationsFailTheTest(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	env := orchtest.NewWithOptions(rec, orchtest.Options{StartTime: start})
	orchtest.RegisterWorkflow(env, "Charge", charge)
	env.OnActivity("Charge").Return("a", nil).Times(2)
	env.OnActivity("Refund").Return("r", nil)
	env.OnActivity("Audit").Return("x", nil).Maybe()
	env.ExecuteWorkflow("Charge", 1, nil)
	if err := env.Err(); err != nil {
		t.Fatal(err)
	}
	errs := rec.end()
	if len(errs) != 1 || !strings.Contains(errs[0], "activity Charge: expected 2 calls, got 1") ||
		!strings.Contains(errs[0], "activity Refund: expected at least one call, got none") || strings.Contains(errs[0], "Audit") {
		t.Fatalf("reported %q", errs)
	}
}

// Retries follow the retry policy's backoff in workflow time: the
// attempts come at 0, 1 s and 3 s, and none of it is waited for.
func TestActivityRetriesWithBackoffInSkippedTime(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	orchtest.RegisterWorkflow(env, "Charge", charge)
	declined := errors.New("card declined")
	m1 := env.OnActivity("Charge").Return(nil, declined).Times(2)
	m2 := env.OnActivity("Charge").Return("ch_ok", nil).Once()
	env.ExecuteWorkflow("Charge", 1, nil)
	var got string
	if err := env.Result(&got); err != nil || got != "ch_ok" {
		t.Fatalf("result %q, %v", got, err)
	}
	calls := append(m1.Calls(), m2.Calls()...)
	var at []string
	for _, c := range calls {
		at = append(at, fmt.Sprintf("%d@%v", c.Attempt, c.Time.Sub(start)))
	}
	if want := "1@0s 2@1s 3@3s"; strings.Join(at, " ") != want {
		t.Fatalf("attempts %s, want %s", strings.Join(at, " "), want)
	}
	if d := env.Now().Sub(start); d != 3*time.Second {
		t.Fatalf("workflow time %v", d)
	}
}

// A mock's answer that comes after the start-to-close timeout times the
// attempt out; with two attempts allowed the workflow sees the timeout.
func TestActivityStartToCloseTimeout(t *testing.T) {
	t.Parallel()
	wf := func(ctx workflow.Context, _ int) (string, error) {
		ctx = workflow.WithActivityOptions(ctx, orch.ActivityOptions{StartToCloseTimeout: time.Minute, RetryPolicy: &orch.ServerRetryPolicy{MaximumAttempts: 2}})
		var s string
		err := workflow.ExecuteActivity(ctx, "Slow", 0).Get(ctx, &s)
		return s, err
	}
	env := newEnv(t)
	orchtest.RegisterWorkflow(env, "Slow", wf)
	m := env.OnActivity("Slow").Return("late", nil).After(time.Hour).Times(2)
	env.ExecuteWorkflow("Slow", 0, nil)
	var te *workflow.TimeoutError
	if err := env.Err(); !errors.As(err, &te) && !strings.Contains(fmt.Sprint(err), "START_TO_CLOSE") {
		t.Fatalf("Err = %v", err)
	}
	if n := len(m.Calls()); n != 2 {
		t.Fatalf("%d attempts", n)
	}
	// Attempt 1 at 0, timed out at 1m, retried after 1s; times out at 2m1s.
	if d := env.Now().Sub(start); d != 2*time.Minute+time.Second {
		t.Fatalf("workflow time %v", d)
	}
}

// approval waits for the "approve" signal, at most a day.
func approval(ctx workflow.Context, _ int) (string, error) {
	var by string
	timedOut := false
	timerCtx, cancel := workflow.WithCancel(ctx)
	workflow.NewSelector(ctx).
		AddReceive(workflow.GetSignalChannel(ctx, "approve"), func(c workflow.ReceiveChannel, _ bool) { c.Receive(ctx, &by) }).
		AddFuture(workflow.NewTimer(timerCtx, 24*time.Hour), func(workflow.Future) { timedOut = true }).
		Select(ctx)
	cancel()
	if timedOut {
		return "", errors.New("not approved in time")
	}
	return fmt.Sprintf("%s after %v", by, workflow.Now(ctx).Sub(workflow.GetInfo(ctx).StartTime)), nil
}

func TestSignalAfterTwoHours(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	orchtest.RegisterWorkflow(env, "Approval", approval)
	env.After(2*time.Hour, func() {
		if err := env.SignalWorkflow("approve", "ops"); err != nil {
			t.Error(err)
		}
	})
	env.ExecuteWorkflow("Approval", 0, nil)
	var got string
	if err := env.Result(&got); err != nil || got != "ops after 2h0m0s" {
		t.Fatalf("result %q, %v", got, err)
	}
	if err := workflow.Replay(env.History(), approval); err != nil {
		t.Fatal(err)
	}
}

func TestTimerFiresWithoutSignal(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	orchtest.RegisterWorkflow(env, "Approval", approval)
	env.ExecuteWorkflow("Approval", 0, nil)
	if err := env.Err(); err == nil || !strings.Contains(err.Error(), "not approved in time") {
		t.Fatalf("Err = %v", err)
	}
	if d := env.Now().Sub(start); d != 24*time.Hour {
		t.Fatalf("workflow time %v", d)
	}
}

func TestCancelAfterADay(t *testing.T) {
	t.Parallel()
	sleeper := func(ctx workflow.Context, _ int) (int, error) {
		err := workflow.Sleep(ctx, 7*24*time.Hour)
		return 0, err
	}
	env := newEnv(t)
	orchtest.RegisterWorkflow(env, "Sleeper", sleeper)
	env.After(24*time.Hour, func() {
		if err := env.CancelWorkflow(); err != nil {
			t.Error(err)
		}
	})
	env.ExecuteWorkflow("Sleeper", 0, nil)
	var werr *orch.WorkflowExecutionError
	if err := env.Err(); !errors.As(err, &werr) || werr.Status != orchpb.WorkflowExecutionStatus_CANCELED {
		t.Fatalf("Err = %v", err)
	}
	if d := env.Now().Sub(start); d != 24*time.Hour {
		t.Fatalf("canceled at %v", d)
	}
}

// A workflow that waits for a signal nobody sends is reported, naming the
// signal, at once: never a hang.
func TestBlockedWorkflowIsReported(t *testing.T) {
	t.Parallel()
	waiter := func(ctx workflow.Context, _ int) (string, error) {
		var s string
		workflow.GetSignalChannel(ctx, "go-ahead").Receive(ctx, &s)
		return s, nil
	}
	env := newEnv(t)
	orchtest.RegisterWorkflow(env, "Waiter", waiter)
	env.ExecuteWorkflow("Waiter", 0, nil)
	var be *orchtest.BlockedError
	err := env.Err()
	if !errors.As(err, &be) || env.Completed() {
		t.Fatalf("Err = %v", err)
	}
	if len(be.Runs) != 1 || strings.Join(be.Runs[0].Signals, ",") != "go-ahead" || !strings.Contains(err.Error(), "waits on signal go-ahead") {
		t.Fatalf("report %+v: %v", be, err)
	}
}

// A parent waiting on a child that waits for a signal: both are named.
func TestBlockedChildIsReported(t *testing.T) {
	t.Parallel()
	parent := func(ctx workflow.Context, _ int) (string, error) {
		var s string
		err := workflow.ExecuteChildWorkflow(ctx, "Waiter", 0, &workflow.ChildWorkflowOptions{WorkflowID: "the-child"}).Get(ctx, &s)
		return s, err
	}
	waiter := func(ctx workflow.Context, _ int) (string, error) {
		var s string
		workflow.GetSignalChannel(ctx, "go-ahead").Receive(ctx, &s)
		return s, nil
	}
	env := newEnv(t)
	orchtest.RegisterWorkflow(env, "Parent", parent)
	orchtest.RegisterWorkflow(env, "Waiter", waiter)
	env.ExecuteWorkflow("Parent", 0, nil)
	err := env.Err()
	if !strings.Contains(fmt.Sprint(err), "waits on child Waiter (workflow id the-child)") || !strings.Contains(fmt.Sprint(err), "Waiter the-child (run orchtest-run-2) waits on signal go-ahead") {
		t.Fatalf("Err = %v", err)
	}
	// The test can unblock it by signaling the child.
	env2 := newEnv(t)
	orchtest.RegisterWorkflow(env2, "Parent", parent)
	orchtest.RegisterWorkflow(env2, "Waiter", waiter)
	env2.After(time.Minute, func() {
		if err := env2.SignalWorkflowByID("the-child", "go-ahead", "now"); err != nil {
			t.Error(err)
		}
	})
	env2.ExecuteWorkflow("Parent", 0, nil)
	var got string
	if err := env2.Result(&got); err != nil || got != "now" {
		t.Fatalf("result %q, %v", got, err)
	}
	// A child asked to cancel (one that listens: patient) ends canceled,
	// and the parent sees it.
	env3 := newEnv(t)
	orchtest.RegisterWorkflow(env3, "Parent", parent)
	orchtest.RegisterWorkflow(env3, "Waiter", patient)
	env3.OnActivity("Cleanup").Return("cleaned", nil).Once()
	env3.After(time.Minute, func() {
		if err := env3.CancelWorkflowByID("the-child"); err != nil {
			t.Error(err)
		}
		if err := env3.CancelWorkflowByID("no-such-workflow"); err == nil || !strings.Contains(err.Error(), "not found") {
			t.Errorf("cancel of an unknown id: %v", err)
		}
	})
	env3.ExecuteWorkflow("Parent", 0, nil)
	if err := env3.Err(); !strings.Contains(fmt.Sprint(err), "child workflow Waiter (id the-child) failed: workflow: canceled") {
		t.Fatalf("Err = %v", err)
	}
}

func TestWorkflowThatNeverEndsIsStopped(t *testing.T) {
	t.Parallel()
	forever := func(ctx workflow.Context, _ int) (int, error) {
		for {
			if err := workflow.Sleep(ctx, time.Hour); err != nil {
				return 0, err
			}
		}
	}
	env := orchtest.NewWithOptions(t, orchtest.Options{StartTime: start, MaxWorkflowTasks: 50})
	orchtest.RegisterWorkflow(env, "Forever", forever)
	env.ExecuteWorkflow("Forever", 0, nil)
	if err := env.Err(); err == nil || !strings.Contains(err.Error(), "more than 50 workflow tasks") {
		t.Fatalf("Err = %v", err)
	}
}

func TestPanicFailsTheTask(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	orchtest.RegisterWorkflow(env, "Panics", func(ctx workflow.Context, _ int) (int, error) { panic("boom") })
	env.ExecuteWorkflow("Panics", 0, nil)
	var tf *orchtest.TaskFailedError
	if err := env.Err(); !errors.As(err, &tf) || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("Err = %v", err)
	}
	h := env.History()
	if last := h[len(h)-1]; last.GetEventType() != orchpb.EventType_WorkflowTaskFailed {
		t.Fatalf("last event %v", last.GetEventType())
	}
}

func TestMockedChildWorkflow(t *testing.T) {
	t.Parallel()
	parent := func(ctx workflow.Context, n int) (string, error) {
		var s string
		err := workflow.ExecuteChildWorkflow(ctx, "Notify", n, nil).Get(ctx, &s)
		return "parent got " + s, err
	}
	env := newEnv(t)
	orchtest.RegisterWorkflow(env, "Parent", parent)
	m := env.OnWorkflow("Notify").Do(func(n int) (string, error) { return fmt.Sprint("sent ", n), nil }).After(time.Minute)
	env.ExecuteWorkflow("Parent", 7, nil)
	var got string
	if err := env.Result(&got); err != nil || got != "parent got sent 7" {
		t.Fatalf("result %q, %v", got, err)
	}
	if c := m.Calls(); len(c) != 1 || c[0].ID != "orchtest-run-1_1" {
		t.Fatalf("calls %+v", c)
	}
	if d := env.Now().Sub(start); d != time.Minute {
		t.Fatalf("workflow time %v", d)
	}
	if err := workflow.Replay(env.History(), parent); err != nil {
		t.Fatal(err)
	}
	// A mocked child's error fails it.
	env2 := newEnv(t)
	orchtest.RegisterWorkflow(env2, "Parent", parent)
	env2.OnWorkflow("Notify").Return(nil, orch.NonRetryable(errors.New("mailbox full")))
	env2.ExecuteWorkflow("Parent", 7, nil)
	var ce *workflow.ChildWorkflowError
	if err := env2.Err(); !strings.Contains(fmt.Sprint(err), "mailbox full") {
		t.Fatalf("Err = %v (%v)", err, errors.As(err, &ce))
	}
}

func TestExecuteWorkflowOfUnknownType(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	env := orchtest.New(rec)
	env.ExecuteWorkflow("Nope", nil, nil)
	if err := env.Err(); err == nil || !strings.Contains(err.Error(), "workflow type Nope is neither registered") {
		t.Fatalf("Err = %v", err)
	}
	if errs := rec.end(); len(errs) != 1 {
		t.Fatalf("reported %q", errs)
	}
}

// Code that does not replay the same way fails its task with the
// NonDeterminismError a worker would report: each task replays.
func TestNonDeterministicCodeFailsItsTask(t *testing.T) {
	t.Parallel()
	calls := 0 // state outside the workflow: the replay sees another value
	wf := func(ctx workflow.Context, _ int) (int, error) {
		calls++
		if calls == 1 {
			return 0, workflow.Sleep(ctx, time.Minute)
		}
		ctx = workflow.WithActivityOptions(ctx, minute)
		return 0, workflow.ExecuteActivity(ctx, "Charge", 1).Get(ctx, nil)
	}
	env := newEnv(t)
	orchtest.RegisterWorkflow(env, "Flaky", wf)
	env.OnActivity("Charge").Return("x", nil).Maybe()
	env.ExecuteWorkflow("Flaky", 0, nil)
	var nd *workflow.NonDeterminismError
	var tf *orchtest.TaskFailedError
	if err := env.Err(); !errors.As(err, &nd) || !errors.As(err, &tf) || tf.EventID != 8 {
		t.Fatalf("Err = %v", err)
	}
}

func TestActivityScheduleToCloseTimeout(t *testing.T) {
	t.Parallel()
	wf := func(ctx workflow.Context, _ int) (string, error) {
		ctx = workflow.WithActivityOptions(ctx, orch.ActivityOptions{ScheduleToCloseTimeout: 10 * time.Minute, StartToCloseTimeout: 3 * time.Minute})
		var s string
		err := workflow.ExecuteActivity(ctx, "Slow", 0).Get(ctx, &s)
		return s, err
	}
	env := newEnv(t)
	orchtest.RegisterWorkflow(env, "Slow", wf)
	m := env.OnActivity("Slow").Return("late", nil).After(time.Hour)
	env.ExecuteWorkflow("Slow", 0, nil)
	var te *workflow.TimeoutError
	if err := env.Err(); !errors.As(err, &te) && !strings.Contains(fmt.Sprint(err), "SCHEDULE_TO_CLOSE") {
		t.Fatalf("Err = %v", err)
	}
	// Attempts at 0, 3m1s, 6m3s (each times out after 3m, backoff 1s, 2s),
	// 9m7s; the activity ends at 10m.
	var at []string
	for _, c := range m.Calls() {
		at = append(at, c.Time.Sub(start).String())
	}
	if got := strings.Join(at, " "); got != "0s 3m1s 6m3s 9m7s" || env.Now().Sub(start) != 10*time.Minute {
		t.Fatalf("attempts at %s, ended at %v", got, env.Now().Sub(start))
	}
	if !strings.Contains(fmt.Sprint(env.Err()), "SCHEDULE_TO_CLOSE") {
		t.Fatalf("Err = %v", env.Err())
	}
}

func TestRunTimeout(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	orchtest.RegisterWorkflow(env, "Patient", patient)
	env.ExecuteWorkflow("Patient", 0, &orch.StartWorkflowOptions{RunTimeout: time.Hour})
	var werr *orch.WorkflowExecutionError
	if err := env.Err(); !errors.As(err, &werr) || werr.Status != orchpb.WorkflowExecutionStatus_TIMED_OUT || env.Now().Sub(start) != time.Hour {
		t.Fatalf("Err = %v at %v", err, env.Now().Sub(start))
	}
}

// Continue-as-new: every run is in Runs, each history replays, and
// the last run's is History.
func TestContinueAsNewRuns(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	orchtest.RegisterWorkflow(env, "Countdown", countdown)
	env.ExecuteWorkflow("Countdown", [2]int{2, 0}, &orch.StartWorkflowOptions{ID: "cd"})
	var total int
	if err := env.Result(&total); err != nil || total != 3 {
		t.Fatalf("total %d, %v", total, err)
	}
	runs := env.Runs()
	if len(runs) != 3 || runs[0].Status != orchpb.WorkflowExecutionStatus_CONTINUED_AS_NEW || runs[2].Status != orchpb.WorkflowExecutionStatus_COMPLETED {
		t.Fatalf("runs %+v", runs)
	}
	for _, r := range runs {
		if r.WorkflowID != "cd" {
			t.Fatalf("run %+v", r)
		}
		if err := workflow.ReplayWithOptions(r.History, countdown, workflow.ReplayOptions{WorkflowID: r.WorkflowID, RunID: r.RunID}); err != nil {
			t.Fatalf("run %s: %v", r.RunID, err)
		}
	}
	if h := env.History(); h[0].GetWorkflowExecutionStartedEventAttributes().GetContinuedExecutionRunId() != runs[1].RunID {
		t.Fatalf("History is not the last run's")
	}
}

// A real activity reads its info and heartbeats as under a worker; a
// retried attempt resumes from the last heartbeat's details.
func TestActivityInfoAndHeartbeats(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	orchtest.RegisterWorkflow(env, "Charge", charge)
	var seen []string
	orchtest.RegisterActivity(env, "Charge", func(ctx context.Context, n int) (string, error) {
		info, ok := orch.GetActivityInfo(ctx)
		var from int
		if err := orch.HeartbeatDetails(ctx, &from); err != nil && !errors.Is(err, orch.ErrNoPayload) {
			return "", err
		}
		seen = append(seen, fmt.Sprintf("%v %s %s attempt %d from %d", ok, info.ActivityType, info.WorkflowID, info.Attempt, from))
		for i := from; i < n; i++ {
			if err := orch.RecordHeartbeat(ctx, i+1); err != nil {
				return "", err
			}
			if info.Attempt == 1 && i == 2 {
				return "", errors.New("connection reset")
			}
		}
		return "done", nil
	})
	env.ExecuteWorkflow("Charge", 5, nil)
	if err := env.Result(nil); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(seen, "; "); got != "true Charge orchtest-workflow attempt 1 from 0; true Charge orchtest-workflow attempt 2 from 3" {
		t.Fatalf("seen: %s", got)
	}
}

// Mistakes in a test's set-up are reported, and end ExecuteWorkflow with
// a clear error; nothing panics.
func TestSetupMistakesAreReported(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	env := orchtest.NewWithOptions(rec, orchtest.Options{StartTime: start})
	orchtest.RegisterWorkflow(env, "Charge", charge)
	orchtest.RegisterWorkflow[int, int](env, "Nil", nil)
	orchtest.RegisterActivity[int, int](env, "", nil)
	env.RegisterWorkflowHandler("NoDecide", orch.Workflow{})
	env.OnActivity("Charge").Do(func(a, b int) (int, error) { return a + b, nil }).Maybe()
	env.OnActivity("Charge").Do("not a function").Maybe()
	env.OnActivity("Charge").Do(func(int) int { return 0 }).Maybe()
	env.ExecuteWorkflow("Charge", 1, nil)
	env.ExecuteWorkflow("Charge", 1, nil)
	err := env.Err()
	for _, want := range []string{
		`RegisterWorkflow "Nil" needs a function`, `RegisterActivity "" needs a name`, `RegisterWorkflowHandler "NoDecide"`,
		"activity mock Charge: Do: func(int, int) (int, error) takes 2 inputs", "Do: want a function, got string",
		"Do: func(int) int must return (Out, error) or error",
	} {
		if !strings.Contains(fmt.Sprint(err), want) {
			t.Errorf("Err lacks %q: %v", want, err)
		}
	}
	errs := rec.end()
	if len(errs) != 7 || !strings.Contains(errs[6], "called again") {
		t.Fatalf("reported %d: %q", len(errs), errs)
	}
}

// A mock with neither Return nor Do fails its call and the test.
func TestMockWithoutAnswer(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	env := orchtest.NewWithOptions(rec, orchtest.Options{StartTime: start})
	orchtest.RegisterWorkflow(env, "Charge", charge)
	env.OnActivity("Charge")
	env.ExecuteWorkflow("Charge", 1, nil)
	if err := env.Err(); !strings.Contains(fmt.Sprint(err), "activity mock Charge has neither Return nor Do") {
		t.Fatalf("Err = %v", err)
	}
	if errs := rec.end(); len(errs) != 1 || !strings.Contains(errs[0], "activity mock Charge has neither Return nor Do") {
		t.Fatalf("reported %q", errs)
	}
}
