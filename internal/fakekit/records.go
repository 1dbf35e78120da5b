package fakekit

// DefaultMaxRecords is how many records of each kind a fake keeps unless
// its WithMaxRecords option says otherwise: invoices, issues, workflow
// runs, users, … each up to this many. A create past it is refused in the
// service's own words and changes nothing. At the few hundred bytes a
// record of most kinds takes, a kind full to the bound holds some tens of
// megabytes: enough for any test suite and for days of a shared
// development server, and far from the gigabytes a loop of creates would
// otherwise pile up.
const DefaultMaxRecords = 100_000

// Records counts the records a fake keeps, by kind, against one bound that
// every kind shares, for the kinds whose number the fake cannot read off
// one list (an issue lives in its project, a line in its document). It is
// not safe for concurrent use: the fake's state lock guards it.
//
// The counts are derived from the state the first time they are needed
// (count walks it), then kept by the fake as it adds and removes records;
// Forget derives them again, after the state was changed some other way
// (a seed rolled back). A fake makes one Records per state, and a new one
// for a state that replaces it (a reset, a restore), so no count outlives
// its records.
type Records struct {
	max   int
	count func(add func(kind string, n int))
	n     map[string]int
}

// NewRecords returns counts bounded by max (DefaultMaxRecords when max is
// not positive), which count derives from the state.
func NewRecords(max int, count func(add func(kind string, n int))) *Records {
	if max <= 0 {
		max = DefaultMaxRecords
	}
	return &Records{max: max, count: count}
}

// Max is the bound of every kind.
func (r *Records) Max() int { return r.max }

// Room reports whether n more records of kind fit.
func (r *Records) Room(kind string, n int) bool { return r.counts()[kind]+n <= r.max }

// Count is how many records of kind the state holds.
func (r *Records) Count(kind string) int { return r.counts()[kind] }

// Add counts n records of kind added (n < 0: removed).
func (r *Records) Add(kind string, n int) {
	if r.n != nil { // else they are derived, with these, when next needed
		r.n[kind] += n
	}
}

// Forget drops the counts, to derive them again when next needed.
func (r *Records) Forget() { r.n = nil }

func (r *Records) counts() map[string]int {
	if r.n == nil {
		n := map[string]int{}
		if r.count != nil {
			r.count(func(kind string, k int) { n[kind] += k })
		}
		r.n = n
	}
	return r.n
}
