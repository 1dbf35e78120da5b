package workflow

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"time"
)

// coroutine is one goroutine of workflow code (the workflow function, or
// one started with Go). Only one coroutine of an execution runs at a time:
// the dispatcher resumes it and waits until it yields (blocks on a future,
// a channel or a selector) or returns, so workflow code needs no locks and
// runs in the same order on every replay.
type coroutine struct {
	e       *execution
	name    string
	resume  chan bool     // true: run on; false or closed: exit
	yielded chan struct{} // one slot, so an abandoned coroutine's last word never blocks it

	// abandoned is set when the coroutine ran past the deadlock timeout:
	// nobody waits for it any more.
	abandoned atomic.Bool

	// Written by the coroutine, read by the dispatcher after a yield.
	finished   bool
	returned   bool // fn returned (not a panic, not runtime.Goexit)
	exiting    bool
	progressed bool // it did more than re-check a condition that still fails
	panicked   error
}

// newCoroutine starts fn in a goroutine that waits for its first resume.
func (e *execution) newCoroutine(name string, fn func(*coroutine)) *coroutine {
	c := &coroutine{e: e, name: name, resume: make(chan bool), yielded: make(chan struct{}, 1)}
	e.coros = append(e.coros, c)
	go func() {
		defer func() {
			if r := recover(); r != nil && !c.exiting {
				c.panicked = fmt.Errorf("workflow %s: coroutine %q panicked: %v\n%s", e.info.WorkflowType, c.name, r, debug.Stack())
			} else if !c.returned && !c.exiting && !c.abandoned.Load() {
				c.panicked = fmt.Errorf("workflow %s: coroutine %q ended with runtime.Goexit (t.Fatal or t.FailNow in workflow code?)", e.info.WorkflowType, c.name)
			}
			c.finished = true
			if !c.abandoned.Load() {
				c.yielded <- struct{}{}
			}
		}()
		if !<-c.resume {
			c.exiting = true
			return
		}
		fn(c)
		c.returned = true
	}()
	return c
}

// yield hands control back to the dispatcher and waits to be resumed.
func (c *coroutine) yield(progressed bool) {
	if c.exiting || c.abandoned.Load() {
		// Workflow code deferred something that blocks while the
		// execution is torn down, or the execution gave up on it.
		c.exiting = true
		runtime.Goexit()
	}
	c.progressed = progressed
	c.yielded <- struct{}{}
	if !<-c.resume {
		c.exiting = true
		runtime.Goexit()
	}
}

// waitUntil blocks the coroutine until cond holds. cond is evaluated each
// time the dispatcher passes; it must only read execution state.
func (c *coroutine) waitUntil(cond func() bool) {
	first := true
	for !cond() {
		if c.e.answering {
			panic(errors.New("a blocking call (Future.Get, Receive, Select, Await, Sleep) from a query handler: a query may not wait"))
		}
		c.yield(first)
		first = false
	}
}

// DeadlockError fails a workflow task whose code ran for longer than the
// deadlock timeout (Options.DeadlockTimeout) without blocking in this
// package's calls: it loops, or blocks on something else (time.Sleep, a Go
// channel, a mutex, I/O). The coroutine is left behind.
type DeadlockError struct {
	Coroutine string
	Timeout   time.Duration
}

func (e *DeadlockError) Error() string {
	return fmt.Sprintf("workflow: potential deadlock: coroutine %q ran for %v without blocking in a call of package workflow (time.Sleep, Go channels, mutexes and I/O are not allowed in workflow code)", e.Coroutine, e.Timeout)
}

// wait waits for c to yield, at most the deadlock timeout.
func (e *execution) wait(c *coroutine) error {
	if e.deadlock <= 0 {
		<-c.yielded
		return nil
	}
	if e.watchdog == nil {
		e.watchdog = time.NewTimer(e.deadlock)
	} else {
		e.watchdog.Reset(e.deadlock)
	}
	select {
	case <-c.yielded:
		e.watchdog.Stop()
		return nil
	case <-e.watchdog.C:
		c.abandoned.Store(true)
		close(c.resume)
		return &DeadlockError{Coroutine: c.name, Timeout: e.deadlock}
	}
}

// dispatch runs the coroutines, in the order they were created, until
// none can progress: every one is blocked, or the workflow function has
// returned. A panic in workflow code is returned as an error.
func (e *execution) dispatch() error {
	for {
		progress := false
		for i := 0; i < len(e.coros); i++ { // Go may add coroutines while this runs
			c := e.coros[i]
			if c.finished {
				continue
			}
			c.resume <- true
			if err := e.wait(c); err != nil {
				return err
			}
			if c.panicked != nil {
				return c.panicked
			}
			if c.progressed || c.finished {
				progress = true
			}
			if e.closing != nil {
				return nil // the workflow function returned: nothing else runs
			}
		}
		if !progress {
			return nil
		}
		live := e.coros[:0]
		for _, c := range e.coros {
			if !c.finished {
				live = append(live, c)
			}
		}
		clear(e.coros[len(live):])
		e.coros = live
	}
}

// stop ends every coroutine still alive (their deferred functions run) and
// waits for them, so no goroutine outlives a task, but for one abandoned
// by the deadlock timeout, which ends when it next yields, if ever.
func (e *execution) stop() {
	for i := 0; i < len(e.coros); i++ { // a deferred call may Go one more
		c := e.coros[i]
		if c.abandoned.Load() {
			continue
		}
		if !c.finished {
			c.resume <- false
			<-c.yielded
		}
	}
	e.coros = nil
	if e.watchdog != nil {
		e.watchdog.Stop()
	}
}
