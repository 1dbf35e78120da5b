package clock

import (
	"container/heap"
	"context"
	"sync"
	"time"
)

// Fake is a Clock that moves only when told to. It is safe for concurrent use.
//
// Time moves by [Fake.Advance] and [Fake.Set], which fire every timer and wake
// every sleeper that falls due on the way, in time order (ties in the order
// they were scheduled), each seeing Now() equal to its due time.
//
// A Sleep on a Fake moves the clock itself by default: it advances the clock to
// the end of the sleep at once, as if the time had passed. So a client that
// honours "Retry-After: 60" against a fake returns immediately, and the fake,
// reading the same clock, sees that the minute is over. Concurrent sleepers each
// advance the clock to their own end, never by the sum of their waits. Turn this
// off with [Fake.SetAutoAdvance] to make sleepers block until the test moves the
// clock, for example to check what a program does while it waits.
type Fake struct {
	mu      sync.Mutex
	now     time.Time
	manual  bool
	queue   queue
	seq     uint64
	asleep  int           // sleepers blocked in manual mode
	changed chan struct{} // made by a waiter; closed (and dropped) when asleep or the queue grows
}

// NewFake returns a Fake clock set to start, with sleeps advancing it.
func NewFake(start time.Time) *Fake {
	return &Fake{now: start}
}

// Now returns the fake's current time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// Advance moves the clock forward by d, firing what falls due on the way.
// A d of zero or less fires what is already due and does not move the clock.
func (f *Fake) Advance(d time.Duration) {
	f.mu.Lock()
	target := f.now
	if d > 0 {
		target = target.Add(d)
	}
	f.mu.Unlock()
	f.advanceTo(target)
}

// Set moves the clock to t. Moving forward fires what falls due on the way;
// moving backward fires nothing and leaves pending timers where they are.
func (f *Fake) Set(t time.Time) {
	f.mu.Lock()
	if t.Before(f.now) {
		f.now = t
		f.mu.Unlock()
		return
	}
	f.mu.Unlock()
	f.advanceTo(t)
}

// SetAutoAdvance chooses what a Sleep does: with on (the default) it advances
// the clock to its own end at once; with off it blocks until Advance or Set
// reaches its end, or its context ends.
func (f *Fake) SetAutoAdvance(on bool) {
	f.mu.Lock()
	f.manual = !on
	f.mu.Unlock()
}

// Sleep waits for d on the fake clock; see [Fake] and [Fake.SetAutoAdvance].
func (f *Fake) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f.mu.Lock()
	target := f.now.Add(max(d, 0))
	if !f.manual {
		f.mu.Unlock()
		f.advanceTo(target)
		return nil
	}
	if d <= 0 {
		f.mu.Unlock()
		return nil
	}
	e := f.push(target, nil)
	f.setAsleep(+1)
	f.mu.Unlock()

	select {
	case <-e.wake:
		f.mu.Lock()
		f.setAsleep(-1)
		f.mu.Unlock()
		return nil
	case <-ctx.Done():
		f.mu.Lock()
		if e.index >= 0 {
			heap.Remove(&f.queue, e.index)
		}
		f.setAsleep(-1)
		f.mu.Unlock()
		return ctx.Err()
	}
}

// AfterFunc calls fn, in the goroutine that moves the clock, once the clock
// reaches Now()+d. A d of zero or less makes fn due at once: it runs at the
// next Advance or Set. fn must not block on something only the test goroutine
// that is advancing the clock could provide.
func (f *Fake) AfterFunc(d time.Duration, fn func()) *Timer {
	f.mu.Lock()
	defer f.mu.Unlock()
	return &Timer{f: f, e: f.push(f.now.Add(max(d, 0)), fn)}
}

// Sleepers reports how many goroutines are blocked in Sleep (manual mode only).
func (f *Fake) Sleepers() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.asleep
}

// WaitForSleepers blocks until at least n goroutines are blocked in Sleep, or
// ctx ends. With auto-advance off, it lets a test know that the code under
// test has reached its wait before the test moves the clock or cancels it.
func (f *Fake) WaitForSleepers(ctx context.Context, n int) error {
	for {
		f.mu.Lock()
		if f.asleep >= n {
			f.mu.Unlock()
			return nil
		}
		changed := f.waitChange()
		f.mu.Unlock()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
		}
	}
}

// Pending reports how many timers and sleepers wait on the clock.
func (f *Fake) Pending() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.queue)
}

// WaitForTimers blocks until at least n timers (AfterFunc) and sleepers
// wait on the clock, or ctx ends. It lets a test know that the code under
// test has scheduled what it was to schedule before the test moves the
// clock.
func (f *Fake) WaitForTimers(ctx context.Context, n int) error {
	for {
		f.mu.Lock()
		if len(f.queue) >= n {
			f.mu.Unlock()
			return nil
		}
		changed := f.waitChange()
		f.mu.Unlock()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
		}
	}
}

// waitChange returns a channel closed at the next change of asleep or of
// the queue's growth; f.mu must be held.
func (f *Fake) waitChange() chan struct{} {
	if f.changed == nil {
		f.changed = make(chan struct{})
	}
	return f.changed
}

// notify wakes the waiters of waitChange; f.mu must be held.
func (f *Fake) notify() {
	if f.changed != nil {
		close(f.changed)
		f.changed = nil
	}
}

// Next reports when the earliest pending timer or sleeper falls due.
func (f *Fake) Next() (time.Time, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.queue) == 0 {
		return time.Time{}, false
	}
	return f.queue[0].when, true
}

// Timer is a pending call made by [Fake.AfterFunc].
type Timer struct {
	f *Fake
	e *entry
}

// Stop cancels the call. It reports whether it stopped it before it fired.
func (t *Timer) Stop() bool {
	t.f.mu.Lock()
	defer t.f.mu.Unlock()
	if t.e.index < 0 {
		return false
	}
	heap.Remove(&t.f.queue, t.e.index)
	return true
}

// advanceTo fires everything due up to target in order, then leaves the clock
// at target (or later, if another goroutine moved it further meanwhile).
// Callbacks run without the lock held, so they may use the clock.
func (f *Fake) advanceTo(target time.Time) {
	for {
		f.mu.Lock()
		if len(f.queue) == 0 || f.queue[0].when.After(target) {
			if target.After(f.now) {
				f.now = target
			}
			f.mu.Unlock()
			return
		}
		e := heap.Pop(&f.queue).(*entry)
		if e.when.After(f.now) {
			f.now = e.when
		}
		f.mu.Unlock()
		if e.fn != nil {
			e.fn()
		} else {
			close(e.wake)
		}
	}
}

// push schedules an entry; f.mu must be held.
func (f *Fake) push(when time.Time, fn func()) *entry {
	f.seq++
	e := &entry{when: when, seq: f.seq, fn: fn}
	if fn == nil {
		e.wake = make(chan struct{})
	}
	heap.Push(&f.queue, e)
	f.notify()
	return e
}

// setAsleep changes the count of blocked sleepers; f.mu must be held.
func (f *Fake) setAsleep(delta int) {
	f.asleep += delta
	f.notify()
}

// entry is a timer (fn set) or a sleeper (wake set) waiting in the queue.
type entry struct {
	when  time.Time
	seq   uint64
	fn    func()
	wake  chan struct{}
	index int // position in the heap; -1 once removed
}

// queue is a min-heap of entries by due time, then by scheduling order.
type queue []*entry

func (q queue) Len() int { return len(q) }
func (q queue) Less(i, j int) bool {
	if q[i].when.Equal(q[j].when) {
		return q[i].seq < q[j].seq
	}
	return q[i].when.Before(q[j].when)
}
func (q queue) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].index = i
	q[j].index = j
}
func (q *queue) Push(x any) {
	e := x.(*entry)
	e.index = len(*q)
	*q = append(*q, e)
}
func (q *queue) Pop() any {
	old := *q
	n := len(old)
	e := old[n-1]
	old[n-1] = nil
	e.index = -1
	*q = old[:n-1]
	return e
}
