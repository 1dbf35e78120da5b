package workflow

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"time"
)

// coroutine is one goroutine of workflow code (the workflow function, or
// one started with Go). Only one coroutine of an execution runs at a time:
// the dispatcher resumes it and waits until it yields (blocks on a future,
// a channel or a selector) or returns, so workflow code needs no locks and
// runs in the same order on every replay.
//
// A coroutine that runs past the deadlock timeout keeps the turn: the
// dispatcher gives up on it (abandoned) and touches nothing of the
// execution any more, and the coroutine, when it next yields or ends,
// ends the execution's other coroutines itself (teardown), so two never
// run at once.
type coroutine struct {
	e       *execution
	name    string
	resume  chan bool     // true: run on; false: exit
	yielded chan struct{} // one slot: a hand-back never blocks (see handBack)

	// abandoned is set, under e.handback, when the dispatcher gave up
	// waiting for the coroutine: nobody waits for it any more.
	abandoned bool

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
			} else if !c.returned && !c.exiting {
				c.panicked = fmt.Errorf("workflow %s: coroutine %q ended with runtime.Goexit (t.Fatal or t.FailNow in workflow code?)", e.info.WorkflowType, c.name)
			}
			c.finished = true
			if !c.handBack() {
				// The task gave up on this coroutine and returned; the
				// others waited for it to end: end them now, one at a
				// time as ever.
				e.teardown(false)
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

// handBack gives the turn back to the dispatcher, or reports false when
// the dispatcher gave up on c (then c keeps it: nobody else runs).
func (c *coroutine) handBack() bool {
	c.e.handback.Lock()
	defer c.e.handback.Unlock()
	if c.abandoned {
		return false
	}
	c.yielded <- struct{}{} // the slot is free: the dispatcher took the last one before resuming c
	return true
}

// yield hands control back to the dispatcher and waits to be resumed.
func (c *coroutine) yield(progressed bool) {
	if c.exiting {
		// Workflow code deferred something that blocks while the
		// execution is torn down.
		runtime.Goexit()
	}
	c.progressed = progressed
	if !c.handBack() || !<-c.resume {
		// The execution gave up on it, or is torn down.
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
// channel, a mutex, I/O). The task does not wait for the coroutine: it
// exits when it next blocks in this package or returns, and then ends the
// execution's other coroutines (they wait for it, never run beside it).
type DeadlockError struct {
	Coroutine string
	Timeout   time.Duration
}

func (e *DeadlockError) Error() string {
	return fmt.Sprintf("workflow: potential deadlock: coroutine %q ran for %v without blocking in a call of package workflow (time.Sleep, Go channels, mutexes and I/O are not allowed in workflow code)", e.Coroutine, e.Timeout)
}

// wait waits for c to yield, at most the deadlock timeout.
func (e *execution) wait(c *coroutine) error {
	var expired <-chan time.Time
	switch {
	case e.fire != nil:
	case e.deadlock <= 0:
		<-c.yielded
		return nil
	default:
		if e.watchdog == nil {
			e.watchdog = time.NewTimer(e.deadlock)
		} else {
			e.watchdog.Reset(e.deadlock)
		}
		defer e.watchdog.Stop()
		expired = e.watchdog.C
	}
	select {
	case <-c.yielded:
		return nil
	case <-expired:
	case <-e.fire:
	}
	e.handback.Lock()
	defer e.handback.Unlock()
	select {
	case <-c.yielded: // it handed back just in time
		return nil
	default:
	}
	c.abandoned = true
	e.abandoned = true
	return &DeadlockError{Coroutine: c.name, Timeout: e.deadlock}
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
// waits for them, so no goroutine outlives a task. When the task gave up
// on a coroutine (the deadlock timeout), that one still has the turn and
// ends the others when it ends, if ever: stop touches nothing then.
func (e *execution) stop() {
	if !e.abandoned {
		e.teardown(true)
	}
}

// teardown ends the coroutines that have not finished, one at a time,
// each running its deferred functions (which may Go one more). The
// dispatcher (bounded) waits for each at most the deadlock timeout: one
// that overruns it is abandoned and ends the rest itself. An abandoned
// coroutine ending the rest waits as long as they take: nobody waits for
// it.
func (e *execution) teardown(bounded bool) {
	for i := 0; i < len(e.coros); i++ {
		c := e.coros[i]
		if c.finished {
			continue
		}
		c.resume <- false
		if !bounded {
			<-c.yielded
		} else if e.wait(c) != nil {
			return
		}
	}
	e.coros = nil
}
