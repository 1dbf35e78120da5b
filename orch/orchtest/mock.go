package orchtest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"time"

	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// Mock stands in for an activity (Env.OnActivity) or a child workflow
// (Env.OnWorkflow) of one type: it answers with a fixed result or error
// (Return) or runs a function (Do), counts its calls against what the test
// expects (Times, Once, Maybe) and records each call's input (Calls).
//
// Several mocks of one type answer in the order they were made: a call
// goes to the first whose expected count is not used up (a mock without
// Times or Once never is), so
//
//	env.OnActivity("Charge").Return(nil, errDeclined).Once()
//	env.OnActivity("Charge").Return("ch_1", nil)
//
// fails the first attempt and lets the retry succeed.
type Mock struct {
	env  *Env
	kind string // "activity" or "workflow"
	name string

	mu    sync.Mutex
	fn    func(ctx context.Context, input *orchpb.Payloads) (*orchpb.Payloads, error)
	set   bool // Return or Do was called
	times int  // expected calls; -1: at least one; -2: any number (Maybe)
	after time.Duration
	calls []Call
}

// Call is one call of a mock: the input it was given and when.
type Call struct {
	// ID is the activity id or the child's workflow id.
	ID string
	// Attempt counts an activity's attempts from 1 (1 for a child).
	Attempt int32
	// Input is the call's input as the workflow sent it.
	Input *orchpb.Payloads
	// Time is the workflow time of the call.
	Time time.Time
}

// Arg decodes the call's first input value into out.
func (c Call) Arg(out any) error { return orch.DecodePayloads(c.Input, out) }

// Return makes the mock answer result (nil for none) or, when err is not
// nil, fail with err (an *orch.ApplicationError sets the failure's type and
// non-retryable mark, as an activity's error does).
func (m *Mock) Return(result any, err error) *Mock {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.set = true
	if err != nil {
		m.fn = func(context.Context, *orchpb.Payloads) (*orchpb.Payloads, error) { return nil, err }
		return m
	}
	p, perr := encodeResult(result)
	m.fn = func(context.Context, *orchpb.Payloads) (*orchpb.Payloads, error) { return p, perr }
	return m
}

// Do makes the mock run fn on each call. fn has an activity's shape, its
// context optional: func(context.Context, In) (Out, error),
// func(In) (Out, error), func(context.Context, In) error, func(In) error,
// or with no In; the input is decoded from JSON as a worker decodes it.
// A fn of another shape is a mistake in the test: it is reported to the
// Env's T, and ExecuteWorkflow ends at once with it as Err.
func (m *Mock) Do(fn any) *Mock {
	call, err := adapt(fn)
	if err != nil {
		m.env.setupError("orchtest: %s mock %s: Do: %v", m.kind, m.name, err)
		call = func(context.Context, *orchpb.Payloads) (*orchpb.Payloads, error) { return nil, orch.NonRetryable(err) }
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.set = true
	m.fn = call
	return m
}

// Times says the mock must be called exactly n times; a call past n goes
// to the next mock of the type, else to the registered implementation,
// else fails as unmocked. The count is checked when the test ends (and by
// Env.Verify). To check that a type is never called, read
// Env.ActivityCalls: a call past a mock's count is not the mock's.
func (m *Mock) Times(n int) *Mock {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.times = n
	return m
}

// Once is Times(1).
func (m *Mock) Once() *Mock { return m.Times(1) }

// Maybe lets the mock be called any number of times, none included
// (without Times, Once or Maybe it must be called at least once).
func (m *Mock) Maybe() *Mock {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.times = -2
	return m
}

// After makes each call's answer arrive d of workflow time after the call
// starts, so the activity's start-to-close timeout (or a timer the
// workflow races it against) can win; the time is skipped, not waited.
func (m *Mock) After(d time.Duration) *Mock {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.after = d
	return m
}

// Calls returns the calls made so far, oldest first.
func (m *Mock) Calls() []Call {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Call(nil), m.calls...)
}

// usable reports whether the mock takes another call.
func (m *Mock) usable() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.times < 0 || len(m.calls) < m.times
}

func (m *Mock) record(c Call) (func(context.Context, *orchpb.Payloads) (*orchpb.Payloads, error), time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls = append(m.calls, c)
	return m.fn, m.after
}

// unmet describes how the mock's calls miss what the test expected, or "".
func (m *Mock) unmet() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := len(m.calls)
	switch {
	case !m.set:
		return fmt.Sprintf("%s mock %s has neither Return nor Do", m.kind, m.name)
	case m.times == -1 && n == 0:
		return fmt.Sprintf("%s %s: expected at least one call, got none (add Maybe() if none is fine)", m.kind, m.name)
	case m.times >= 0 && n != m.times:
		return fmt.Sprintf("%s %s: expected %d calls, got %d", m.kind, m.name, m.times, n)
	}
	return ""
}

// encodeResult is a result as a worker sends it: one payload (JSON, or
// binary/null for nil).
func encodeResult(v any) (*orchpb.Payloads, error) { return orch.EncodePayloads(v) }

var (
	contextType = reflect.TypeFor[context.Context]()
	errorType   = reflect.TypeFor[error]()
)

// adapt turns a function of an activity's shape into a call on payloads,
// as orch.RegisterActivity does for a worker.
func adapt(fn any) (func(context.Context, *orchpb.Payloads) (*orchpb.Payloads, error), error) {
	v := reflect.ValueOf(fn)
	if fn == nil || v.Kind() != reflect.Func {
		return nil, fmt.Errorf("want a function, got %T", fn)
	}
	t := v.Type()
	if t.IsVariadic() {
		return nil, errors.New("a variadic function is not an activity")
	}
	withCtx := t.NumIn() > 0 && t.In(0) == contextType
	var in reflect.Type
	switch rest := t.NumIn() - btoi(withCtx); rest {
	case 0:
	case 1:
		in = t.In(t.NumIn() - 1)
	default:
		return nil, fmt.Errorf("%s takes %d inputs; an activity takes at most one besides its context", t, rest)
	}
	if t.NumOut() == 0 || t.NumOut() > 2 || t.Out(t.NumOut()-1) != errorType {
		return nil, fmt.Errorf("%s must return (Out, error) or error", t)
	}
	withOut := t.NumOut() == 2
	return func(ctx context.Context, input *orchpb.Payloads) (*orchpb.Payloads, error) {
		args := make([]reflect.Value, 0, 2)
		if withCtx {
			args = append(args, reflect.ValueOf(ctx))
		}
		if in != nil {
			ptr := reflect.New(in)
			if len(input.GetPayloads()) > 0 {
				if err := orch.DecodePayload(input.GetPayloads()[0], ptr.Interface()); err != nil {
					return nil, orch.NonRetryable(fmt.Errorf("input: %w", err))
				}
			}
			args = append(args, ptr.Elem())
		}
		out := v.Call(args)
		if err, _ := out[len(out)-1].Interface().(error); err != nil {
			return nil, err
		}
		if !withOut {
			return nil, nil
		}
		return orch.EncodePayloads(out[0].Interface())
	}, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
