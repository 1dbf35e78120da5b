package orchfake_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch/orchpb"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// everyMinute is a schedule starting "wf-<time>" of type W on queue q every
// minute, with policy.
func everyMinute(policy orchpb.ScheduleOverlapPolicy) *orchpb.Schedule {
	return &orchpb.Schedule{
		Spec: &orchpb.ScheduleSpec{Interval: []*orchpb.IntervalSpec{{Interval: durationpb.New(time.Minute)}}},
		Action: &orchpb.ScheduleAction{Action: &orchpb.ScheduleAction_StartWorkflow{StartWorkflow: &orchpb.NewWorkflowExecutionInfo{
			WorkflowId: "wf", WorkflowType: &orchpb.WorkflowType{Name: "W"}, TaskQueue: "q"}}},
		Policies: &orchpb.SchedulePolicies{OverlapPolicy: policy},
	}
}

func createSchedule(t *testing.T, iv *invoker, id string, sch *orchpb.Schedule) {
	t.Helper()
	mustCall(t, iv, "CreateSchedule", &orchpb.CreateScheduleRequest{Namespace: "default", ScheduleId: id, Schedule: sch}, &orchpb.CreateScheduleResponse{})
}

func describeSchedule(t *testing.T, iv *invoker, id string) *orchpb.DescribeScheduleResponse {
	t.Helper()
	var resp orchpb.DescribeScheduleResponse
	mustCall(t, iv, "DescribeSchedule", &orchpb.DescribeScheduleRequest{Namespace: "default", ScheduleId: id}, &resp)
	return &resp
}

// status is the status of the latest run of workflow id.
func runStatus(t *testing.T, s *orchfake.Server, id string) orchpb.WorkflowExecutionStatus {
	t.Helper()
	e, ok := s.Execution("default", id, "")
	if !ok {
		t.Fatalf("no execution %s", id)
	}
	return e.Info.GetStatus()
}

func minuteID(m int) string {
	return "wf-" + epoch.Add(time.Duration(m)*time.Minute).Format(time.RFC3339)
}

func TestScheduleCreateDescribeUpdateDelete(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for _, iv := range transports(t, s) {
		t.Run(iv.name, func(t *testing.T) {
			ctx := context.Background()
			id := "crud-" + iv.name
			var created orchpb.CreateScheduleResponse
			req := &orchpb.CreateScheduleRequest{Namespace: "default", ScheduleId: id, Schedule: everyMinute(0), RequestId: "r1",
				Memo: &orchpb.Memo{Fields: map[string]*orchpb.Payload{"team": {Data: []byte(`"ops"`)}}}}
			mustCall(t, iv, "CreateSchedule", req, &created)
			// the same request again answers as the first did; another is ALREADY_EXISTS
			var again orchpb.CreateScheduleResponse
			mustCall(t, iv, "CreateSchedule", req, &again)
			if string(again.GetConflictToken()) != string(created.GetConflictToken()) {
				t.Errorf("a repeated create answered token %x, the first %x", again.GetConflictToken(), created.GetConflictToken())
			}
			req.RequestId = "r2"
			wantCode(t, iv.call(ctx, "CreateSchedule", req, &orchpb.CreateScheduleResponse{}), orchwire.AlreadyExists)

			d := describeSchedule(t, iv, id)
			if diff := cmp.Diff(everyMinute(0).GetSpec(), d.GetSchedule().GetSpec(), protocmp.Transform()); diff != "" {
				t.Errorf("spec (-sent +described):\n%s", diff)
			}
			if got := d.GetInfo().GetFutureActionTimes(); len(got) != 10 || !got[0].AsTime().Equal(epoch.Add(time.Minute)) {
				t.Errorf("future action times %v, want ten from %v", got, epoch.Add(time.Minute))
			}
			if !d.GetInfo().GetCreateTime().AsTime().Equal(epoch) || string(d.GetMemo().GetFields()["team"].GetData()) != `"ops"` {
				t.Errorf("create time %v, memo %v", d.GetInfo().GetCreateTime().AsTime(), d.GetMemo())
			}

			// an update with a stale token is refused and changes nothing
			upd := everyMinute(orchpb.ScheduleOverlapPolicy_SCHEDULE_OVERLAP_POLICY_ALLOW_ALL)
			upd.Spec.Interval[0].Interval = durationpb.New(time.Hour)
			mustCall(t, iv, "UpdateSchedule", &orchpb.UpdateScheduleRequest{Namespace: "default", ScheduleId: id, Schedule: upd,
				ConflictToken: d.GetConflictToken()}, &orchpb.UpdateScheduleResponse{})
			err := iv.call(ctx, "UpdateSchedule", &orchpb.UpdateScheduleRequest{Namespace: "default", ScheduleId: id, Schedule: everyMinute(0),
				ConflictToken: d.GetConflictToken()}, &orchpb.UpdateScheduleResponse{})
			wantCode(t, err, orchwire.FailedPrecondition)
			d = describeSchedule(t, iv, id)
			if got := d.GetSchedule().GetSpec().GetInterval()[0].GetInterval().AsDuration(); got != time.Hour {
				t.Errorf("interval %v after the refused update, want 1h", got)
			}
			if d.GetInfo().GetUpdateTime() == nil {
				t.Error("no update_time after an update")
			}

			mustCall(t, iv, "DeleteSchedule", &orchpb.DeleteScheduleRequest{Namespace: "default", ScheduleId: id}, &orchpb.DeleteScheduleResponse{})
			wantCode(t, iv.call(ctx, "DescribeSchedule", &orchpb.DescribeScheduleRequest{Namespace: "default", ScheduleId: id}, &orchpb.DescribeScheduleResponse{}), orchwire.NotFound)
			wantCode(t, iv.call(ctx, "DeleteSchedule", &orchpb.DeleteScheduleRequest{Namespace: "default", ScheduleId: id}, &orchpb.DeleteScheduleResponse{}), orchwire.NotFound)
		})
	}
}

func TestListSchedulesPages(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for _, iv := range transports(t, s) {
		t.Run(iv.name, func(t *testing.T) {
			mustCall(t, iv, "RegisterNamespace", &orchpb.RegisterNamespaceRequest{Namespace: "list-" + iv.name}, &orchpb.RegisterNamespaceResponse{})
			for _, id := range []string{"c", "a", "b"} {
				mustCall(t, iv, "CreateSchedule", &orchpb.CreateScheduleRequest{Namespace: "list-" + iv.name, ScheduleId: id, Schedule: everyMinute(0)}, &orchpb.CreateScheduleResponse{})
			}
			var got []string
			var tok []byte
			for {
				var page orchpb.ListSchedulesResponse
				mustCall(t, iv, "ListSchedules", &orchpb.ListSchedulesRequest{Namespace: "list-" + iv.name, MaximumPageSize: 2, NextPageToken: tok}, &page)
				for _, e := range page.GetSchedules() {
					got = append(got, e.GetScheduleId()+":"+e.GetInfo().GetWorkflowType().GetName())
				}
				if tok = page.GetNextPageToken(); len(tok) == 0 {
					break
				}
			}
			if diff := cmp.Diff([]string{"a:W", "b:W", "c:W"}, got); diff != "" {
				t.Errorf("listed (-want +got):\n%s", diff)
			}
			err := iv.call(context.Background(), "ListSchedules", &orchpb.ListSchedulesRequest{Namespace: "list-" + iv.name, NextPageToken: []byte("forged")}, &orchpb.ListSchedulesResponse{})
			wantCode(t, err, orchwire.InvalidArgument)
		})
	}
}

// Advancing the clock starts the due runs, with Temporal's workflow ids and
// the scheduled-by search attributes, which queries can use.
func TestScheduleStartsRunsOnTheClock(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	iv := transports(t, s)[0]
	createSchedule(t, iv, "every-minute", everyMinute(orchpb.ScheduleOverlapPolicy_SCHEDULE_OVERLAP_POLICY_ALLOW_ALL))
	s.Clock().Advance(2 * time.Minute)
	for _, m := range []int{1, 2} {
		if st := runStatus(t, s, minuteID(m)); st != orchpb.WorkflowExecutionStatus_RUNNING {
			t.Errorf("%s is %s", minuteID(m), st)
		}
	}
	e, _ := s.Execution("default", minuteID(1), "")
	if got := string(e.Info.GetSearchAttributes().GetIndexedFields()[orchfake.AttrScheduledByID].GetData()); got != `"every-minute"` {
		t.Errorf("ScheduledById %s", got)
	}
	for _, iv := range transports(t, s) {
		var count orchpb.CountWorkflowExecutionsResponse
		mustCall(t, iv, "CountWorkflowExecutions", &orchpb.CountWorkflowExecutionsRequest{Namespace: "default",
			Query: fmt.Sprintf("ScheduledById = 'every-minute' AND ScheduledStartTime >= '%s'", epoch.Add(2*time.Minute).Format(time.RFC3339))}, &count)
		if count.GetCount() != 1 {
			t.Errorf("over %s: %d runs scheduled from minute 2, want 1", iv.name, count.GetCount())
		}
	}
	// a start may not set them itself
	err := iv.call(context.Background(), "StartWorkflowExecution", &orchpb.StartWorkflowExecutionRequest{Namespace: "default", WorkflowId: "x",
		WorkflowType: &orchpb.WorkflowType{Name: "W"}, TaskQueue: "q", SearchAttributes: &orchpb.SearchAttributes{IndexedFields: map[string]*orchpb.Payload{
			orchfake.AttrScheduledByID: {Data: []byte(`"forged"`)}}}}, &orchpb.StartWorkflowExecutionResponse{})
	wantCode(t, err, orchwire.InvalidArgument)

	d := describeSchedule(t, iv, "every-minute")
	info := d.GetInfo()
	if info.GetActionCount() != 2 || len(info.GetRunningWorkflows()) != 2 || len(info.GetRecentActions()) != 2 {
		t.Fatalf("info %v, want 2 actions, both running", info)
	}
	ra := info.GetRecentActions()[1]
	if ra.GetStartWorkflowResult().GetWorkflowId() != minuteID(2) || !ra.GetScheduleTime().AsTime().Equal(epoch.Add(2*time.Minute)) ||
		ra.GetStartWorkflowStatus() != orchpb.WorkflowExecutionStatus_RUNNING {
		t.Errorf("last action %v", ra)
	}
	if got := info.GetFutureActionTimes()[0].AsTime(); !got.Equal(epoch.Add(3 * time.Minute)) {
		t.Errorf("next action at %v", got)
	}
}

// Each overlap policy against a running workflow: three actions due a
// minute apart while the first run runs, then the first run ends.
func TestScheduleOverlapPolicies(t *testing.T) {
	t.Parallel()
	type want struct {
		running            []int // minutes whose runs are running
		closed             map[int]orchpb.WorkflowExecutionStatus
		buffered, skipped  int64
		cancelRequestedOf1 bool
	}
	cases := []struct {
		policy      orchpb.ScheduleOverlapPolicy
		during      want // after minutes 1 to 3
		afterFirst  want // after run 1 is terminated by the test (if open)
		actionCount int64
	}{
		{policy: orchpb.ScheduleOverlapPolicy_SCHEDULE_OVERLAP_POLICY_SKIP,
			during:     want{running: []int{1}, skipped: 2},
			afterFirst: want{skipped: 2}, actionCount: 1},
		{policy: orchpb.ScheduleOverlapPolicy_SCHEDULE_OVERLAP_POLICY_BUFFER_ONE,
			during:     want{running: []int{1}, buffered: 1, skipped: 1},
			afterFirst: want{running: []int{2}, skipped: 1}, actionCount: 2},
		{policy: orchpb.ScheduleOverlapPolicy_SCHEDULE_OVERLAP_POLICY_BUFFER_ALL,
			during:     want{running: []int{1}, buffered: 2},
			afterFirst: want{running: []int{2}, buffered: 1}, actionCount: 2},
		{policy: orchpb.ScheduleOverlapPolicy_SCHEDULE_OVERLAP_POLICY_CANCEL_OTHER,
			during:     want{running: []int{1}, buffered: 2, cancelRequestedOf1: true},
			afterFirst: want{running: []int{3}}, actionCount: 2},
		{policy: orchpb.ScheduleOverlapPolicy_SCHEDULE_OVERLAP_POLICY_TERMINATE_OTHER,
			during: want{running: []int{3}, closed: map[int]orchpb.WorkflowExecutionStatus{
				1: orchpb.WorkflowExecutionStatus_TERMINATED, 2: orchpb.WorkflowExecutionStatus_TERMINATED}},
			afterFirst: want{running: []int{3}}, actionCount: 3},
		{policy: orchpb.ScheduleOverlapPolicy_SCHEDULE_OVERLAP_POLICY_ALLOW_ALL,
			during:     want{running: []int{1, 2, 3}},
			afterFirst: want{running: []int{2, 3}}, actionCount: 3},
	}
	for _, c := range cases {
		t.Run(c.policy.String(), func(t *testing.T) {
			t.Parallel()
			s := newFake(t)
			iv := transports(t, s)[0]
			createSchedule(t, iv, "overlap", everyMinute(c.policy))
			check := func(stage string, w want) {
				t.Helper()
				d := describeSchedule(t, iv, "overlap").GetInfo()
				var running []int
				for _, we := range d.GetRunningWorkflows() {
					for m := 1; m <= 3; m++ {
						if we.GetWorkflowId() == minuteID(m) {
							running = append(running, m)
						}
					}
				}
				if diff := cmp.Diff(w.running, running); diff != "" {
					t.Errorf("%s: running minutes (-want +got):\n%s", stage, diff)
				}
				if d.GetBufferSize() != w.buffered || d.GetOverlapSkipped() != w.skipped {
					t.Errorf("%s: buffer %d, skipped %d; want %d, %d", stage, d.GetBufferSize(), d.GetOverlapSkipped(), w.buffered, w.skipped)
				}
				for m, st := range w.closed {
					if got := runStatus(t, s, minuteID(m)); got != st {
						t.Errorf("%s: run of minute %d is %s, want %s", stage, m, got, st)
					}
				}
				if w.cancelRequestedOf1 {
					e, _ := s.Execution("default", minuteID(1), "")
					if last := e.History[len(e.History)-1]; last.GetEventType() != orchpb.EventType_WorkflowExecutionCancelRequested {
						t.Errorf("%s: run 1's last event is %s, want a cancel request", stage, last.GetEventType())
					}
				}
			}
			s.Clock().Advance(3 * time.Minute)
			check("minutes 1-3", c.during)
			if runStatus(t, s, minuteID(1)) == orchpb.WorkflowExecutionStatus_RUNNING {
				mustCall(t, iv, "TerminateWorkflowExecution", &orchpb.TerminateWorkflowExecutionRequest{Namespace: "default",
					WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: minuteID(1)}}, &orchpb.TerminateWorkflowExecutionResponse{})
			}
			check("run 1 closed", c.afterFirst)
			if got := describeSchedule(t, iv, "overlap").GetInfo().GetActionCount(); got != c.actionCount {
				t.Errorf("action_count %d, want %d", got, c.actionCount)
			}
		})
	}
}

// While the scheduler is down, actions pile up; when it is back, those
// within the catch-up window are taken, the older ones counted missed.
func TestScheduleCatchupWindow(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	iv := transports(t, s)[1]
	sch := everyMinute(orchpb.ScheduleOverlapPolicy_SCHEDULE_OVERLAP_POLICY_ALLOW_ALL)
	sch.Spec.Interval[0].Interval = durationpb.New(10 * time.Minute)
	sch.Policies.CatchupWindow = durationpb.New(time.Hour)
	createSchedule(t, iv, "catchup", sch)
	s.SchedulerOutage(func() { s.Clock().Advance(3 * time.Hour) })
	info := describeSchedule(t, iv, "catchup").GetInfo()
	// due at 10, 20, ... 180 minutes; back at 180: 120 to 180 are within the hour
	if info.GetMissedCatchupWindow() != 11 || info.GetActionCount() != 7 {
		t.Errorf("missed %d, actions %d; want 11 and 7", info.GetMissedCatchupWindow(), info.GetActionCount())
	}
	if _, ok := s.Execution("default", "wf-"+epoch.Add(110*time.Minute).Format(time.RFC3339), ""); ok {
		t.Error("the action of minute 110, past the window, was taken")
	}
	if got := runStatus(t, s, "wf-"+epoch.Add(120*time.Minute).Format(time.RFC3339)); got != orchpb.WorkflowExecutionStatus_RUNNING {
		t.Errorf("the action of minute 120 is %s", got)
	}
	// and once it is up, a long advance takes every action at its time
	s.Clock().Advance(3 * time.Hour)
	if got := describeSchedule(t, iv, "catchup").GetInfo(); got.GetActionCount() != 25 || got.GetMissedCatchupWindow() != 11 {
		t.Errorf("after 3 more hours up: %d actions, %d missed; want 25 and 11", got.GetActionCount(), got.GetMissedCatchupWindow())
	}
}

func TestSchedulePatch(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for _, iv := range transports(t, s) {
		t.Run(iv.name, func(t *testing.T) {
			ctx := context.Background()
			id := "patch-" + iv.name
			sch := everyMinute(orchpb.ScheduleOverlapPolicy_SCHEDULE_OVERLAP_POLICY_ALLOW_ALL)
			sch.Action.GetStartWorkflow().WorkflowId = id
			sch.Spec.Interval[0].Interval = durationpb.New(time.Hour)
			createSchedule(t, iv, id, sch)
			patch := func(p *orchpb.SchedulePatch, rid string) {
				t.Helper()
				mustCall(t, iv, "PatchSchedule", &orchpb.PatchScheduleRequest{Namespace: "default", ScheduleId: id, Patch: p, RequestId: rid}, &orchpb.PatchScheduleResponse{})
			}
			now := s.Clock().Now()
			patch(&orchpb.SchedulePatch{Pause: "maintenance"}, "")
			d := describeSchedule(t, iv, id)
			if !d.GetSchedule().GetState().GetPaused() || d.GetSchedule().GetState().GetNotes() != "maintenance" {
				t.Errorf("state %v after pause", d.GetSchedule().GetState())
			}
			// a trigger is taken while paused; the same request id twice, once
			patch(&orchpb.SchedulePatch{TriggerImmediately: &orchpb.TriggerImmediatelyRequest{}}, "t1")
			patch(&orchpb.SchedulePatch{TriggerImmediately: &orchpb.TriggerImmediatelyRequest{}}, "t1")
			if st := runStatus(t, s, id+"-"+now.Format(time.RFC3339)); st != orchpb.WorkflowExecutionStatus_RUNNING {
				t.Errorf("triggered run is %s", st)
			}
			// a backfill of the three hours before now
			patch(&orchpb.SchedulePatch{BackfillRequest: []*orchpb.BackfillRequest{{
				StartTime: timestamppb.New(now.Add(-3 * time.Hour)), EndTime: timestamppb.New(now.Add(-time.Hour))}}}, "")
			for h := 1; h <= 3; h++ {
				if _, ok := s.Execution("default", id+"-"+now.Add(-time.Duration(h)*time.Hour).Format(time.RFC3339), ""); !ok {
					t.Errorf("backfilled hour -%d did not start", h)
				}
			}
			// paused, the hour passes without an action
			before := describeSchedule(t, iv, id).GetInfo().GetActionCount()
			s.Clock().Advance(time.Hour)
			if got := describeSchedule(t, iv, id).GetInfo().GetActionCount(); got != before || before != 4 {
				t.Errorf("actions %d before the paused hour, %d after; want 4 and 4", before, got)
			}
			patch(&orchpb.SchedulePatch{Unpause: "done"}, "")
			s.Clock().Advance(time.Hour)
			if got := describeSchedule(t, iv, id).GetInfo().GetActionCount(); got != 5 {
				t.Errorf("actions %d after an unpaused hour, want 5", got)
			}
			err := iv.call(ctx, "PatchSchedule", &orchpb.PatchScheduleRequest{Namespace: "default", ScheduleId: id,
				Patch: &orchpb.SchedulePatch{Pause: "a", Unpause: "b"}}, &orchpb.PatchScheduleResponse{})
			wantCode(t, err, orchwire.InvalidArgument)
		})
	}
}

func TestScheduleSpecs(t *testing.T) {
	t.Parallel()
	at := func(m int) time.Time { return epoch.Add(time.Duration(m) * time.Minute) }
	cases := []struct {
		name string
		spec *orchpb.ScheduleSpec
		want []time.Time // the first future action times
	}{
		{"interval with phase", &orchpb.ScheduleSpec{Interval: []*orchpb.IntervalSpec{{Interval: durationpb.New(time.Hour), Phase: durationpb.New(15 * time.Minute)}}},
			[]time.Time{at(15), at(75), at(135)}},
		{"cron string", &orchpb.ScheduleSpec{CronString: []string{"30 */2 * * *"}},
			[]time.Time{at(30), at(150), at(270)}},
		{"calendar to the second", &orchpb.ScheduleSpec{StructuredCalendar: []*orchpb.StructuredCalendarSpec{{
			Second: []*orchpb.Range{{Start: 10}}, Minute: []*orchpb.Range{{Start: 0, End: 59, Step: 20}}, Hour: []*orchpb.Range{{Start: 12, End: 13}}}}},
			[]time.Time{at(0).Add(10 * time.Second), at(20).Add(10 * time.Second), at(40).Add(10 * time.Second), at(60).Add(10 * time.Second)}},
		{"union less an exclusion", &orchpb.ScheduleSpec{
			Interval:                  []*orchpb.IntervalSpec{{Interval: durationpb.New(30 * time.Minute)}},
			CronString:                []string{"45 * * * *"},
			ExcludeStructuredCalendar: []*orchpb.StructuredCalendarSpec{{Minute: []*orchpb.Range{{Start: 0}}, Hour: []*orchpb.Range{{Start: 13}}}}},
			[]time.Time{at(30), at(45), at(90), at(105)}},
		{"start and end", &orchpb.ScheduleSpec{Interval: []*orchpb.IntervalSpec{{Interval: durationpb.New(time.Hour)}},
			StartTime: timestamppb.New(at(120)), EndTime: timestamppb.New(at(240))},
			[]time.Time{at(120), at(180), at(240)}},
	}
	s := newFake(t)
	iv := transports(t, s)[1]
	for i, c := range cases {
		id := fmt.Sprintf("spec-%d", i)
		createSchedule(t, iv, id, &orchpb.Schedule{Spec: c.spec, Action: everyMinute(0).GetAction()})
		var got []time.Time
		for _, ts := range describeSchedule(t, iv, id).GetInfo().GetFutureActionTimes() {
			got = append(got, ts.AsTime())
		}
		if len(got) > len(c.want) && c.name != "start and end" {
			got = got[:len(c.want)]
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s: future times (-want +got):\n%s", c.name, diff)
		}
	}
}

// Jitter delays each action by the same amount on every fake (it depends
// on the schedule and the time only), within the jitter.
func TestScheduleJitterIsDeterministic(t *testing.T) {
	t.Parallel()
	times := func() []time.Time {
		s := newFake(t)
		sch := everyMinute(0)
		sch.Spec.Interval[0].Interval = durationpb.New(time.Hour)
		sch.Spec.Jitter = durationpb.New(10 * time.Minute)
		createSchedule(t, transports(t, s)[0], "jittered", sch)
		var out []time.Time
		for _, ts := range describeSchedule(t, transports(t, s)[0], "jittered").GetInfo().GetFutureActionTimes() {
			out = append(out, ts.AsTime())
		}
		s.Clock().Set(out[0].Add(-time.Second))
		if _, ok := s.Execution("default", "wf-"+epoch.Add(time.Hour).Format(time.RFC3339), ""); ok {
			t.Error("the action started before its jittered time")
		}
		s.Clock().Advance(time.Second)
		if _, ok := s.Execution("default", "wf-"+epoch.Add(time.Hour).Format(time.RFC3339), ""); !ok {
			t.Error("the action did not start at its jittered time")
		}
		return out
	}
	a, b := times(), times()
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("two fakes jitter differently:\n%s", diff)
	}
	distinct := map[time.Duration]bool{}
	for i, at := range a {
		j := at.Sub(epoch.Add(time.Duration(i+1) * time.Hour))
		if j < 0 || j >= 10*time.Minute {
			t.Errorf("action %d jittered by %v", i, j)
		}
		distinct[j] = true
	}
	if len(distinct) < 2 {
		t.Errorf("every action jittered by the same %v", a[0].Sub(epoch.Add(time.Hour)))
	}
}

func TestScheduleLimitedActionsAndPauseOnFailure(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	iv := transports(t, s)[0]
	sch := everyMinute(orchpb.ScheduleOverlapPolicy_SCHEDULE_OVERLAP_POLICY_ALLOW_ALL)
	sch.State = &orchpb.ScheduleState{LimitedActions: true, RemainingActions: 2}
	createSchedule(t, iv, "limited", sch)
	if got := len(describeSchedule(t, iv, "limited").GetInfo().GetFutureActionTimes()); got != 2 {
		t.Errorf("%d future action times with 2 remaining", got)
	}
	s.Clock().Advance(5 * time.Minute)
	d := describeSchedule(t, iv, "limited")
	if d.GetInfo().GetActionCount() != 2 || d.GetSchedule().GetState().GetRemainingActions() != 0 {
		t.Errorf("actions %d, remaining %d; want 2 and 0", d.GetInfo().GetActionCount(), d.GetSchedule().GetState().GetRemainingActions())
	}

	sch = everyMinute(orchpb.ScheduleOverlapPolicy_SCHEDULE_OVERLAP_POLICY_ALLOW_ALL)
	sch.Action.GetStartWorkflow().WorkflowId = "failing"
	sch.Action.GetStartWorkflow().TaskQueue = "fq"
	sch.Policies.PauseOnFailure = true
	createSchedule(t, iv, "pause-on-failure", sch)
	s.Clock().Advance(time.Minute)
	task := pollWF(t, iv, "fq")
	complete(t, iv, task.GetTaskToken(), &orchpb.Command{CommandType: orchpb.CommandType_FAIL_WORKFLOW_EXECUTION,
		Attributes: &orchpb.Command_FailWorkflowExecutionCommandAttributes{FailWorkflowExecutionCommandAttributes: &orchpb.FailWorkflowExecutionCommandAttributes{
			Failure: &orchpb.Failure{Message: "boom"}}}})
	st := describeSchedule(t, iv, "pause-on-failure").GetSchedule().GetState()
	if !st.GetPaused() {
		t.Fatalf("state %v after a failed run, want paused", st)
	}
	s.Clock().Advance(5 * time.Minute)
	if got := describeSchedule(t, iv, "pause-on-failure").GetInfo().GetActionCount(); got != 1 {
		t.Errorf("%d actions after the pause, want 1", got)
	}
}

func TestScheduleRefusals(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	iv := transports(t, s)[1]
	bad := func(mod func(*orchpb.Schedule)) *orchpb.Schedule {
		sch := everyMinute(0)
		mod(sch)
		return sch
	}
	cases := []struct {
		name  string
		sch   *orchpb.Schedule
		patch *orchpb.SchedulePatch
		field string
	}{
		{"no action", bad(func(s *orchpb.Schedule) { s.Action = nil }), nil, "schedule.action.start_workflow"},
		{"no workflow id", bad(func(s *orchpb.Schedule) { s.Action.GetStartWorkflow().WorkflowId = "" }), nil, "schedule.action.start_workflow.workflow_id"},
		{"no task queue", bad(func(s *orchpb.Schedule) { s.Action.GetStartWorkflow().TaskQueue = "" }), nil, "schedule.action.start_workflow.task_queue"},
		{"bad cron", bad(func(s *orchpb.Schedule) { s.Spec.CronString = []string{"61 * * * *"} }), nil, "schedule.spec.cron_string[0]"},
		{"short interval", bad(func(s *orchpb.Schedule) { s.Spec.Interval[0].Interval = durationpb.New(time.Millisecond) }), nil, "schedule.spec.interval[0].interval"},
		{"phase past interval", bad(func(s *orchpb.Schedule) { s.Spec.Interval[0].Phase = durationpb.New(time.Hour) }), nil, "schedule.spec.interval[0].phase"},
		{"calendar out of range", bad(func(s *orchpb.Schedule) {
			s.Spec.StructuredCalendar = []*orchpb.StructuredCalendarSpec{{Hour: []*orchpb.Range{{Start: 24}}}}
		}), nil, "schedule.spec.structured_calendar[0]"},
		{"end before start", bad(func(s *orchpb.Schedule) {
			s.Spec.StartTime, s.Spec.EndTime = timestamppb.New(epoch), timestamppb.New(epoch.Add(-time.Hour))
		}), nil, "schedule.spec.end_time"},
		{"short catch-up window", bad(func(s *orchpb.Schedule) { s.Policies.CatchupWindow = durationpb.New(time.Second) }), nil, "schedule.policies.catchup_window"},
		{"unknown policy", bad(func(s *orchpb.Schedule) { s.Policies.OverlapPolicy = 42 }), nil, "schedule.policies.overlap_policy"},
		{"too long a backfill", everyMinute(0), &orchpb.SchedulePatch{BackfillRequest: []*orchpb.BackfillRequest{{
			StartTime: timestamppb.New(epoch.Add(-24 * time.Hour)), EndTime: timestamppb.New(epoch)}}}, "initial_patch.backfill_request[0]"},
	}
	for _, c := range cases {
		err := iv.call(context.Background(), "CreateSchedule", &orchpb.CreateScheduleRequest{Namespace: "default", ScheduleId: "bad", Schedule: c.sch, InitialPatch: c.patch}, &orchpb.CreateScheduleResponse{})
		ae := wantCode(t, err, orchwire.InvalidArgument)
		if len(ae.Details) == 0 || ae.Details[0].GetField() != c.field {
			t.Errorf("%s: details %v, want field %s", c.name, ae.Details, c.field)
		}
	}
	// nothing was written
	var list orchpb.ListSchedulesResponse
	mustCall(t, iv, "ListSchedules", &orchpb.ListSchedulesRequest{Namespace: "default"}, &list)
	if len(list.GetSchedules()) != 0 {
		t.Errorf("refused creates left %d schedules", len(list.GetSchedules()))
	}
}

// The bounds: schedules per namespace, and the buffer (an overflow is
// counted in buffer_dropped).
func TestScheduleBounds(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	iv := transports(t, s)[0]
	sch := everyMinute(orchpb.ScheduleOverlapPolicy_SCHEDULE_OVERLAP_POLICY_BUFFER_ALL)
	backfill := &orchpb.SchedulePatch{BackfillRequest: []*orchpb.BackfillRequest{{
		StartTime: timestamppb.New(epoch.Add(-orchfake.MaxBackfillActions * time.Minute)), EndTime: timestamppb.New(epoch.Add(-time.Minute))}}}
	mustCall(t, iv, "CreateSchedule", &orchpb.CreateScheduleRequest{Namespace: "default", ScheduleId: "buffered", Schedule: sch, InitialPatch: backfill}, &orchpb.CreateScheduleResponse{})
	mustCall(t, iv, "PatchSchedule", &orchpb.PatchScheduleRequest{Namespace: "default", ScheduleId: "buffered", Patch: backfill}, &orchpb.PatchScheduleResponse{})
	info := describeSchedule(t, iv, "buffered").GetInfo()
	// 1,000 from the first backfill: one starts, 999 wait; of the second
	// 1,000, one fits
	if info.GetBufferSize() != orchfake.MaxScheduleBuffer || info.GetBufferDropped() != orchfake.MaxBackfillActions-1 || info.GetActionCount() != 1 {
		t.Errorf("buffer %d, dropped %d, actions %d", info.GetBufferSize(), info.GetBufferDropped(), info.GetActionCount())
	}

	for i := 1; i < orchfake.MaxSchedulesPerNamespace; i++ {
		createSchedule(t, iv, fmt.Sprintf("n-%04d", i), everyMinute(0))
	}
	err := iv.call(context.Background(), "CreateSchedule", &orchpb.CreateScheduleRequest{Namespace: "default", ScheduleId: "one-more", Schedule: everyMinute(0)}, &orchpb.CreateScheduleResponse{})
	wantCode(t, err, orchwire.ResourceExhausted)
}
