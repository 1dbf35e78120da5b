package clock_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func TestFakeAdvanceFiresInOrder(t *testing.T) {
	t.Parallel()
	c := clock.NewFake(t0)
	var got []string
	var seen []time.Time
	add := func(d time.Duration, name string) {
		c.AfterFunc(d, func() { got = append(got, name); seen = append(seen, c.Now()) })
	}
	add(3*time.Second, "c")
	add(time.Second, "a")
	add(2*time.Second, "b1")
	add(2*time.Second, "b2") // same time: scheduling order
	add(10*time.Second, "late")

	c.Advance(5 * time.Second)
	if want := []string{"a", "b1", "b2", "c"}; !slices.Equal(got, want) {
		t.Fatalf("fired %v, want %v", got, want)
	}
	wantSeen := []time.Time{t0.Add(time.Second), t0.Add(2 * time.Second), t0.Add(2 * time.Second), t0.Add(3 * time.Second)}
	if !slices.EqualFunc(seen, wantSeen, time.Time.Equal) {
		t.Fatalf("callbacks saw %v, want %v", seen, wantSeen)
	}
	if !c.Now().Equal(t0.Add(5 * time.Second)) {
		t.Fatalf("Now = %v", c.Now())
	}
	if next, ok := c.Next(); !ok || !next.Equal(t0.Add(10*time.Second)) {
		t.Fatalf("Next = %v %v", next, ok)
	}
}

func TestFakeTimerStop(t *testing.T) {
	t.Parallel()
	c := clock.NewFake(t0)
	fired := false
	tm := c.AfterFunc(time.Second, func() { fired = true })
	if !tm.Stop() {
		t.Fatal("Stop of a pending timer = false")
	}
	if tm.Stop() {
		t.Fatal("second Stop = true")
	}
	c.Advance(time.Hour)
	if fired {
		t.Fatal("stopped timer fired")
	}
	tm2 := c.AfterFunc(time.Second, func() {})
	c.Advance(time.Second)
	if tm2.Stop() {
		t.Fatal("Stop after firing = true")
	}
}

func TestFakeCallbackCanReschedule(t *testing.T) {
	t.Parallel()
	c := clock.NewFake(t0)
	n := 0
	var tick func()
	tick = func() {
		n++
		c.AfterFunc(time.Minute, tick)
	}
	c.AfterFunc(time.Minute, tick)
	c.Advance(10 * time.Minute)
	if n != 10 {
		t.Fatalf("ticks = %d, want 10", n)
	}
}

func TestFakeSleepAutoAdvances(t *testing.T) {
	t.Parallel()
	c := clock.NewFake(t0)
	fired := false
	c.AfterFunc(30*time.Second, func() { fired = true })
	if err := c.Sleep(context.Background(), time.Minute); err != nil {
		t.Fatal(err)
	}
	if !c.Now().Equal(t0.Add(time.Minute)) || !fired {
		t.Fatalf("after Sleep: now %v fired %v", c.Now(), fired)
	}

	// Concurrent sleepers move the clock to the latest end, not the sum.
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = c.Sleep(context.Background(), time.Second)
		}()
	}
	wg.Wait()
	if got := c.Now().Sub(t0); got < time.Minute+time.Second || got > time.Minute+10*time.Second {
		t.Fatalf("clock moved to %v", got)
	}
}

func TestFakeSleepManual(t *testing.T) {
	t.Parallel()
	c := clock.NewFake(t0)
	c.SetAutoAdvance(false)
	done := make(chan error, 1)
	go func() { done <- c.Sleep(context.Background(), time.Minute) }()
	if err := c.WaitForSleepers(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	c.Advance(59 * time.Second)
	select {
	case <-done:
		t.Fatal("sleeper woke before its time")
	default:
	}
	c.Advance(time.Second)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if c.Sleepers() != 0 {
		t.Fatalf("Sleepers = %d", c.Sleepers())
	}
}

func TestFakeSleepCancel(t *testing.T) {
	t.Parallel()
	c := clock.NewFake(t0)
	c.SetAutoAdvance(false)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Sleep(ctx, time.Hour) }()
	if err := c.WaitForSleepers(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Sleep = %v, want context.Canceled", err)
	}
	if _, ok := c.Next(); ok {
		t.Fatal("cancelled sleeper left in the queue")
	}
	if !c.Now().Equal(t0) {
		t.Fatal("clock moved")
	}
	// An already-cancelled context never sleeps, in either mode.
	c.SetAutoAdvance(true)
	if err := c.Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) || !c.Now().Equal(t0) {
		t.Fatalf("Sleep on cancelled ctx = %v, now %v", err, c.Now())
	}
}

func TestFakeSetBackwards(t *testing.T) {
	t.Parallel()
	c := clock.NewFake(t0)
	fired := false
	c.AfterFunc(time.Second, func() { fired = true })
	c.Set(t0.Add(-time.Hour))
	if fired || !c.Now().Equal(t0.Add(-time.Hour)) {
		t.Fatalf("Set backwards: fired %v now %v", fired, c.Now())
	}
	c.Set(t0.Add(time.Second))
	if !fired {
		t.Fatal("timer did not fire on Set forward")
	}
}

func TestRealSleep(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := clock.Real().Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatalf("Sleep = %v", err)
	}
	if err := clock.Real().Sleep(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	if clock.Real().Now().IsZero() {
		t.Fatal("zero time")
	}
}

func TestFakeWaitForTimers(t *testing.T) {
	t.Parallel()
	f := clock.NewFake(time.Unix(0, 0))
	fired := make(chan struct{})
	go f.AfterFunc(time.Minute, func() { close(fired) }) // scheduled by another goroutine
	if err := f.WaitForTimers(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	if f.Pending() != 1 {
		t.Fatalf("Pending = %d", f.Pending())
	}
	f.Advance(time.Minute)
	<-fired
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := f.WaitForTimers(ctx, 1); err != context.Canceled {
		t.Fatalf("WaitForTimers with nothing pending and ctx done = %v", err)
	}
}
