package retry_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/retry"
)

// The rules every client follows, in one table: which failures are sent
// again, after how long, and why not.
func TestNext(t *testing.T) {
	t.Parallel()
	def, err := retry.Policy{}.WithDefaults()
	if err != nil {
		t.Fatal(err)
	}
	short, _ := retry.Policy{MaxRetries: 5, MinWait: 2 * time.Second, MaxWait: 5 * time.Second}.WithDefaults()
	off, _ := retry.Policy{Disabled: true}.WithDefaults()
	for _, tc := range []struct {
		name    string
		p       retry.Policy
		retries int
		f       retry.Failure
		wait    time.Duration
		ok      bool
		why     string
	}{
		{"not a failure to retry", def, 0, retry.Failure{}, 0, false, ""},
		{"429 of a POST: sent again", def, 0, retry.Failure{Throttled: true}, time.Second, true, ""},
		{"429 honours the server's wait", def, 0, retry.Failure{Throttled: true, ServerWait: 7 * time.Second}, 7 * time.Second, true, ""},
		{"a server's shorter wait does not shorten the backoff", def, 2, retry.Failure{Throttled: true, ServerWait: time.Second}, 4 * time.Second, true, ""},
		{"a server's longer wait wins over the backoff", def, 1, retry.Failure{Throttled: true, ServerWait: 3 * time.Second}, 3 * time.Second, true, ""},
		{"backoff doubles", def, 2, retry.Failure{Throttled: true}, 4 * time.Second, true, ""},
		{"backoff capped at MaxWait", short, 4, retry.Failure{Throttled: true}, 5 * time.Second, true, ""},
		{"5xx of a GET", def, 0, retry.Failure{Transient: true, Safe: true}, time.Second, true, ""},
		{"5xx of a POST: never twice by surprise", def, 0, retry.Failure{Transient: true}, 0, false,
			"not retried: the call is not idempotent, and sending it again could do it twice"},
		{"a connection never made, POST", def, 1, retry.Failure{Transient: true, Safe: true}, 2 * time.Second, true, ""},
		{"a bad certificate", def, 0, retry.Failure{Transient: true, Safe: true, Permanent: true}, 0, false, ""},
		{"retries spent", def, 3, retry.Failure{Throttled: true}, 8 * time.Second, false, "gave up after 3 retries"},
		{"disabled", off, 0, retry.Failure{Throttled: true}, time.Second, false, "retries are disabled"},
		{"the server asks for more than MaxWait", short, 0, retry.Failure{Throttled: true, ServerWait: time.Hour}, time.Hour, false,
			"the server asked for a wait of 1h0m0s, more than the client's MaxWait of 5s"},
	} {
		wait, ok, why := tc.p.Next(tc.retries, tc.f)
		if wait != tc.wait || ok != tc.ok || why != tc.why {
			t.Errorf("%s: Next = %v, %v, %q; want %v, %v, %q", tc.name, wait, ok, why, tc.wait, tc.ok, tc.why)
		}
	}
}

func TestWithDefaults(t *testing.T) {
	t.Parallel()
	p, err := retry.Policy{}.WithDefaults()
	if err != nil || p.MaxRetries != retry.DefaultMaxRetries || p.MinWait != retry.DefaultMinWait || p.MaxWait != retry.DefaultMaxWait {
		t.Errorf("defaults %+v %v", p, err)
	}
	if p, _ := (retry.Policy{MinWait: 2 * time.Minute}).WithDefaults(); p.MaxWait != 2*time.Minute {
		t.Errorf("MaxWait below MinWait: %v", p.MaxWait)
	}
	for _, bad := range []retry.Policy{{MaxRetries: -1}, {MinWait: -1}, {MaxWait: -1}, {MinWait: 10 * time.Second, MaxWait: time.Second}} {
		if _, err := bad.WithDefaults(); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

var errThrottled = errors.New("throttled")

// Do waits on the clock it is given, calls onRetry before each wait, and
// ends with the last error and why it stopped.
func TestDoWaitsOnTheClock(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(time.Unix(1_700_000_000, 0))
	start := clk.Now()
	p, _ := retry.Policy{}.WithDefaults()
	var waits []time.Duration
	attempts := 0
	// The fake clock advances by itself to the end of each wait.
	res, err := retry.Do(t.Context(), p, clk, func(context.Context, int) (retry.Failure, error) {
		attempts++
		return retry.Failure{Throttled: true}, errThrottled
	}, func(n int, wait time.Duration, err error) { waits = append(waits, wait) })
	if !errors.Is(err, errThrottled) || attempts != 4 || res.Retries != 3 || res.GaveUp != "gave up after 3 retries" {
		t.Fatalf("%v after %d attempts, %+v", err, attempts, res)
	}
	if len(waits) != 3 || waits[0] != time.Second || waits[2] != 4*time.Second || clk.Now().Sub(start) != 7*time.Second {
		t.Fatalf("waits %v, clock moved %v", waits, clk.Now().Sub(start))
	}
}

func TestDoStopsAtTheDeadline(t *testing.T) {
	t.Parallel()
	p, _ := retry.Policy{}.WithDefaults()
	ctx, cancel := context.WithDeadline(t.Context(), time.Now().Add(time.Hour))
	defer cancel()
	res, err := retry.Do(ctx, p, clock.NewFake(time.Now()), func(context.Context, int) (retry.Failure, error) {
		return retry.Failure{Throttled: true, ServerWait: 2 * time.Hour}, errThrottled
	}, nil)
	if !errors.Is(err, errThrottled) || res.Retries != 0 || res.GaveUp != "the server asked for a wait of 2h0m0s, more than the client's MaxWait of 1m0s" {
		t.Fatalf("%v %+v", err, res)
	}
	p.MaxWait = 3 * time.Hour
	res, err = retry.Do(ctx, p, clock.NewFake(time.Now()), func(context.Context, int) (retry.Failure, error) {
		return retry.Failure{Throttled: true, ServerWait: 2 * time.Hour}, errThrottled
	}, nil)
	if !errors.Is(err, errThrottled) || res.GaveUp != "a wait of 2h0m0s would pass the context deadline" {
		t.Fatalf("%v %+v", err, res)
	}
}

func TestDoEndsWhenTheCallerGivesUp(t *testing.T) {
	t.Parallel()
	p, _ := retry.Policy{}.WithDefaults()
	clk := clock.NewFake(time.Now())
	clk.SetAutoAdvance(false) // a wait lasts until the clock is moved
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := retry.Do(ctx, p, clk, func(context.Context, int) (retry.Failure, error) {
			return retry.Failure{Throttled: true}, errThrottled
		}, nil)
		done <- err
	}()
	if err := clk.WaitForSleepers(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("%v", err)
	}
}

func TestDoSucceeds(t *testing.T) {
	t.Parallel()
	p, _ := retry.Policy{}.WithDefaults()
	res, err := retry.Do(t.Context(), p, clock.NewFake(time.Now()), func(_ context.Context, n int) (retry.Failure, error) {
		return retry.Failure{}, nil
	}, nil)
	if err != nil || res.Retries != 0 || res.GaveUp != "" {
		t.Fatalf("%v %+v", err, res)
	}
}

func TestError(t *testing.T) {
	t.Parallel()
	err := error(&retry.Error{Retries: 3, Reason: "gave up after 3 retries", Err: errThrottled})
	if err.Error() != "throttled (gave up after 3 retries)" || !errors.Is(err, errThrottled) {
		t.Fatalf("%v", err)
	}
}
