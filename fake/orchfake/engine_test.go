package orchfake_test

import (
	"context"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/protobuf/types/known/durationpb"
)

func pollWF(t *testing.T, iv *invoker, tq string) *orchpb.PollWorkflowTaskQueueResponse {
	t.Helper()
	var r orchpb.PollWorkflowTaskQueueResponse
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := iv.call(ctx, "PollWorkflowTaskQueue", &orchpb.PollWorkflowTaskQueueRequest{Namespace: "default", TaskQueue: tq, Identity: "wf-worker"}, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.GetTaskToken()) == 0 {
		t.Fatal("empty workflow poll")
	}
	return &r
}

func pollAct(t *testing.T, iv *invoker, tq string) *orchpb.PollActivityTaskQueueResponse {
	t.Helper()
	var r orchpb.PollActivityTaskQueueResponse
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := iv.call(ctx, "PollActivityTaskQueue", &orchpb.PollActivityTaskQueueRequest{Namespace: "default", TaskQueue: tq, Identity: "act-worker"}, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.GetTaskToken()) == 0 {
		t.Fatal("empty activity poll")
	}
	return &r
}

func complete(t *testing.T, iv *invoker, tok []byte, cmds ...*orchpb.Command) {
	t.Helper()
	mustCall(t, iv, "RespondWorkflowTaskCompleted", &orchpb.RespondWorkflowTaskCompletedRequest{Namespace: "default", TaskToken: tok, Commands: cmds, Identity: "wf-worker"}, &orchpb.RespondWorkflowTaskCompletedResponse{})
}

func scheduleCmd(id string, retry *orchpb.RetryPolicy) *orchpb.Command {
	return &orchpb.Command{CommandType: orchpb.CommandType_SCHEDULE_ACTIVITY_TASK, Attributes: &orchpb.Command_ScheduleActivityTaskCommandAttributes{
		ScheduleActivityTaskCommandAttributes: &orchpb.ScheduleActivityTaskCommandAttributes{ActivityId: id, ActivityType: &orchpb.ActivityType{Name: id},
			StartToCloseTimeout: durationpb.New(time.Minute), RetryPolicy: retry}}}
}

func completeCmd() *orchpb.Command {
	return &orchpb.Command{CommandType: orchpb.CommandType_COMPLETE_WORKFLOW_EXECUTION, Attributes: &orchpb.Command_CompleteWorkflowExecutionCommandAttributes{
		CompleteWorkflowExecutionCommandAttributes: &orchpb.CompleteWorkflowExecutionCommandAttributes{Result: &orchpb.Payloads{Payloads: []*orchpb.Payload{{Data: []byte(`"done"`)}}}}}}
}

func TestTwoActivitiesThenComplete(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for _, iv := range transports(t, s) {
		t.Run(iv.name, func(t *testing.T) {
			tq, id := "two-"+iv.name, "two-"+iv.name
			req := startReq("default", id)
			req.TaskQueue = tq
			mustCall(t, iv, "StartWorkflowExecution", req, &orchpb.StartWorkflowExecutionResponse{})
			wt := pollWF(t, iv, tq)
			if eventTypes(wt.GetHistory()) != "WorkflowExecutionStarted,WorkflowTaskScheduled,WorkflowTaskStarted" || wt.GetStartedEventId() != 3 {
				t.Fatalf("first task %s", eventTypes(wt.GetHistory()))
			}
			complete(t, iv, wt.GetTaskToken(), scheduleCmd("reserve", nil))
			at := pollAct(t, iv, tq)
			if at.GetActivityId() != "reserve" || at.GetAttempt() != 1 {
				t.Fatalf("activity %v", at)
			}
			mustCall(t, iv, "RespondActivityTaskCompleted", &orchpb.RespondActivityTaskCompletedRequest{Namespace: "default", TaskToken: at.GetTaskToken()}, &orchpb.RespondActivityTaskCompletedResponse{})
			wt = pollWF(t, iv, tq)
			if wt.GetPreviousStartedEventId() != 3 {
				t.Fatalf("previous started %d", wt.GetPreviousStartedEventId())
			}
			complete(t, iv, wt.GetTaskToken(), scheduleCmd("ship", nil))
			at = pollAct(t, iv, tq)
			mustCall(t, iv, "RespondActivityTaskCompleted", &orchpb.RespondActivityTaskCompletedRequest{Namespace: "default", TaskToken: at.GetTaskToken()}, &orchpb.RespondActivityTaskCompletedResponse{})
			wt = pollWF(t, iv, tq)
			complete(t, iv, wt.GetTaskToken(), completeCmd())
			st, _ := s.Execution("default", id, "")
			want := "WorkflowExecutionStarted,WorkflowTaskScheduled,WorkflowTaskStarted,WorkflowTaskCompleted," +
				"ActivityTaskScheduled,ActivityTaskStarted,ActivityTaskCompleted," +
				"WorkflowTaskScheduled,WorkflowTaskStarted,WorkflowTaskCompleted," +
				"ActivityTaskScheduled,ActivityTaskStarted,ActivityTaskCompleted," +
				"WorkflowTaskScheduled,WorkflowTaskStarted,WorkflowTaskCompleted,WorkflowExecutionCompleted"
			if got := eventTypes(st.History); got != want || st.Info.GetStatus() != orchpb.WorkflowExecutionStatus_COMPLETED {
				t.Fatalf("history\n got %s\nwant %s", got, want)
			}
		})
	}
}

func TestActivityRetriesWithBackoff(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	iv := transports(t, s)[1]
	req := startReq("default", "retry")
	req.TaskQueue = "retry"
	mustCall(t, iv, "StartWorkflowExecution", req, &orchpb.StartWorkflowExecutionResponse{})
	wt := pollWF(t, iv, "retry")
	complete(t, iv, wt.GetTaskToken(), scheduleCmd("charge", &orchpb.RetryPolicy{InitialInterval: durationpb.New(time.Second), BackoffCoefficient: 2, MaximumAttempts: 5}))
	for attempt := int32(1); attempt <= 2; attempt++ {
		at := pollAct(t, iv, "retry")
		if at.GetAttempt() != attempt {
			t.Fatalf("attempt %d, want %d", at.GetAttempt(), attempt)
		}
		mustCall(t, iv, "RespondActivityTaskFailed", &orchpb.RespondActivityTaskFailedRequest{Namespace: "default", TaskToken: at.GetTaskToken(),
			Failure: &orchpb.Failure{Message: "card declined"}}, &orchpb.RespondActivityTaskFailedResponse{})
		// Not before the backoff: 1 s, then 2 s.
		var d orchpb.DescribeTaskQueueResponse
		mustCall(t, iv, "DescribeTaskQueue", &orchpb.DescribeTaskQueueRequest{Namespace: "default", TaskQueue: "retry", TaskQueueType: orchpb.TaskQueueType_ACTIVITY, IncludeTaskQueueStatus: true}, &d)
		if d.GetTaskQueueStatus().GetBacklogCountHint() != 0 {
			t.Fatal("retried before the backoff")
		}
		s.Clock().Advance(time.Duration(1<<(attempt-1)) * time.Second)
	}
	at := pollAct(t, iv, "retry")
	if at.GetAttempt() != 3 {
		t.Fatalf("attempt %d", at.GetAttempt())
	}
	mustCall(t, iv, "RespondActivityTaskCompleted", &orchpb.RespondActivityTaskCompletedRequest{Namespace: "default", TaskToken: at.GetTaskToken()}, &orchpb.RespondActivityTaskCompletedResponse{})
	st, _ := s.Execution("default", "retry", "")
	var started *orchpb.ActivityTaskStartedEventAttributes
	for _, ev := range st.History {
		if a := ev.GetActivityTaskStartedEventAttributes(); a != nil {
			started = a
		}
	}
	if started.GetAttempt() != 3 || started.GetLastFailure().GetMessage() != "card declined" {
		t.Fatalf("started %v", started)
	}
}

func TestHeartbeatTimeoutAndStaleToken(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	iv := transports(t, s)[0]
	req := startReq("default", "beat")
	req.TaskQueue = "beat"
	mustCall(t, iv, "StartWorkflowExecution", req, &orchpb.StartWorkflowExecutionResponse{})
	wt := pollWF(t, iv, "beat")
	cmd := scheduleCmd("long", &orchpb.RetryPolicy{MaximumAttempts: 1})
	cmd.GetScheduleActivityTaskCommandAttributes().HeartbeatTimeout = durationpb.New(10 * time.Second)
	complete(t, iv, wt.GetTaskToken(), cmd)
	at := pollAct(t, iv, "beat")
	var hb orchpb.RecordActivityTaskHeartbeatResponse
	mustCall(t, iv, "RecordActivityTaskHeartbeat", &orchpb.RecordActivityTaskHeartbeatRequest{Namespace: "default", TaskToken: at.GetTaskToken(), Details: &orchpb.Payloads{Payloads: []*orchpb.Payload{{Data: []byte("50")}}}}, &hb)
	s.Clock().Advance(9 * time.Second)
	mustCall(t, iv, "RecordActivityTaskHeartbeat", &orchpb.RecordActivityTaskHeartbeatRequest{Namespace: "default", TaskToken: at.GetTaskToken()}, &hb)
	s.Clock().Advance(10 * time.Second)
	err := iv.call(t.Context(), "RespondActivityTaskCompleted", &orchpb.RespondActivityTaskCompletedRequest{Namespace: "default", TaskToken: at.GetTaskToken()}, &orchpb.RespondActivityTaskCompletedResponse{})
	wantCode(t, err, "ACTIVITY_TASK_TIMEOUT")
	st, _ := s.Execution("default", "beat", "")
	last := st.History[len(st.History)-2]
	if last.GetEventType() != orchpb.EventType_ActivityTaskTimedOut || last.GetActivityTaskTimedOutEventAttributes().GetFailure().GetTimeoutFailureInfo().GetTimeoutType() != orchpb.TimeoutType_HEARTBEAT {
		t.Fatalf("history %s", eventTypes(st.History))
	}
}

func TestWorkflowTaskTimeoutAndSignalDuringTask(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	iv := transports(t, s)[1]
	req := startReq("default", "wtt")
	req.TaskQueue = "wtt"
	mustCall(t, iv, "StartWorkflowExecution", req, &orchpb.StartWorkflowExecutionResponse{})
	wt := pollWF(t, iv, "wtt")
	s.Clock().Advance(orchfake.DefaultWorkflowTaskTimeout)
	err := iv.call(t.Context(), "RespondWorkflowTaskCompleted", &orchpb.RespondWorkflowTaskCompletedRequest{Namespace: "default", TaskToken: wt.GetTaskToken()}, &orchpb.RespondWorkflowTaskCompletedResponse{})
	wantCode(t, err, "WORKFLOW_TASK_TIMEOUT")
	wt = pollWF(t, iv, "wtt")
	if wt.GetAttempt() != 2 {
		t.Fatalf("attempt %d", wt.GetAttempt())
	}
	// A signal arrives while the task runs: completing is refused.
	mustCall(t, iv, "SignalWorkflowExecution", &orchpb.SignalWorkflowExecutionRequest{Namespace: "default", WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: "wtt"}, SignalName: "hurry"}, &orchpb.SignalWorkflowExecutionResponse{})
	err = iv.call(t.Context(), "RespondWorkflowTaskCompleted", &orchpb.RespondWorkflowTaskCompletedRequest{Namespace: "default", TaskToken: wt.GetTaskToken(), Commands: []*orchpb.Command{completeCmd()}}, &orchpb.RespondWorkflowTaskCompletedResponse{})
	wantCode(t, err, "INVALID_ARGUMENT")
	wt = pollWF(t, iv, "wtt")
	complete(t, iv, wt.GetTaskToken(), completeCmd())
	st, _ := s.Execution("default", "wtt", "")
	want := "WorkflowExecutionStarted,WorkflowTaskScheduled,WorkflowTaskStarted,WorkflowTaskTimedOut," +
		"WorkflowTaskScheduled,WorkflowTaskStarted,WorkflowExecutionSignaled,WorkflowTaskFailed," +
		"WorkflowTaskScheduled,WorkflowTaskStarted,WorkflowTaskCompleted,WorkflowExecutionCompleted"
	if got := eventTypes(st.History); got != want {
		t.Fatalf("history\n got %s\nwant %s", got, want)
	}
	if c := st.History[7].GetWorkflowTaskFailedEventAttributes().GetCause(); c != orchpb.WorkflowTaskFailedCause_UNHANDLED_COMMAND {
		t.Fatalf("cause %v", c)
	}
}

func TestQueryAnsweredByWorker(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for _, iv := range transports(t, s) {
		tq, id := "q-"+iv.name, "q-"+iv.name
		req := startReq("default", id)
		req.TaskQueue = tq
		mustCall(t, iv, "StartWorkflowExecution", req, &orchpb.StartWorkflowExecutionResponse{})
		wt := pollWF(t, iv, tq)
		complete(t, iv, wt.GetTaskToken(), &orchpb.Command{CommandType: orchpb.CommandType_START_TIMER, Attributes: &orchpb.Command_StartTimerCommandAttributes{
			StartTimerCommandAttributes: &orchpb.StartTimerCommandAttributes{TimerId: "t", StartToFireTimeout: durationpb.New(time.Hour)}}})
		done := make(chan *orchpb.QueryWorkflowResponse, 1)
		go func() {
			var r orchpb.QueryWorkflowResponse
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := iv.with("").call(ctx, "QueryWorkflow", &orchpb.QueryWorkflowRequest{Namespace: "default", Execution: &orchpb.WorkflowExecution{WorkflowId: id}, Query: &orchpb.WorkflowQuery{QueryType: "status"}}, &r); err != nil {
				t.Error(err)
			}
			done <- &r
		}()
		qt := pollWF(t, iv, tq)
		if qt.GetQuery().GetQueryType() != "status" || len(qt.GetQueries()) != 1 {
			t.Fatalf("query task %v", qt)
		}
		var qid string
		for k := range qt.GetQueries() {
			qid = k
		}
		mustCall(t, iv, "RespondWorkflowTaskCompleted", &orchpb.RespondWorkflowTaskCompletedRequest{Namespace: "default", TaskToken: qt.GetTaskToken(),
			QueryResults: map[string]*orchpb.Payloads{qid: {Payloads: []*orchpb.Payload{{Data: []byte(`"waiting"`)}}}}}, &orchpb.RespondWorkflowTaskCompletedResponse{})
		r := <-done
		if string(r.GetQueryResult().GetPayloads()[0].GetData()) != `"waiting"` {
			t.Fatalf("%s: %v", iv.name, r)
		}
		// No worker: the caller's deadline.
		ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
		err := iv.call(ctx, "QueryWorkflow", &orchpb.QueryWorkflowRequest{Namespace: "default", Execution: &orchpb.WorkflowExecution{WorkflowId: id}, Query: &orchpb.WorkflowQuery{QueryType: "status"}}, &orchpb.QueryWorkflowResponse{})
		cancel()
		if err == nil {
			t.Fatal("query without a worker answered")
		}
		// NOT_OPEN on a closed execution is rejected.
		mustCall(t, iv, "TerminateWorkflowExecution", &orchpb.TerminateWorkflowExecutionRequest{Namespace: "default", WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: id}}, &orchpb.TerminateWorkflowExecutionResponse{})
		var rej orchpb.QueryWorkflowResponse
		mustCall(t, iv, "QueryWorkflow", &orchpb.QueryWorkflowRequest{Namespace: "default", Execution: &orchpb.WorkflowExecution{WorkflowId: id}, Query: &orchpb.WorkflowQuery{QueryType: "status"}, QueryRejectCondition: orchpb.QueryRejectCondition_NOT_OPEN}, &rej)
		if rej.GetQueryRejected().GetStatus() != orchpb.WorkflowExecutionStatus_TERMINATED {
			t.Fatalf("rejected %v", &rej)
		}
	}
}

func TestTimeSkippingEndsAnHourTimerAtOnce(t *testing.T) {
	t.Parallel()
	s := newFake(t, orchfake.WithTimeSkipping())
	iv := transports(t, s)[0]
	req := startReq("default", "sleepy")
	req.TaskQueue = "sleepy"
	mustCall(t, iv, "StartWorkflowExecution", req, &orchpb.StartWorkflowExecutionResponse{})
	wt := pollWF(t, iv, "sleepy")
	complete(t, iv, wt.GetTaskToken(), &orchpb.Command{CommandType: orchpb.CommandType_START_TIMER, Attributes: &orchpb.Command_StartTimerCommandAttributes{
		StartTimerCommandAttributes: &orchpb.StartTimerCommandAttributes{TimerId: "nap", StartToFireTimeout: durationpb.New(time.Hour)}}})
	wt = pollWF(t, iv, "sleepy")
	if got := eventTypes(wt.GetHistory()[4:]); got != "TimerStarted,TimerFired,WorkflowTaskScheduled,WorkflowTaskStarted" {
		t.Fatalf("history %s", got)
	}
	complete(t, iv, wt.GetTaskToken(), completeCmd())
	if now := s.Clock().Now(); !now.Equal(epoch.Add(time.Hour)) {
		t.Fatalf("clock %v", now)
	}
}
