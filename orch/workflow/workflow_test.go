package workflow_test

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
	"github.com/apitwin/apitwin/orch/workflow"
)

var minute = orch.ActivityOptions{StartToCloseTimeout: time.Minute}

func result(t *testing.T, c *orchpb.Command, out any) {
	t.Helper()
	a := c.GetCompleteWorkflowExecutionCommandAttributes()
	if a == nil {
		t.Fatalf("not a completion: %v", c)
	}
	if err := orch.DecodePayloads(a.GetResult(), out); err != nil {
		t.Fatal(err)
	}
}

// greet: an activity, a signal, a timer, then the result; each task's
// commands are exactly the ones beyond the history.
func greet(ctx workflow.Context, name string) (string, error) {
	ctx = workflow.WithActivityOptions(ctx, minute)
	var greeting string
	if err := workflow.ExecuteActivity(ctx, "Greet", name).Get(ctx, &greeting); err != nil {
		return "", err
	}
	var suffix string
	workflow.GetSignalChannel(ctx, "suffix").Receive(ctx, &suffix)
	if err := workflow.Sleep(ctx, time.Hour); err != nil {
		return "", err
	}
	return greeting + suffix + " at " + workflow.Now(ctx).Format(time.Kitchen), nil
}

func TestTasksEmitOnlyNewCommands(t *testing.T) {
	t.Parallel()
	s := newSim(t, workflow.New(greet), "Ada")
	if diff := cmp.Diff([]string{"SCHEDULE_ACTIVITY_TASK Greet#1"}, kinds(s.task())); diff != "" {
		t.Fatal(diff)
	}
	s.activityCompleted("1", "Hello, Ada")
	if got := s.task(); len(got) != 0 {
		t.Fatalf("waiting for the signal, the task issued %v", kinds(got))
	}
	s.signal("suffix", "!")
	if diff := cmp.Diff([]string{"START_TIMER #2 1h0m0s"}, kinds(s.task())); diff != "" {
		t.Fatal(diff)
	}
	s.now = s.now.Add(time.Hour)
	s.timerFired("2")
	cmds := s.task()
	if len(cmds) != 1 {
		t.Fatalf("commands %v", kinds(cmds))
	}
	var got string
	result(t, cmds[0], &got)
	if want := "Hello, Ada! at 1:00PM"; got != want {
		t.Errorf("result %q, want %q", got, want)
	}
	if err := workflow.Replay(s.events, greet); err != nil {
		t.Errorf("Replay: %v", err)
	}
}

// TestEventsDuringATask: a signal recorded while a task ran (after its
// WorkflowTaskStarted) is not seen by that task on replay, only by the
// next, as it was the first time.
func TestEventsDuringATask(t *testing.T) {
	t.Parallel()
	s := newSim(t, workflow.New(greet), "Bo")
	task := s.startTask()
	s.signal("suffix", "?") // arrives while the worker decides
	cmds, err := s.wf.Decide(t.Context(), task)
	if err != nil {
		t.Fatal(err)
	}
	s.complete(task.Raw.GetStartedEventId(), cmds)
	s.activityCompleted("1", "Hi, Bo")
	if diff := cmp.Diff([]string{"START_TIMER #2 1h0m0s"}, kinds(s.task())); diff != "" {
		t.Fatal(diff)
	}
	if err := workflow.Replay(s.events, greet); err != nil {
		t.Errorf("Replay: %v", err)
	}
}

func TestSelectorPicksWhatCameFirst(t *testing.T) {
	t.Parallel()
	race := func(ctx workflow.Context, _ struct{}) (string, error) {
		winner := ""
		workflow.NewSelector(ctx).
			AddFuture(workflow.NewTimer(ctx, time.Minute), func(workflow.Future) { winner = "timer" }).
			AddReceive(workflow.GetSignalChannel(ctx, "go"), func(c workflow.ReceiveChannel, more bool) {
				c.Receive(ctx, nil)
				winner = "signal"
			}).
			Select(ctx)
		return winner, nil
	}
	for _, signalFirst := range []bool{true, false} {
		t.Run(fmt.Sprint("signalFirst=", signalFirst), func(t *testing.T) {
			t.Parallel()
			s := newSim(t, workflow.New(race), nil)
			s.task()
			if signalFirst {
				s.signal("go", 1)
				s.timerFired("1")
			} else {
				s.timerFired("1")
				s.signal("go", 1)
			}
			var got string
			result(t, s.task()[0], &got)
			if want := map[bool]string{true: "signal", false: "timer"}[signalFirst]; got != want {
				t.Errorf("winner %q, want %q", got, want)
			}
			if err := workflow.Replay(s.events, race); err != nil {
				t.Errorf("Replay: %v", err)
			}
		})
	}
}

// TestCancelRequest: the workflow's cancel request cancels the root
// context: the running timer is canceled, the activity asked to stop, and
// returning ErrCanceled cancels the run; clean-up runs in a disconnected
// context.
func TestCancelRequest(t *testing.T) {
	t.Parallel()
	wf := func(ctx workflow.Context, _ struct{}) (string, error) {
		ctx = workflow.WithActivityOptions(ctx, minute)
		act := workflow.ExecuteActivity(ctx, "Long", nil)
		err := workflow.Sleep(ctx, time.Hour)
		if !errors.Is(err, workflow.ErrCanceled) || !errors.Is(ctx.Err(), workflow.ErrCanceled) {
			return "", fmt.Errorf("sleep: %v", err)
		}
		var aerr *workflow.ActivityError
		if err := act.Get(ctx, nil); !errors.As(err, &aerr) || !errors.Is(err, workflow.ErrCanceled) || aerr.ScheduledEventID == 0 {
			return "", fmt.Errorf("activity: %v", err)
		}
		cleanup := workflow.NewDisconnectedContext(ctx)
		if err := workflow.ExecuteActivity(cleanup, "Cleanup", nil).Get(cleanup, nil); err != nil {
			return "", err
		}
		return "", err
	}
	s := newSim(t, workflow.New(wf), nil)
	if diff := cmp.Diff([]string{"SCHEDULE_ACTIVITY_TASK Long#1", "START_TIMER #2 1h0m0s"}, kinds(s.task())); diff != "" {
		t.Fatal(diff)
	}
	s.cancelRequested()
	cmds := s.task()
	if diff := cmp.Diff([]string{"REQUEST_CANCEL_ACTIVITY_TASK", "CANCEL_TIMER #2", "SCHEDULE_ACTIVITY_TASK Cleanup#3"}, kinds(cmds)); diff != "" {
		t.Fatal(diff)
	}
	if got := cmds[0].GetRequestCancelActivityTaskCommandAttributes().GetScheduledEventId(); got != s.scheduled("1") {
		t.Errorf("cancel names scheduled event %d, want %d", got, s.scheduled("1"))
	}
	s.activityCompleted("3", nil)
	if diff := cmp.Diff([]string{"CANCEL_WORKFLOW_EXECUTION"}, kinds(s.task())); diff != "" {
		t.Fatal(diff)
	}
	if err := workflow.Replay(s.events, wf); err != nil {
		t.Errorf("Replay: %v", err)
	}
}

// TestCanceledInTheSameTask: a timer canceled in the task that started it
// is never sent.
func TestCanceledInTheSameTask(t *testing.T) {
	t.Parallel()
	wf := func(ctx workflow.Context, _ struct{}) (int, error) {
		tctx, cancel := workflow.WithCancel(ctx)
		f := workflow.NewTimer(tctx, time.Hour)
		cancel()
		if err := f.Get(ctx, nil); !errors.Is(err, workflow.ErrCanceled) {
			return 0, fmt.Errorf("timer: %v", err)
		}
		return 7, workflow.Sleep(ctx, time.Minute)
	}
	s := newSim(t, workflow.New(wf), nil)
	if diff := cmp.Diff([]string{"START_TIMER #2 1m0s"}, kinds(s.task())); diff != "" {
		t.Fatal(diff)
	}
	s.timerFired("2")
	var got int
	result(t, s.task()[0], &got)
	if got != 7 {
		t.Errorf("result %d", got)
	}
	if err := workflow.Replay(s.events, wf); err != nil {
		t.Errorf("Replay: %v", err)
	}
}

func TestNonDeterminism(t *testing.T) {
	t.Parallel()
	s := newSim(t, workflow.New(greet), "Cy")
	s.task()
	s.activityCompleted("1", "Hey, Cy")
	s.task()
	s.signal("suffix", ".")
	s.task()
	s.timerFired("2")
	s.task()
	timer := int64(0)
	for _, ev := range s.events {
		if ev.GetEventType() == orchpb.EventType_TimerStarted {
			timer = ev.GetEventId()
		}
	}
	for _, tc := range []struct {
		name string
		fn   func(workflow.Context, string) (string, error)
		want string
	}{
		{"other activity", func(ctx workflow.Context, name string) (string, error) {
			ctx = workflow.WithActivityOptions(ctx, minute)
			return "", workflow.ExecuteActivity(ctx, "Wave", name).Get(ctx, nil)
		}, "workflow: non-deterministic: event 5 records ActivityTaskScheduled Greet (activity id 1), but the code issued ScheduleActivityTask Wave (activity id 1)"},
		{"command removed", func(ctx workflow.Context, name string) (string, error) {
			ctx = workflow.WithActivityOptions(ctx, minute)
			var g string
			if err := workflow.ExecuteActivity(ctx, "Greet", name).Get(ctx, &g); err != nil {
				return "", err
			}
			workflow.GetSignalChannel(ctx, "suffix").Receive(ctx, nil)
			return g, nil
		}, fmt.Sprintf("workflow: non-deterministic: event %d records TimerStarted (timer id 2, 1h0m0s), but the code issued CompleteWorkflowExecution", timer)},
		{"command added", func(ctx workflow.Context, name string) (string, error) {
			ctx = workflow.WithActivityOptions(ctx, minute)
			f := workflow.ExecuteActivity(ctx, "Greet", name)
			workflow.NewTimer(ctx, time.Second)
			return "", f.Get(ctx, nil)
		}, "workflow: non-deterministic: the code issued StartTimer (timer id 2, 1s), but the history records no further command after event 4 (WorkflowTaskCompleted)"},
		{"blocks where it did not", func(ctx workflow.Context, name string) (string, error) {
			ctx = workflow.WithActivityOptions(ctx, minute)
			workflow.GetSignalChannel(ctx, "never").Receive(ctx, nil)
			return greet(ctx, name)
		}, "workflow: non-deterministic: event 5 records ActivityTaskScheduled Greet (activity id 1), but the code issued no command"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := workflow.Replay(s.events, tc.fn)
			var nde *workflow.NonDeterminismError
			if !errors.As(err, &nde) || err.Error() != tc.want {
				t.Fatalf("got  %v\nwant %s", err, tc.want)
			}
		})
	}
	// The worker's Decide reports it as the task's error.
	bad := newSim(t, workflow.New(greet), "Di")
	bad.task()
	bad.wf = workflow.New(func(ctx workflow.Context, name string) (string, error) {
		return "", workflow.Sleep(ctx, time.Second)
	})
	if _, err := bad.try(); err == nil || !strings.Contains(err.Error(), "event 5 records ActivityTaskScheduled Greet") {
		t.Errorf("Decide: %v", err)
	}
}

func TestActivityFailure(t *testing.T) {
	t.Parallel()
	wf := func(ctx workflow.Context, _ struct{}) (string, error) {
		ctx = workflow.WithActivityOptions(ctx, minute)
		err := workflow.ExecuteActivity(ctx, "Charge", 10).Get(ctx, nil)
		var aerr *workflow.ActivityError
		var app *orch.ApplicationError
		if !errors.As(err, &aerr) || !errors.As(err, &app) {
			return "", fmt.Errorf("not an activity error: %v", err)
		}
		return fmt.Sprintf("%s %s %s %v %v", aerr.ActivityType, aerr.ActivityID, app.Type, app.NonRetryable, aerr.RetryState), err
	}
	s := newSim(t, workflow.New(wf), nil)
	s.task()
	s.activityFailed("1", &orchpb.Failure{Message: "card declined", FailureInfo: &orchpb.Failure_ApplicationFailureInfo{
		ApplicationFailureInfo: &orchpb.ApplicationFailureInfo{Type: "Declined", NonRetryable: true}}})
	cmds := s.task()
	f := cmds[0].GetFailWorkflowExecutionCommandAttributes().GetFailure()
	if want := "activity Charge (id 1) failed: card declined"; f.GetMessage() != want {
		t.Errorf("workflow failure %q, want %q", f.GetMessage(), want)
	}
	if err := workflow.Replay(s.events, wf); err != nil {
		t.Errorf("Replay: %v", err)
	}
}

func TestMissingActivityOptions(t *testing.T) {
	t.Parallel()
	wf := func(ctx workflow.Context, _ struct{}) (string, error) {
		return "", workflow.ExecuteActivity(ctx, "Charge", 10).Get(ctx, nil)
	}
	s := newSim(t, workflow.New(wf), nil)
	f := s.task()[0].GetFailWorkflowExecutionCommandAttributes().GetFailure()
	if !strings.Contains(f.GetMessage(), "need StartToCloseTimeout or ScheduleToCloseTimeout") {
		t.Errorf("failure %q", f.GetMessage())
	}
}

func TestBadInputFailsTheRun(t *testing.T) {
	t.Parallel()
	wf := func(ctx workflow.Context, n int) (int, error) { return n, nil }
	s := newSim(t, workflow.New(wf), "not a number")
	f := s.task()[0].GetFailWorkflowExecutionCommandAttributes().GetFailure()
	if !strings.Contains(f.GetMessage(), "workflow Test: input:") || !f.GetApplicationFailureInfo().GetNonRetryable() {
		t.Errorf("failure %v", f)
	}
}

// TestQuery: a query replays the history known and reads the state the
// code keeps; an unknown type names the known ones.
func TestQuery(t *testing.T) {
	t.Parallel()
	wf := func(ctx workflow.Context, _ struct{}) (int, error) {
		total := 0
		workflow.SetQueryHandler(ctx, "total", func() (any, error) { return total, nil })
		workflow.SetQueryHandlerWithArg(ctx, "plus", func(n int) (any, error) { return total + n, nil })
		ch := workflow.GetSignalChannel(ctx, "add")
		for total < 10 {
			var n int
			ch.Receive(ctx, &n)
			total += n
		}
		return total, nil
	}
	s := newSim(t, workflow.New(wf), nil)
	s.task()
	s.signal("add", 3)
	s.task()
	s.signal("add", 4) // not yet handled by a task: the query sees it too
	if got, err := s.query("total", nil); err != nil || got != 7 {
		t.Errorf("total %v, %v", got, err)
	}
	if got, err := s.query("plus", 100); err != nil || got != 107 {
		t.Errorf("plus %v, %v", got, err)
	}
	if _, err := s.query("nope", nil); err == nil || err.Error() != `unknown query type "nope" (known: plus, total)` {
		t.Errorf("unknown query: %v", err)
	}
}

// TestSignalsBeforeTheChannel: signals that arrived before the code asked
// for their channel wait in it, in order; one that does not decode is
// skipped and counted.
func TestSignalsBeforeTheChannel(t *testing.T) {
	t.Parallel()
	wf := func(ctx workflow.Context, _ struct{}) ([]int, error) {
		if err := workflow.Sleep(ctx, time.Minute); err != nil {
			return nil, err
		}
		ch := workflow.GetSignalChannel(ctx, "n")
		var got []int
		for ch.Len() > 0 {
			var n int
			if ch.ReceiveAsync(&n) {
				got = append(got, n)
			}
		}
		got = append(got, workflow.SkippedSignals(ch))
		return got, nil
	}
	s := newSim(t, workflow.New(wf), nil)
	s.signal("n", 1)
	s.task()
	s.signal("n", "two")
	s.signal("n", 3)
	s.timerFired("1")
	var got []int
	result(t, s.task()[0], &got)
	if diff := cmp.Diff([]int{1, 3, 1}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestCoroutines: Go and NewChannel run in a fixed order, so the commands
// of several coroutines replay.
func TestCoroutines(t *testing.T) {
	t.Parallel()
	wf := func(ctx workflow.Context, n int) ([]string, error) {
		ctx = workflow.WithActivityOptions(ctx, minute)
		results := workflow.NewChannel(ctx, "results")
		for i := range n {
			workflow.Go(ctx, func(ctx workflow.Context) {
				var s string
				err := workflow.ExecuteActivity(ctx, "Work", i).Get(ctx, &s)
				if err != nil {
					s = err.Error()
				}
				results.Send(ctx, s)
			})
		}
		var out []string
		for range n {
			var s string
			results.Receive(ctx, &s)
			out = append(out, s)
		}
		return out, nil
	}
	s := newSim(t, workflow.New(wf), 3)
	if diff := cmp.Diff([]string{"SCHEDULE_ACTIVITY_TASK Work#1", "SCHEDULE_ACTIVITY_TASK Work#2", "SCHEDULE_ACTIVITY_TASK Work#3"}, kinds(s.task())); diff != "" {
		t.Fatal(diff)
	}
	s.activityCompleted("3", "c")
	s.activityCompleted("1", "a")
	s.task()
	s.activityCompleted("2", "b")
	var got []string
	result(t, s.task()[0], &got)
	// Work#3 and Work#1 completed before the same task: their coroutines
	// then run in the order they were started, so "a" is sent first.
	if diff := cmp.Diff([]string{"a", "c", "b"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if err := workflow.Replay(s.events, wf); err != nil {
		t.Errorf("Replay: %v", err)
	}
}

func TestContinueAsNew(t *testing.T) {
	t.Parallel()
	wf := func(ctx workflow.Context, n int) (int, error) {
		if n < 3 {
			return 0, workflow.NewContinueAsNewError(ctx, n+1)
		}
		return n, nil
	}
	s := newSim(t, workflow.New(wf), 1)
	a := s.task()[0].GetContinueAsNewWorkflowExecutionCommandAttributes()
	var next int
	if err := orch.DecodePayloads(a.GetInput(), &next); err != nil || next != 2 || a.GetWorkflowType().GetName() != "Test" {
		t.Errorf("continue as new %v (input %d, %v)", a, next, err)
	}
}

// TestPanicFailsTheTask: a panic is the task's error (the run goes on);
// coroutines blocked in deferred calls do not hold the task.
func TestPanicFailsTheTask(t *testing.T) {
	t.Parallel()
	wf := func(ctx workflow.Context, _ struct{}) (int, error) {
		workflow.Go(ctx, func(ctx workflow.Context) {
			defer workflow.Sleep(ctx, time.Hour) //nolint:errcheck // blocks during teardown
			workflow.GetSignalChannel(ctx, "never").Receive(ctx, nil)
		})
		if err := workflow.Sleep(ctx, time.Minute); err != nil {
			return 0, err
		}
		panic("boom")
	}
	s := newSim(t, workflow.New(wf), nil)
	s.task()
	s.timerFired("1")
	_, err := s.try()
	if err == nil || !strings.Contains(err.Error(), `coroutine "root" panicked: boom`) {
		t.Fatalf("Decide: %v", err)
	}
	if err := workflow.Replay(s.events, wf); err != nil {
		t.Errorf("Replay of the completed tasks: %v", err)
	}
}

func TestInfo(t *testing.T) {
	t.Parallel()
	wf := func(ctx workflow.Context, _ struct{}) (workflow.Info, error) {
		if workflow.IsReplaying(ctx) {
			return workflow.Info{}, fmt.Errorf("replaying in the first task")
		}
		return workflow.GetInfo(ctx), nil
	}
	s := newSim(t, workflow.New(wf), nil)
	var got workflow.Info
	result(t, s.task()[0], &got)
	want := workflow.Info{WorkflowID: "wf", RunID: "run", WorkflowType: "Test", TaskQueue: "q", Attempt: 1, StartTime: epoch}
	if got != want {
		t.Errorf("info %+v, want %+v", got, want)
	}
}

func TestReplayRefusesABadHistory(t *testing.T) {
	t.Parallel()
	if err := workflow.Replay(nil, greet); err == nil {
		t.Error("empty history accepted")
	}
	s := newSim(t, workflow.New(greet), "x")
	s.task()
	if err := workflow.Replay(s.events[1:], greet); err == nil || !strings.Contains(err.Error(), "not WorkflowExecutionStarted") {
		t.Errorf("history without its start: %v", err)
	}
}

// TestNoGoroutineOutlivesATask: the coroutines of a task, blocked or
// not, end with it, and so do those their deferred calls start while the
// task ends (they were left waiting for ever). Not parallel, so the count
// is this test's alone.
func TestNoGoroutineOutlivesATask(t *testing.T) {
	wf := func(ctx workflow.Context, _ struct{}) (int, error) {
		for range 20 {
			workflow.Go(ctx, func(ctx workflow.Context) {
				defer workflow.Go(ctx, func(workflow.Context) {})               // started while the task ends
				defer workflow.GetSignalChannel(ctx, "never").Receive(ctx, nil) // blocks while the task ends
				_ = workflow.Sleep(ctx, time.Hour)
			})
		}
		return 0, workflow.Sleep(ctx, time.Minute)
	}
	play := func() {
		s := newSim(t, workflow.New(wf), nil)
		for range 3 {
			s.task()
		}
	}
	play() // once first: what the runtime starts lazily is not counted
	before := runtime.NumGoroutine()
	play()
	// A coroutine's goroutine tells the task it ended just before it
	// returns: wait for the returns themselves. A goroutine left behind
	// keeps this loop going until the test binary's timeout, whose dump
	// names it.
	for runtime.NumGoroutine() > before {
		runtime.Gosched()
	}
}

// BenchmarkDecide is the cost of one workflow task at the end of a
// history of n activities run one after the other: a replay of all of
// them.
func BenchmarkDecide(b *testing.B) {
	wf := func(ctx workflow.Context, n int) (int, error) {
		ctx = workflow.WithActivityOptions(ctx, minute)
		sum := 0
		for i := range n {
			var v int
			if err := workflow.ExecuteActivity(ctx, "Add", i).Get(ctx, &v); err != nil {
				return 0, err
			}
			sum += v
		}
		return sum, nil
	}
	for _, n := range []int{1, 10, 100} {
		b.Run(fmt.Sprint("activities=", n), func(b *testing.B) {
			s := newSim(b, workflow.New(wf), n)
			for i := range n {
				s.task()
				s.activityCompleted(strconv.Itoa(i+1), i)
			}
			task := s.startTask()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.wf.Decide(b.Context(), task); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

type key struct{}

// TestContextValuesDoneAndChannels: values, Done in a Selector once the
// run is asked to cancel, a closed Channel, a Selector's default.
func TestContextValuesDoneAndChannels(t *testing.T) {
	t.Parallel()
	wf := func(ctx workflow.Context, _ struct{}) ([]string, error) {
		ctx = workflow.WithValue(ctx, key{}, "v")
		var out []string
		ch := workflow.NewChannel(ctx, "jobs")
		workflow.Go(ctx, func(ctx workflow.Context) {
			ch.Send(ctx, "job-1")
			ch.Close()
		})
		for {
			var job string
			if !ch.Receive(ctx, &job) {
				break
			}
			out = append(out, job)
		}
		timer := workflow.NewTimer(ctx, time.Hour)
		sel := workflow.NewSelector(ctx)
		sel.AddFuture(timer, func(workflow.Future) { out = append(out, "timer") })
		sel.AddReceive(ctx.Done(), func(workflow.ReceiveChannel, bool) { out = append(out, "canceled: "+fmt.Sprint(ctx.Err())) })
		sel.AddDefault(func() { out = append(out, "nothing yet") })
		sel.Select(ctx) // nothing is ready in the first task
		sel = workflow.NewSelector(ctx)
		sel.AddFuture(timer, func(workflow.Future) { out = append(out, "timer") })
		sel.AddReceive(ctx.Done(), func(workflow.ReceiveChannel, bool) { out = append(out, "canceled: "+fmt.Sprint(ctx.Err())) })
		sel.Select(ctx)
		out = append(out, fmt.Sprint(ctx.Value(key{}), " ", ctx.Value("other"), " ", timer.IsReady(), " ", sel.HasPending(), " ", ch.Name()))
		return out, nil
	}
	s := newSim(t, workflow.New(wf), nil)
	s.task()
	s.cancelRequested()
	cmds := s.task()
	if diff := cmp.Diff([]string{"CANCEL_TIMER #1", "COMPLETE_WORKFLOW_EXECUTION"}, kinds(cmds)); diff != "" {
		t.Fatal(diff)
	}
	var got []string
	result(t, cmds[1], &got)
	want := []string{"job-1", "nothing yet", "canceled: workflow: canceled", "v <nil> true true jobs"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if err := workflow.Replay(s.events, wf); err != nil {
		t.Errorf("Replay: %v", err)
	}
}

// TestLastCompletionResult: a cron schedule's next run reads what the
// previous run returned; the first has none.
func TestLastCompletionResult(t *testing.T) {
	t.Parallel()
	counter := func(ctx workflow.Context, _ struct{}) (int, error) {
		n := 0
		if workflow.HasLastCompletionResult(ctx) {
			if err := workflow.GetLastCompletionResult(ctx, &n); err != nil {
				return 0, err
			}
		}
		return n + 1, nil
	}
	var got int
	result(t, newSim(t, workflow.New(counter), nil).task()[0], &got)
	if got != 1 {
		t.Errorf("first run: %d", got)
	}
	result(t, newSimAfter(t, workflow.New(counter), nil, 41).task()[0], &got)
	if got != 42 {
		t.Errorf("next run: %d", got)
	}
}

// TestDeadlock: code that blocks outside this package's calls fails the
// task with a DeadlockError once the deadlock timeout (here 1 ns) passes;
// the coroutine is left behind and ends when it can.
func TestDeadlock(t *testing.T) {
	t.Parallel()
	block, ended := make(chan struct{}), make(chan struct{})
	wf := func(ctx workflow.Context, _ struct{}) (int, error) {
		defer close(ended)
		<-block // a Go channel: not allowed in workflow code
		return 1, nil
	}
	s := newSim(t, workflow.NewWithOptions(wf, workflow.Options{DeadlockTimeout: time.Nanosecond}), nil)
	_, err := s.try()
	var dl *workflow.DeadlockError
	if !errors.As(err, &dl) || dl.Coroutine != "root" || !strings.Contains(err.Error(), "potential deadlock") {
		t.Fatalf("Decide: %v", err)
	}
	close(block)
	<-ended
}

// TestAwait: Await wakes when a signal handler's coroutine changed the
// state; AwaitWithTimeout cancels its timer when the condition holds, and
// reports the timeout when the timer fires first.
func TestAwait(t *testing.T) {
	t.Parallel()
	wf := func(ctx workflow.Context, _ struct{}) ([]string, error) {
		var items []string
		workflow.Go(ctx, func(ctx workflow.Context) {
			ch := workflow.GetSignalChannel(ctx, "item")
			for {
				var s string
				ch.Receive(ctx, &s)
				items = append(items, s)
			}
		})
		if err := workflow.Await(ctx, func() bool { return len(items) == 2 }); err != nil {
			return nil, err
		}
		ok, err := workflow.AwaitWithTimeout(ctx, time.Hour, func() bool { return len(items) == 3 })
		items = append(items, fmt.Sprint(ok, err))
		ok, err = workflow.AwaitWithTimeout(ctx, time.Minute, func() bool { return len(items) == 10 })
		return append(items, fmt.Sprint(ok, err)), nil
	}
	s := newSim(t, workflow.New(wf), nil)
	s.task()
	s.signal("item", "a")
	if cmds := s.task(); len(cmds) != 0 {
		t.Fatalf("awaiting two items, the task issued %v", kinds(cmds))
	}
	s.signal("item", "b")
	if diff := cmp.Diff([]string{"START_TIMER #1 1h0m0s"}, kinds(s.task())); diff != "" {
		t.Fatal(diff)
	}
	s.signal("item", "c")
	if diff := cmp.Diff([]string{"CANCEL_TIMER #1", "START_TIMER #2 1m0s"}, kinds(s.task())); diff != "" {
		t.Fatal(diff)
	}
	s.timerFired("2")
	var got []string
	result(t, s.task()[0], &got)
	if diff := cmp.Diff([]string{"a", "b", "c", "true <nil>", "false <nil>"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if err := workflow.Replay(s.events, wf); err != nil {
		t.Errorf("Replay: %v", err)
	}
}

// TestLoggerOnce: what the code logs through GetLogger is written once,
// by the task that first ran it, not again by every replay.
func TestLoggerOnce(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}))
	wf := func(ctx workflow.Context, _ struct{}) (int, error) {
		for i := range 3 {
			workflow.GetLogger(ctx).Info("step", "i", i)
			if err := workflow.Sleep(ctx, time.Minute); err != nil {
				return 0, err
			}
		}
		return 0, nil
	}
	s := newSim(t, workflow.NewWithOptions(wf, workflow.Options{Logger: log}), nil)
	for i := range 3 {
		s.task()
		s.timerFired(strconv.Itoa(i + 1))
	}
	s.task()
	want := ""
	for i := range 3 {
		want += fmt.Sprintf("level=INFO msg=step workflow_id=wf run_id=run workflow_type=Test i=%d\n", i)
	}
	if got := buf.String(); got != want {
		t.Errorf("logged\n%s\nwant\n%s", got, want)
	}
}

// TestQueryLogsNothing: a query that runs the code over events no task
// has handled yet (a signal) neither logs what the code logs there nor
// says it is not replaying; the task that handles the signal logs it,
// once. (The query logged the line and the next task logged it again.)
func TestQueryLogsNothing(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}))
	wf := func(ctx workflow.Context, _ struct{}) (string, error) {
		var live []bool
		workflow.SetQueryHandler(ctx, "live", func() (any, error) { return live, nil })
		var s string
		workflow.GetSignalChannel(ctx, "go").Receive(ctx, &s)
		live = append(live, !workflow.IsReplaying(ctx))
		workflow.GetLogger(ctx).Info("got", "signal", s)
		return s, workflow.Sleep(ctx, time.Minute)
	}
	s := newSim(t, workflow.NewWithOptions(wf, workflow.Options{Logger: log}), nil)
	s.task()
	s.signal("go", "x")
	if got, err := s.query("live", nil); err != nil || fmt.Sprint(got) != "[false]" {
		t.Errorf("query: %v, %v; want the code not live", got, err)
	}
	if buf.Len() != 0 {
		t.Errorf("the query logged %q", buf.String())
	}
	s.task()
	if want := "level=INFO msg=got workflow_id=wf run_id=run workflow_type=Test signal=x\n"; buf.String() != want {
		t.Errorf("logged %q, want %q", buf.String(), want)
	}
}

// TestDoneFirstWhenAskedForLate: a Selector built after the cancellation,
// with a context's Done and a timer the cancellation failed, picks Done,
// the cause, as one built before it does. (Done, first asked for after
// the cancellation, counted as closed then, after the timer's failure.)
func TestDoneFirstWhenAskedForLate(t *testing.T) {
	t.Parallel()
	wf := func(ctx workflow.Context, _ struct{}) (string, error) {
		timer := workflow.NewTimer(ctx, time.Hour)
		workflow.GetSignalChannel(ctx, "go").Receive(ctx, nil) // Receive does not see the cancellation
		got := ""
		workflow.NewSelector(ctx).
			AddFuture(timer, func(workflow.Future) { got = "timer" }).
			AddReceive(ctx.Done(), func(workflow.ReceiveChannel, bool) { got = "done" }).
			Select(ctx)
		return got, nil
	}
	s := newSim(t, workflow.New(wf), nil)
	s.task()
	s.cancelRequested()
	s.signal("go", nil)
	cmds := s.task()
	if diff := cmp.Diff([]string{"CANCEL_TIMER #1", "COMPLETE_WORKFLOW_EXECUTION"}, kinds(cmds)); diff != "" {
		t.Fatal(diff)
	}
	var got string
	result(t, cmds[1], &got)
	if got != "done" {
		t.Errorf("the Selector picked %q, want done", got)
	}
}

// TestGoexitFailsTheTask: workflow code that ends its goroutine with
// runtime.Goexit (t.Fatal in a test's workflow does) fails the task, as a
// panic does. (The task completed without a command and the run waited
// for ever.)
func TestGoexitFailsTheTask(t *testing.T) {
	t.Parallel()
	wf := func(ctx workflow.Context, _ struct{}) (int, error) {
		runtime.Goexit()
		return 1, nil
	}
	s := newSim(t, workflow.New(wf), nil)
	if cmds, err := s.try(); err == nil || !strings.Contains(err.Error(), "runtime.Goexit") {
		t.Errorf("Decide: %v, %v; want the task failed by runtime.Goexit", kinds(cmds), err)
	}
}
