package workflow

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// Future is the result of an operation that completes later in workflow
// time: an activity, a timer, a child workflow. Get blocks the calling
// coroutine until it is ready.
type Future interface {
	// Get waits for the result and decodes it into valuePtr (a pointer;
	// nil to ignore the value). It returns the operation's error: an
	// *ActivityError, ErrCanceled, …
	Get(ctx Context, valuePtr any) error
	// IsReady reports whether Get would return without blocking.
	IsReady() bool
}

// future is the one implementation of Future.
type future struct {
	e     *execution
	ready bool
	stamp int64 // when it became ready, for Selector's order
	value *orchpb.Payloads
	err   error
}

func (e *execution) newFuture() *future { return &future{e: e} }

func (f *future) settle(value *orchpb.Payloads, err error) {
	if f.ready {
		return
	}
	f.ready, f.value, f.err = true, value, err
	f.stamp = f.e.nextStamp()
}

func (f *future) IsReady() bool { return f.ready }

func (f *future) Get(ctx Context, valuePtr any) error {
	c := must(ctx)
	c.co.waitUntil(func() bool { return f.ready })
	if f.err != nil {
		return f.err
	}
	if valuePtr == nil {
		return nil
	}
	return orch.DecodePayloads(f.value, valuePtr)
}

// ReceiveChannel is the receiving side of a channel of workflow code: a
// signal's channel (GetSignalChannel), a context's Done, or a Channel of
// NewChannel.
type ReceiveChannel interface {
	// Receive blocks until a value arrives and decodes it into valuePtr (a
	// pointer; nil to drop it). more is false when the channel is closed
	// and drained. A signal whose payload does not decode into valuePtr
	// is skipped (and counted in SkippedSignals), as a value the workflow
	// cannot read would otherwise stop it for good.
	Receive(ctx Context, valuePtr any) (more bool)
	// ReceiveAsync takes a value if one is waiting and reports whether it
	// did.
	ReceiveAsync(valuePtr any) (ok bool)
	// Len is the number of values waiting.
	Len() int
	// Name is the signal's name, or the channel's.
	Name() string
}

// Channel is a channel between coroutines of workflow code (NewChannel):
// unbounded, so Send never blocks.
type Channel interface {
	ReceiveChannel
	// Send queues v (any Go value; a receiver's valuePtr must be a
	// pointer to a type v is assignable to).
	Send(ctx Context, v any)
	// Close ends the channel: receivers drain what is queued, then get
	// more == false.
	Close()
}

type item struct {
	payload *orchpb.Payload // a signal's
	value   any             // a Send's
	stamp   int64
}

type channel struct {
	e           *execution
	name        string
	items       []item
	closed      bool
	closedStamp int64
	skipped     int
}

func (e *execution) newChannel(name string) *channel { return &channel{e: e, name: name} }

// NewChannel returns a channel for coroutines of this workflow to talk
// through (never a Go chan, whose order is not replayed).
func NewChannel(ctx Context, name string) Channel { return must(ctx).e.newChannel(name) }

func (ch *channel) Name() string { return ch.name }
func (ch *channel) Len() int     { return len(ch.items) }

func (ch *channel) push(it item) {
	it.stamp = ch.e.nextStamp()
	ch.items = append(ch.items, it)
}

func (ch *channel) Send(ctx Context, v any) {
	must(ctx)
	if ch.closed {
		panic("workflow: Send on closed channel " + ch.name)
	}
	ch.push(item{value: v})
}

func (ch *channel) Close() { ch.close() }

func (ch *channel) close() {
	if !ch.closed {
		ch.closed = true
		ch.closedStamp = ch.e.nextStamp()
	}
}

// readyStamp is when the channel became ready to receive from (a value
// waiting, or closed), and whether it is.
func (ch *channel) readyStamp() (int64, bool) {
	if len(ch.items) > 0 {
		return ch.items[0].stamp, true
	}
	return ch.closedStamp, ch.closed
}

func (ch *channel) Receive(ctx Context, valuePtr any) bool {
	c := must(ctx)
	for {
		c.co.waitUntil(func() bool { return len(ch.items) > 0 || ch.closed })
		if len(ch.items) == 0 {
			return false
		}
		if ch.take(valuePtr) {
			return true
		}
	}
}

func (ch *channel) ReceiveAsync(valuePtr any) bool {
	for len(ch.items) > 0 {
		if ch.take(valuePtr) {
			return true
		}
	}
	return false
}

// take removes the first value and decodes it into valuePtr; a signal
// that does not decode is skipped (false).
func (ch *channel) take(valuePtr any) bool {
	it := ch.items[0]
	ch.items[0] = item{}
	ch.items = ch.items[1:]
	if valuePtr == nil {
		return true
	}
	if it.payload != nil {
		if err := orch.DecodePayload(it.payload, valuePtr); err != nil {
			ch.skipped++
			return false
		}
		return true
	}
	assign(valuePtr, it.value)
	return true
}

// assign sets *valuePtr = v; a mismatch is a bug of the workflow code.
func assign(valuePtr, v any) {
	dst := reflect.ValueOf(valuePtr)
	if dst.Kind() != reflect.Pointer || dst.IsNil() {
		panic(fmt.Sprintf("workflow: Receive needs a non-nil pointer, got %T", valuePtr))
	}
	if v == nil {
		dst.Elem().SetZero()
		return
	}
	src := reflect.ValueOf(v)
	if !src.Type().AssignableTo(dst.Elem().Type()) {
		panic(fmt.Sprintf("workflow: Receive into %T of a %T", valuePtr, v))
	}
	dst.Elem().Set(src)
}

// SkippedSignals is the number of signals of ch that Receive skipped
// because their payload did not decode into the value asked for.
func SkippedSignals(ch ReceiveChannel) int {
	if c, ok := ch.(*channel); ok {
		return c.skipped
	}
	return 0
}

// Selector waits for the first of several futures and channels, as a
// select statement does for Go channels. When several are ready, the one
// that became ready first in the workflow's history wins, so a replay picks
// the same. Build one with NewSelector, add cases, call Select.
type Selector struct {
	e        *execution
	cases    []*selectCase
	fallback func()
}

type selectCase struct {
	f     *future
	given Future // f as AddFuture had it, for fFn
	fFn   func(Future)
	fired bool // a future's case fires once
	ch    *channel
	chFn  func(c ReceiveChannel, more bool)
}

// NewSelector returns an empty Selector.
func NewSelector(ctx Context) *Selector { return &Selector{e: must(ctx).e} }

// AddFuture adds a case ready when f is; fn runs once, with f.
func (s *Selector) AddFuture(f Future, fn func(f Future)) *Selector {
	var ff *future
	switch x := f.(type) {
	case *future:
		ff = x
	case childFuture: // ExecuteChildWorkflow's: its result
		ff = x.future
	default:
		panic(fmt.Sprintf("workflow: AddFuture of a %T: only futures of this package", f))
	}
	s.cases = append(s.cases, &selectCase{f: ff, given: f, fFn: fn})
	return s
}

// AddReceive adds a case ready when c has a value or is closed; fn must
// receive the value (else the case stays ready).
func (s *Selector) AddReceive(c ReceiveChannel, fn func(c ReceiveChannel, more bool)) *Selector {
	ch, ok := c.(*channel)
	if !ok {
		panic(fmt.Sprintf("workflow: AddReceive of a %T: only channels of this package", c))
	}
	s.cases = append(s.cases, &selectCase{ch: ch, chFn: fn})
	return s
}

// AddDefault makes Select run fn instead of blocking when no case is
// ready.
func (s *Selector) AddDefault(fn func()) { s.fallback = fn }

// HasPending reports whether a case is ready now.
func (s *Selector) HasPending() bool { return s.next() != nil }

func (s *Selector) next() *selectCase {
	var best *selectCase
	var bestStamp int64
	for _, c := range s.cases {
		var stamp int64
		var ok bool
		if c.f != nil {
			stamp, ok = c.f.stamp, c.f.ready && !c.fired
		} else {
			stamp, ok = c.ch.readyStamp()
		}
		if ok && (best == nil || stamp < bestStamp) {
			best, bestStamp = c, stamp
		}
	}
	return best
}

// Select blocks until a case is ready (or runs the default) and runs its
// function.
func (s *Selector) Select(ctx Context) {
	c := must(ctx)
	if len(s.cases) == 0 && s.fallback == nil {
		panic(errors.New("workflow: Select on a Selector without cases would block for ever"))
	}
	var chosen *selectCase
	if s.fallback != nil {
		if chosen = s.next(); chosen == nil {
			s.fallback()
			return
		}
	} else {
		c.co.waitUntil(func() bool { chosen = s.next(); return chosen != nil })
	}
	if chosen.f != nil {
		chosen.fired = true
		if chosen.fFn != nil {
			chosen.fFn(chosen.given)
		}
		return
	}
	more := len(chosen.ch.items) > 0
	if chosen.chFn != nil {
		chosen.chFn(chosen.ch, more)
	}
}

// Go starts fn as a new coroutine of the workflow (never use the go
// statement in workflow code). It runs when the current one blocks.
func Go(ctx Context, fn func(ctx Context)) {
	c := must(ctx)
	e := c.e
	e.readOnly("Go")
	child := c.derive()
	e.seqCoroutines++
	name := fmt.Sprint(e.seqCoroutines)
	child.co = e.newCoroutine(name, func(co *coroutine) { fn(child) })
}
