package clock_test

import (
	"context"
	"fmt"
	"time"

	"github.com/apitwin/apitwin/clock"
)

// Timers fire only when the test moves the clock, in time order, each seeing
// the time it was due.
func ExampleFake_AfterFunc() {
	clk := clock.NewFake(time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC))
	clk.AfterFunc(time.Hour, func() { fmt.Println("token expires at", clk.Now().Format("15:04")) })
	clk.AfterFunc(10*time.Minute, func() { fmt.Println("cache expires at", clk.Now().Format("15:04")) })
	cancelled := clk.AfterFunc(30*time.Minute, func() { fmt.Println("never") })
	fmt.Println("stopped:", cancelled.Stop())

	next, _ := clk.Next()
	fmt.Println("next due:", next.Format("15:04"))
	clk.Advance(2 * time.Hour)
	fmt.Println("now:", clk.Now().Format("15:04"))
	// Output:
	// stopped: true
	// next due: 09:10
	// cache expires at 09:10
	// token expires at 10:00
	// now: 11:00
}

// By default a Sleep on a Fake returns at once and moves the clock by its
// length, so code that waits (a client honouring Retry-After, a poll loop)
// runs in a test without real sleeping.
func ExampleFake_Sleep() {
	clk := clock.NewFake(time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC))
	if err := clk.Sleep(context.Background(), 90*time.Second); err != nil { // returns at once
		panic(err)
	}
	fmt.Println("fake time passed:", clk.Now().Format("15:04:05"))
	// Output:
	// fake time passed: 09:01:30
}

// With auto-advance off, a sleeper blocks until the test moves the clock:
// the way to check what code does while it waits.
func ExampleFake_SetAutoAdvance() {
	clk := clock.NewFake(time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC))
	clk.SetAutoAdvance(false)
	ctx := context.Background()

	done := make(chan error)
	go func() { done <- clk.Sleep(ctx, time.Minute) }() // the code under test, waiting

	if err := clk.WaitForSleepers(ctx, 1); err != nil {
		panic(err)
	}
	fmt.Println("sleepers:", clk.Sleepers())
	clk.Advance(30 * time.Second)
	fmt.Println("sleepers after 30s:", clk.Sleepers())
	clk.Advance(30 * time.Second)
	fmt.Println("woke:", <-done, "at", clk.Now().Format("15:04:05"))
	// Output:
	// sleepers: 1
	// sleepers after 30s: 1
	// woke: <nil> at 09:01:00
}
