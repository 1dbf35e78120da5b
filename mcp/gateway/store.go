package gateway

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/apitwin/apitwin/clock"
)

// Store keeps the state of a gateway that its replicas must share: the rate
// limiters' token buckets, the verdicts on callers' tokens, the signatures
// already seen (so that none is accepted twice) and the cached answers of
// read methods. One replica uses a MemoryStore (the default); several behind
// one load balancer share a Store on Redis (package mcp/mcpredis), so that
// they enforce one limit together and a token revoked on one is refused by
// all.
//
// Keys are opaque digests made by the gateway (never a token or a secret)
// and already carry what they are for ("rl:", "tok:", "sig:", "ans:", and
// "wr:" for the marks writes leave, so that a read racing a write does not
// keep its answer); a
// Store needs no knowledge of them. Every method may fail (a shared store
// can be unreachable); the gateway then falls back to its memory, logs it
// and reports it in Ready, rather than failing every request. Each call
// takes effect once: a store whose client sends a command again when its
// answer was lost (as go-redis does) still spends and claims once, and
// answers as the first run did (see mcp/mcpredis).
type Store interface {
	// Take spends n requests of key's token bucket, which holds at most
	// r.Burst and refills at r.PerMinute a minute, when it holds them; it
	// spends nothing when it does not. now is the gateway's clock, so that
	// replicas and tests agree on time.
	Take(ctx context.Context, key string, n int, r Rate, now time.Time) (RateDecision, error)

	// Get returns the value stored under key while its time to live lasts.
	Get(ctx context.Context, key string) ([]byte, bool, error)
	// Set stores value under key for ttl, filed under tags (none is fine),
	// replacing what was there.
	Set(ctx context.Context, key string, value []byte, ttl time.Duration, tags ...string) error
	// Delete drops keys; an absent key is no error.
	Delete(ctx context.Context, keys ...string) error
	// Invalidate drops every value filed under any of tags.
	Invalidate(ctx context.Context, tags ...string) error

	// Claim records key for ttl and reports whether it was new: true the
	// first time, false while the record lasts. A claim is never dropped
	// to make room before its ttl ends (a store that cannot keep one more
	// returns ErrStoreFull), because a forgotten claim would let a signed
	// request be replayed.
	Claim(ctx context.Context, key string, ttl time.Duration) (bool, error)

	// Ping reports whether the store can be reached.
	Ping(ctx context.Context) error
}

// GetTaker is a Store that can read a value and, when it is the one the
// caller expects, spend from a token bucket and read one more value, in one
// step: for a store across the network, one round trip where Get, Take and
// Get are three. The gateway reads a token's verdict so when it already
// knows that verdict (good, and fresh by its clock), spending the request's
// rate limit on the token's id and reading the call's cached answer at
// once; whenever the value found is not the one expected (the token was
// forgotten, revoked or verified again) nothing is spent or read, and the
// gateway goes on as with Get, then Take once the caller is verified. A
// Store without it is asked with Get, Take and Get.
type GetTaker interface {
	// GetTake returns what Get(q.Key) would and, only when a value is
	// there and it is q.Want byte for byte, spends q.N requests of
	// q.Bucket as Take(q.Bucket, q.N, q.Rate, q.Now) would and, when q.Also
	// is not "", returns what Get(q.Also) would (for the gateway: the
	// cached answer of the call the request makes).
	GetTake(ctx context.Context, q GetTakeRequest) (GetTakeResult, error)
}

// GetTakeRequest is what GetTaker.GetTake reads, spends and reads again.
type GetTakeRequest struct {
	Key    string // the value read, and compared with Want
	Want   []byte
	Bucket string // the bucket spent from, only when the value is Want
	N      int
	Rate   Rate
	Now    time.Time
	Also   string // the value read as well once the bucket was asked, "" for none
	// Marks are keys read as well with Also (for the gateway: the marks of
	// the writes to the cached answer's tags, see MarkedCache), only when
	// Also is not "".
	Marks []string
}

// GetTakeResult is GetTaker's answer.
type GetTakeResult struct {
	Value    []byte       // the value under key, when Found
	Found    bool         // a value is there
	Taken    bool         // it was the one wanted, and the bucket was asked
	Decision RateDecision // the bucket's answer, when Taken
	// Also and AlsoFound are Get(also), when Taken and also is not "".
	Also      []byte
	AlsoFound bool
	// Marks are the values under q.Marks, nil for one absent, when Also
	// was read; the slice is nil when they were not read.
	Marks [][]byte
}

// MarkedCache is a Store that reads a cached answer with the marks the
// writes to its tags left, and stores an answer only while those marks are
// the ones read before it was fetched, each in one step: for a store across
// the network, one round trip where a Get per mark, a Set, and a Get per
// mark again were three and more. A mark is a value under a key of its own,
// which a write replaces; an answer read before a write and stored after it
// would otherwise outlive the write's Invalidate. A Store without it is
// asked with Get, Set and Delete.
type MarkedCache interface {
	// GetMarked returns what Get(key) would and, at least when nothing is
	// found, the values under marks (nil for one absent).
	GetMarked(ctx context.Context, key string, marks []string) (value []byte, found bool, marked [][]byte, err error)
	// SetMarked does what Set(key, value, ttl, tags...) would, only when
	// the values under marks are still want (an absent one is nil), and
	// reports whether it stored.
	SetMarked(ctx context.Context, key string, value []byte, ttl time.Duration, tags, marks []string, want [][]byte) (bool, error)
}

// Rate is a token bucket's shape.
type Rate struct {
	PerMinute int // sustained requests a minute
	Burst     int // most requests at once
}

// RateDecision is a Store's answer to Take, and what the X-RateLimit-*
// headers show.
type RateDecision struct {
	Allowed    bool
	Limit      int           // X-RateLimit-Limit: requests per minute
	Remaining  int           // X-RateLimit-Remaining: requests that would pass now
	Reset      time.Time     // X-RateLimit-Reset: when the bucket is full again
	RetryAfter time.Duration // when refused: how long until n would pass
}

// ErrStoreFull is a Store's refusal to record one more claim: the replay
// window holds as many signatures as the store may keep. The gateway
// refuses the signed request (503) rather than forget a signature.
var ErrStoreFull = errors.New("gateway: store: full")

// fallbackStore is a shared Store with the gateway's memory behind it:
// while the shared one fails, every call goes to memory, and the shared one
// is tried again after retryEvery. The change each way is logged once.
type fallbackStore struct {
	shared Store
	memory *MemoryStore
	clk    clock.Clock
	log    *slog.Logger
	onFail func()

	mu        sync.Mutex
	downSince time.Time // zero while the shared store answers
	retryAt   time.Time
	lastErr   error
}

// sharedRetryEvery is how long the gateway serves from memory before it
// tries an unreachable shared store again.
const sharedRetryEvery = 5 * time.Second

// useShared reports whether the shared store is to be asked now. (It
// reports rather than returns the store: a Store that is a value of a type
// that cannot be compared, say a struct with a func in it, must not be
// compared with ==, which panics.)
func (f *fallbackStore) useShared() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.downSince.IsZero() || !f.clk.Now().Before(f.retryAt)
}

// failed records a failure of the shared store and reports whether the
// caller should fall back to memory (false for ErrStoreFull, which is an
// answer, not an outage).
func (f *fallbackStore) failed(ctx context.Context, err error) bool {
	// A full store answered; a caller that gave up (its context canceled
	// or past its deadline) says nothing of the store: neither is an
	// outage. The caller's context says which, not the error: a dial that
	// timed out (a Redis host that does not answer at all) is also
	// errors.Is context.DeadlineExceeded, and it is an outage.
	if err == nil || errors.Is(err, ErrStoreFull) || ctx.Err() != nil {
		if err == nil {
			f.recovered()
		}
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.clk.Now()
	if f.downSince.IsZero() {
		f.downSince = now
		f.log.Error("the shared store cannot be reached; serving from this replica's memory", "error", err)
	}
	f.retryAt, f.lastErr = now.Add(sharedRetryEvery), err
	if f.onFail != nil {
		f.onFail()
	}
	return true
}

func (f *fallbackStore) recovered() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.downSince.IsZero() {
		f.log.Info("the shared store answers again", "down_for", f.clk.Now().Sub(f.downSince).String())
		f.downSince, f.lastErr = time.Time{}, nil
	}
}

// health is nil while the shared store answers, else why not.
func (f *fallbackStore) health() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.downSince.IsZero() {
		return nil
	}
	return fmt.Errorf("shared store unreachable since %s, serving from memory: %w", f.downSince.UTC().Format(time.RFC3339), f.lastErr)
}

func (f *fallbackStore) Take(ctx context.Context, key string, n int, r Rate, now time.Time) (RateDecision, error) {
	if f.useShared() {
		d, err := f.shared.Take(ctx, key, n, r, now)
		if !f.failed(ctx, err) {
			return d, err
		}
	}
	return f.memory.Take(ctx, key, n, r, now)
}

func (f *fallbackStore) Get(ctx context.Context, key string) ([]byte, bool, error) {
	if f.useShared() {
		v, ok, err := f.shared.Get(ctx, key)
		if !f.failed(ctx, err) {
			return v, ok, err
		}
	}
	return f.memory.Get(ctx, key)
}

func (f *fallbackStore) Set(ctx context.Context, key string, value []byte, ttl time.Duration, tags ...string) error {
	if f.useShared() {
		err := f.shared.Set(ctx, key, value, ttl, tags...)
		if !f.failed(ctx, err) {
			return err
		}
	}
	return f.memory.Set(ctx, key, value, ttl, tags...)
}

// GetTake is the shared store's GetTake while it answers, memory's while it
// does not. A shared store that is no GetTaker is asked with Get and Take,
// each falling back on its own, as the gateway asked before there was
// GetTake.
func (f *fallbackStore) GetTake(ctx context.Context, q GetTakeRequest) (GetTakeResult, error) {
	gt, ok := f.shared.(GetTaker)
	if !ok {
		return getThenTake(ctx, f, q)
	}
	if f.useShared() {
		res, err := gt.GetTake(ctx, q)
		if !f.failed(ctx, err) {
			return res, err
		}
	}
	return f.memory.GetTake(ctx, q)
}

// GetMarked is the shared store's while it answers (made of Get when it is
// no MarkedCache), memory's while it does not.
func (f *fallbackStore) GetMarked(ctx context.Context, key string, marks []string) ([]byte, bool, [][]byte, error) {
	if f.useShared() {
		v, found, marked, err := getMarked(ctx, f.shared, key, marks)
		if !f.failed(ctx, err) {
			return v, found, marked, err
		}
	}
	return f.memory.GetMarked(ctx, key, marks)
}

// SetMarked is the shared store's while it answers (made of Set, Get and
// Delete when it is no MarkedCache), memory's while it does not.
func (f *fallbackStore) SetMarked(ctx context.Context, key string, value []byte, ttl time.Duration, tags, marks []string, want [][]byte) (bool, error) {
	if f.useShared() {
		stored, err := setMarked(ctx, f.shared, key, value, ttl, tags, marks, want)
		if !f.failed(ctx, err) {
			return stored, err
		}
	}
	return f.memory.SetMarked(ctx, key, value, ttl, tags, marks, want)
}

// getMarked is s's GetMarked, or Get and a Get of each mark, on a miss,
// for a store without one.
func getMarked(ctx context.Context, s Store, key string, marks []string) ([]byte, bool, [][]byte, error) {
	if mc, ok := s.(MarkedCache); ok {
		return mc.GetMarked(ctx, key, marks)
	}
	v, found, err := s.Get(ctx, key)
	if err != nil || found {
		return v, found, nil, err
	}
	marked, err := readMarks(ctx, s, marks)
	return nil, false, marked, err
}

// setMarked is s's SetMarked, or for a store without one Set, then a Get
// of each mark, and Delete when one changed meanwhile.
func setMarked(ctx context.Context, s Store, key string, value []byte, ttl time.Duration, tags, marks []string, want [][]byte) (bool, error) {
	if mc, ok := s.(MarkedCache); ok {
		return mc.SetMarked(ctx, key, value, ttl, tags, marks, want)
	}
	if err := s.Set(ctx, key, value, ttl, tags...); err != nil {
		return false, err
	}
	now, err := readMarks(ctx, s, marks)
	if err == nil && sameMarks(now, want) {
		return true, nil
	}
	if derr := s.Delete(ctx, key); derr != nil && err == nil {
		err = derr
	}
	return false, err
}

// readMarks is the values under marks, nil for one absent.
func readMarks(ctx context.Context, s Store, marks []string) ([][]byte, error) {
	out := make([][]byte, len(marks))
	for i, k := range marks {
		v, _, err := s.Get(ctx, k)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// sameMarks reports whether two readings of the marks agree (absent and
// empty alike: a mark is never empty).
func sameMarks(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// getTake is s's GetTake, or Get and Take for a store without one.
func getTake(ctx context.Context, s Store, q GetTakeRequest) (GetTakeResult, error) {
	if gt, ok := s.(GetTaker); ok {
		return gt.GetTake(ctx, q)
	}
	return getThenTake(ctx, s, q)
}

// getThenTake is GetTake made of a Get and, when it finds q.Want, a Take
// and a Get of q.Also.
func getThenTake(ctx context.Context, s Store, q GetTakeRequest) (GetTakeResult, error) {
	v, found, err := s.Get(ctx, q.Key)
	if err != nil || !found {
		return GetTakeResult{}, err
	}
	res := GetTakeResult{Value: v, Found: true}
	if !bytes.Equal(v, q.Want) {
		return res, nil
	}
	d, err := s.Take(ctx, q.Bucket, q.N, q.Rate, q.Now)
	if err != nil {
		return res, err
	}
	res.Taken, res.Decision = true, d
	if q.Also != "" {
		// The take is done: a failed read of also is only nothing found (a
		// cache miss), not the failure of the whole, which would have the
		// gateway take again.
		if res.Also, res.AlsoFound, err = s.Get(ctx, q.Also); err != nil {
			res.Also, res.AlsoFound = nil, false
		} else if !res.AlsoFound {
			res.Marks, _ = readMarks(ctx, s, q.Marks) // nil when they could not be read
		}
	}
	return res, nil
}

// Delete and Invalidate reach memory and, even while it is thought down,
// the shared store: what either holds must not outlive a revocation or a
// write once the shared store answers again (both are safe to repeat).
func (f *fallbackStore) Delete(ctx context.Context, keys ...string) error {
	f.memory.Delete(ctx, keys...)
	err := f.shared.Delete(ctx, keys...)
	f.failed(ctx, err)
	return nil
}

func (f *fallbackStore) Invalidate(ctx context.Context, tags ...string) error {
	f.memory.Invalidate(ctx, tags...)
	err := f.shared.Invalidate(ctx, tags...)
	f.failed(ctx, err)
	return nil
}

// Claim records key in this replica's memory, always, and in the shared
// store while it answers, and reports it new only when it was new to both.
// Memory keeps every claim this replica made for the claim's whole ttl,
// whatever the shared store does meanwhile (an outage, a restart that
// emptied it): a signed request this replica accepted is never accepted by
// it again within its window. The shared store tells each replica what the
// others accepted, while it is there and remembers.
func (f *fallbackStore) Claim(ctx context.Context, key string, ttl time.Duration) (bool, error) {
	return f.claim(ctx, key, ttl, false)
}

// errSharedStoreDown is claimShared's answer while the shared store cannot
// be reached.
var errSharedStoreDown = errors.New("gateway: the shared store cannot be reached")

// claimShared is Claim that also needs the shared store: while it cannot be
// reached, the claim fails (errSharedStoreDown) instead of being made in
// this replica's memory alone, which the other replicas cannot see
// (SecurityConfig.SharedReplayCheckOnly).
func (f *fallbackStore) claimShared(ctx context.Context, key string, ttl time.Duration) (bool, error) {
	return f.claim(ctx, key, ttl, true)
}

// claim is Claim, and with sharedOnly claimShared. Memory is asked first:
// a replay to the replica that accepted the request costs no round trip,
// and a full memory refuses before the shared store records anything. A
// claim the request is then refused for all the same (the shared store
// full, or down under sharedOnly, or the caller gone) is taken back from
// memory, so that the request sent again later is not taken for a replay
// of itself.
func (f *fallbackStore) claim(ctx context.Context, key string, ttl time.Duration, sharedOnly bool) (bool, error) {
	shared := f.useShared()
	if sharedOnly && !shared {
		return false, errSharedStoreDown
	}
	if fresh, err := f.memory.Claim(ctx, key, ttl); !fresh || err != nil {
		return fresh, err
	}
	if !shared {
		return true, nil
	}
	fresh, err := f.shared.Claim(ctx, key, ttl)
	switch {
	case !f.failed(ctx, err):
		if err != nil {
			f.memory.unclaim(key)
		}
		return fresh, err
	case sharedOnly:
		f.memory.unclaim(key)
		return false, errSharedStoreDown
	}
	return true, nil // the shared store is down: this replica's memory answers
}

func (f *fallbackStore) Ping(ctx context.Context) error {
	err := f.shared.Ping(ctx)
	f.failed(ctx, err)
	return err
}
