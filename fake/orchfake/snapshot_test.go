package orchfake_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/durationpb"
)

// busyFake is a fake caught mid-work: workflow W1 with an activity a worker
// started (heartbeating), one failed and waiting out its retry backoff, a
// user timer, a child workflow whose first task waits for a worker, and a
// new workflow task after a signal, under execution and run timeouts; W2
// with a workflow task a worker started; W3, a cron run waiting for its
// time; W4, a workflow task failed twice, waiting out its backoff; W5,
// completed.
func busyFake(t *testing.T, clk *clock.Fake) (*orchfake.Server, *invoker, map[string][]byte) {
	t.Helper()
	s := orchfake.Start(t, control.WithClock(clk))
	iv := &invoker{name: orchfake.TransportGRPC, s: s}
	start := func(id, tq string, edit func(*orchpb.StartWorkflowExecutionRequest)) {
		req := startReq("default", id)
		req.TaskQueue = tq
		if edit != nil {
			edit(req)
		}
		mustCall(t, iv, "StartWorkflowExecution", req, &orchpb.StartWorkflowExecutionResponse{})
	}
	start("W1", "q1", func(r *orchpb.StartWorkflowExecutionRequest) {
		r.WorkflowExecutionTimeout, r.WorkflowRunTimeout = durationpb.New(time.Hour), durationpb.New(30*time.Minute)
	})
	start("W2", "q2", nil)
	start("W3", "q3", func(r *orchpb.StartWorkflowExecutionRequest) { r.CronSchedule = "*/5 * * * *" })
	start("W4", "q4", nil)
	start("W5", "q5", nil)
	complete(t, iv, pollWF(t, iv, "q5").GetTaskToken(), completeCmd())

	activity := func(id, tq string, s2s, s2c, beat time.Duration, retry *orchpb.RetryPolicy) *orchpb.Command {
		return &orchpb.Command{CommandType: orchpb.CommandType_SCHEDULE_ACTIVITY_TASK, Attributes: &orchpb.Command_ScheduleActivityTaskCommandAttributes{
			ScheduleActivityTaskCommandAttributes: &orchpb.ScheduleActivityTaskCommandAttributes{ActivityId: id, ActivityType: &orchpb.ActivityType{Name: id},
				TaskQueue: tq, ScheduleToStartTimeout: durationpb.New(s2s), ScheduleToCloseTimeout: durationpb.New(s2c),
				StartToCloseTimeout: durationpb.New(time.Minute), HeartbeatTimeout: durationpb.New(beat), RetryPolicy: retry}}}
	}
	timer := &orchpb.Command{CommandType: orchpb.CommandType_START_TIMER, Attributes: &orchpb.Command_StartTimerCommandAttributes{
		StartTimerCommandAttributes: &orchpb.StartTimerCommandAttributes{TimerId: "T", StartToFireTimeout: durationpb.New(15 * time.Minute)}}}
	child := &orchpb.Command{CommandType: orchpb.CommandType_START_CHILD_WORKFLOW_EXECUTION, Attributes: &orchpb.Command_StartChildWorkflowExecutionCommandAttributes{
		StartChildWorkflowExecutionCommandAttributes: &orchpb.StartChildWorkflowExecutionCommandAttributes{WorkflowId: "C", WorkflowType: &orchpb.WorkflowType{Name: "Child"}, TaskQueue: "qc"}}}
	complete(t, iv, pollWF(t, iv, "q1").GetTaskToken(),
		activity("A", "qa", 2*time.Minute, 10*time.Minute, 20*time.Second, nil),
		activity("B", "qb", 0, 0, 0, &orchpb.RetryPolicy{InitialInterval: durationpb.New(5 * time.Second)}),
		timer, child)
	tokens := map[string][]byte{}
	tokens["A"] = pollAct(t, iv, "qa").GetTaskToken()
	clk.Advance(5 * time.Second)
	mustCall(t, iv, "RecordActivityTaskHeartbeat", &orchpb.RecordActivityTaskHeartbeatRequest{Namespace: "default", TaskToken: tokens["A"]}, &orchpb.RecordActivityTaskHeartbeatResponse{})
	b := pollAct(t, iv, "qb")
	mustCall(t, iv, "RespondActivityTaskFailed", &orchpb.RespondActivityTaskFailedRequest{Namespace: "default", TaskToken: b.GetTaskToken(),
		Failure: &orchpb.Failure{Message: "boom"}}, &orchpb.RespondActivityTaskFailedResponse{})
	mustCall(t, iv, "SignalWorkflowExecution", &orchpb.SignalWorkflowExecutionRequest{Namespace: "default",
		WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: "W1"}, SignalName: "poke", RequestId: "sig-1"}, &orchpb.SignalWorkflowExecutionResponse{})
	tokens["W2"] = pollWF(t, iv, "q2").GetTaskToken()
	for range 2 {
		mustCall(t, iv, "RespondWorkflowTaskFailed", &orchpb.RespondWorkflowTaskFailedRequest{Namespace: "default",
			TaskToken: pollWF(t, iv, "q4").GetTaskToken(), Failure: &orchpb.Failure{Message: "bad"}}, &orchpb.RespondWorkflowTaskFailedResponse{})
	}
	return s, iv, tokens
}

// runOf is the run id of a workflow's latest run.
func runOf(t *testing.T, s *orchfake.Server, id string) string {
	t.Helper()
	st, ok := s.Execution("default", id, "")
	if !ok {
		t.Fatalf("no workflow %s", id)
	}
	return st.Info.GetExecution().GetRunId()
}

// answers is what the fake answers of every workflow: its info, pending
// activities and history.
func answers(t *testing.T, iv *invoker) []any {
	t.Helper()
	var out []any
	for _, id := range []string{"W1", "W2", "W3", "W4", "W5", "C"} {
		we := &orchpb.WorkflowExecution{WorkflowId: id}
		var d orchpb.GetWorkflowExecutionResponse
		mustCall(t, iv, "GetWorkflowExecution", &orchpb.GetWorkflowExecutionRequest{Namespace: "default", Execution: we, MaximumPageSize: 1000}, &d)
		out = append(out, &d)
	}
	return out
}

// A fake restored from a snapshot of a busy one has the same runs and
// histories, the same timers pending (to the nanosecond) and the same
// tasks waiting, in the same order; and its workflows go on: a started
// activity's worker answers with its old token, the waiting workflow task
// goes to the next poll, the user timer fires when due, the failed
// activity's retry is queued after its backoff.
func TestSnapshotRestoreCarriesRunningWorkflowsOn(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(epoch)
	src, srcIV, tokens := busyFake(t, clk)
	data, err := src.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	dst := orchfake.Start(t, control.WithClock(clk))
	if err := dst.Restore(data); err != nil {
		t.Fatal(err)
	}
	iv := &invoker{name: orchfake.TransportGRPC, s: dst}
	if diff := cmp.Diff(answers(t, srcIV), answers(t, iv), protocmp.Transform()); diff != "" {
		t.Errorf("answers after the restore (-before +after):\n%s", diff)
	}
	want, got := orchfake.ViewEngine(src), orchfake.ViewEngine(dst)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the engine after the restore (-before +after):\n%s", diff)
	}
	if len(want.Timers) != 5 || len(want.Timers[runOf(t, src, "W1")]) != 7 || len(want.Backlogs) != 2 {
		t.Fatalf("the busy fake is not as busy as meant: %d open runs with timers, %d queues with tasks:\n%+v", len(want.Timers), len(want.Backlogs), want)
	}
	again, err := dst.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(data), string(again)); diff != "" {
		t.Errorf("a snapshot of the restored fake differs (-first +second):\n%s", diff)
	}
	src.Close() // from here on only the restored fake moves
	if afterClose, err := src.Snapshot(); err != nil || string(afterClose) != string(data) {
		t.Errorf("a snapshot taken after Close differs from the one before (%v): apitwin-fake takes its last one then", err)
	}

	mustCall(t, iv, "RecordActivityTaskHeartbeat", &orchpb.RecordActivityTaskHeartbeatRequest{Namespace: "default", TaskToken: tokens["A"]}, &orchpb.RecordActivityTaskHeartbeatResponse{})
	mustCall(t, iv, "RespondActivityTaskCompleted", &orchpb.RespondActivityTaskCompletedRequest{Namespace: "default", TaskToken: tokens["A"]}, &orchpb.RespondActivityTaskCompletedResponse{})
	wt := pollWF(t, iv, "q1")
	if got := eventTypes(wt.GetHistory()[wt.GetPreviousStartedEventId():]); !strings.Contains(got, "WorkflowExecutionSignaled") || !strings.Contains(got, "ActivityTaskCompleted") {
		t.Errorf("W1's next task shows %s, want the signal and A's completion", got)
	}
	complete(t, iv, wt.GetTaskToken())
	if c := pollWF(t, iv, "qc"); c.GetWorkflowExecution().GetWorkflowId() != "C" {
		t.Errorf("the child's first task went to %v", c.GetWorkflowExecution())
	}
	clk.Advance(5 * time.Second) // B's backoff
	if b := pollAct(t, iv, "qb"); b.GetActivityId() != "B" || b.GetAttempt() != 2 {
		t.Errorf("after B's backoff: %s attempt %d, want B attempt 2", b.GetActivityId(), b.GetAttempt())
	}
	clk.Advance(15 * time.Minute) // the user timer
	var h orchpb.GetWorkflowExecutionHistoryResponse
	mustCall(t, iv, "GetWorkflowExecutionHistory", &orchpb.GetWorkflowExecutionHistoryRequest{Namespace: "default",
		Execution: &orchpb.WorkflowExecution{WorkflowId: "W1"}}, &h)
	if !strings.Contains(eventTypes(h.GetHistory()), "TimerFired") {
		t.Errorf("W1 after 15 minutes: %s, want its timer fired", eventTypes(h.GetHistory()))
	}
}

// Restored as apitwin-fake restores (the clock at the snapshot's time,
// then moved to the present), what fell due in between happens in order,
// each at its time: W1's run timeout (30 minutes) closes it, at 12:30,
// before its execution timeout (an hour) could. Restored onto a clock
// already past, it happens at the clock's next move.
func TestRestoreOntoALaterClockFiresWhatFellDue(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(epoch)
	src, _, _ := busyFake(t, clk)
	dst, resumed, data := restoredCopy(t, src)
	resumed.Set(epoch.Add(2 * time.Hour))
	st, ok := dst.Execution("default", "W1", "")
	if !ok || st.Info.GetStatus() != orchpb.WorkflowExecutionStatus_TIMED_OUT {
		t.Fatalf("W1 after two hours down: %v (found %v), want timed out", st.Info.GetStatus(), ok)
	}
	if ev := st.History[len(st.History)-1]; !ev.GetEventTime().AsTime().Equal(epoch.Add(30 * time.Minute)) {
		t.Errorf("W1 timed out at %v, want at its run timeout, %v", ev.GetEventTime().AsTime(), epoch.Add(30*time.Minute))
	}

	later := clock.NewFake(epoch.Add(2 * time.Hour))
	dst2 := orchfake.Start(t, control.WithClock(later))
	if err := dst2.Restore(data); err != nil {
		t.Fatal(err)
	}
	later.Advance(0)
	if st, _ := dst2.Execution("default", "W1", ""); st.Info.GetStatus() != orchpb.WorkflowExecutionStatus_TIMED_OUT {
		t.Errorf("W1 restored onto a clock two hours on, after Advance(0): %v, want timed out", st.Info.GetStatus())
	}
}

// restoredCopy restores a snapshot of src into a new fake on its own
// clock, set where src's is, as apitwin-fake restores at its start.
func restoredCopy(t *testing.T, src *orchfake.Server) (*orchfake.Server, *clock.Fake, []byte) {
	t.Helper()
	data, err := src.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	resumed := clock.NewFake(src.Clock().Now())
	dst := orchfake.Start(t, control.WithClock(resumed))
	if err := dst.Restore(data); err != nil {
		t.Fatal(err)
	}
	return dst, resumed, data
}

// A snapshot that is not one, or that does not hold together, is refused
// by name, and the fake keeps its state.
func TestRestoreRefusesBadSnapshots(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	iv := &invoker{name: orchfake.TransportGRPC, s: s}
	mustCall(t, iv, "StartWorkflowExecution", startReq("default", "kept"), &orchpb.StartWorkflowExecutionResponse{})
	mustCall(t, iv, "CreateSchedule", &orchpb.CreateScheduleRequest{Namespace: "default", ScheduleId: "sched",
		Schedule:     everyMinute(orchpb.ScheduleOverlapPolicy_SCHEDULE_OVERLAP_POLICY_SKIP),
		InitialPatch: &orchpb.SchedulePatch{TriggerImmediately: &orchpb.TriggerImmediatelyRequest{}}}, &orchpb.CreateScheduleResponse{})
	good, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	broken := func(old, new string) string {
		if !strings.Contains(string(good), old) {
			t.Fatalf("the snapshot has no %q", old)
		}
		return strings.Replace(string(good), old, new, 1)
	}
	for _, tt := range []struct{ name, data, want string }{
		{"not JSON", `{`, "not a snapshot"},
		{"another version", `{"format":"orchfake","version":3}`, "version 3: this build reads version 1"},
		{"a status that is none", broken(`"status": "RUNNING"`, `"status": "SLEEPING"`), `status "SLEEPING"`},
		{"a history out of order", broken(`"eventId": "2"`, `"eventId": "7"`), "event id 7, want 2"},
		{"a message that does not read", broken(`"workflowId": "kept"`, `"workflowId": 7`), "start_request"},
		{"a task beyond the history", broken(`"scheduled_id": 2`, `"scheduled_id": 40`), "do not fit a history"},
		{"a schedule's run that is none", broken(`"running_run_ids": [`, `"running_run_ids": ["gone",`), "is not a run of the namespace"},
		{"a schedule's token that is none", broken(`"conflict_token": 1`, `"conflict_token": 0`), "conflict token below 1"},
		{"a schedule's spec that is bad", broken(`"interval": "60s"`, `"interval": "0.5s"`), "must be at least 1s"},
		{"a schedule's cursor before its create", broken(`"cursor": "2026`, `"cursor": "2025`), "before the create time"},
	} {
		err := s.Restore([]byte(tt.data))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error mentioning %q", tt.name, err, tt.want)
		}
	}
	if _, ok := s.Execution("default", "kept", ""); !ok || len(s.Schedules("default")) != 1 {
		t.Error("a refused snapshot changed the fake")
	}
}

// FuzzRestore: no snapshot, however made, panics Restore or the reads after
// it; one it takes snapshots again to what it read.
func FuzzRestore(f *testing.F) {
	clk := clock.NewFake(epoch)
	src, err := orchfake.New(control.WithClock(clk))
	if err != nil {
		f.Fatal(err)
	}
	mustStart := func(id string, edit func(*orchpb.StartWorkflowExecutionRequest)) {
		req := startReq("default", id)
		if edit != nil {
			edit(req)
		}
		if _, err := src.StartExecution(req); err != nil {
			f.Fatal(err)
		}
	}
	mustStart("a", nil)
	mustStart("b", func(r *orchpb.StartWorkflowExecutionRequest) { r.CronSchedule = "* * * * *" })
	if _, err := src.Client().CreateSchedule(context.Background(), "s", everyMinute(orchpb.ScheduleOverlapPolicy_SCHEDULE_OVERLAP_POLICY_BUFFER_ONE),
		&orch.CreateScheduleOptions{RequestID: "r", InitialPatch: &orchpb.SchedulePatch{TriggerImmediately: &orchpb.TriggerImmediatelyRequest{}}}); err != nil {
		f.Fatal(err)
	}
	clk.Advance(90 * time.Second) // a schedule with a run and an action waiting
	seed, err := src.Snapshot()
	if err != nil {
		f.Fatal(err)
	}
	src.Close()
	f.Add(seed)
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := orchfake.New(control.WithClock(clock.NewFake(epoch)))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if err := s.Restore(data); err != nil {
			return
		}
		_, _ = s.Workflows(""), s.TaskQueues()
		first, err := s.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		s2, err := orchfake.New(control.WithClock(clock.NewFake(epoch)))
		if err != nil {
			t.Fatal(err)
		}
		defer s2.Close()
		if err := s2.Restore(first); err != nil {
			t.Fatalf("a snapshot the fake wrote does not restore: %v\n%s", err, first)
		}
		if second, _ := s2.Snapshot(); string(second) != string(first) {
			t.Fatalf("snapshots differ after a restore:\n%s\n%s", first, second)
		}
	})
}

// A restored fake has the schedules of the one snapshotted, described
// alike (paused with its notes; a buffered action under BUFFER_ONE and
// limited actions; a running workflow, a memo, an update's time and
// conflict token), and its clock starts the same runs as the original's:
// the buffered action once its running workflow is terminated, the next
// ones at their times, none of the paused schedule's.
func TestSnapshotKeepsSchedules(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(epoch)
	src := orchfake.Start(t, control.WithClock(clk))
	srcIV := &invoker{name: orchfake.TransportGRPC, s: src}
	named := func(prefix string, sch *orchpb.Schedule) *orchpb.Schedule {
		sch.GetAction().GetStartWorkflow().WorkflowId = prefix
		return sch
	}
	paused := named("paused", everyMinute(orchpb.ScheduleOverlapPolicy_SCHEDULE_OVERLAP_POLICY_SKIP))
	paused.State = &orchpb.ScheduleState{Paused: true, Notes: "held for the test"}
	createSchedule(t, srcIV, "paused", paused)
	buffered := named("buffered", everyMinute(orchpb.ScheduleOverlapPolicy_SCHEDULE_OVERLAP_POLICY_BUFFER_ONE))
	buffered.State = &orchpb.ScheduleState{LimitedActions: true, RemainingActions: 4}
	createSchedule(t, srcIV, "buffered", buffered)
	mustCall(t, srcIV, "CreateSchedule", &orchpb.CreateScheduleRequest{Namespace: "default", ScheduleId: "running", RequestId: "create-running",
		Schedule: named("running", everyMinute(orchpb.ScheduleOverlapPolicy_SCHEDULE_OVERLAP_POLICY_ALLOW_ALL)),
		Memo:     &orchpb.Memo{Fields: map[string]*orchpb.Payload{"team": {Data: []byte(`"ops"`)}}}}, &orchpb.CreateScheduleResponse{})
	clk.Advance(90 * time.Second) // minute 1: buffered-1 and running-1 start
	every2 := named("running", everyMinute(orchpb.ScheduleOverlapPolicy_SCHEDULE_OVERLAP_POLICY_ALLOW_ALL))
	every2.Spec.Interval[0].Interval = durationpb.New(2 * time.Minute)
	mustCall(t, srcIV, "UpdateSchedule", &orchpb.UpdateScheduleRequest{Namespace: "default", ScheduleId: "running",
		Schedule: every2, RequestId: "update-running"}, &orchpb.UpdateScheduleResponse{})
	clk.Advance(time.Minute) // minute 2: buffered's action waits for buffered-1

	dst, resumed, data := restoredCopy(t, src)
	dstIV := &invoker{name: orchfake.TransportGRPC, s: dst}
	for _, id := range []string{"paused", "buffered", "running"} {
		want, got := describeSchedule(t, srcIV, id), describeSchedule(t, dstIV, id)
		if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
			t.Errorf("schedule %s after the restore (-before +after):\n%s", id, diff)
		}
	}
	// A scheduled run is found by the search attributes the service gave
	// it, after the restore as before (they were lost: system attributes,
	// which a restore read as a caller's and dropped).
	for _, q := range []string{"ScheduledById = 'running'", "ScheduledById = 'buffered'", "ScheduledStartTime >= '2000-01-01T00:00:00Z'"} {
		count := func(iv *invoker) int64 {
			var r orchpb.CountWorkflowExecutionsResponse
			mustCall(t, iv, "CountWorkflowExecutions", &orchpb.CountWorkflowExecutionsRequest{Namespace: "default", Query: q}, &r)
			return r.GetCount()
		}
		if before, after := count(srcIV), count(dstIV); before == 0 || after != before {
			t.Errorf("%s: %d runs before the restore, %d after", q, before, after)
		}
	}
	if d := describeSchedule(t, dstIV, "buffered").GetInfo(); d.GetBufferSize() != 1 || len(d.GetRunningWorkflows()) != 1 {
		t.Fatalf("buffered before the restore: %d buffered, %d running, want 1 and 1: the test sets up too little", d.GetBufferSize(), len(d.GetRunningWorkflows()))
	}
	again, err := dst.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(data), string(again)); diff != "" {
		t.Errorf("a snapshot of the restored fake differs (-first +second):\n%s", diff)
	}
	// A repeated create is still recognised by its request id.
	mustCall(t, dstIV, "CreateSchedule", &orchpb.CreateScheduleRequest{Namespace: "default", ScheduleId: "running", RequestId: "create-running",
		Schedule: every2}, &orchpb.CreateScheduleResponse{})

	started := func(s *orchfake.Server) []string {
		var out []string
		for _, w := range s.Workflows("default") {
			out = append(out, fmt.Sprintf("%s %s %s", w.WorkflowID, w.Status, w.StartTime.Format(time.TimeOnly)))
		}
		slices.Sort(out)
		return out
	}
	for _, side := range []struct {
		iv  *invoker
		clk *clock.Fake
	}{{srcIV, clk}, {dstIV, resumed}} {
		mustCall(t, side.iv, "TerminateWorkflowExecution", &orchpb.TerminateWorkflowExecutionRequest{Namespace: "default",
			WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: "buffered-" + epoch.Add(time.Minute).Format(time.RFC3339)}},
			&orchpb.TerminateWorkflowExecutionResponse{})
		side.clk.Advance(5 * time.Minute)
	}
	want, got := started(src), started(dst)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("runs after five more minutes (-without the snapshot +restored):\n%s", diff)
	}
	// buffered: minute 1 (terminated), its buffered minute 2 started at the
	// termination (12:02:30); running: minute 1, then the update's spec
	// (every two minutes, from 12:01:30) minutes 2, 4 and 6.
	if len(got) != 6 || !slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, "buffered-2026-03-01T12:02:00Z RUNNING") }) {
		t.Errorf("runs: %q, want buffered's minute 1 and 2 and four of running's", got)
	}
	for _, id := range []string{"paused", "buffered", "running"} {
		want, got := describeSchedule(t, srcIV, id), describeSchedule(t, dstIV, id)
		if diff := cmp.Diff(want, got, protocmp.Transform(), protocmp.IgnoreFields(&orchpb.WorkflowExecution{}, "run_id")); diff != "" {
			t.Errorf("schedule %s after five more minutes (-without the snapshot +restored):\n%s", id, diff)
		}
	}
}

// A restored run remembers its updates by id: a completed one sent again
// answers its outcome and does not run again; an accepted one takes its
// worker's response; one handed to a started task takes that worker's
// acceptance, given with the task's old token.
func TestSnapshotKeepsUpdates(t *testing.T) {
	t.Parallel()
	src := newFake(t)
	iv := &invoker{name: orchfake.TransportGRPC, s: src}
	idleRun(t, iv, "U")
	// u1 completes, u2 is accepted, u3 is handed to a task left started.
	u1 := sendUpdate(iv, updateReq("U", "u1", "add", waitCompleted))
	wt := pollWF(t, iv, "U")
	r1 := updateRequestOf(t, wt)
	if err := answerTask(iv, wt.GetTaskToken(), []*orchpb.ProtocolMessage{acceptMsg(r1), respondMsg(r1, success(`6`))}); err != nil {
		t.Fatal(err)
	}
	first := <-u1
	if first.err != nil {
		t.Fatal(first.err)
	}
	u2 := sendUpdate(iv, updateReq("U", "u2", "add", waitAccepted))
	wt = pollWF(t, iv, "U")
	r2 := updateRequestOf(t, wt)
	if err := answerTask(iv, wt.GetTaskToken(), []*orchpb.ProtocolMessage{acceptMsg(r2)}); err != nil {
		t.Fatal(err)
	}
	if res := <-u2; res.err != nil {
		t.Fatal(res.err)
	}
	sendUpdate(iv, updateReq("U", "u3", "add", waitAccepted)) // ends with the fake
	held := pollWF(t, iv, "U")
	r3 := updateRequestOf(t, held)

	dst, _, _ := restoredCopy(t, src)
	div := &invoker{name: orchfake.TransportGRPC, s: dst}
	var again orchpb.UpdateWorkflowExecutionResponse
	mustCall(t, div, "UpdateWorkflowExecution", updateReq("U", "u1", "add", waitCompleted), &again)
	if diff := cmp.Diff(first.resp, &again, protocmp.Transform()); diff != "" {
		t.Errorf("u1 sent again after the restore (-before +after):\n%s", diff)
	}
	// The worker of the held task accepts u3 and answers u2.
	if err := answerTask(div, held.GetTaskToken(), []*orchpb.ProtocolMessage{acceptMsg(r3), respondMsg(r2, success(`7`))}); err != nil {
		t.Fatalf("the held task's answer after the restore: %v", err)
	}
	for _, c := range []struct {
		id    string
		wait  orchpb.UpdateWorkflowExecutionLifecycleStage
		stage orchpb.UpdateWorkflowExecutionLifecycleStage
		value string
	}{{"u1", waitCompleted, waitCompleted, "6"}, {"u2", waitCompleted, waitCompleted, "7"}, {"u3", waitAccepted, waitAccepted, ""}} {
		var resp orchpb.UpdateWorkflowExecutionResponse
		mustCall(t, div, "UpdateWorkflowExecution", updateReq("U", c.id, "add", c.wait), &resp)
		got := ""
		if p := resp.GetOutcome().GetSuccess().GetPayloads(); len(p) == 1 {
			got = string(p[0].GetData())
		}
		if resp.GetStage() != c.stage || got != c.value {
			t.Errorf("%s after the restore: %v with %q, want %v with %q", c.id, resp.GetStage(), got, c.stage, c.value)
		}
	}
	st, _ := dst.Execution("default", "U", "")
	if n := strings.Count(eventTypes(st.History), "WorkflowExecutionUpdateCompleted"); n != 2 {
		t.Errorf("history %s: %d updates completed, want 2 (u1 once, u2)", eventTypes(st.History), n)
	}
}
