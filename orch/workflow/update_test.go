package workflow_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
	"github.com/apitwin/apitwin/orch/workflow"
)

// cart takes "add" updates (a positive amount; the handler refuses more
// than 50 at once) until its total reaches 10, and "total" updates with
// no argument; it returns the total.
func cart(ctx workflow.Context, _ struct{}) (int, error) {
	total := 0
	workflow.SetUpdateHandlerWithArg(ctx, "add", func(ctx workflow.Context, n int) (any, error) {
		if n > 50 {
			return nil, errors.New("too much at once")
		}
		if err := workflow.Sleep(ctx, 0); err != nil { // a handler is workflow code: it may block
			return nil, err
		}
		total += n
		return total, nil
	}, func(n int) error {
		if n <= 0 {
			return fmt.Errorf("amount %d is not positive", n)
		}
		return nil
	})
	workflow.SetUpdateHandler(ctx, "total", func(workflow.Context) (any, error) { return total, nil }, nil)
	if err := workflow.Await(ctx, func() bool { return total >= 10 }); err != nil {
		return 0, err
	}
	return total, nil
}

// clients are a client of each transport of srv.
func clients(t *testing.T, srv *orchfake.Server) map[string]*orch.Client {
	t.Helper()
	g, err := orch.Dial(srv.GRPCAddr(), orch.WithInsecure())
	if err != nil {
		t.Fatal(err)
	}
	h, err := orch.NewHTTP(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = g.Close(), h.Close() })
	return map[string]*orch.Client{"grpc": g, "http": h}
}

func startWorker(t *testing.T, c *orch.Client, queue string, opts *orch.WorkerOptions, register func(w *orch.Worker) error) {
	t.Helper()
	w, err := orch.NewWorker(c, queue, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := register(w); err != nil {
		t.Fatal(err)
	}
	if err := w.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
}

func updateResult(t *testing.T, u *orch.WorkflowUpdate, err error) (int, error) {
	t.Helper()
	if err != nil {
		return 0, err
	}
	var n int
	err = u.Get(t.Context(), &n)
	return n, err
}

// Updates through the whole stack, over both transports and with and
// without the worker's cache (so that runs are also replayed from their
// history): accepted and answered, rejected by the validator (nothing
// recorded), failed by the handler (recorded), retried under the same id
// (never run twice), unknown, and refused once the run closed.
func TestUpdateHandlers(t *testing.T) {
	t.Parallel()
	srv := orchfake.Start(t)
	for tr, c := range clients(t, srv) {
		for _, cache := range []int{0, -1} {
			t.Run(fmt.Sprintf("%s/cache%d", tr, cache), func(t *testing.T) {
				t.Parallel()
				queue := fmt.Sprintf("cart-%s%d", tr, cache)
				startWorker(t, c, queue, &orch.WorkerOptions{WorkflowCacheSize: cache}, func(w *orch.Worker) error { return workflow.Register(w, "Cart", cart) })
				run, err := c.StartWorkflow(t.Context(), "Cart", queue, nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				add := func(n int, opts *orch.UpdateOptions) (int, error) {
					u, err := run.Update(t.Context(), "add", n, opts)
					return updateResult(t, u, err)
				}
				if got, err := add(3, &orch.UpdateOptions{UpdateID: "first"}); err != nil || got != 3 {
					t.Fatalf("add 3: %d, %v", got, err)
				}
				if got, err := add(3, &orch.UpdateOptions{UpdateID: "first"}); err != nil || got != 3 {
					t.Fatalf("add 3 again under its id: %d, %v (want the first outcome)", got, err)
				}
				var failed *orch.UpdateFailedError
				if _, err := add(-1, nil); !errors.As(err, &failed) || !strings.Contains(err.Error(), "amount -1 is not positive") {
					t.Fatalf("rejected update: %v", err)
				}
				if _, err := add(100, nil); !errors.As(err, &failed) || failed.Failure.GetMessage() != "too much at once" {
					t.Fatalf("failed update: %v", err)
				}
				u, err := run.Update(t.Context(), "remove", 1, nil)
				if _, err := updateResult(t, u, err); !errors.As(err, &failed) || !strings.Contains(err.Error(), `unknown update "remove"`) {
					t.Fatalf("unknown update: %v", err)
				}
				u, err = run.Update(t.Context(), "total", nil, &orch.UpdateOptions{WaitForStage: orch.UpdateAccepted})
				if err != nil || u.Stage < orch.UpdateAccepted {
					t.Fatalf("total, waiting for accepted: %v, %v", u, err)
				}
				if got, err := updateResult(t, u, nil); err != nil || got != 3 {
					t.Fatalf("total: %d, %v", got, err)
				}
				if got, err := add(7, nil); err != nil || got != 10 {
					t.Fatalf("add 7: %d, %v", got, err)
				}
				var total int
				if err := run.Get(t.Context(), &total); err != nil || total != 10 {
					t.Fatalf("result %d, %v", total, err)
				}
				if _, err := add(1, nil); !errors.Is(err, orch.ErrWorkflowExecutionCompleted) {
					t.Fatalf("update of a closed run: %v", err)
				}
				var accepted, completed, rejected int
				for ev, err := range run.History(t.Context(), nil) {
					if err != nil {
						t.Fatal(err)
					}
					switch ev.GetEventType() {
					case orchpb.EventType_WorkflowExecutionUpdateAccepted:
						accepted++
					case orchpb.EventType_WorkflowExecutionUpdateCompleted:
						completed++
					case orchpb.EventType_WorkflowExecutionUpdateRejected:
						rejected++
					}
				}
				// first, 100 (failed in its handler), total, 7; the
				// rejected ones leave nothing.
				if accepted != 4 || completed != 4 || rejected != 0 {
					t.Fatalf("history: %d accepted, %d completed, %d rejected", accepted, completed, rejected)
				}
				if err := workflow.ReplayRun(t.Context(), c, run.ID, run.RunID, cart); err != nil {
					t.Fatalf("replay: %v", err)
				}
			})
		}
	}
}

// Update-with-start starts the run its update goes to, or finds it.
func TestUpdateWithStart(t *testing.T) {
	t.Parallel()
	srv := orchfake.Start(t)
	for tr, c := range clients(t, srv) {
		t.Run(tr, func(t *testing.T) {
			t.Parallel()
			queue := "uws-" + tr
			startWorker(t, c, queue, nil, func(w *orch.Worker) error { return workflow.Register(w, "Cart", cart) })
			u, err := c.UpdateWithStartWorkflow(t.Context(), "cart-"+tr, "add", 4, "Cart", queue, nil, nil, nil)
			if got, gerr := updateResult(t, u, err); gerr != nil || got != 4 || !u.Run.Started {
				t.Fatalf("first: %d, %v (%+v)", got, gerr, u)
			}
			u2, err := c.UpdateWithStartWorkflow(t.Context(), "cart-"+tr, "add", 6, "Cart", queue, nil, nil, nil)
			if got, gerr := updateResult(t, u2, err); gerr != nil || got != 10 || u2.Run.Started || u2.RunID != u.RunID {
				t.Fatalf("second: %d, %v (%+v)", got, gerr, u2)
			}
			var total int
			if err := u.Run.Get(t.Context(), &total); err != nil || total != 10 {
				t.Fatalf("result %d, %v", total, err)
			}
			// Each answer already reached the stage asked for: no update
			// was sent again (one was, after every update-with-start).
			for _, r := range srv.RequestsTo("UpdateWorkflowExecution") {
				if strings.Contains(r.Path, "cart-"+tr) || strings.Contains(string(r.Body), "cart-"+tr) {
					t.Fatalf("an update was sent again: %s %s", r.Path, r.Body)
				}
			}
		})
	}
}

// A workflow that does not take updates (a Decide of its own) has them
// rejected by the worker, which answers every request the task carries.
func TestUpdateOfAWorkflowWithoutHandlers(t *testing.T) {
	t.Parallel()
	srv := orchfake.Start(t)
	c := srv.Client()
	t.Cleanup(func() { _ = c.Close() })
	startWorker(t, c, "plain", nil, func(w *orch.Worker) error {
		return w.RegisterWorkflow("Plain", orch.Workflow{Decide: func(context.Context, *orch.WorkflowTask) ([]*orchpb.Command, error) { return nil, nil }})
	})
	run, err := c.StartWorkflow(t.Context(), "Plain", "plain", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	u, err := run.Update(t.Context(), "anything", nil, nil)
	var failed *orch.UpdateFailedError
	if _, err := updateResult(t, u, err); !errors.As(err, &failed) || failed.Failure.GetApplicationFailureInfo().GetType() != "UpdateNotHandled" {
		t.Fatalf("update: %v", err)
	}
}

// BenchmarkUpdateWorkflow is one update's round trip, through the client,
// the fake (in memory) and a worker running the workflow's handler, waiting
// for its result.
func BenchmarkUpdateWorkflow(b *testing.B) {
	srv, err := orchfake.New()
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	c := srv.Client(orch.WithClientLimits(orch.ClientLimits{RequestsPerSecond: orch.Unlimited}))
	defer c.Close()
	w, err := orch.NewWorker(c, "bench-updates", nil)
	if err != nil {
		b.Fatal(err)
	}
	count := func(ctx workflow.Context, _ struct{}) (int, error) {
		n := 0
		workflow.SetUpdateHandler(ctx, "inc", func(workflow.Context) (any, error) { n++; return n, nil }, nil)
		err := workflow.Await(ctx, func() bool { return false })
		return n, err
	}
	if err := workflow.Register(w, "Count", count); err != nil {
		b.Fatal(err)
	}
	if err := w.Start(b.Context()); err != nil {
		b.Fatal(err)
	}
	defer w.Stop()
	run, err := c.StartWorkflow(b.Context(), "Count", "bench-updates", nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		u, err := run.Update(b.Context(), "inc", nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := u.Get(b.Context(), nil); err != nil {
			b.Fatal(err)
		}
	}
}
