package orch_test

import (
	"context"
	"errors"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// TestErrorsAreTheSameOverBothTransports: every code the server can send
// arrives as the same *Error, with its sentinel and text, whichever
// transport carried it.
func TestErrorsAreTheSameOverBothTransports(t *testing.T) {
	t.Parallel()
	cases := []struct {
		code     string
		sentinel error
		text     string
	}{
		{orch.CodeInvalidArgument, orch.ErrInvalidArgument, "InvalidArgument: boom"},
		{orch.CodeAlreadyExists, orch.ErrAlreadyExists, "AlreadyExists: boom"},
		{orch.CodeNotFound, orch.ErrNotFound, "NotFound: boom"},
		{orch.CodePermissionDenied, orch.ErrPermissionDenied, "PermissionDenied: access denied (boom)"},
		{orch.CodeResourceExhausted, orch.ErrResourceExhausted, "ResourceExhausted: boom (rate limited; retry after 1s; retries are disabled)"},
		{orch.CodeFailedPrecondition, orch.ErrFailedPrecondition, "FailedPrecondition: boom"},
		{orch.CodeAborted, orch.ErrAborted, "Aborted: boom"},
		{orch.CodeOutOfRange, orch.ErrOutOfRange, "OutOfRange: boom"},
		{orch.CodeUnimplemented, orch.ErrUnimplemented, "Unimplemented: boom"},
		{orch.CodeInternal, orch.ErrInternal, "Internal: boom"},
		{orch.CodeUnavailable, orch.ErrUnavailable, "Unavailable: boom (retries are disabled)"},
		{orch.CodeDataLoss, orch.ErrDataLoss, "DataLoss: boom"},
		{orch.CodeUnauthenticated, orch.ErrUnauthenticated, "Unauthenticated: boom"},
		{orch.CodeWorkflowExecutionAlreadyStarted, orch.ErrWorkflowExecutionAlreadyStarted, "WorkflowExecutionAlreadyStarted: boom"},
		{orch.CodeWorkflowExecutionNotFound, orch.ErrWorkflowExecutionNotFound, "WorkflowExecutionNotFound: boom"},
		{orch.CodeWorkflowExecutionCompleted, orch.ErrWorkflowExecutionCompleted, "WorkflowExecutionCompleted: boom"},
		{orch.CodeWorkflowTaskTimeout, orch.ErrWorkflowTaskTimeout, "WorkflowTaskTimeout: boom"},
		{orch.CodeActivityTaskTimeout, orch.ErrActivityTaskTimeout, "ActivityTaskTimeout: boom"},
		{orch.CodeNamespaceNotFound, orch.ErrNamespaceNotFound, "NamespaceNotFound: boom"},
		{orch.CodeTaskQueueNotFound, orch.ErrTaskQueueNotFound, "Task queue not found (boom)"},
	}
	detail := &orchpb.ErrorDetail{Type: "FieldViolation", Field: "workflow_id", Description: "bad"}
	for _, tc := range cases {
		t.Run(tc.code, func(t *testing.T) {
			t.Parallel()
			e := startEcho(t)
			e.setAnswer(func(context.Context, string, proto.Message) (proto.Message, metadata.MD, error) {
				return nil, nil, orchwire.Status(tc.code, "boom", detail).Err()
			})
			for name, c := range echoTransports(t, e, orch.WithoutRetries()) {
				_, err := c.DescribeNamespace(t.Context(), "")
				if !errors.Is(err, tc.sentinel) {
					t.Errorf("%s: %v is not %v", name, err, tc.sentinel)
				}
				if err == nil || err.Error() != tc.text {
					t.Errorf("%s: text %q, want %q", name, err, tc.text)
				}
				var oe *orch.Error
				if !errors.As(err, &oe) {
					t.Fatalf("%s: %T is no *orch.Error", name, err)
				}
				if oe.Code != tc.code || oe.Message != "boom" || oe.Operation != "DescribeNamespace" {
					t.Errorf("%s: %+v", name, oe)
				}
				if diff := cmp.Diff([]*orchpb.ErrorDetail{detail}, oe.Details, protocmp.Transform()); diff != "" {
					t.Errorf("%s: details (-want +got):\n%s", name, diff)
				}
			}
		})
	}
}

func TestNamedErrors(t *testing.T) {
	t.Parallel()
	e := startEcho(t)
	e.setAnswer(func(_ context.Context, full string, _ proto.Message) (proto.Message, metadata.MD, error) {
		switch full {
		case orchpb.WorkflowService_StartWorkflowExecution_FullMethodName:
			return nil, nil, orchwire.Status(orch.CodeWorkflowExecutionAlreadyStarted, "workflow id order-1 is running",
				&orchpb.ErrorDetail{Type: "WorkflowExecutionAlreadyStarted", Field: "run_id", Description: "run-9"}).Err()
		case orchpb.WorkflowService_DescribeTaskQueue_FullMethodName:
			return nil, nil, orchwire.Status(orch.CodeTaskQueueNotFound, orch.TaskQueueNotFoundMessage).Err()
		}
		return nil, nil, orchwire.Status(orch.CodePermissionDenied, "access denied").Err()
	})
	for name, c := range echoTransports(t, e) {
		_, err := c.StartWorkflow(t.Context(), "Order", "orders", nil, &orch.StartWorkflowOptions{ID: "order-1"})
		var started *orch.WorkflowExecutionAlreadyStartedError
		if !errors.As(err, &started) || started.WorkflowID != "order-1" || started.RunID != "run-9" {
			t.Errorf("%s: start: %#v", name, err)
		}
		if !errors.Is(err, orch.ErrWorkflowExecutionAlreadyStarted) || !errors.Is(err, orch.ErrAlreadyExists) {
			t.Errorf("%s: start: %v does not match its sentinels", name, err)
		}
		_, err = c.DescribeTaskQueue(t.Context(), "nobody-polls", nil)
		var bad *orch.BadRequestError
		if !errors.As(err, &bad) || err.Error() != "Task queue not found" || bad.Cause != "no worker polling the queue" {
			t.Errorf("%s: task queue: %v", name, err)
		}
		err = c.CloseShard(t.Context(), 1)
		if err == nil || err.Error() != "PermissionDenied: access denied" {
			t.Errorf("%s: permission: %v", name, err)
		}
	}
}

func TestDeadlineExceeded(t *testing.T) {
	t.Parallel()
	e := startEcho(t)
	e.setAnswer(func(ctx context.Context, _ string, _ proto.Message) (proto.Message, metadata.MD, error) {
		<-ctx.Done() // the server gives up when the caller's deadline passes
		return nil, nil, ctx.Err()
	})
	for name, c := range echoTransports(t, e) {
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
		_, err := c.DescribeCluster(ctx)
		cancel()
		if err == nil || err.Error() != "DeadlineExceeded: context deadline exceeded" {
			t.Errorf("%s: %v", name, err)
		}
		if !errors.Is(err, orch.ErrDeadlineExceeded) || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: %v does not match the deadline sentinels", name, err)
		}
	}
}

// TestResourceExhaustedIsRetriedAfterRetryAfter: the wait is the detail's
// retry_after, taken on the client's clock, and bounded by the policy.
func TestResourceExhaustedIsRetriedAfterRetryAfter(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"grpc", "http"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := startEcho(t)
			clk := clock.NewFake(time.Unix(1_800_000_000, 0))
			clk.SetAutoAdvance(false)
			var calls atomic.Int32
			arrived := make(chan struct{}, 3)
			e.setAnswer(func(context.Context, string, proto.Message) (proto.Message, metadata.MD, error) {
				arrived <- struct{}{}
				md := metadata.Pairs("x-ratelimit-limit", "2", "x-ratelimit-remaining", "0", "x-ratelimit-scope", "namespace:default",
					"x-ratelimit-reset", strconv.FormatInt(clk.Now().Add(time.Minute).Unix(), 10))
				if calls.Add(1) <= 2 {
					return nil, md, orchwire.Status(orch.CodeResourceExhausted, "rate limit exceeded",
						&orchpb.ErrorDetail{Type: "RateLimitExceeded", Scope: "namespace:default", Limit: 2, Window: "1m", RetryAfter: 7}).Err()
				}
				md.Set("x-ratelimit-remaining", "1")
				return &orchpb.StartWorkflowExecutionResponse{RunId: "r1", Started: true}, md, nil
			})
			c := echoTransports(t, e, orch.WithClock(clk))[name]
			done := make(chan error, 1)
			var run *orch.WorkflowRun
			go func() {
				var err error
				run, err = c.StartWorkflow(t.Context(), "Order", "orders", map[string]int{"n": 1}, nil)
				done <- err
			}()
			for range 2 {
				<-arrived // the refused call; its sleeper comes next
				if err := clk.WaitForSleepers(t.Context(), 1); err != nil {
					t.Fatal(err)
				}
				next, _ := clk.Next()
				if wait := next.Sub(clk.Now()); wait != 7*time.Second {
					t.Errorf("retry wait %v, want the detail's 7s", wait)
				}
				clk.Advance(7 * time.Second)
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if run.RunID != "r1" || calls.Load() != 3 {
				t.Errorf("run %+v after %d calls", run, calls.Load())
			}
			got, _ := e.request(orchpb.WorkflowService_StartWorkflowExecution_FullMethodName)
			if concrete(t, got).(*orchpb.StartWorkflowExecutionRequest).GetRequestId() == "" {
				t.Error("the start carried no request id, so repeating it was not safe")
			}
			rl := c.RateLimit()
			if rl.Limit != 2 || rl.Remaining != 1 || rl.Scope != "namespace:default" || rl.Reset.IsZero() {
				t.Errorf("rate limit %+v", rl)
			}
		})
	}
}

func TestResourceExhaustedGivesUp(t *testing.T) {
	t.Parallel()
	e := startEcho(t)
	e.setAnswer(func(context.Context, string, proto.Message) (proto.Message, metadata.MD, error) {
		return nil, nil, orchwire.Status(orch.CodeResourceExhausted, "rate limit exceeded",
			&orchpb.ErrorDetail{Type: "RateLimitExceeded", Scope: "cluster", Limit: 10000, Window: "1m", RetryAfter: 600}).Err()
	})
	for name, c := range echoTransports(t, e) {
		_, err := c.DescribeCluster(t.Context())
		var oe *orch.Error
		if !errors.As(err, &oe) || !errors.Is(err, orch.ErrRateLimited) {
			t.Fatalf("%s: %v", name, err)
		}
		want := &orch.RateLimitExceeded{Scope: "cluster", Limit: 10000, Window: "1m", RetryAfter: 10 * time.Minute}
		if diff := cmp.Diff(want, oe.RateLimitExceeded); diff != "" || oe.Retries != 0 || oe.GaveUp == "" {
			t.Errorf("%s: %+v (-want +got):\n%s", name, oe, diff)
		}
	}
}

// TestUnavailableIsRetriedOnlyWhenHarmless: a read is sent again after
// UNAVAILABLE; a terminate (not idempotent) is not.
func TestUnavailableIsRetriedOnlyWhenHarmless(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"grpc", "http"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := startEcho(t)
			var calls atomic.Int32
			e.setAnswer(func(_ context.Context, full string, _ proto.Message) (proto.Message, metadata.MD, error) {
				if calls.Add(1) == 1 {
					return nil, nil, orchwire.Status(orch.CodeUnavailable, "try again").Err()
				}
				return nil, nil, nil
			})
			clk := clock.NewFake(time.Unix(1_800_000_000, 0)) // sleeps advance it
			c := echoTransports(t, e, orch.WithClock(clk))[name]
			if _, err := c.DescribeCluster(t.Context()); err != nil || calls.Load() != 2 {
				t.Errorf("read: %v after %d calls", err, calls.Load())
			}
			calls.Store(0)
			err := c.TerminateWorkflow(t.Context(), "wf", "", nil)
			if !errors.Is(err, orch.ErrUnavailable) || calls.Load() != 1 {
				t.Errorf("terminate: %v after %d calls", err, calls.Load())
			}
		})
	}
}
