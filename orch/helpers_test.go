package orch_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
)

var epoch = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// env is one transport of the behaviour suite: against a fake of its own,
// or, when ORCH_TEST_GRPC_ADDR / ORCH_TEST_HTTP_URL are set, against a real
// server (ORCH_TEST_TOKEN authenticates, ORCH_TEST_NAMESPACE picks the
// namespace, ORCH_TEST_GRPC_INSECURE=1 dials in plaintext). Tests that need
// the fake's controls skip against a real server.
type env struct {
	transport string // "grpc" or "http"
	srv       *orchfake.Server
	target    string
}

// each runs body over both transports, in parallel, each against a new fake
// started with fakeOpts (or against the real server of the environment).
func each(t *testing.T, body func(t *testing.T, e *env), fakeOpts ...orchfake.Option) {
	t.Helper()
	real := map[string]string{"grpc": os.Getenv("ORCH_TEST_GRPC_ADDR"), "http": os.Getenv("ORCH_TEST_HTTP_URL")}
	useReal := real["grpc"] != "" || real["http"] != ""
	for _, tr := range []string{"grpc", "http"} {
		t.Run(tr, func(t *testing.T) {
			t.Parallel()
			e := &env{transport: tr}
			if useReal {
				if real[tr] == "" {
					t.Skipf("ORCH_TEST_%s not set", map[string]string{"grpc": "GRPC_ADDR", "http": "HTTP_URL"}[tr])
				}
				e.target = real[tr]
			} else {
				e.srv = orchfake.Start(t, append([]orchfake.Option{control.WithClock(clock.NewFake(epoch))}, fakeOpts...)...)
			}
			body(t, e)
		})
	}
}

// fake returns the fake, skipping the test against a real server.
func (e *env) fake(t *testing.T) *orchfake.Server {
	t.Helper()
	if e.srv == nil {
		t.Skip("needs the fake's controls")
	}
	return e.srv
}

// client returns a client of the transport; against the fake it shares the
// fake's clock and, when the fake has auth on, carries no token unless opts
// give one.
func (e *env) client(t testing.TB, opts ...orch.Option) *orch.Client {
	t.Helper()
	var base []orch.Option
	if e.srv != nil {
		base = append(base, orch.WithClock(e.srv.Clock()))
	} else {
		if tok := os.Getenv("ORCH_TEST_TOKEN"); tok != "" {
			base = append(base, orch.WithToken(tok))
		}
		if ns := os.Getenv("ORCH_TEST_NAMESPACE"); ns != "" {
			base = append(base, orch.WithNamespace(ns))
		}
	}
	opts = append(base, opts...)
	var c *orch.Client
	var err error
	switch {
	case e.transport == "grpc" && e.srv != nil:
		c, err = orch.Dial(e.srv.GRPCAddr(), append([]orch.Option{orch.WithInsecure()}, opts...)...)
	case e.transport == "grpc":
		if os.Getenv("ORCH_TEST_GRPC_INSECURE") == "1" {
			opts = append([]orch.Option{orch.WithInsecure()}, opts...)
		}
		c, err = orch.Dial(e.target, opts...)
	case e.srv != nil:
		c, err = orch.NewHTTP(e.srv.URL(), opts...)
	default:
		c, err = orch.NewHTTP(e.target, opts...)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// uid is a unique name, so tests against a shared real server do not meet.
func uid(prefix string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return prefix + "-" + hex.EncodeToString(b[:])
}

// completeNextTask plays a worker by hand: it polls taskQueue for a
// workflow task and completes the workflow with result.
func completeNextTask(t *testing.T, c *orch.Client, taskQueue string, result any) {
	t.Helper()
	task, err := c.Raw().PollWorkflowTaskQueue(t.Context(), &orchpb.PollWorkflowTaskQueueRequest{TaskQueue: taskQueue, Identity: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if len(task.GetTaskToken()) == 0 {
		t.Fatal("no workflow task")
	}
	payloads, err := orch.EncodePayloads(result)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Raw().RespondWorkflowTaskCompleted(t.Context(), &orchpb.RespondWorkflowTaskCompletedRequest{
		TaskToken: task.GetTaskToken(),
		Commands: []*orchpb.Command{{
			CommandType: orchpb.CommandType_COMPLETE_WORKFLOW_EXECUTION,
			Attributes: &orchpb.Command_CompleteWorkflowExecutionCommandAttributes{
				CompleteWorkflowExecutionCommandAttributes: &orchpb.CompleteWorkflowExecutionCommandAttributes{Result: payloads},
			},
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
}

func eventTypes(t *testing.T, c *orch.Client, workflowID, runID string) []orchpb.EventType {
	t.Helper()
	var out []orchpb.EventType
	for ev, err := range c.History(t.Context(), workflowID, runID, nil) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ev.GetEventType())
	}
	return out
}

// emptyPoll runs poll, which must find no task, to its end: against the
// fake, by moving its clock past the poll's longest wait once the poll
// waits (never a wall-clock deadline); against a real server, with a short
// deadline.
func emptyPoll[T any](t *testing.T, e *env, poll func(ctx context.Context) (T, error)) (T, error) {
	t.Helper()
	if e.srv == nil {
		return poll(shortCtx(t, 300*time.Millisecond))
	}
	clk := e.srv.Clock()
	before := clk.Pending()
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := poll(t.Context())
		done <- result{v, err}
	}()
	if err := clk.WaitForTimers(t.Context(), before+1); err != nil {
		t.Fatal(err)
	}
	clk.Advance(orchfake.MaxPollWait)
	r := <-done
	return r.v, r.err
}

func shortCtx(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), d)
	t.Cleanup(cancel)
	return ctx
}
