package fakekit

// ring keeps the newest items within a count and a byte budget: adding
// past either drops the oldest. It is a queue over one slice, compacted
// when its dropped front outgrows what it keeps. It is not safe for
// concurrent use; its owner locks.
type ring[T any] struct {
	items    []T
	sizes    []int64
	head     int // index of the oldest item kept
	bytes    int64
	maxItems int
	maxBytes int64
	onDrop   func(T) // called with each item dropped for the budget, if set
}

func newRing[T any](maxItems int, maxBytes int64) ring[T] {
	return ring[T]{maxItems: maxItems, maxBytes: maxBytes}
}

func (r *ring[T]) len() int { return len(r.items) - r.head }

func (r *ring[T]) add(v T, size int64) {
	if r.maxItems <= 0 {
		return
	}
	for r.len() > 0 && (r.len() >= r.maxItems || r.bytes+size > r.maxBytes) {
		r.dropOldest()
	}
	r.items = append(r.items, v)
	r.sizes = append(r.sizes, size)
	r.bytes += size
}

// resize changes the size of the newest item for which is reports true
// (searched from the newest, where an item still growing is) by delta, and
// drops the oldest items past the byte budget. It reports whether the item
// was still kept.
func (r *ring[T]) resize(is func(T) bool, delta int64) bool {
	for i := len(r.items) - 1; i >= r.head; i-- {
		if is(r.items[i]) {
			r.sizes[i] += delta
			r.bytes += delta
			for r.len() > 1 && r.bytes > r.maxBytes {
				r.dropOldest()
			}
			return true
		}
	}
	return false
}

func (r *ring[T]) dropOldest() {
	var zero T
	if r.onDrop != nil {
		r.onDrop(r.items[r.head])
	}
	r.bytes -= r.sizes[r.head]
	r.items[r.head] = zero // let it go now, not at the next compaction
	r.head++
	if r.head >= 64 && r.head > len(r.items)/2 {
		n := copy(r.items, r.items[r.head:])
		copy(r.sizes, r.sizes[r.head:])
		clear(r.items[n:])
		r.items, r.sizes, r.head = r.items[:n], r.sizes[:n], 0
	}
}

func (r *ring[T]) each(fn func(T)) {
	for _, v := range r.items[r.head:] {
		fn(v)
	}
}

func (r *ring[T]) reset() {
	r.items, r.sizes, r.head, r.bytes = nil, nil, 0, 0
}

// Bounded is a log that keeps its newest items within a count and a byte
// budget, for a fake's own records (webhook deliveries, say). It is not
// safe for concurrent use; its owner locks.
type Bounded[T any] struct{ r ring[T] }

// NewBounded returns a Bounded log of at most maxItems items and maxBytes
// bytes.
func NewBounded[T any](maxItems int, maxBytes int64) *Bounded[T] {
	return &Bounded[T]{r: newRing[T](maxItems, maxBytes)}
}

// Add appends v, which costs size bytes, dropping the oldest items past
// the bounds.
func (b *Bounded[T]) Add(v T, size int64) { b.r.add(v, size) }

// All returns the items, oldest first.
func (b *Bounded[T]) All() []T {
	out := make([]T, 0, b.r.len())
	b.r.each(func(v T) { out = append(out, v) })
	return out
}

// Len is the number of items kept.
func (b *Bounded[T]) Len() int { return b.r.len() }

// Reset drops every item.
func (b *Bounded[T]) Reset() { b.r.reset() }
