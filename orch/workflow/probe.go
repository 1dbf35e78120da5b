package workflow

import (
	"context"
	"slices"

	"github.com/apitwin/apitwin/internal/wfprobe"
)

// probe answers orch/orchtest's question, when the task's context asks it
// (wfprobe), about what the code waits on: the signal channels it opened
// that hold nothing. It runs before stop, while the state is whole.
func (e *execution) probe(ctx context.Context) {
	p := wfprobe.From(ctx)
	if p == nil || e.abandoned {
		return
	}
	p.Signals = p.Signals[:0]
	for name, ch := range e.signals {
		if len(ch.items) == 0 {
			p.Signals = append(p.Signals, name)
		}
	}
	slices.Sort(p.Signals)
}
