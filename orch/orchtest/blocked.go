package orchtest

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// BlockedError ends an ExecuteWorkflow whose workflow can make no
// progress: no workflow task, activity, timer or callback is pending and
// the run is still open, so in a real deployment it would wait for
// something from outside (a signal, a cancel request) that the test does
// not send. It names, run by run, what each open run waits on.
type BlockedError struct {
	// At is the workflow time, since the start, when it blocked.
	At   time.Duration
	Runs []BlockedRun
}

// BlockedRun is what one open run waits on.
type BlockedRun struct {
	WorkflowID, RunID, WorkflowType string
	// Activities, Timers and Children name what the run started and is
	// still open ("ChargeCard (activity id 1)", "timer 3 (24h0m0s)",
	// "child Notify (workflow id …)").
	Activities, Timers, Children []string
	// Signals names the signal channels the workflow code opened that
	// hold nothing to receive (code written with orch/workflow; empty for
	// other handlers).
	Signals []string
}

func (e *BlockedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "orchtest: the workflow is blocked at %v of workflow time: nothing is pending and no callback is due", e.At)
	for _, r := range e.Runs {
		fmt.Fprintf(&b, "; %s %s (run %s) waits on", r.WorkflowType, r.WorkflowID, r.RunID)
		var what []string
		for _, s := range r.Signals {
			what = append(what, "signal "+s)
		}
		what = append(what, r.Activities...)
		what = append(what, r.Timers...)
		what = append(what, r.Children...)
		if len(what) == 0 {
			what = []string{"nothing it started (a signal or cancel request it has not asked for by name, or a condition that never holds)"}
		}
		b.WriteString(" " + strings.Join(what, ", "))
	}
	return b.String()
}

// blocked describes the open runs of an env that cannot progress.
func (e *Env) blocked() *BlockedError {
	be := &BlockedError{At: e.now.Sub(e.opts.StartTime)}
	for _, r := range e.runs {
		if r.closed {
			continue
		}
		br := BlockedRun{WorkflowID: r.id, RunID: r.runID, WorkflowType: r.typ, Signals: r.signals}
		for _, id := range sortedKeys(r.activities) {
			a := r.activities[id]
			br.Activities = append(br.Activities, fmt.Sprintf("activity %s (activity id %s)", a.attrs.GetActivityType().GetName(), a.attrs.GetActivityId()))
		}
		ids := make([]string, 0, len(r.timers))
		for id := range r.timers {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for _, id := range ids {
			br.Timers = append(br.Timers, "timer "+id)
		}
		for _, id := range sortedKeys(r.children) {
			ref := r.children[id]
			br.Children = append(br.Children, fmt.Sprintf("child %s (workflow id %s)", ref.attrs.GetWorkflowType().GetName(), ref.attrs.GetWorkflowId()))
		}
		be.Runs = append(be.Runs, br)
	}
	return be
}
