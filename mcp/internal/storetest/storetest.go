// Package storetest is the conformance suite of gateway.Store: what every
// store the gateway can be given (gateway.MemoryStore, mcpredis.Store) must do
// alike.
//
// Run takes a constructor and calls it once per subtest, so each subtest
// has a store of its own: a store shared between tests (one Redis) must
// give each a fresh key prefix, and remove its keys in t.Cleanup.
//
// No test sleeps. Expiry by time is checked only for a store that says how
// to move its clock on, by having a method
//
//	Advance(d time.Duration)
//
// (a MemoryStore on a clock.Fake, wrapped). Others, Redis among them, whose
// expiry follows a clock the test does not hold, skip those checks; their
// own tests check that a time to live was set.
//
// A store across the network may have a command run twice: its client
// sends a command again when the answer did not come (a timeout, a broken
// connection), although the server may have run it already. What Take,
// GetTake and Claim change must then happen once, and their answer be the
// first run's. That is checked for a store whose test can lose an answer,
// by having a method
//
//	LoseAnswer(t *testing.T, key string, between func()) (lost func() bool)
//
// (see Retrier; mcpredis's test wraps its Store so, behind a proxy). A
// store without a network between it and its state (a MemoryStore) runs
// every command once, and skips those checks.
package storetest

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/apitwin/apitwin/mcp/gateway"
)

// Advancer is a store whose clock a test can move on.
type Advancer interface {
	Advance(d time.Duration)
}

// Retrier is a store whose test can lose the answer of a command its
// server ran, so that the store's client sends the command again.
type Retrier interface {
	// LoseAnswer loses the answer of the next command naming key that the
	// server runs, and calls between (when not nil) once the client has
	// sent that command again, before the server runs it again; lost
	// reports whether an answer was lost since.
	LoseAnswer(t *testing.T, key string, between func()) (lost func() bool)
}

// RunTwice runs on s the suite's case of a command run twice (Run runs it
// too, for a store that is a Retrier): for a test whose store loses
// answers through a harness too slow for the whole suite.
func RunTwice(t *testing.T, s gateway.Store) { testRunTwice(t, s) }

// Run runs the suite against stores made by newStore, in parallel
// subtests.
func Run(t *testing.T, newStore func(t *testing.T) gateway.Store) {
	tests := []struct {
		name string
		run  func(t *testing.T, s gateway.Store)
	}{
		{"TakeScripted", testTakeScripted},
		{"TakeRandom", testTakeRandom},
		{"TakeKeysApart", testTakeKeysApart},
		{"TakeConcurrent", testTakeConcurrent},
		{"GetTake", testGetTake},
		{"GetTakeMarks", testGetTakeMarks},
		{"Marked", testMarked},
		{"GetSet", testGetSet},
		{"Expiry", testExpiry},
		{"Delete", testDelete},
		{"Invalidate", testInvalidate},
		{"Claim", testClaim},
		{"ClaimConcurrent", testClaimConcurrent},
		{"RunTwice", testRunTwice},
		{"Ping", testPing},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, newStore(t))
		})
	}
}

// t0 has nanoseconds below the millisecond, so that a store keeping time
// coarser than the gateway's clock shows.
var t0 = time.Date(2026, 11, 25, 9, 0, 0, 123_456_789, time.UTC)

// step is one Take of a script: dt after the previous one (negative for a
// clock that went back), n requests at rate r.
type step struct {
	dt time.Duration
	n  int
	r  gateway.Rate
}

// want is what a step must answer besides matching the reference, where a
// figure is worth stating outright (nil: only the reference).
type want struct {
	allowed    bool
	remaining  int
	resetIn    time.Duration
	retryAfter time.Duration
}

// The bucket's figures match a MemoryStore's call for call, and the
// figures stated outright.
func testTakeScripted(t *testing.T, s gateway.Store) {
	r := gateway.Rate{PerMinute: 60, Burst: 10} // a token a second
	var script []step
	var wants []*want
	add := func(st step, w *want) { script = append(script, st); wants = append(wants, w) }

	// The burst: ten pass, the eleventh waits a second.
	for i := range 10 {
		add(step{0, 1, r}, &want{true, 9 - i, time.Duration(i+1) * time.Second, 0})
	}
	add(step{0, 1, r}, &want{false, 0, 10 * time.Second, time.Second})
	// Half a second refills half a token: still refused, and the wait is
	// rounded up to a whole second.
	add(step{500 * time.Millisecond, 1, r}, &want{false, 0, 10 * time.Second, time.Second})
	// Another half: one token, spent.
	add(step{500 * time.Millisecond, 1, r}, &want{true, 0, 10 * time.Second, 0})
	// Three at once after 2.5 s: two and a half tokens are not three.
	add(step{2500 * time.Millisecond, 3, r}, &want{false, 2, 8 * time.Second, time.Second})
	// More than the burst never passes: a minute, not a busy loop.
	add(step{0, 11, r}, &want{false, 2, 8 * time.Second, time.Minute})
	// A long wait fills the bucket to the burst, no further.
	add(step{time.Hour, 0, r}, &want{true, 10, 0, 0})
	add(step{0, 10, r}, &want{true, 0, 10 * time.Second, 0})
	// A clock that goes back refills nothing, and the bucket keeps its time.
	add(step{-30 * time.Second, 1, r}, &want{false, 0, 10 * time.Second, time.Second})
	add(step{30*time.Second + time.Second, 1, r}, &want{true, 0, 10 * time.Second, 0})
	// Odd rates leave fractions: compared with the reference only.
	odd := gateway.Rate{PerMinute: 7, Burst: 3}
	for _, dt := range []time.Duration{0, 1, time.Nanosecond, 999 * time.Microsecond, 3 * time.Second, 8571428571, 1, 17 * time.Second} {
		add(step{dt, 1, odd}, nil)
	}
	add(step{0, 4, odd}, nil)
	add(step{time.Minute, 2, odd}, nil)

	check(t, s, "rl:scripted", script, wants)
}

// Long random scripts, with times to the nanosecond, match the reference
// to the last figure: one per rate, from a full bucket, and one whose rate
// changes on the way. The huge bursts make Remaining show the tokens to
// the unit at sixteen digits, where a store that keeps them to fewer
// digits, or rounds time, differs.
func testTakeRandom(t *testing.T, s gateway.Store) {
	rng := rand.New(rand.NewPCG(1, 2))
	rates := []gateway.Rate{
		{PerMinute: 600, Burst: 100}, {PerMinute: 60, Burst: 20}, {PerMinute: 7, Burst: 3},
		{PerMinute: 1, Burst: 1}, {PerMinute: 300, Burst: 50},
		{PerMinute: 6_000_000_000, Burst: 1 << 50}, {PerMinute: 61, Burst: 1 << 40},
		{PerMinute: 7_000_000_001, Burst: 1 << 52},
	}
	dt := func() time.Duration {
		switch rng.IntN(4) {
		case 1:
			return time.Duration(rng.Int64N(int64(time.Second)))
		case 2:
			return time.Duration(rng.Int64N(int64(10 * time.Second)))
		case 3:
			return time.Duration(rng.Int64N(int64(time.Millisecond)))
		}
		return 0 // at once
	}
	// n: mostly an eighth of the burst at most, sometimes more than it.
	n := func(r gateway.Rate) int {
		if rng.IntN(10) == 0 {
			return r.Burst + 1
		}
		return 1 + rng.IntN(max(1, r.Burst/8))
	}
	for i, r := range rates {
		var script []step
		for range 150 {
			script = append(script, step{dt(), n(r), r})
		}
		if allowed := check(t, s, fmt.Sprint("rl:random:", i), script, nil); allowed == 0 || allowed == len(script) {
			t.Errorf("rate %+v: the script allowed %d of %d: it does not test both answers", r, allowed, len(script))
		}
	}
	var script []step
	r := rates[0]
	for i := range 600 {
		if i%50 == 49 {
			r = rates[rng.IntN(5)] // the bursts a bucket can refill to in the script's time
		}
		script = append(script, step{dt(), n(r), r})
	}
	if allowed := check(t, s, "rl:random:changing", script, nil); allowed == 0 || allowed == len(script) {
		t.Errorf("changing rates: the script allowed %d of %d: it does not test both answers", allowed, len(script))
	}
}

// check runs script on s and on a MemoryStore, comparing every figure, and
// the figures stated in wants. It returns how many steps were allowed.
func check(t *testing.T, s gateway.Store, key string, script []step, wants []*want) (allowed int) {
	t.Helper()
	ctx := context.Background()
	ref := gateway.NewMemoryStore(nil, gateway.MemoryLimits{})
	now := t0
	for i, st := range script {
		now = now.Add(st.dt)
		got, err := s.Take(ctx, key, st.n, st.r, now)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		exp, _ := ref.Take(ctx, key, st.n, st.r, now)
		if !sameDecision(got, exp) {
			t.Fatalf("step %d (%+v at +%s): got %s, MemoryStore %s", i, st, now.Sub(t0), show(got, now), show(exp, now))
		}
		if got.Allowed {
			allowed++
		}
		if i < len(wants) && wants[i] != nil {
			w := wants[i]
			if got.Allowed != w.allowed || got.Remaining != w.remaining || got.Limit != st.r.PerMinute ||
				got.Reset.Sub(now) != w.resetIn || got.RetryAfter != w.retryAfter {
				t.Fatalf("step %d (%+v): got %s, want allowed=%v remaining=%d reset=+%s retry=%s", i, st, show(got, now),
					w.allowed, w.remaining, w.resetIn, w.retryAfter)
			}
		}
	}
	return allowed
}

func sameDecision(a, b gateway.RateDecision) bool {
	return a.Allowed == b.Allowed && a.Limit == b.Limit && a.Remaining == b.Remaining &&
		a.Reset.Equal(b.Reset) && a.RetryAfter == b.RetryAfter
}

func show(d gateway.RateDecision, now time.Time) string {
	return fmt.Sprintf("allowed=%v limit=%d remaining=%d reset=+%s retry=%s", d.Allowed, d.Limit, d.Remaining, d.Reset.Sub(now), d.RetryAfter)
}

// GetTake (for a store that is a GetTaker) reads like Get, and takes like
// Take (and reads also like Get) only when the value is the one wanted: a
// missing or different value leaves the bucket as it was (none is made),
// and the figures of the takes it makes are a MemoryStore's Take's, step
// for step.
func testGetTake(t *testing.T, s gateway.Store) {
	gt, ok := s.(gateway.GetTaker)
	if !ok {
		t.Skip("not a GetTaker")
	}
	ctx := context.Background()
	ref := gateway.NewMemoryStore(nil, gateway.MemoryLimits{})
	r := gateway.Rate{PerMinute: 7, Burst: 3}
	good, other := []byte(`{"ok":true,"token_id":7}`), []byte(`{"ok":false}`)
	now := t0
	answer := []byte(`{"id":7}`)
	if err := s.Set(ctx, "ans:gt", answer, time.Hour); err != nil {
		t.Fatal(err)
	}
	alsoKeys := []string{"", "ans:gt", "ans:none"}
	steps := 0
	step := func(want []byte, n int, found, taken bool) {
		t.Helper()
		also := alsoKeys[steps%3]
		steps++
		res, err := gt.GetTake(ctx, gateway.GetTakeRequest{Key: "tok:gt", Want: want, Bucket: "rl:gt", N: n, Rate: r, Now: now, Also: also})
		if err != nil {
			t.Fatal(err)
		}
		if res.Found != found || res.Taken != taken {
			t.Fatalf("at +%s: found=%v taken=%v, want found=%v taken=%v", now.Sub(t0), res.Found, res.Taken, found, taken)
		}
		if alsoFound := taken && also == "ans:gt"; res.AlsoFound != alsoFound || alsoFound && !bytes.Equal(res.Also, answer) || !alsoFound && res.Also != nil {
			t.Fatalf("at +%s, also %q: %q %v", now.Sub(t0), also, res.Also, res.AlsoFound)
		}
		if found && !bytes.Equal(res.Value, good) {
			t.Fatalf("at +%s: value %q, want %q", now.Sub(t0), res.Value, good)
		}
		if taken {
			exp, _ := ref.Take(ctx, "rl:gt", n, r, now)
			if !sameDecision(res.Decision, exp) {
				t.Fatalf("at +%s: got %s, MemoryStore %s", now.Sub(t0), show(res.Decision, now), show(exp, now))
			}
		}
	}
	step(good, 1, false, false) // nothing stored: nothing taken
	if err := s.Set(ctx, "tok:gt", good, time.Hour); err != nil {
		t.Fatal(err)
	}
	step(other, 1, true, false) // another value: read, nothing taken
	if d, err := s.Take(ctx, "rl:gt", 0, r, now); err != nil || d.Remaining != 3 {
		t.Fatalf("a GetTake that took nothing touched the bucket: %+v %v", d, err)
	}
	ref.Take(ctx, "rl:gt", 0, r, now)
	for _, dt := range []time.Duration{0, 0, 0, 0, time.Second, 8571428571, 1, 17 * time.Second} {
		now = now.Add(dt)
		step(good, 1, true, true)
	}
	now = now.Add(time.Minute)
	step(good, 4, true, true) // more than the burst: refused, as Take refuses it
	if err := s.Delete(ctx, "tok:gt"); err != nil {
		t.Fatal(err)
	}
	step(good, 1, false, false) // forgotten: nothing taken
	if d, err := s.Take(ctx, "rl:gt", 0, r, now); err != nil {
		t.Fatal(err)
	} else if exp, _ := ref.Take(ctx, "rl:gt", 0, r, now); !sameDecision(d, exp) {
		t.Fatalf("after a GetTake of a forgotten value: got %s, MemoryStore %s", show(d, now), show(exp, now))
	}
}

// GetTake reads the marks with Also, absent ones as nil, only once the
// bucket was asked.
func testGetTakeMarks(t *testing.T, s gateway.Store) {
	gt, ok := s.(gateway.GetTaker)
	if !ok {
		t.Skip("not a GetTaker")
	}
	ctx := context.Background()
	r := gateway.Rate{PerMinute: 60, Burst: 10}
	good := []byte(`{"ok":true}`)
	for k, v := range map[string][]byte{"tok:gm": good, "wr:gm:a": []byte("mark-a")} {
		if err := s.Set(ctx, k, v, time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	q := gateway.GetTakeRequest{Key: "tok:gm", Want: good, Bucket: "rl:gm", N: 1, Rate: r, Now: t0,
		Also: "ans:gm", Marks: []string{"wr:gm:a", "wr:gm:b"}}
	res, err := gt.GetTake(ctx, q)
	if err != nil || !res.Taken {
		t.Fatalf("GetTake: %+v %v", res, err)
	}
	if diff := cmp.Diff([][]byte{[]byte("mark-a"), nil}, res.Marks); res.AlsoFound || diff != "" {
		t.Fatalf("also found %v, marks (-want +got):\n%s", res.AlsoFound, diff)
	}
	q.Want = []byte(`{"ok":false}`)
	if res, err := gt.GetTake(ctx, q); err != nil || res.Taken || res.Marks != nil {
		t.Fatalf("GetTake of another value read the marks: %+v %v", res, err)
	}
}

// SetMarked stores only while the marks are the ones wanted, filed under
// its tags as Set files; GetMarked reads the value and the marks.
func testMarked(t *testing.T, s gateway.Store) {
	mc, ok := s.(gateway.MarkedCache)
	if !ok {
		t.Skip("not a MarkedCache")
	}
	ctx := context.Background()
	marks := []string{"wr:mk:a", "wr:mk:b"}
	v, found, marked, err := mc.GetMarked(ctx, "ans:mk", marks)
	if err != nil || found || v != nil {
		t.Fatalf("GetMarked of nothing: %q %v %v", v, found, err)
	}
	if diff := cmp.Diff([][]byte{nil, nil}, marked); diff != "" {
		t.Fatalf("marks of none written (-want +got):\n%s", diff)
	}
	for _, tc := range []struct {
		name   string
		want   [][]byte
		stored bool
	}{
		{"one mark too few", [][]byte{nil}, false},
		{"a mark changed", [][]byte{[]byte("old"), nil}, false},
		{"marks as read", [][]byte{nil, nil}, true},
	} {
		if err := s.Delete(ctx, "ans:mk"); err != nil {
			t.Fatal(err)
		}
		stored, err := mc.SetMarked(ctx, "ans:mk", []byte("answer"), time.Hour, []string{"mk"}, marks, tc.want)
		if tc.name == "one mark too few" {
			// A store may refuse the call or store nothing; it must not store.
			err = nil
		}
		if err != nil || stored != tc.stored {
			t.Fatalf("%s: stored %v %v, want %v", tc.name, stored, err, tc.stored)
		}
		if tc.stored {
			mustGet(t, s, "ans:mk", []byte("answer"))
		} else {
			mustMiss(t, s, "ans:mk")
		}
	}
	if err := s.Set(ctx, "wr:mk:b", []byte("mark-b"), time.Hour); err != nil {
		t.Fatal(err)
	}
	if stored, err := mc.SetMarked(ctx, "ans:mk", []byte("answer 2"), time.Hour, []string{"mk"}, marks, [][]byte{nil, nil}); err != nil || stored {
		t.Fatalf("stored %v %v after a write marked b", stored, err)
	}
	mustGet(t, s, "ans:mk", []byte("answer")) // left as it was
	if stored, err := mc.SetMarked(ctx, "ans:mk", []byte("answer 3"), time.Hour, []string{"mk"}, marks, [][]byte{nil, []byte("mark-b")}); err != nil || !stored {
		t.Fatalf("stored %v %v with the marks as they are", stored, err)
	}
	v, found, marked, err = mc.GetMarked(ctx, "ans:mk", marks)
	if err != nil || !found || string(v) != "answer 3" {
		t.Fatalf("GetMarked: %q %v %v", v, found, err)
	}
	if found && marked != nil {
		if diff := cmp.Diff([][]byte{nil, []byte("mark-b")}, marked); diff != "" {
			t.Fatalf("marks (-want +got):\n%s", diff)
		}
	}
	// Filed under its tag: an Invalidate drops it.
	if err := s.Invalidate(ctx, "mk"); err != nil {
		t.Fatal(err)
	}
	mustMiss(t, s, "ans:mk")
}

// Buckets are per key.
func testTakeKeysApart(t *testing.T, s gateway.Store) {
	ctx := context.Background()
	r := gateway.Rate{PerMinute: 60, Burst: 2}
	for range 2 {
		if d, err := s.Take(ctx, "rl:a", 1, r, t0); err != nil || !d.Allowed {
			t.Fatalf("a: %+v %v", d, err)
		}
	}
	if d, _ := s.Take(ctx, "rl:a", 1, r, t0); d.Allowed {
		t.Fatal("a's bucket passed a third request at once")
	}
	if d, err := s.Take(ctx, "rl:b", 2, r, t0); err != nil || !d.Allowed {
		t.Fatalf("b was spent by a: %+v %v", d, err)
	}
}

// Twenty goroutines taking at once never spend more than the burst.
func testTakeConcurrent(t *testing.T, s gateway.Store) {
	ctx := context.Background()
	r := gateway.Rate{PerMinute: 1, Burst: 10}
	var allowed atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for range 20 {
		wg.Go(func() {
			for range 5 {
				d, err := s.Take(ctx, "rl:concurrent", 1, r, t0)
				if err != nil {
					errs <- err
					return
				}
				if d.Allowed {
					allowed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := allowed.Load(); n != int64(r.Burst) {
		t.Errorf("%d of 100 requests allowed at once by a bucket of %d", n, r.Burst)
	}
}

func testGetSet(t *testing.T, s gateway.Store) {
	ctx := context.Background()
	if v, ok, err := s.Get(ctx, "ans:missing"); err != nil || ok || v != nil {
		t.Errorf("missing key: %q %v %v", v, ok, err)
	}
	value := []byte("{\"id\":1}\x00\xff binary too")
	if err := s.Set(ctx, "ans:a", value, time.Hour); err != nil {
		t.Fatal(err)
	}
	mustGet(t, s, "ans:a", value)
	// Replaced, tags or not.
	if err := s.Set(ctx, "ans:a", []byte("second"), time.Hour, "project:1"); err != nil {
		t.Fatal(err)
	}
	mustGet(t, s, "ans:a", []byte("second"))
	// Empty is a value.
	if err := s.Set(ctx, "ans:empty", []byte{}, time.Hour); err != nil {
		t.Fatal(err)
	}
	mustGet(t, s, "ans:empty", []byte{})
	// No time to live: nothing kept, and what was there goes.
	for _, ttl := range []time.Duration{0, -time.Second} {
		if err := s.Set(ctx, "ans:a", []byte("x"), time.Hour); err != nil {
			t.Fatal(err)
		}
		if err := s.Set(ctx, "ans:a", []byte("y"), ttl); err != nil {
			t.Fatalf("ttl %s: %v", ttl, err)
		}
		mustMiss(t, s, "ans:a")
	}
	// A time to live below the store's unit still keeps the value a while
	// (not tested: how long).
	if err := s.Set(ctx, "ans:short", []byte("v"), time.Minute+time.Nanosecond); err != nil {
		t.Fatal(err)
	}
	mustGet(t, s, "ans:short", []byte("v"))
}

// Values and claims end with their time to live, for a store whose clock a
// test holds.
func testExpiry(t *testing.T, s gateway.Store) {
	adv, ok := s.(Advancer)
	if !ok {
		t.Skip("the store's clock cannot be moved on: expiry is left to the store's own tests")
	}
	ctx := context.Background()
	if err := s.Set(ctx, "ans:a", []byte("v"), time.Minute, "project:1"); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.Claim(ctx, "sig:a", time.Minute); !ok || err != nil {
		t.Fatalf("claim: %v %v", ok, err)
	}
	adv.Advance(time.Minute - time.Millisecond)
	mustGet(t, s, "ans:a", []byte("v"))
	if ok, _ := s.Claim(ctx, "sig:a", time.Minute); ok {
		t.Error("a claim ended before its time")
	}
	adv.Advance(time.Millisecond)
	mustMiss(t, s, "ans:a")
	if ok, err := s.Claim(ctx, "sig:a", time.Minute); !ok || err != nil {
		t.Errorf("a claim outlived its time: %v %v", ok, err)
	}
}

func testDelete(t *testing.T, s gateway.Store) {
	ctx := context.Background()
	for _, k := range []string{"tok:a", "tok:b"} {
		if err := s.Set(ctx, k, []byte(k), time.Hour, "project:1"); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Delete(ctx, "tok:a", "tok:missing"); err != nil {
		t.Fatal(err)
	}
	mustMiss(t, s, "tok:a")
	mustGet(t, s, "tok:b", []byte("tok:b"))
	if err := s.Delete(ctx); err != nil {
		t.Errorf("Delete of nothing: %v", err)
	}
	// A deleted key can be stored again, and a tag still reaches it.
	if err := s.Set(ctx, "tok:a", []byte("again"), time.Hour, "project:1"); err != nil {
		t.Fatal(err)
	}
	mustGet(t, s, "tok:a", []byte("again"))
	if err := s.Invalidate(ctx, "project:1"); err != nil {
		t.Fatal(err)
	}
	mustMiss(t, s, "tok:a")
	mustMiss(t, s, "tok:b")
}

// A tag drops the values filed under it, and only those.
func testInvalidate(t *testing.T, s gateway.Store) {
	ctx := context.Background()
	set := func(key string, tags ...string) {
		t.Helper()
		if err := s.Set(ctx, key, []byte(key), time.Hour, tags...); err != nil {
			t.Fatal(err)
		}
	}
	set("ans:a", "project:1")
	set("ans:b", "project:1", "project:2")
	set("ans:c", "project:2")
	set("ans:d")
	set("ans:e", "project:3")

	if err := s.Invalidate(ctx, "project:1"); err != nil {
		t.Fatal(err)
	}
	mustMiss(t, s, "ans:a")
	mustMiss(t, s, "ans:b")
	mustGet(t, s, "ans:c", []byte("ans:c"))
	mustGet(t, s, "ans:d", []byte("ans:d"))
	mustGet(t, s, "ans:e", []byte("ans:e"))

	// Several tags at once, an unknown one among them.
	if err := s.Invalidate(ctx, "project:2", "project:404", "project:3"); err != nil {
		t.Fatal(err)
	}
	mustMiss(t, s, "ans:c")
	mustMiss(t, s, "ans:e")
	mustGet(t, s, "ans:d", []byte("ans:d"))
	if err := s.Invalidate(ctx); err != nil {
		t.Errorf("Invalidate of nothing: %v", err)
	}

	// A tag used again after its invalidation files the new values.
	set("ans:f", "project:1")
	if err := s.Invalidate(ctx, "project:1"); err != nil {
		t.Fatal(err)
	}
	mustMiss(t, s, "ans:f")

	// Many values under one tag.
	for i := range 2500 {
		if err := s.Set(ctx, fmt.Sprintf("ans:many:%d", i), []byte("v"), time.Hour, "project:many"); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Invalidate(ctx, "project:many"); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 999, 1000, 2499} {
		mustMiss(t, s, fmt.Sprintf("ans:many:%d", i))
	}
	mustGet(t, s, "ans:d", []byte("ans:d"))
}

// A claim is new once, while it lasts.
func testClaim(t *testing.T, s gateway.Store) {
	ctx := context.Background()
	if ok, err := s.Claim(ctx, "sig:a", time.Minute); !ok || err != nil {
		t.Fatalf("first claim: %v %v", ok, err)
	}
	if ok, err := s.Claim(ctx, "sig:a", time.Minute); ok || err != nil {
		t.Fatalf("second claim: %v %v; want false", ok, err)
	}
	if ok, err := s.Claim(ctx, "sig:a", time.Hour); ok || err != nil {
		t.Fatalf("claim with another ttl: %v %v; want false", ok, err)
	}
	if ok, err := s.Claim(ctx, "sig:b", time.Minute); !ok || err != nil {
		t.Fatalf("another key: %v %v", ok, err)
	}
	// A claim for no time records nothing that lasts.
	if ok, err := s.Claim(ctx, "sig:zero", 0); !ok || err != nil {
		t.Fatalf("claim for no time: %v %v", ok, err)
	}
	if ok, err := s.Claim(ctx, "sig:zero", time.Minute); !ok || err != nil {
		t.Fatalf("claim after one for no time: %v %v; want true", ok, err)
	}
	// Claims are kept apart from deletions of values: Delete is for
	// values, and no claim may be dropped early.
	if ok, _ := s.Claim(ctx, "sig:a", time.Minute); ok {
		t.Fatal("claim forgotten")
	}
}

// Of twenty claims of one key at once, one wins.
func testClaimConcurrent(t *testing.T, s gateway.Store) {
	ctx := context.Background()
	var won atomic.Int64
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			ok, err := s.Claim(ctx, "sig:race", time.Minute)
			if err != nil {
				t.Error(err)
			}
			if ok {
				won.Add(1)
			}
		})
	}
	wg.Wait()
	if n := won.Load(); n != 1 {
		t.Errorf("%d of 20 claims of one key were new", n)
	}
}

// A Take, GetTake or Claim whose answer was lost after the server ran it,
// and which the store's client therefore sent again, spends once and
// claims once, and answers as its first run did: the caller's limit is not
// spent twice, and a fresh signed request is not refused as a replay. A
// GetTake's take stands even when the value it was asked on went between
// the two runs.
func testRunTwice(t *testing.T, s gateway.Store) {
	rs, ok := s.(Retrier)
	if !ok {
		t.Skip("the store cannot lose an answer: it runs each command once")
	}
	ctx := context.Background()
	r := gateway.Rate{PerMinute: 1, Burst: 10}
	mustLose := func(t *testing.T, lost func() bool) {
		t.Helper()
		if !lost() {
			t.Fatal("no answer was lost: the store's client sent nothing twice, and nothing was tested")
		}
	}
	// same compares with a MemoryStore's Take of n from a fresh bucket.
	same := func(t *testing.T, what string, got gateway.RateDecision, n int) {
		t.Helper()
		exp, _ := gateway.NewMemoryStore(nil, gateway.MemoryLimits{}).Take(ctx, "rl", n, r, t0)
		if !sameDecision(got, exp) {
			t.Fatalf("%s: got %s, MemoryStore %s (tokens spent twice?)", what, show(got, t0), show(exp, t0))
		}
	}
	// after: the bucket holds what one Take of n leaves.
	after := func(t *testing.T, key string, n int) {
		t.Helper()
		d, err := s.Take(ctx, key, 0, r, t0)
		if err != nil {
			t.Fatal(err)
		}
		if d.Remaining != r.Burst-n {
			t.Fatalf("the bucket after it holds %d, want %d (tokens spent twice)", d.Remaining, r.Burst-n)
		}
	}

	// Each in turn: the store loses one answer at a time.
	t.Run("Take", func(t *testing.T) {
		lost := rs.LoseAnswer(t, "rl:twice:take", nil)
		d, err := s.Take(ctx, "rl:twice:take", 4, r, t0)
		if err != nil {
			t.Fatalf("take: %v", err)
		}
		mustLose(t, lost)
		same(t, "take run twice", d, 4)
		after(t, "rl:twice:take", 4)
	})
	t.Run("GetTake", func(t *testing.T) {
		gt, ok := s.(gateway.GetTaker)
		if !ok {
			t.Skip("not a GetTaker")
		}
		good := []byte(`{"ok":true}`)
		if err := s.Set(ctx, "tok:twice", good, time.Hour); err != nil {
			t.Fatal(err)
		}
		// The verdict goes between the runs (a revocation): the take of
		// the first stands, and is the answer.
		lost := rs.LoseAnswer(t, "rl:twice:gettake", func() {
			if err := s.Delete(ctx, "tok:twice"); err != nil {
				t.Error(err)
			}
		})
		res, err := gt.GetTake(ctx, gateway.GetTakeRequest{Key: "tok:twice", Want: good, Bucket: "rl:twice:gettake", N: 4, Rate: r, Now: t0})
		if err != nil {
			t.Fatalf("get and take: %v", err)
		}
		mustLose(t, lost)
		if !res.Found || !res.Taken || !bytes.Equal(res.Value, good) {
			t.Fatalf("get and take run twice: found=%v taken=%v value %q, want the first run's take", res.Found, res.Taken, res.Value)
		}
		same(t, "get and take run twice", res.Decision, 4)
		after(t, "rl:twice:gettake", 4)
	})
	t.Run("Claim", func(t *testing.T) {
		lost := rs.LoseAnswer(t, "sig:twice", nil)
		fresh, err := s.Claim(ctx, "sig:twice", time.Minute)
		if err != nil {
			t.Fatalf("claim: %v", err)
		}
		mustLose(t, lost)
		if !fresh {
			t.Fatal("a new claim run twice answered not new: a fresh signed request refused as a replay")
		}
		if fresh, err := s.Claim(ctx, "sig:twice", time.Minute); fresh || err != nil {
			t.Fatalf("the same key claimed again: %v %v; want false", fresh, err)
		}
	})
}

func testPing(t *testing.T, s gateway.Store) {
	if err := s.Ping(context.Background()); err != nil {
		t.Error(err)
	}
}

func mustGet(t *testing.T, s gateway.Store, key string, want []byte) {
	t.Helper()
	v, ok, err := s.Get(context.Background(), key)
	if err != nil || !ok || !bytes.Equal(v, want) {
		t.Fatalf("Get(%s) = %q, %v, %v; want %q", key, v, ok, err, want)
	}
}

func mustMiss(t *testing.T, s gateway.Store, key string) {
	t.Helper()
	if v, ok, err := s.Get(context.Background(), key); ok || err != nil {
		t.Fatalf("Get(%s) = %q, %v, %v; want nothing", key, v, ok, err)
	}
}
