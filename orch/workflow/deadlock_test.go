package workflow_test

import (
	"errors"
	"testing"
	"time"

	"github.com/apitwin/apitwin/orch/workflow"
)

// TestDeadlockTeardown: when the task gives up on a stuck coroutine, the
// execution's other coroutines are not ended (their deferred calls run)
// while it still runs: that would run two coroutines of one execution at
// once, over the same state (a data race under -race). They end once the
// stuck one has ended, and nothing is left waiting.
func TestDeadlockTeardown(t *testing.T) {
	t.Parallel()
	stuck := make(chan struct{})     // closed by the root just before it blocks: the watchdog fires
	block := make(chan struct{})     // what the root blocks on: a Go channel, not allowed in workflow code
	rootEnded := make(chan struct{}) // the stuck root returned
	deferRan := make(chan struct{})  // the other coroutine's deferred call ran
	overlapped := false
	wf := func(ctx workflow.Context, _ struct{}) (int, error) {
		workflow.Go(ctx, func(ctx workflow.Context) {
			defer func() {
				select {
				case <-stuck: // the task of the deadlock
				default:
					return // an earlier task's end
				}
				workflow.NewTimer(ctx, time.Hour) // the execution's state
				select {
				case <-rootEnded:
				default:
					overlapped = true
				}
				close(deferRan)
			}()
			workflow.GetSignalChannel(ctx, "never").Receive(ctx, nil)
		})
		if err := workflow.Sleep(ctx, time.Minute); err != nil {
			return 0, err
		}
		defer close(rootEnded)
		close(stuck)
		workflow.NewTimer(ctx, time.Hour) // the same state, after the watchdog fired
		<-block
		workflow.NewTimer(ctx, time.Hour)
		return 1, nil
	}
	s := newSim(t, workflow.NewWithOptions(wf, workflow.DeadlockWhen(stuck)), nil)
	s.task()
	s.timerFired("1")
	_, err := s.try()
	var dl *workflow.DeadlockError
	if !errors.As(err, &dl) || dl.Coroutine != "root" {
		t.Fatalf("Decide: %v", err)
	}
	close(block)
	<-rootEnded
	<-deferRan
	if overlapped {
		t.Error("the other coroutine's deferred call ran while the stuck coroutine still ran")
	}
}

// TestDeadlockInTeardown: a deferred call that blocks outside this
// package's calls while the task ends its coroutines does not hold the
// task: the deadlock timeout bounds the teardown too, and the coroutine
// left behind ends the rest when it can.
func TestDeadlockInTeardown(t *testing.T) {
	t.Parallel()
	stuck := make(chan struct{})
	block := make(chan struct{})
	ended := make(chan struct{}) // the last coroutine's deferred call ran
	wf := func(ctx workflow.Context, _ struct{}) (int, error) {
		workflow.Go(ctx, func(ctx workflow.Context) {
			defer func() {
				close(stuck)
				<-block // a Go channel, while the task ends
			}()
			workflow.GetSignalChannel(ctx, "never").Receive(ctx, nil)
		})
		workflow.Go(ctx, func(ctx workflow.Context) {
			defer close(ended)
			workflow.GetSignalChannel(ctx, "never").Receive(ctx, nil)
		})
		return 0, workflow.Sleep(ctx, time.Minute)
	}
	s := newSim(t, workflow.NewWithOptions(wf, workflow.DeadlockWhen(stuck)), nil)
	if cmds := s.task(); len(cmds) != 1 {
		t.Errorf("commands %v", kinds(cmds))
	}
	select {
	case <-ended:
		t.Error("a coroutine ended while another still ran")
	default:
	}
	close(block)
	<-ended
}
