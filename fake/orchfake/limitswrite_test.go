package orchfake_test

import (
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/protobuf/proto"
)

// wantRateRefusal wants RESOURCE_EXHAUSTED with the spec's detail for
// namespace default and limit.
func wantRateRefusal(t *testing.T, err error, limit int32) {
	t.Helper()
	ae := wantCode(t, err, "RESOURCE_EXHAUSTED")
	if len(ae.Details) != 1 {
		t.Fatalf("details %v", ae.Details)
	}
	d := ae.Details[0]
	if d.GetType() != "RateLimitExceeded" || d.GetScope() != "namespace:default" || d.GetLimit() != limit || d.GetWindow() != "1m" || d.GetRetryAfter() <= 0 {
		t.Errorf("detail %v", d)
	}
}

// TestActivityLimitRefusesTheTask: a workflow task whose commands would
// schedule more activities than the namespace has left this minute is
// refused whole (RESOURCE_EXHAUSTED, nothing written); the same task
// completes with fewer; once the minute is over (the task, unanswered,
// timed out meanwhile and is retried) the rest pass.
func TestActivityLimitRefusesTheTask(t *testing.T) {
	t.Parallel()
	eachFake(t, []orchfake.Option{orchfake.WithLimits(orchfake.Limits{NamespaceActivitiesPerMinute: 2})}, func(t *testing.T, s *orchfake.Server, iv *invoker) {
		id := "acts-" + iv.name
		startOn(t, iv, id, id)
		tok := pollWF(t, iv, id).GetTaskToken()
		three := []*orchpb.Command{scheduleCmd("a", nil), scheduleCmd("b", nil), scheduleCmd("c", nil)}
		err := iv.call(t.Context(), "RespondWorkflowTaskCompleted", &orchpb.RespondWorkflowTaskCompletedRequest{Namespace: "default", TaskToken: tok, Commands: three},
			&orchpb.RespondWorkflowTaskCompletedResponse{})
		wantRateRefusal(t, err, 2)
		if got := typesOf(historyOf(t, iv, id)); got != "WorkflowExecutionStarted WorkflowTaskScheduled WorkflowTaskStarted" {
			t.Fatalf("after the refusal: %s", got)
		}
		complete(t, iv, tok, three[:2]...)

		startOn(t, iv, id+"-more", id+"-more")
		more := pollWF(t, iv, id+"-more")
		err = iv.call(t.Context(), "RespondWorkflowTaskCompleted", &orchpb.RespondWorkflowTaskCompletedRequest{Namespace: "default", TaskToken: more.GetTaskToken(),
			Commands: three[2:]}, &orchpb.RespondWorkflowTaskCompletedResponse{})
		wantRateRefusal(t, err, 2)
		s.Clock().Advance(time.Minute)
		retry := pollWF(t, iv, id+"-more") // the unanswered task timed out: its next attempt
		if retry.GetAttempt() != 2 {
			t.Errorf("attempt %d", retry.GetAttempt())
		}
		complete(t, iv, retry.GetTaskToken(), three[2:]...)
	})
}

// TestHistoryEventLimitOnEveryWrite: while the namespace's history events
// of the minute are used up, every write is refused, not only starts:
// signal, cancel request, terminate, a workflow or activity task's answer
// (also by id); reads pass;
// the next minute the writes pass again.
func TestHistoryEventLimitOnEveryWrite(t *testing.T) {
	t.Parallel()
	eachFake(t, []orchfake.Option{orchfake.WithLimits(orchfake.Limits{NamespaceHistoryEventsPerMinute: 3})}, func(t *testing.T, s *orchfake.Server, iv *invoker) {
		// A start writes 2 events, a poll 1: the window of 3 is full.
		id := "events-" + iv.name
		startOn(t, iv, id, id)
		tok := pollWF(t, iv, id).GetTaskToken()
		we := &orchpb.WorkflowExecution{WorkflowId: id}
		writes := []struct {
			method string
			req    proto.Message
		}{
			{"SignalWorkflowExecution", &orchpb.SignalWorkflowExecutionRequest{Namespace: "default", WorkflowExecution: we, SignalName: "s"}},
			{"RequestCancelWorkflowExecution", &orchpb.RequestCancelWorkflowExecutionRequest{Namespace: "default", WorkflowExecution: we}},
			{"TerminateWorkflowExecution", &orchpb.TerminateWorkflowExecutionRequest{Namespace: "default", WorkflowExecution: we}},
			{"RespondWorkflowTaskCompleted", &orchpb.RespondWorkflowTaskCompletedRequest{Namespace: "default", TaskToken: tok}},
			// An activity's answers, from its worker or from outside: each
			// writes ActivityTask* events (these four were let through).
			{"RespondActivityTaskCanceled", &orchpb.RespondActivityTaskCanceledRequest{Namespace: "default", TaskToken: tok}},
			{"RespondActivityTaskCompletedById", &orchpb.RespondActivityTaskCompletedByIdRequest{Namespace: "default", WorkflowId: id, ActivityId: "a"}},
			{"RespondActivityTaskFailedById", &orchpb.RespondActivityTaskFailedByIdRequest{Namespace: "default", WorkflowId: id, ActivityId: "a"}},
			{"RespondActivityTaskCanceledById", &orchpb.RespondActivityTaskCanceledByIdRequest{Namespace: "default", WorkflowId: id, ActivityId: "a"}},
			{"StartWorkflowExecution", startReq("default", id+"-2")},
		}
		for _, w := range writes {
			err := iv.call(t.Context(), w.method, w.req, respFor(w.method))
			if err == nil {
				t.Errorf("%s passed a full window", w.method)
				continue
			}
			wantRateRefusal(t, err, 3)
		}
		if got := typesOf(historyOf(t, iv, id)); got != "WorkflowExecutionStarted WorkflowTaskScheduled WorkflowTaskStarted" {
			t.Fatalf("after the refusals: %s", got)
		}
		s.Clock().Advance(time.Minute)
		mustCall(t, iv, "SignalWorkflowExecution", writes[0].req, respFor("SignalWorkflowExecution"))
	})
}
