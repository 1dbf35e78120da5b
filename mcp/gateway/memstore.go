package gateway

import (
	"bytes"
	"container/list"
	"context"
	"math"
	"sync"
	"time"

	"github.com/apitwin/apitwin/clock"
)

// MemoryLimits bound a MemoryStore. Zero fields take the defaults.
type MemoryLimits struct {
	// MaxBytes bounds the stored values (cached answers and token
	// verdicts) with their keys and tags, counted with a fixed overhead per
	// entry (default 64 MiB). Past it the least recently used go, each in
	// constant time.
	MaxBytes int64 `yaml:"max_bytes" json:"max_bytes"`
	// MaxClaims bounds the signatures remembered for the replay window
	// (default 1,000,000, about 170 MB when full): a gateway with a shared
	// store keeps those it has seen here too, so that an outage or an
	// emptied shared store never lets it accept one twice. Claims are never
	// dropped early: past the bound a signed request is refused (503).
	MaxClaims int `yaml:"max_claims" json:"max_claims"`
	// MaxBuckets bounds the rate limiters' buckets (default 100,000); past
	// it the least recently used goes (it had most likely refilled).
	MaxBuckets int `yaml:"max_buckets" json:"max_buckets"`
}

// The defaults of MemoryLimits.
const (
	DefaultMemoryBytes   = 64 << 20
	DefaultMemoryClaims  = 1_000_000
	DefaultMemoryBuckets = 100_000
)

// entryOverhead is what one stored value costs beyond its key, value and
// tags: the list element, the map slot, the entry struct and the tag index.
const entryOverhead = 160

func (l MemoryLimits) withDefaults() MemoryLimits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMemoryBytes
	}
	if l.MaxClaims <= 0 {
		l.MaxClaims = DefaultMemoryClaims
	}
	if l.MaxBuckets <= 0 {
		l.MaxBuckets = DefaultMemoryBuckets
	}
	return l
}

// MemoryStore is a Store in this process, bounded as MemoryLimits say. It
// is the gateway's default, and its fallback while a shared store cannot
// be reached.
type MemoryStore struct {
	clk    clock.Clock
	limits MemoryLimits

	mu      sync.Mutex
	values  map[string]*list.Element // of *memValue
	lru     list.List                // most recently used at the front
	bytes   int64
	byTag   map[string]map[string]struct{}
	claims  map[string]time.Time // key → expiry
	buckets map[string]*list.Element
	bucketQ list.List // of *memBucket, most recently used at the front
}

type memValue struct {
	key     string
	value   []byte
	expires time.Time
	tags    []string
	size    int64
}

type memBucket struct {
	key    string
	tokens float64
	at     time.Time
}

// NewMemoryStore returns a store on clk (nil for the real clock).
func NewMemoryStore(clk clock.Clock, limits MemoryLimits) *MemoryStore {
	if clk == nil {
		clk = clock.Real()
	}
	return &MemoryStore{
		clk: clk, limits: limits.withDefaults(),
		values: make(map[string]*list.Element), byTag: make(map[string]map[string]struct{}),
		claims: make(map[string]time.Time), buckets: make(map[string]*list.Element),
	}
}

// Take spends n requests of key's bucket if it holds them.
func (s *MemoryStore) Take(_ context.Context, key string, n int, r Rate, now time.Time) (RateDecision, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.bucket(key, r, now)
	d := takeTokens(&b.tokens, &b.at, n, r, now)
	return d, nil
}

// bucket returns key's bucket, made full when new.
func (s *MemoryStore) bucket(key string, r Rate, now time.Time) *memBucket {
	if e := s.buckets[key]; e != nil {
		s.bucketQ.MoveToFront(e)
		return e.Value.(*memBucket)
	}
	if len(s.buckets) >= s.limits.MaxBuckets {
		old := s.bucketQ.Back()
		s.bucketQ.Remove(old)
		delete(s.buckets, old.Value.(*memBucket).key)
	}
	b := &memBucket{key: key, tokens: float64(r.Burst), at: now}
	s.buckets[key] = s.bucketQ.PushFront(b)
	return b
}

// takeTokens is the token bucket every Store applies (mcpredis runs the
// same arithmetic in Redis): refill since at, then spend n if they are
// there.
func takeTokens(tokens *float64, at *time.Time, n int, r Rate, now time.Time) RateDecision {
	perSecond := float64(r.PerMinute) / 60
	if elapsed := now.Sub(*at).Seconds(); elapsed > 0 {
		*tokens = math.Min(float64(r.Burst), *tokens+float64(elapsed*perSecond)) // the conversion forbids a fused multiply-add, which Redis's Lua would not make
		*at = now
	}
	allowed := *tokens >= float64(n)
	if allowed {
		*tokens -= float64(n)
	}
	return r.Decision(allowed, *tokens, n, now)
}

// Decision is the answer of a bucket of shape r that holds tokens after a
// request for n was allowed or refused at now: the figures the
// X-RateLimit-* headers show. Every Store answers through it (mcpredis
// after its script has spent the tokens), so the figures agree.
func (r Rate) Decision(allowed bool, tokens float64, n int, now time.Time) RateDecision {
	perSecond := float64(r.PerMinute) / 60
	d := RateDecision{Allowed: allowed, Limit: r.PerMinute}
	d.Remaining = int(math.Max(0, math.Floor(tokens)))
	d.Reset = now.Add(secondsFor(float64(r.Burst)-tokens, perSecond))
	if !d.Allowed {
		d.RetryAfter = secondsFor(float64(n)-tokens, perSecond)
		if n > r.Burst {
			d.RetryAfter = time.Minute // never passes; do not invite a busy loop
		}
	}
	return d
}

// secondsFor is how long a bucket takes to gain tokens, rounded up to a
// whole second as the headers count.
func secondsFor(tokens, perSecond float64) time.Duration {
	if tokens <= 0 || perSecond <= 0 {
		return 0
	}
	return time.Duration(math.Ceil(tokens/perSecond)) * time.Second
}

// Get returns the value under key while it lives.
func (s *MemoryStore) Get(_ context.Context, key string) ([]byte, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.get(key)
	return v, ok, nil
}

// GetTake is Get of q.Key and, when the value is q.Want, Take of q.N from
// q.Bucket and Get of q.Also, in one step.
func (s *MemoryStore) GetTake(_ context.Context, q GetTakeRequest) (GetTakeResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.get(q.Key)
	if !ok {
		return GetTakeResult{}, nil
	}
	res := GetTakeResult{Value: v, Found: true}
	if bytes.Equal(v, q.Want) {
		b := s.bucket(q.Bucket, q.Rate, q.Now)
		res.Taken, res.Decision = true, takeTokens(&b.tokens, &b.at, q.N, q.Rate, q.Now)
		if q.Also != "" {
			res.Also, res.AlsoFound = s.get(q.Also)
			res.Marks = s.marks(q.Marks)
		}
	}
	return res, nil
}

var _ GetTaker = (*MemoryStore)(nil)

// GetMarked is Get of key, and the values under marks, in one step.
func (s *MemoryStore) GetMarked(_ context.Context, key string, marks []string) ([]byte, bool, [][]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.get(key)
	return v, ok, s.marks(marks), nil
}

// SetMarked is Set, in one step with the check that the values under marks
// are want.
func (s *MemoryStore) SetMarked(_ context.Context, key string, value []byte, ttl time.Duration, tags, marks []string, want [][]byte) (bool, error) {
	v := s.newValue(key, value, ttl, tags)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !sameMarks(s.marks(marks), want) {
		return false, nil
	}
	s.set(v, ttl)
	return true, nil
}

var _ MarkedCache = (*MemoryStore)(nil)

// marks is the values under keys, nil for one absent, with s.mu held.
func (s *MemoryStore) marks(keys []string) [][]byte {
	out := make([][]byte, len(keys))
	for i, k := range keys {
		out[i], _ = s.get(k)
	}
	return out
}

// get is Get with s.mu held.
func (s *MemoryStore) get(key string) ([]byte, bool) {
	e := s.values[key]
	if e == nil {
		return nil, false
	}
	v := e.Value.(*memValue)
	if !s.clk.Now().Before(v.expires) {
		s.remove(e)
		return nil, false
	}
	s.lru.MoveToFront(e)
	return v.value, true
}

// Set stores value under key for ttl, filed under tags. A value larger than
// the whole store is not kept.
func (s *MemoryStore) Set(_ context.Context, key string, value []byte, ttl time.Duration, tags ...string) error {
	v := s.newValue(key, value, ttl, tags)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.set(v, ttl)
	return nil
}

// newValue is the entry Set stores.
func (s *MemoryStore) newValue(key string, value []byte, ttl time.Duration, tags []string) *memValue {
	v := &memValue{key: key, value: value, expires: s.clk.Now().Add(ttl), tags: tags,
		size: int64(len(key)+len(value)) + entryOverhead}
	for _, t := range tags {
		v.size += int64(len(t))
	}
	return v
}

// set is Set of v with s.mu held.
func (s *MemoryStore) set(v *memValue, ttl time.Duration) {
	key := v.key
	if old := s.values[key]; old != nil {
		s.remove(old)
	}
	if v.size > s.limits.MaxBytes || ttl <= 0 {
		return
	}
	for s.bytes+v.size > s.limits.MaxBytes {
		s.remove(s.lru.Back())
	}
	s.values[key] = s.lru.PushFront(v)
	s.bytes += v.size
	for _, t := range v.tags {
		keys := s.byTag[t]
		if keys == nil {
			keys = make(map[string]struct{})
			s.byTag[t] = keys
		}
		keys[key] = struct{}{}
	}
}

// Delete drops keys.
func (s *MemoryStore) Delete(_ context.Context, keys ...string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range keys {
		if e := s.values[k]; e != nil {
			s.remove(e)
		}
	}
	return nil
}

// Invalidate drops every value filed under any of tags.
func (s *MemoryStore) Invalidate(_ context.Context, tags ...string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range tags {
		for key := range s.byTag[t] {
			if e := s.values[key]; e != nil {
				s.remove(e)
			}
		}
	}
	return nil
}

func (s *MemoryStore) remove(e *list.Element) {
	v := s.lru.Remove(e).(*memValue)
	delete(s.values, v.key)
	s.bytes -= v.size
	for _, t := range v.tags {
		if keys := s.byTag[t]; keys != nil {
			delete(keys, v.key)
			if len(keys) == 0 {
				delete(s.byTag, t)
			}
		}
	}
}

// Claim records key for ttl if it is not recorded.
func (s *MemoryStore) Claim(_ context.Context, key string, ttl time.Duration) (bool, error) {
	now := s.clk.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if exp, ok := s.claims[key]; ok && now.Before(exp) {
		return false, nil
	}
	if len(s.claims) >= s.limits.MaxClaims {
		// Rare (the bound is far above a replay window's traffic): one pass
		// over the claims, dropping the ended ones.
		for k, exp := range s.claims {
			if !now.Before(exp) {
				delete(s.claims, k)
			}
		}
		if len(s.claims) >= s.limits.MaxClaims {
			return false, ErrStoreFull
		}
	}
	s.claims[key] = now.Add(ttl)
	return true, nil
}

// unclaim drops the claim of key, made by a request refused after all
// (see fallbackStore.claim).
func (s *MemoryStore) unclaim(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.claims, key)
}

// Ping is always nil: memory is always there.
func (s *MemoryStore) Ping(context.Context) error { return nil }

// Stats are a MemoryStore's current figures.
type MemoryStats struct {
	Values  int   // cached answers and token verdicts held
	Bytes   int64 // their size as MaxBytes counts it
	Claims  int   // signatures remembered
	Buckets int   // rate-limit buckets
}

// Stats returns the store's current figures.
func (s *MemoryStore) Stats() MemoryStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return MemoryStats{Values: len(s.values), Bytes: s.bytes, Claims: len(s.claims), Buckets: len(s.buckets)}
}
