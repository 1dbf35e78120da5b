package orch_test

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apitwin/apitwin/apicall"
	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/orch"
)

// TestRateLimitReachedAndRecovered: the namespace's start limit is reached;
// the client waits the retry_after the fake asked for, on the fake clock
// (whose window then resets), and the start succeeds; the rate-limit values
// of the last answer are readable.
func TestRateLimitReachedAndRecovered(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		srv := e.fake(t)
		c := e.client(t)
		start := srv.Clock().Now()
		for range 2 {
			if _, err := c.StartWorkflow(t.Context(), "W", "q", nil, nil); err != nil {
				t.Fatal(err)
			}
		}
		rl := c.RateLimit()
		if rl.Limit != 2 || rl.Remaining != 0 || rl.Scope != "namespace:default" || rl.Reset.IsZero() {
			t.Errorf("after two starts: %+v", rl)
		}
		// Without retries the refusal comes back with its details.
		_, err := e.client(t, orch.WithoutRetries()).StartWorkflow(t.Context(), "W", "q", nil, nil)
		var oe *orch.Error
		if !errors.As(err, &oe) || !errors.Is(err, orch.ErrRateLimited) || oe.RateLimitExceeded == nil {
			t.Fatalf("third start without retries: %v", err)
		}
		d := oe.RateLimitExceeded
		if d.Scope != "namespace:default" || d.Limit != 2 || d.Window != "1m" || d.RetryAfter <= 0 || d.RetryAfter > time.Minute {
			t.Errorf("detail %+v", d)
		}
		// With retries, the client waits (on the fake clock) and gets in.
		run, err := c.StartWorkflow(t.Context(), "W", "q", nil, nil)
		if err != nil {
			t.Fatalf("third start with retries: %v", err)
		}
		if waited := srv.Clock().Now().Sub(start); waited < d.RetryAfter {
			t.Errorf("the clock moved %v, less than the %v asked for", waited, d.RetryAfter)
		}
		if len(srv.RequestsTo("StartWorkflowExecution")) != 5 {
			t.Errorf("%d starts reached the fake, want 5", len(srv.RequestsTo("StartWorkflowExecution")))
		}
		if n, err := c.CountWorkflows(t.Context(), ""); err != nil || n != 3 || run.RunID == "" {
			t.Errorf("%d executions, %v: the retried start ran twice or not at all", n, err)
		}
	}, orchfake.WithLimits(orchfake.Limits{NamespaceStartsPerMinute: 2}))
}

func TestClientLimits(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		srv := e.fake(t)
		c := e.client(t, orch.WithClientLimits(orch.ClientLimits{RequestsPerSecond: 5}))
		start := srv.Clock().Now()
		for range 15 {
			if _, err := c.DescribeCluster(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
		// 5 at once, then 5 a second: the 15th call goes out 2 s later.
		if waited := srv.Clock().Now().Sub(start); waited < 2*time.Second-time.Millisecond || waited > 2*time.Second+time.Millisecond {
			t.Errorf("15 calls at 5/s took %v on the clock, want 2s", waited)
		}
	})
}

func TestClientLimitOptionsValidate(t *testing.T) {
	t.Parallel()
	for _, l := range []orch.ClientLimits{{RequestsPerSecond: -2}, {ConcurrentLongPolls: -5}, {HeartbeatsPerMinute: -3}} {
		if _, err := orch.NewHTTP("http://127.0.0.1:1", orch.WithClientLimits(l)); err == nil {
			t.Errorf("%+v accepted", l)
		}
	}
	if _, err := orch.NewHTTP("http://127.0.0.1:1", orch.WithClientLimits(orch.ClientLimits{RequestsPerSecond: orch.Unlimited, ConcurrentLongPolls: orch.Unlimited, HeartbeatsPerMinute: orch.Unlimited})); err != nil {
		t.Errorf("Unlimited refused: %v", err)
	}
}

// Two calls in flight at once each read the rate limit of their own answer
// (apicall.Capture), over both transports: a start counts against its
// namespace, a cluster read against the cluster.
func TestConcurrentCallsReadTheirOwnRateLimit(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		c := e.client(t)
		var start, cluster apicall.Info
		var wg sync.WaitGroup
		wg.Go(func() {
			if _, err := c.StartWorkflow(apicall.Capture(t.Context(), &start), "W", uid("q"), nil, nil); err != nil {
				t.Error(err)
			}
		})
		wg.Go(func() {
			if _, err := c.DescribeCluster(apicall.Capture(t.Context(), &cluster)); err != nil {
				t.Error(err)
			}
		})
		wg.Wait()
		if start.StatusCode != 200 || !strings.HasPrefix(start.RateLimit.Scope, "namespace:") || start.RateLimit.Limit == 0 {
			t.Errorf("start read %+v", start.RateLimit)
		}
		if cluster.StatusCode != 200 || cluster.RateLimit.Scope != "cluster" || cluster.RateLimit.Limit == 0 {
			t.Errorf("cluster read %+v", cluster.RateLimit)
		}
	})
}

// Each page of a list carries the rate limit of its own answer.
func TestPagesCarryTheirRateLimit(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		c := e.client(t)
		var res apicall.Info
		page, err := c.ListNamespaces(apicall.Capture(t.Context(), &res), nil)
		if err != nil {
			t.Fatal(err)
		}
		if page.RateLimit.Limit == 0 || page.RateLimit != res.RateLimit || res.StatusCode != 200 {
			t.Errorf("page %+v, call %+v", page.RateLimit, res)
		}
	})
}
