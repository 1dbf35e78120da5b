package orchtest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
	"github.com/apitwin/apitwin/orch/orchtest"
	"github.com/apitwin/apitwin/orch/workflow"
)

// The parity tests run one workflow twice with the same code, the same
// actions at the same workflow times and the same checks: against
// orchfake (served in memory, no port; time skipping; a real worker) and
// in an Env. The outcomes must be equal: result or close status and
// failure, the answers of queries, search attributes, and the types and
// times of the last run's events other than its workflow tasks' (whose
// places among a child's events depend, on the fake, on which of the
// worker's goroutines runs first). Each scenario also asserts what the
// outcome is.

// side registers a scenario's code with a worker or with an env.
type side struct {
	w   *orch.Worker
	env *orchtest.Env
}

func regWorkflow[In, Out any](s side, name string, fn func(workflow.Context, In) (Out, error)) {
	if s.w != nil {
		if err := workflow.Register(s.w, name, fn); err != nil {
			panic(err)
		}
		return
	}
	orchtest.RegisterWorkflow(s.env, name, fn)
}

func regHandler(s side, name string, wf orch.Workflow) {
	if s.w != nil {
		if err := s.w.RegisterWorkflow(name, wf); err != nil {
			panic(err)
		}
		return
	}
	s.env.RegisterWorkflowHandler(name, wf)
}

func regActivity[In, Out any](s side, name string, fn func(context.Context, In) (Out, error)) {
	if s.w != nil {
		if err := orch.RegisterActivity(s.w, name, fn); err != nil {
			panic(err)
		}
		return
	}
	orchtest.RegisterActivity(s.env, name, fn)
}

// action is something the test does at a workflow time after the start.
type action struct {
	at     time.Duration
	signal string // a signal of that name with arg
	arg    any
	cancel bool
	query  string // a query of that type, its answer kept in the outcome
	update string // an update of that name with arg, its outcome kept with the answers
}

type scenario struct {
	workflow string
	input    any
	setup    func(side)
	actions  []action
	after    []string // queries asked once the run is closed
	check    func(t *testing.T, o outcome)
}

// outcome is what both sides must agree on.
type outcome struct {
	Result  string // the result as JSON, for a completed run
	Status  string // the close status
	Failure string // the failure's message, for a failed run
	Queries []string
	Search  map[string]string
	Memo    map[string]string
	Events  []string
	Times   []string // each event's time since the run's start
}

func (o outcome) String() string {
	b, _ := json.MarshalIndent(o, "", "  ")
	return string(b)
}

const parityQueue = "parity"
const parityID = "parity-target"

func outcomeOf(t *testing.T, getResult func(out any) error, search *orchpb.SearchAttributes, history []*orchpb.HistoryEvent) outcome {
	t.Helper()
	var o outcome
	var raw json.RawMessage
	err := getResult(&raw)
	var werr *orch.WorkflowExecutionError
	switch {
	case err == nil:
		o.Status, o.Result = "COMPLETED", string(raw)
	case errors.As(err, &werr):
		o.Status, o.Failure = werr.Status.String(), werr.Failure.GetMessage()
	default:
		t.Fatalf("outcome: %v", err)
	}
	if len(search.GetIndexedFields()) > 0 {
		o.Search = map[string]string{}
		for k, p := range search.GetIndexedFields() {
			o.Search[k] = string(p.GetData())
		}
	}
	for _, ev := range history {
		switch ev.GetEventType() {
		case orchpb.EventType_WorkflowTaskScheduled, orchpb.EventType_WorkflowTaskStarted, orchpb.EventType_WorkflowTaskCompleted:
			// The worker runs a parent's task and its child's at once:
			// where the fake writes the parent's tasks around the
			// child's events depends on which goroutine runs first.
			continue
		}
		o.Events = append(o.Events, ev.GetEventType().String())
		o.Times = append(o.Times, ev.GetEventTime().AsTime().Sub(history[0].GetEventTime().AsTime()).String())
	}
	return o
}

// onFake runs the scenario against orchfake. The target runs as the child
// of a driver workflow (abandoned when the driver closes) that sleeps to
// each action's time and does the action in an activity: while the
// activity runs the fake does not skip time, so the action lands at its
// workflow time, as Env.After places it.
func onFake(t *testing.T, sc scenario) outcome {
	t.Helper()
	srv := orchfake.Start(t, orchfake.WithTimeSkipping(), control.WithInMemory())
	if err := srv.RegisterSearchAttribute("default", "OrderStatus", orchfake.Keyword); err != nil {
		t.Fatal(err)
	}
	c := srv.Client()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second) // a failsafe
	defer cancel()
	w, err := orch.NewWorker(c, parityQueue, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := side{w: w}
	sc.setup(s)
	var mu sync.Mutex
	var answers []string
	regActivity(s, "ParityAction", func(ctx context.Context, i int) (int, error) {
		a := sc.actions[i]
		switch {
		case a.signal != "":
			return i, c.SignalWorkflow(ctx, parityID, "", a.signal, a.arg, nil)
		case a.cancel:
			return i, c.RequestCancelWorkflow(ctx, parityID, "", nil)
		case a.update != "":
			var raw json.RawMessage
			u, err := c.UpdateWorkflow(ctx, parityID, "", a.update, a.arg, nil)
			if err == nil {
				err = u.Get(ctx, &raw)
			}
			mu.Lock()
			answers = append(answers, updateAnswerOf(raw, err))
			mu.Unlock()
			return i, nil
		default:
			var raw json.RawMessage
			err := c.QueryWorkflow(ctx, parityID, "", a.query, a.arg, &raw, nil)
			mu.Lock()
			answers = append(answers, answerOf(raw, err))
			mu.Unlock()
			return i, nil
		}
	})
	at := make([]time.Duration, len(sc.actions))
	for i, a := range sc.actions {
		at[i] = a.at
	}
	input, err := json.Marshal(sc.input)
	if err != nil {
		t.Fatal(err)
	}
	regWorkflow(s, "ParityDriver", func(ctx workflow.Context, in driverInput) (int, error) {
		child := workflow.ExecuteChildWorkflow(ctx, in.Type, in.Input, &workflow.ChildWorkflowOptions{WorkflowID: parityID, ParentClosePolicy: orchpb.ParentClosePolicy_ABANDON})
		ctx = workflow.WithActivityOptions(ctx, minute)
		last := time.Duration(0)
		for i, at := range in.At {
			if at > last {
				if err := workflow.Sleep(ctx, at-last); err != nil {
					return 0, err
				}
				last = at
			}
			if err := workflow.ExecuteActivity(ctx, "ParityAction", i).Get(ctx, nil); err != nil {
				return 0, err
			}
		}
		_ = child.Get(ctx, nil) // the target's outcome is read from the service
		return 0, nil
	})
	if err := w.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	run, err := c.StartWorkflow(ctx, "ParityDriver", parityQueue, driverInput{Type: sc.workflow, Input: input, At: at}, &orch.StartWorkflowOptions{ID: "parity-driver"})
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Get(ctx, nil); err != nil {
		t.Fatalf("driver: %v", err)
	}
	for _, q := range sc.after {
		var raw json.RawMessage
		err := c.QueryWorkflow(ctx, parityID, "", q, nil, &raw, nil)
		answers = append(answers, answerOf(raw, err))
	}
	info, err := c.DescribeWorkflow(ctx, parityID, "")
	if err != nil {
		t.Fatal(err)
	}
	var history []*orchpb.HistoryEvent
	for ev, err := range c.History(ctx, parityID, info.GetExecution().GetRunId(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		history = append(history, ev)
	}
	o := outcomeOf(t, func(out any) error { return c.GetResult(ctx, parityID, "", out) }, info.GetSearchAttributes(), history)
	o.Queries = answers
	o.Memo = memoOf(info.GetMemo())
	return o
}

// memoOf is a memo's fields as their JSON; nil for none.
func memoOf(m *orchpb.Memo) map[string]string {
	if len(m.GetFields()) == 0 {
		return nil
	}
	out := map[string]string{}
	for k, p := range m.GetFields() {
		out[k] = string(p.GetData())
	}
	return out
}

type driverInput struct {
	Type  string          `json:"type"`
	Input json.RawMessage `json:"input"`
	At    []time.Duration `json:"at"`
}

// updateAnswerOf is an update's result or its failure's message (the
// same words on both sides: the workflow's code wrote them).
func updateAnswerOf(raw json.RawMessage, err error) string {
	var failed *orch.UpdateFailedError
	switch {
	case errors.As(err, &failed):
		return "update failed: " + failed.Failure.GetMessage()
	case err != nil:
		return "update error"
	}
	return string(raw)
}

// answerOf is a query's answer or, for a failed query, that it failed
// (the two sides word the failure differently: the service's status
// against the handler's error).
func answerOf(raw json.RawMessage, err error) string {
	if err != nil {
		return "query failed"
	}
	return string(raw)
}

// onEnv runs the scenario in an Env.
func onEnv(t *testing.T, sc scenario) (outcome, *orchtest.Env) {
	t.Helper()
	env := orchtest.NewWithOptions(t, orchtest.Options{TaskQueue: parityQueue})
	sc.setup(side{env: env})
	var answers []func() string // updates are answered once the env ran
	for _, a := range sc.actions {
		env.After(a.at, func() {
			switch {
			case a.update != "":
				u, err := env.UpdateWorkflow(a.update, "", a.arg)
				if err != nil {
					t.Error(err)
					return
				}
				answers = append(answers, func() string {
					var raw json.RawMessage
					return updateAnswerOf(raw, u.Get(&raw))
				})
			case a.signal != "":
				if err := env.SignalWorkflow(a.signal, a.arg); err != nil {
					t.Error(err)
				}
			case a.cancel:
				if err := env.CancelWorkflow(); err != nil {
					t.Error(err)
				}
			default:
				var raw json.RawMessage
				err := env.QueryWorkflow(a.query, a.arg, &raw)
				answer := answerOf(raw, err)
				answers = append(answers, func() string { return answer })
			}
		})
	}
	env.ExecuteWorkflow(sc.workflow, sc.input, &orch.StartWorkflowOptions{ID: parityID})
	if e := env.Err(); e != nil {
		var werr *orch.WorkflowExecutionError
		if !errors.As(e, &werr) {
			t.Fatalf("env: %v", e)
		}
	}
	for _, q := range sc.after {
		var raw json.RawMessage
		err := env.QueryWorkflow(q, nil, &raw)
		answer := answerOf(raw, err)
		answers = append(answers, func() string { return answer })
	}
	o := outcomeOf(t, env.Result, env.SearchAttributes(), env.History())
	for _, a := range answers {
		o.Queries = append(o.Queries, a())
	}
	o.Memo = memoOf(env.Memo())
	return o, env
}

func runParity(t *testing.T, sc scenario) {
	t.Parallel()
	fake := onFake(t, sc)
	env, _ := onEnv(t, sc)
	if !reflect.DeepEqual(fake, env) {
		t.Errorf("orchfake and the env disagree\norchfake: %v\nenv: %v", fake, env)
	}
	sc.check(t, env)
}

func TestParitySignals(t *testing.T) {
	runParity(t, scenario{
		workflow: "Approval", input: 0,
		setup:   func(s side) { regWorkflow(s, "Approval", approval) },
		actions: []action{{at: 2 * time.Hour, signal: "approve", arg: "ops"}},
		check: func(t *testing.T, o outcome) {
			if o.Result != `"ops after 2h0m0s"` {
				t.Errorf("result %s", o.Result)
			}
		},
	})
}

// status is a workflow whose state a query reads while it sleeps and
// after it completes; a query it does not know fails.
func status(ctx workflow.Context, steps int) (int, error) {
	done := 0
	workflow.SetQueryHandler(ctx, "progress", func() (any, error) { return fmt.Sprintf("%d/%d", done, steps), nil })
	for range steps {
		if err := workflow.Sleep(ctx, time.Hour); err != nil {
			return done, err
		}
		done++
	}
	return done, nil
}

func TestParityQueries(t *testing.T) {
	runParity(t, scenario{
		workflow: "Status", input: 3,
		setup:   func(s side) { regWorkflow(s, "Status", status) },
		actions: []action{{at: 90 * time.Minute, query: "progress"}, {at: 150 * time.Minute, query: "no-such-query"}},
		after:   []string{"progress"},
		check: func(t *testing.T, o outcome) {
			if want := []string{`"1/3"`, "query failed", `"3/3"`}; !slices.Equal(o.Queries, want) || o.Result != "3" {
				t.Errorf("queries %q result %s", o.Queries, o.Result)
			}
		},
	})
}

// patient sleeps a week; asked to cancel, it runs a clean-up activity
// (in a context the cancel does not reach) and ends canceled.
func patient(ctx workflow.Context, _ int) (string, error) {
	err := workflow.Sleep(ctx, 7*24*time.Hour)
	if errors.Is(err, workflow.ErrCanceled) {
		cleanup := workflow.WithActivityOptions(workflow.NewDisconnectedContext(ctx), minute)
		var s string
		if err := workflow.ExecuteActivity(cleanup, "Cleanup", "order-1").Get(cleanup, &s); err != nil {
			return "", err
		}
		return s, workflow.ErrCanceled
	}
	return "slept", err
}

func TestParityCancellation(t *testing.T) {
	runParity(t, scenario{
		workflow: "Patient", input: 0,
		setup: func(s side) {
			regWorkflow(s, "Patient", patient)
			regActivity(s, "Cleanup", func(_ context.Context, id string) (string, error) { return "cleaned " + id, nil })
		},
		actions: []action{{at: 24 * time.Hour, cancel: true}},
		check: func(t *testing.T, o outcome) {
			if o.Status != "CANCELED" || !slices.Contains(o.Events, "ActivityTaskCompleted") {
				t.Errorf("outcome %v", o)
			}
		},
	})
}

// shipping runs a child workflow that runs an activity; a second child
// fails and the parent reports it.
func shipping(ctx workflow.Context, order string) (string, error) {
	var label string
	if err := workflow.ExecuteChildWorkflow(ctx, "Label", order, nil).Get(ctx, &label); err != nil {
		return "", err
	}
	err := workflow.ExecuteChildWorkflow(ctx, "Label", "", nil).Get(ctx, nil)
	var ce *workflow.ChildWorkflowError
	if !errors.As(err, &ce) {
		return "", fmt.Errorf("want a child error, got %v", err)
	}
	return label + "; second child: " + ce.Cause.Error(), nil
}

func label(ctx workflow.Context, order string) (string, error) {
	if order == "" {
		return "", orch.NonRetryable(errors.New("no order"))
	}
	ctx = workflow.WithActivityOptions(ctx, minute)
	var s string
	err := workflow.ExecuteActivity(ctx, "PrintLabel", order).Get(ctx, &s)
	return s, err
}

func TestParityChildWorkflows(t *testing.T) {
	runParity(t, scenario{
		workflow: "Shipping", input: "o-7",
		setup: func(s side) {
			regWorkflow(s, "Shipping", shipping)
			regWorkflow(s, "Label", label)
			regActivity(s, "PrintLabel", func(_ context.Context, o string) (string, error) { return "label for " + o, nil })
		},
		check: func(t *testing.T, o outcome) {
			if o.Result != `"label for o-7; second child: no order"` {
				t.Errorf("result %s", o.Result)
			}
		},
	})
}

// countdown continues as new until n reaches 0, keeping a total.
func countdown(ctx workflow.Context, in [2]int) (int, error) {
	n, total := in[0], in[1]
	if n == 0 {
		return total, nil
	}
	if err := workflow.Sleep(ctx, time.Minute); err != nil {
		return 0, err
	}
	return 0, workflow.NewContinueAsNewError(ctx, [2]int{n - 1, total + n})
}

func TestParityContinueAsNew(t *testing.T) {
	runParity(t, scenario{
		workflow: "Countdown", input: [2]int{3, 0},
		setup: func(s side) { regWorkflow(s, "Countdown", countdown) },
		check: func(t *testing.T, o outcome) {
			if o.Result != "6" {
				t.Errorf("result %s", o.Result)
			}
		},
	})
}

// sideEffects records a value with SideEffect and a version with
// GetVersion; replays read both from the markers.
func sideEffects(ctx workflow.Context, _ int) (string, error) {
	var token string
	if err := workflow.SideEffect(ctx, func() any { return "tok-1" }, &token); err != nil {
		return "", err
	}
	v := workflow.GetVersion(ctx, "new-greeting", workflow.DefaultVersion, 1)
	if err := workflow.Sleep(ctx, time.Minute); err != nil {
		return "", err
	}
	v2 := workflow.GetVersion(ctx, "new-greeting", workflow.DefaultVersion, 1)
	return fmt.Sprintf("%s v%d v%d", token, v, v2), nil
}

func TestParitySideEffectAndGetVersion(t *testing.T) {
	runParity(t, scenario{
		workflow: "SideEffects", input: 0,
		setup: func(s side) { regWorkflow(s, "SideEffects", sideEffects) },
		check: func(t *testing.T, o outcome) {
			if o.Result != `"tok-1 v1 v1"` || !slices.Contains(o.Events, "MarkerRecorded") {
				t.Errorf("outcome %v", o)
			}
		},
	})
}

// upserting is written on the Decide model (orch/workflow has no upsert
// call): it sets OrderStatus, waits a minute, sets it again and completes.
var upserting = orch.Workflow{Decide: func(_ context.Context, t *orch.WorkflowTask) ([]*orchpb.Command, error) {
	upsert := func(v string) *orchpb.Command {
		p, _ := orch.EncodePayload(v)
		return &orchpb.Command{CommandType: orchpb.CommandType_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES,
			Attributes: &orchpb.Command_UpsertWorkflowSearchAttributesCommandAttributes{UpsertWorkflowSearchAttributesCommandAttributes: &orchpb.UpsertWorkflowSearchAttributesCommandAttributes{
				SearchAttributes: &orchpb.SearchAttributes{IndexedFields: map[string]*orchpb.Payload{"OrderStatus": p}}}}}
	}
	fired := false
	for _, ev := range t.History {
		fired = fired || ev.GetEventType() == orchpb.EventType_TimerFired
	}
	if !fired {
		if t.PreviousStartedEventID > 0 {
			return nil, nil
		}
		return []*orchpb.Command{upsert("charged"), orch.StartTimerCommand("1", time.Minute)}, nil
	}
	done, err := orch.CompleteWorkflowCommand("done")
	return []*orchpb.Command{upsert("shipped"), done}, err
}}

func TestParitySearchAttributeUpserts(t *testing.T) {
	runParity(t, scenario{
		workflow: "Upserting", input: 0,
		setup: func(s side) { regHandler(s, "Upserting", upserting) },
		check: func(t *testing.T, o outcome) {
			if o.Search["OrderStatus"] != `"shipped"` || strings.Count(strings.Join(o.Events, " "), "UpsertWorkflowSearchAttributes") != 2 {
				t.Errorf("outcome %v", o)
			}
		},
	})
}

// flaky fails twice, then succeeds: retries with the default policy's
// backoff, in skipped time on both sides.
func TestParityActivityRetries(t *testing.T) {
	runParity(t, scenario{
		workflow: "Charge", input: 5,
		setup: func(s side) {
			regWorkflow(s, "Charge", charge)
			var mu sync.Mutex
			calls := 0
			regActivity(s, "Charge", func(_ context.Context, n int) (string, error) {
				mu.Lock()
				defer mu.Unlock()
				calls++
				if calls < 3 {
					return "", fmt.Errorf("declined %d", calls)
				}
				return fmt.Sprintf("ch_%d_after_%d", n, calls), nil
			})
		},
		check: func(t *testing.T, o outcome) {
			if o.Result != `"ch_5_after_3"` {
				t.Errorf("result %s", o.Result)
			}
		},
	})
}

// supervisor starts a child, cancels it an hour later, and reports what
// the child's future said; the child (patient) runs its clean-up and
// ends canceled, which the parent's history records.
func supervisor(ctx workflow.Context, _ int) (string, error) {
	childCtx, cancel := workflow.WithCancel(ctx)
	f := workflow.ExecuteChildWorkflow(childCtx, "Patient", 0, &workflow.ChildWorkflowOptions{WorkflowID: "patient-child"})
	var exec workflow.Execution
	if err := f.GetChildWorkflowExecution().Get(ctx, &exec); err != nil {
		return "", err
	}
	if err := workflow.Sleep(ctx, time.Hour); err != nil {
		return "", err
	}
	cancel()
	err := f.Get(ctx, nil)
	if err := workflow.Sleep(ctx, time.Minute); err != nil { // the child's end arrives meanwhile
		return "", err
	}
	return fmt.Sprintf("%s: %v", exec.WorkflowID, err), nil
}

func TestParityChildCancellation(t *testing.T) {
	runParity(t, scenario{
		workflow: "Supervisor", input: 0,
		setup: func(s side) {
			regWorkflow(s, "Supervisor", supervisor)
			regWorkflow(s, "Patient", patient)
			regActivity(s, "Cleanup", func(_ context.Context, id string) (string, error) { return "cleaned " + id, nil })
		},
		check: func(t *testing.T, o outcome) {
			if o.Result != `"patient-child: child workflow Patient (id patient-child) failed: workflow: canceled"` ||
				!slices.Contains(o.Events, "ExternalWorkflowExecutionCancelRequested") || !slices.Contains(o.Events, "ChildWorkflowExecutionCanceled") {
				t.Errorf("outcome %v", o)
			}
		},
	})
}

// A parent that completes while its child sleeps: the child is
// terminated (the default parent close policy), on both sides.
func TestParityParentClosePolicy(t *testing.T) {
	t.Parallel()
	parent := func(ctx workflow.Context, _ int) (string, error) {
		f := workflow.ExecuteChildWorkflow(ctx, "Patient", 0, &workflow.ChildWorkflowOptions{WorkflowID: "orphan"})
		var exec workflow.Execution
		if err := f.GetChildWorkflowExecution().Get(ctx, &exec); err != nil {
			return "", err
		}
		// A minute for the child's first task: the fake runs it beside
		// the parent's, the env after it.
		err := workflow.Sleep(ctx, time.Minute)
		return exec.WorkflowID, err
	}
	sc := scenario{
		workflow: "Parent", input: 0,
		setup: func(s side) {
			regWorkflow(s, "Parent", parent)
			regWorkflow(s, "Patient", patient)
		},
	}
	// The child's own history is what both sides must agree on here.
	srv := orchfake.Start(t, orchfake.WithTimeSkipping(), control.WithInMemory())
	c := srv.Client()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	w, err := orch.NewWorker(c, parityQueue, nil)
	if err != nil {
		t.Fatal(err)
	}
	sc.setup(side{w: w})
	if err := w.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	run, err := c.StartWorkflow(ctx, "Parent", parityQueue, 0, &orch.StartWorkflowOptions{ID: parityID})
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Get(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitForCompletion(ctx, "orphan", ""); err != nil {
		t.Fatal(err)
	}
	var fakeChild []string
	for ev, err := range c.History(ctx, "orphan", "", nil) {
		if err != nil {
			t.Fatal(err)
		}
		fakeChild = append(fakeChild, ev.GetEventType().String())
	}
	env := orchtest.NewWithOptions(t, orchtest.Options{TaskQueue: parityQueue})
	sc.setup(side{env: env})
	env.ExecuteWorkflow("Parent", 0, &orch.StartWorkflowOptions{ID: parityID})
	if err := env.Err(); err != nil {
		t.Fatal(err)
	}
	var envChild []string
	for _, r := range env.Runs() {
		if r.WorkflowID == "orphan" {
			if r.Status != orchpb.WorkflowExecutionStatus_TERMINATED {
				t.Errorf("child status %v", r.Status)
			}
			for _, ev := range r.History {
				envChild = append(envChild, ev.GetEventType().String())
			}
		}
	}
	if !slices.Equal(fakeChild, envChild) || envChild[len(envChild)-1] != "WorkflowExecutionTerminated" {
		t.Errorf("the child's history\norchfake: %v\nenv:      %v", fakeChild, envChild)
	}
}

// messenger signals a child and reads its answer, asks another child to
// cancel, signals a workflow that does not exist, and records its
// progress in its memo.
func messenger(ctx workflow.Context, _ int) (string, error) {
	var out []string
	listener := workflow.ExecuteChildWorkflow(ctx, "Listener", nil, &workflow.ChildWorkflowOptions{WorkflowID: "listener"})
	if err := listener.GetChildWorkflowExecution().Get(ctx, nil); err != nil {
		return "", err
	}
	if err := workflow.SignalExternalWorkflow(ctx, "listener", "", "ping", "hi").Get(ctx, nil); err != nil {
		return "", err
	}
	var heard string
	if err := listener.Get(ctx, &heard); err != nil {
		return "", err
	}
	out = append(out, heard)
	sleeper := workflow.ExecuteChildWorkflow(ctx, "Sleeper", nil, &workflow.ChildWorkflowOptions{WorkflowID: "sleeper"})
	if err := sleeper.GetChildWorkflowExecution().Get(ctx, nil); err != nil {
		return "", err
	}
	if err := workflow.RequestCancelExternalWorkflow(ctx, "sleeper", "").Get(ctx, nil); err != nil {
		return "", err
	}
	out = append(out, fmt.Sprint(errors.Is(sleeper.Get(ctx, nil), workflow.ErrCanceled)))
	err := workflow.SignalExternalWorkflow(ctx, "nobody", "", "ping", "hi").Get(ctx, nil)
	out = append(out, fmt.Sprint(errors.Is(err, workflow.ErrUnknownExternalWorkflowExecution)))
	if err := workflow.UpsertMemo(ctx, map[string]any{"heard": heard, "draft": nil}); err != nil {
		return "", err
	}
	return strings.Join(out, " "), nil
}

func TestParitySignalsBetweenWorkflows(t *testing.T) {
	runParity(t, scenario{
		workflow: "Messenger", input: 0,
		setup: func(s side) {
			regWorkflow(s, "Messenger", messenger)
			regWorkflow(s, "Listener", func(ctx workflow.Context, _ any) (string, error) {
				var got string
				workflow.GetSignalChannel(ctx, "ping").Receive(ctx, &got)
				return "heard " + got, nil
			})
			regWorkflow(s, "Sleeper", func(ctx workflow.Context, _ any) (string, error) {
				return "", workflow.Sleep(ctx, 24*time.Hour)
			})
		},
		check: func(t *testing.T, o outcome) {
			events := strings.Join(o.Events, " ")
			if o.Result != `"heard hi true true"` || o.Memo["heard"] != `"heard hi"` || len(o.Memo) != 1 ||
				!strings.Contains(events, "SignalExternalWorkflowExecutionInitiated ExternalWorkflowExecutionSignaled") ||
				!strings.Contains(events, "SignalExternalWorkflowExecutionInitiated SignalExternalWorkflowExecutionFailed") ||
				!strings.Contains(events, "ExternalWorkflowExecutionCancelRequested") || !strings.Contains(events, "WorkflowPropertiesModified") {
				t.Errorf("outcome %v", o)
			}
		},
	})
}

// tally takes "add" updates (a validator refuses amounts that are not
// positive) until its total reaches 5.
func tally(ctx workflow.Context, _ struct{}) (int, error) {
	total := 0
	workflow.SetUpdateHandlerWithArg(ctx, "add", func(_ workflow.Context, n int) (any, error) {
		// No timer here: on the fake the update is sent from an
		// activity, during which time does not skip.
		total += n
		return total, nil
	}, func(n int) error {
		if n <= 0 {
			return fmt.Errorf("%d is not positive", n)
		}
		return nil
	})
	err := workflow.Await(ctx, func() bool { return total >= 5 })
	return total, err
}

func TestParityUpdates(t *testing.T) {
	runParity(t, scenario{
		workflow: "Tally", input: struct{}{},
		setup: func(s side) { regWorkflow(s, "Tally", tally) },
		actions: []action{
			{at: time.Hour, update: "add", arg: 2},
			{at: 2 * time.Hour, update: "add", arg: -1},
			{at: 3 * time.Hour, update: "add", arg: 3},
		},
		check: func(t *testing.T, o outcome) {
			if o.Result != "5" || !reflect.DeepEqual(o.Queries, []string{"2", "update failed: -1 is not positive", "5"}) {
				t.Errorf("outcome %v", o)
			}
			n := 0
			for _, ev := range o.Events {
				if strings.HasPrefix(ev, "WorkflowExecutionUpdate") {
					n++
				}
			}
			if n != 4 { // two accepted, two completed; the rejection leaves none
				t.Errorf("update events %d in %v", n, o.Events)
			}
		},
	})
}

// resumable heartbeats its progress, then fails on its first attempt; the
// retry reads the details the first left (HasHeartbeatDetails,
// HeartbeatDetails) and resumes from them, on both sides.
func TestParityHeartbeatDetails(t *testing.T) {
	runParity(t, scenario{
		workflow: "Charge", input: 9,
		setup: func(s side) {
			regWorkflow(s, "Charge", charge)
			regActivity(s, "Charge", func(ctx context.Context, n int) (string, error) {
				info, _ := orch.GetActivityInfo(ctx)
				if !orch.HasHeartbeatDetails(ctx) {
					if err := orch.RecordHeartbeat(ctx, map[string]int{"page": n}); err != nil {
						return "", err
					}
					return "", fmt.Errorf("interrupted on attempt %d", info.Attempt)
				}
				var progress map[string]int
				if err := orch.HeartbeatDetails(ctx, &progress); err != nil {
					return "", err
				}
				return fmt.Sprintf("resumed at page %d on attempt %d", progress["page"], info.Attempt), nil
			})
		},
		check: func(t *testing.T, o outcome) {
			if o.Result != `"resumed at page 9 on attempt 2"` {
				t.Errorf("result %s", o.Result)
			}
		},
	})
}
