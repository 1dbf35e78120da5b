package workflow

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// coroutine is one goroutine of workflow code (the workflow function, or
// one started with Go). Only one coroutine of an execution runs at a time:
// the dispatcher resumes it and waits until it yields (blocks on a future,
// a channel or a selector) or returns, so workflow code needs no locks and
// runs in the same order on every replay.
type coroutine struct {
	name    string
	resume  chan bool // true: run on; false: exit
	yielded chan struct{}

	// Written by the coroutine, read by the dispatcher after a yield.
	started    bool
	finished   bool
	exiting    bool
	progressed bool // it did more than re-check a condition that still fails
	panicked   error
}

// newCoroutine starts fn in a goroutine that waits for its first resume.
func (e *execution) newCoroutine(name string, fn func(*coroutine)) *coroutine {
	c := &coroutine{name: name, resume: make(chan bool), yielded: make(chan struct{})}
	e.coros = append(e.coros, c)
	go func() {
		defer func() {
			if r := recover(); r != nil && !c.exiting {
				c.panicked = fmt.Errorf("workflow %s: coroutine %q panicked: %v\n%s", e.info.WorkflowType, c.name, r, debug.Stack())
			}
			c.finished = true
			c.yielded <- struct{}{}
		}()
		if !<-c.resume {
			c.exiting = true
			return
		}
		c.started = true
		fn(c)
	}()
	return c
}

// yield hands control back to the dispatcher and waits to be resumed.
func (c *coroutine) yield(progressed bool) {
	if c.exiting {
		// Workflow code deferred something that blocks while the
		// execution is being torn down: end it again.
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
		c.yield(first)
		first = false
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
			<-c.yielded
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
// waits for them, so no goroutine outlives a task.
func (e *execution) stop() {
	for _, c := range e.coros {
		if !c.finished {
			c.resume <- false
			<-c.yielded
		}
	}
	e.coros = nil
}
