package orchfake_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/protobuf/types/known/durationpb"
)

func eventTypes(evs []*orchpb.HistoryEvent) string {
	var names []string
	for _, e := range evs {
		names = append(names, e.GetEventType().String())
	}
	return strings.Join(names, ",")
}

func TestStartGetAndReusePolicies(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for _, iv := range transports(t, s) {
		t.Run(iv.name, func(t *testing.T) {
			ctx := t.Context()
			id := "order-" + iv.name
			req := startReq("default", id)
			req.RequestId = "req-1"
			var first orchpb.StartWorkflowExecutionResponse
			mustCall(t, iv, "StartWorkflowExecution", req, &first)

			// The same request_id: the same run, nothing new.
			var again orchpb.StartWorkflowExecutionResponse
			mustCall(t, iv, "StartWorkflowExecution", req, &again)
			if again.GetRunId() != first.GetRunId() || again.GetStarted() {
				t.Fatalf("retried start: %v, first %v", &again, &first)
			}
			// Another request while running.
			other := startReq("default", id)
			err := iv.call(ctx, "StartWorkflowExecution", other, &orchpb.StartWorkflowExecutionResponse{})
			wantCode(t, err, "WORKFLOW_EXECUTION_ALREADY_STARTED")

			var get orchpb.GetWorkflowExecutionResponse
			mustCall(t, iv, "GetWorkflowExecution", &orchpb.GetWorkflowExecutionRequest{Namespace: "default", Execution: &orchpb.WorkflowExecution{WorkflowId: id, RunId: first.GetRunId()}}, &get)
			if got := eventTypes(get.GetWorkflowExecutionHistory()); got != "WorkflowExecutionStarted,WorkflowTaskScheduled" {
				t.Fatalf("history %s", got)
			}
			info := get.GetExecutionInfo()
			if info.GetStatus() != orchpb.WorkflowExecutionStatus_RUNNING || info.GetTaskQueue() != "orders" || info.GetType().GetName() != "Order" ||
				!info.GetStartTime().AsTime().Equal(epoch) || info.GetHistoryLength() != 2 {
				t.Fatalf("info %v", info)
			}

			// Terminated: ALLOW_DUPLICATE_FAILED_ONLY may start again.
			mustCall(t, iv, "TerminateWorkflowExecution", &orchpb.TerminateWorkflowExecutionRequest{Namespace: "default",
				WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: id}, Reason: "test"}, &orchpb.TerminateWorkflowExecutionResponse{})
			st, _ := s.Execution("default", id, first.GetRunId())
			if st.Info.GetStatus() != orchpb.WorkflowExecutionStatus_TERMINATED || st.History[len(st.History)-1].GetEventType() != orchpb.EventType_WorkflowExecutionTerminated {
				t.Fatalf("after terminate: %v", st.Info)
			}
			err = iv.call(ctx, "TerminateWorkflowExecution", &orchpb.TerminateWorkflowExecutionRequest{Namespace: "default",
				WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: id}}, &orchpb.TerminateWorkflowExecutionResponse{})
			wantCode(t, err, "WORKFLOW_EXECUTION_COMPLETED")
			err = iv.call(ctx, "SignalWorkflowExecution", &orchpb.SignalWorkflowExecutionRequest{Namespace: "default",
				WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: id}, SignalName: "go"}, &orchpb.SignalWorkflowExecutionResponse{})
			wantCode(t, err, "WORKFLOW_EXECUTION_COMPLETED")

			other.WorkflowIdReusePolicy = orchpb.WorkflowIdReusePolicy_REJECT_DUPLICATE
			err = iv.call(ctx, "StartWorkflowExecution", other, &orchpb.StartWorkflowExecutionResponse{})
			wantCode(t, err, "WORKFLOW_EXECUTION_ALREADY_STARTED")
			other.WorkflowIdReusePolicy = orchpb.WorkflowIdReusePolicy_ALLOW_DUPLICATE_FAILED_ONLY
			var second orchpb.StartWorkflowExecutionResponse
			mustCall(t, iv, "StartWorkflowExecution", other, &second)
			if second.GetRunId() == first.GetRunId() {
				t.Fatal("no new run")
			}
			// TERMINATE_IF_RUNNING ends the running one.
			other.WorkflowIdReusePolicy = orchpb.WorkflowIdReusePolicy_TERMINATE_IF_RUNNING
			var third orchpb.StartWorkflowExecutionResponse
			mustCall(t, iv, "StartWorkflowExecution", other, &third)
			if st, _ := s.Execution("default", id, second.GetRunId()); st.Info.GetStatus() != orchpb.WorkflowExecutionStatus_TERMINATED {
				t.Fatalf("second run %v", st.Info.GetStatus())
			}
			// The latest run is the default.
			var latest orchpb.GetWorkflowExecutionResponse
			mustCall(t, iv, "GetWorkflowExecution", &orchpb.GetWorkflowExecutionRequest{Namespace: "default", Execution: &orchpb.WorkflowExecution{WorkflowId: id}}, &latest)
			if latest.GetExecutionInfo().GetExecution().GetRunId() != third.GetRunId() {
				t.Fatalf("latest %v", latest.GetExecutionInfo().GetExecution())
			}
			err = iv.call(ctx, "GetWorkflowExecution", &orchpb.GetWorkflowExecutionRequest{Namespace: "default", Execution: &orchpb.WorkflowExecution{WorkflowId: "missing"}}, &orchpb.GetWorkflowExecutionResponse{})
			wantCode(t, err, "WORKFLOW_EXECUTION_NOT_FOUND")
		})
	}
}

func TestAllowDuplicateFailedOnlyRefusesACompletedRun(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	if _, err := s.AddExecution(orchfake.ExecutionSeed{WorkflowID: "done", WorkflowType: "Order", Status: "COMPLETED"}); err != nil {
		t.Fatal(err)
	}
	for _, iv := range transports(t, s) {
		req := startReq("default", "done")
		req.WorkflowIdReusePolicy = orchpb.WorkflowIdReusePolicy_ALLOW_DUPLICATE_FAILED_ONLY
		err := iv.call(t.Context(), "StartWorkflowExecution", req, &orchpb.StartWorkflowExecutionResponse{})
		wantCode(t, err, "WORKFLOW_EXECUTION_ALREADY_STARTED")
	}
}

func TestStartValidationNamesFields(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for _, iv := range transports(t, s) {
		req := &orchpb.StartWorkflowExecutionRequest{Namespace: "default",
			WorkflowTaskTimeout: durationpb.New(time.Hour),
			RetryPolicy:         &orchpb.RetryPolicy{BackoffCoefficient: 0.5},
			CronSchedule:        "* *",
		}
		err := iv.call(t.Context(), "StartWorkflowExecution", req, &orchpb.StartWorkflowExecutionResponse{})
		ae := wantCode(t, err, "INVALID_ARGUMENT")
		var fields []string
		for _, d := range ae.Details {
			fields = append(fields, d.GetField())
		}
		want := "workflow_id,workflow_type.name,task_queue,workflow_task_timeout,retry_policy.backoff_coefficient,cron_schedule"
		if got := strings.Join(fields, ","); got != want {
			t.Errorf("%s: fields %s, want %s", iv.name, got, want)
		}
	}
}

func TestSignalAndCancelAreRecordedOnce(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for _, iv := range transports(t, s) {
		id := "sig-" + iv.name
		mustCall(t, iv, "StartWorkflowExecution", startReq("default", id), &orchpb.StartWorkflowExecutionResponse{})
		sig := &orchpb.SignalWorkflowExecutionRequest{Namespace: "default", WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: id, RunId: "-"},
			SignalName: "approve", RequestId: "r1", Input: &orchpb.Payloads{Payloads: []*orchpb.Payload{{Data: []byte(`"yes"`)}}}}
		for range 2 {
			mustCall(t, iv, "SignalWorkflowExecution", sig, &orchpb.SignalWorkflowExecutionResponse{})
		}
		cancel := &orchpb.RequestCancelWorkflowExecutionRequest{Namespace: "default", WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: id}, RequestId: "c1", Reason: "no longer needed"}
		for range 2 {
			mustCall(t, iv, "RequestCancelWorkflowExecution", cancel, &orchpb.RequestCancelWorkflowExecutionResponse{})
		}
		st, _ := s.Execution("default", id, "")
		if got := eventTypes(st.History); got != "WorkflowExecutionStarted,WorkflowTaskScheduled,WorkflowExecutionSignaled,WorkflowExecutionCancelRequested" {
			t.Fatalf("%s: %s", iv.name, got)
		}
		if a := st.History[2].GetWorkflowExecutionSignaledEventAttributes(); a.GetSignalName() != "approve" || string(a.GetInput().GetPayloads()[0].GetData()) != `"yes"` {
			t.Fatalf("signal %v", a)
		}
		err := iv.call(t.Context(), "SignalWorkflowExecution", &orchpb.SignalWorkflowExecutionRequest{Namespace: "default",
			WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: "nope"}, SignalName: "x"}, &orchpb.SignalWorkflowExecutionResponse{})
		wantCode(t, err, "WORKFLOW_EXECUTION_NOT_FOUND")
	}
}

func TestExecutionAndRunTimeoutsFireOnTheClock(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	iv := transports(t, s)[0]
	req := startReq("default", "slow")
	req.WorkflowExecutionTimeout = durationpb.New(time.Hour)
	req.WorkflowRunTimeout = durationpb.New(30 * time.Minute)
	mustCall(t, iv, "StartWorkflowExecution", req, &orchpb.StartWorkflowExecutionResponse{})
	s.Clock().Advance(30*time.Minute - time.Second)
	if st, _ := s.Execution("default", "slow", ""); st.Info.GetStatus() != orchpb.WorkflowExecutionStatus_RUNNING {
		t.Fatalf("early: %v", st.Info.GetStatus())
	}
	s.Clock().Advance(time.Second)
	st, _ := s.Execution("default", "slow", "")
	if st.Info.GetStatus() != orchpb.WorkflowExecutionStatus_TIMED_OUT || eventTypes(st.History[len(st.History)-1:]) != "WorkflowExecutionTimedOut" ||
		!st.Info.GetCloseTime().AsTime().Equal(epoch.Add(30*time.Minute)) {
		t.Fatalf("after: %v %s", st.Info, eventTypes(st.History))
	}
}

func TestHistoryPagesAndLongPoll(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for _, iv := range transports(t, s) {
		t.Run(iv.name, func(t *testing.T) {
			id := "hist-" + iv.name
			mustCall(t, iv, "StartWorkflowExecution", startReq("default", id), &orchpb.StartWorkflowExecutionResponse{})
			for i := range 3 {
				mustCall(t, iv, "SignalWorkflowExecution", &orchpb.SignalWorkflowExecutionRequest{Namespace: "default",
					WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: id}, SignalName: "s" + string(rune('0'+i))}, &orchpb.SignalWorkflowExecutionResponse{})
			}
			we := &orchpb.WorkflowExecution{WorkflowId: id}
			var all []*orchpb.HistoryEvent
			var tok []byte
			for range 10 {
				var page orchpb.GetWorkflowExecutionHistoryResponse
				mustCall(t, iv, "GetWorkflowExecutionHistory", &orchpb.GetWorkflowExecutionHistoryRequest{Namespace: "default", Execution: we, MaximumPageSize: 2, NextPageToken: tok}, &page)
				if len(page.GetHistory()) > 2 {
					t.Fatalf("page of %d", len(page.GetHistory()))
				}
				all = append(all, page.GetHistory()...)
				if tok = page.GetNextPageToken(); len(tok) == 0 {
					break
				}
			}
			if len(all) != 5 || all[4].GetEventId() != 5 {
				t.Fatalf("events %s", eventTypes(all))
			}
			err := iv.call(t.Context(), "GetWorkflowExecutionHistory", &orchpb.GetWorkflowExecutionHistoryRequest{Namespace: "default", Execution: we, NextPageToken: []byte{1, 2, 3, 4, 5, 6}}, &orchpb.GetWorkflowExecutionHistoryResponse{})
			wantCode(t, err, "INVALID_ARGUMENT")

			// Long poll from the end: answered by the next event.
			var first orchpb.GetWorkflowExecutionHistoryResponse
			mustCall(t, iv, "GetWorkflowExecutionHistory", &orchpb.GetWorkflowExecutionHistoryRequest{Namespace: "default", Execution: we, WaitNewEvent: true}, &first)
			done := make(chan *orchpb.GetWorkflowExecutionHistoryResponse)
			poller := iv.with(iv.token) // its own copy: iv's calls below write iv.last
			go func() {
				var next orchpb.GetWorkflowExecutionHistoryResponse
				if err := poller.call(context.Background(), "GetWorkflowExecutionHistory", &orchpb.GetWorkflowExecutionHistoryRequest{Namespace: "default", Execution: we, WaitNewEvent: true, NextPageToken: first.GetNextPageToken()}, &next); err != nil {
					t.Error(err)
				}
				done <- &next
			}()
			// Whether the poll is already waiting or not, the next event answers it.
			mustCall(t, iv, "TerminateWorkflowExecution", &orchpb.TerminateWorkflowExecutionRequest{Namespace: "default", WorkflowExecution: we}, &orchpb.TerminateWorkflowExecutionResponse{})
			next := <-done
			if got := eventTypes(next.GetHistory()); got != "WorkflowExecutionTerminated" || len(next.GetNextPageToken()) != 0 {
				t.Fatalf("long poll: %s %x", got, next.GetNextPageToken())
			}
		})
	}
}

func TestHistoryLongPollEndsBeforeTheDeadline(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for _, iv := range transports(t, s) {
		id := "idle-" + iv.name
		mustCall(t, iv, "StartWorkflowExecution", startReq("default", id), &orchpb.StartWorkflowExecutionResponse{})
		var first orchpb.GetWorkflowExecutionHistoryResponse
		we := &orchpb.WorkflowExecution{WorkflowId: id}
		mustCall(t, iv, "GetWorkflowExecutionHistory", &orchpb.GetWorkflowExecutionHistoryRequest{Namespace: "default", Execution: we, WaitNewEvent: true}, &first)
		var next orchpb.GetWorkflowExecutionHistoryResponse
		err := emptyWait(t, s, func(ctx context.Context) error {
			return iv.call(ctx, "GetWorkflowExecutionHistory", &orchpb.GetWorkflowExecutionHistoryRequest{Namespace: "default", Execution: we, WaitNewEvent: true, NextPageToken: first.GetNextPageToken()}, &next)
		})
		if err != nil {
			t.Fatalf("%s: %v", iv.name, err)
		}
		if len(next.GetHistory()) != 0 || string(next.GetNextPageToken()) != string(first.GetNextPageToken()) {
			t.Fatalf("%s: %v", iv.name, &next)
		}
	}
}

// emptyWait runs a long poll that must find nothing to its end, by moving
// the fake's clock past the longest wait once the poll waits on it.
func emptyWait(t *testing.T, s *orchfake.Server, call func(ctx context.Context) error) error {
	t.Helper()
	clk := s.Clock()
	before := clk.Pending()
	done := make(chan error, 1)
	go func() { done <- call(t.Context()) }()
	if err := clk.WaitForTimers(t.Context(), before+1); err != nil {
		t.Fatal(err)
	}
	clk.Advance(orchfake.MaxPollWait)
	return <-done
}
