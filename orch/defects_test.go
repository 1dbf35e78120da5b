package orch_test

// Regression tests of issue 17's client-side defects, over both transports.

import (
	"errors"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/orch"
)

// A workflow id with "/" (and other reserved characters) works over HTTP as
// over gRPC: the client escapes it into one path segment.
func TestWorkflowIDWithReservedCharacters(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		c := e.client(t)
		id := uid("orders/2026/04") + "?a=b#c%20d"
		run, err := c.StartWorkflow(t.Context(), "W", "q", nil, &orch.StartWorkflowOptions{ID: id})
		if err != nil {
			t.Fatal(err)
		}
		info, err := c.DescribeWorkflow(t.Context(), id, "")
		if err != nil || info.GetExecution().GetWorkflowId() != id {
			t.Fatalf("describe: %v, %v", info.GetExecution(), err)
		}
		if err := run.Signal(t.Context(), "go", nil, nil); err != nil {
			t.Fatal(err)
		}
		if err := run.Terminate(t.Context(), nil); err != nil {
			t.Fatal(err)
		}
	})
}

// A RESOURCE_EXHAUSTED that is not a rate refusal (a message too large:
// 413 over HTTP, gRPC's size limit) is answered at once, never retried.
func TestMessageTooLargeIsNotRetried(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		srv := e.fake(t)
		c := e.client(t)
		before := srv.Clock().Now()
		_, err := c.StartWorkflow(t.Context(), "W", "q", strings.Repeat("x", 100<<10), nil)
		var oe *orch.Error
		if !errors.As(err, &oe) || oe.Code != orch.CodeResourceExhausted {
			t.Fatalf("err %v, want RESOURCE_EXHAUSTED", err)
		}
		if oe.Retries != 0 || !srv.Clock().Now().Equal(before) {
			t.Errorf("retried %d times, the clock moved %v", oe.Retries, srv.Clock().Now().Sub(before))
		}
		if n := len(srv.RequestsTo("StartWorkflowExecution")); n > 1 {
			t.Errorf("the fake got the start %d times", n)
		}
	}, control.WithMaxBody(64<<10))
}

// A stopped worker's polls are ended by the service (ShutdownWorker), not
// cancelled on the way, so no task handed to them is lost; workflows
// started around a stop and a restart all complete without the clock
// moving (a lost workflow task would wait for its 10 s timeout).
func TestWorkerRestartLosesNoTask(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		srv := e.fake(t)
		c := e.client(t, orch.WithClientLimits(orch.ClientLimits{RequestsPerSecond: orch.Unlimited}))
		q := uid("restart")
		newWorker := func() *orch.Worker {
			w, err := orch.NewWorker(c, q, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.RegisterWorkflow("Done", orch.Sequence()); err != nil {
				t.Fatal(err)
			}
			if err := w.Start(t.Context()); err != nil {
				t.Fatal(err)
			}
			return w
		}
		before := srv.Clock().Now()
		var runs []*orch.WorkflowRun
		for range 5 {
			w := newWorker()
			for range 10 {
				run, err := c.StartWorkflow(t.Context(), "Done", q, nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				runs = append(runs, run)
			}
			w.Stop()
		}
		w := newWorker()
		defer w.Stop()
		for _, run := range runs {
			if err := run.Get(t.Context(), nil); err != nil {
				t.Fatal(err)
			}
		}
		if !srv.Clock().Now().Equal(before) {
			t.Errorf("the clock moved %v: a task waited for its timeout", srv.Clock().Now().Sub(before))
		}
		for _, r := range srv.RequestsTo("PollWorkflowTaskQueue") {
			if r.Code == "CANCELLED" || r.Status == 499 {
				t.Fatalf("a poll was cancelled: %v", r)
			}
		}
	}, orchfake.WithoutLimits())
}
