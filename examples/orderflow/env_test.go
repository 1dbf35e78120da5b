package main

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
	"github.com/apitwin/apitwin/orch/orchtest"
	"github.com/apitwin/apitwin/orch/workflow"
	"google.golang.org/protobuf/encoding/protojson"
)

// The tests below run OrderFlow in an orchtest.Env: no fake, no worker,
// and the day of waiting for approval costs no time. (TestExample and
// restart_test.go run it against the fake.)

var order = Order{ID: "o-1", Item: "desk lamp", Amount: 39.90}

// newEnv registers the workflow, its child and the real activities.
func newEnv(t *testing.T) (*orchtest.Env, time.Time) {
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	env := orchtest.NewWithOptions(t, orchtest.Options{StartTime: start, TaskQueue: TaskQueue})
	orchtest.RegisterWorkflow(env, WorkflowType, OrderFlow)
	orchtest.RegisterWorkflow(env, NotifyType, Notify)
	orchtest.RegisterActivity(env, "ChargeCard", ChargeCard)
	orchtest.RegisterActivity(env, "Refund", Refund)
	orchtest.RegisterActivity(env, "ShipParcel", ShipParcel)
	orchtest.RegisterActivity(env, "EmailCustomer", EmailCustomer)
	return env, start
}

func TestApprovedOrderShipsAfterCoolingOff(t *testing.T) {
	t.Parallel()
	env, start := newEnv(t)
	var statuses []string
	query := func() {
		var s string
		if err := env.QueryWorkflow(StatusQuery, nil, &s); err != nil {
			t.Error(err)
		}
		statuses = append(statuses, s)
	}
	env.After(time.Hour, query)
	env.After(2*time.Hour, func() {
		if err := env.SignalWorkflow(ApproveSignal, Approval{By: "warehouse"}); err != nil {
			t.Error(err)
		}
	})
	env.After(150*time.Minute, query)
	env.ExecuteWorkflow(WorkflowType, order, &orch.StartWorkflowOptions{ID: "order-o-1"})
	var r Receipt
	if err := env.Result(&r); err != nil {
		t.Fatal(err)
	}
	want := Receipt{OrderID: "o-1", Charge: "ch_o-1_39.90", ApprovedBy: "warehouse", Tracking: "TRK-o-1",
		ShippedAt: start.Add(2*time.Hour + CoolingOff), Notice: "order o-1 shipped, tracking TRK-o-1"}
	if r != want {
		t.Fatalf("receipt %+v\nwant    %+v", r, want)
	}
	query()
	if got := strings.Join(statuses, ", "); got != "awaiting approval, cooling off, done" {
		t.Fatalf("statuses: %s", got)
	}
	// The history is the service's form: it replays, and it survives a
	// trip through JSON as a test would save it.
	if err := workflow.Replay(env.History(), OrderFlow); err != nil {
		t.Fatal(err)
	}
	data, err := protojson.Marshal(&orchpb.GetWorkflowExecutionHistoryResponse{History: env.History()})
	if err != nil {
		t.Fatal(err)
	}
	saved, err := workflow.ParseHistoryJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := workflow.Replay(saved, OrderFlow); err != nil {
		t.Fatal(err)
	}
}

func TestUnapprovedOrderIsRefundedAfterADay(t *testing.T) {
	t.Parallel()
	env, start := newEnv(t)
	refund := env.OnActivity("Refund").Return("re_mocked", nil).Once()
	env.ExecuteWorkflow(WorkflowType, order, nil)
	var werr *orch.WorkflowExecutionError
	if err := env.Err(); !errors.As(err, &werr) || werr.Status != orchpb.WorkflowExecutionStatus_FAILED || werr.Failure.GetMessage() != ErrNotApproved.Error() ||
		!werr.Failure.GetApplicationFailureInfo().GetNonRetryable() {
		t.Fatalf("Err = %v", err)
	}
	var charge string
	if err := refund.Calls()[0].Arg(&charge); err != nil || charge != "ch_o-1_39.90" {
		t.Fatalf("refunded %q, %v", charge, err)
	}
	if at := refund.Calls()[0].Time; !at.Equal(start.Add(ApprovalWindow)) {
		t.Fatalf("refunded at %v", at.Sub(start))
	}
	if calls := env.ActivityCalls("ShipParcel"); len(calls) != 0 {
		t.Fatalf("shipped an unapproved order: %+v", calls)
	}
}

func TestDeclinedCardFailsTheOrder(t *testing.T) {
	t.Parallel()
	env, _ := newEnv(t)
	env.OnActivity("ChargeCard").Return(nil, &orch.ApplicationError{Message: "card declined", Type: "CardDeclined", NonRetryable: true}).Once()
	env.ExecuteWorkflow(WorkflowType, order, nil)
	var werr *orch.WorkflowExecutionError
	if err := env.Err(); !errors.As(err, &werr) || !strings.Contains(werr.Failure.GetMessage(), "card declined") {
		t.Fatalf("Err = %v", err)
	}
}

// The charge fails twice (a flaky card gateway) and succeeds on the
// third attempt, 3 s later in workflow time: the default retry policy.
func TestChargeIsRetried(t *testing.T) {
	t.Parallel()
	env, start := newEnv(t)
	flaky := env.OnActivity("ChargeCard").Return(nil, errors.New("gateway timeout")).Times(2)
	env.After(time.Minute, func() { _ = env.SignalWorkflow(ApproveSignal, Approval{By: "ops"}) })
	env.ExecuteWorkflow(WorkflowType, order, nil)
	var r Receipt
	if err := env.Result(&r); err != nil || r.Charge != "ch_o-1_39.90" {
		t.Fatalf("receipt %+v, %v", r, err)
	}
	if calls := flaky.Calls(); len(calls) != 2 || !calls[1].Time.Equal(start.Add(time.Second)) {
		t.Fatalf("calls %+v", calls)
	}
}

// The child Notify is mocked: the parent's test does not run it.
func TestNotifyMocked(t *testing.T) {
	t.Parallel()
	env, _ := newEnv(t)
	notify := env.OnWorkflow(NotifyType).Return("mocked notice", nil).Once()
	env.After(0, func() { _ = env.SignalWorkflow(ApproveSignal, Approval{By: "ops"}) })
	env.ExecuteWorkflow(WorkflowType, order, nil)
	var r Receipt
	if err := env.Result(&r); err != nil || r.Notice != "mocked notice" {
		t.Fatalf("receipt %+v, %v", r, err)
	}
	if calls := env.ActivityCalls("EmailCustomer"); len(calls) != 0 {
		t.Fatalf("the mocked child ran its activity: %+v", calls)
	}
	var sent Receipt
	if err := notify.Calls()[0].Arg(&sent); err != nil || sent.Tracking != "TRK-o-1" {
		t.Fatalf("child input %+v, %v", sent, err)
	}
}
