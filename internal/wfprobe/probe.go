// Package wfprobe carries, from orch/orchtest into orch/workflow's Decide,
// a question about the workflow code's state after the task: which signal
// channels it opened hold nothing to receive. orchtest names them when a
// workflow blocks for good. It is not an API: the context value is set
// only by orchtest, and Decide answers only when it is there.
package wfprobe

import "context"

// Probe is filled by Decide at the end of a workflow task.
type Probe struct {
	// Signals are the names of the signal channels the code opened
	// (GetSignalChannel) that hold no signal, sorted.
	Signals []string
}

type key struct{}

// With returns ctx carrying p.
func With(ctx context.Context, p *Probe) context.Context { return context.WithValue(ctx, key{}, p) }

// From returns the probe ctx carries, or nil.
func From(ctx context.Context) *Probe {
	p, _ := ctx.Value(key{}).(*Probe)
	return p
}
