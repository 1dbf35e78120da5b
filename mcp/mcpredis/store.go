package mcpredis

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/apitwin/apitwin/internal/credential"
	"github.com/apitwin/apitwin/mcp/gateway"
)

// DefaultPrefix is the prefix of every key a Store writes, unless Options
// names another.
const DefaultPrefix = "apitwin:mcp:"

// The timeouts Open gives its client unless Options say otherwise: short,
// so that an unreachable Redis costs a request a quarter of a second, not
// go-redis's default five, before the gateway serves it from memory.
const (
	DefaultDialTimeout = 250 * time.Millisecond
	DefaultReadTimeout = 250 * time.Millisecond
)

// bucketMargin is how long a token bucket is kept past the time it takes
// to refill: once full it is the same as no bucket, so it may go. The
// margin covers the drift between the gateways' clocks (which date the
// bucket) and Redis's (which expires it).
const bucketMargin = time.Minute

// maxBucketLife bounds a bucket's expiry, for rates so slow (or zero) that
// refilling takes longer.
const maxBucketLife = 30 * 24 * time.Hour

// Options configure a Store.
type Options struct {
	// Password authenticates to Redis (Open only).
	Password string
	// DB is the database to select (Open only).
	DB int
	// Prefix begins every key (default DefaultPrefix). Gateways that
	// share limits and caches share a prefix; on Redis Cluster it must
	// hold a hash tag, such as "{apitwin:mcp}:", because the scripts of
	// Set, Invalidate, Take and GetTake touch several keys.
	Prefix string
	// DialTimeout and ReadTimeout bound connecting and each command (Open
	// only; default DefaultDialTimeout and DefaultReadTimeout). Writes
	// have ReadTimeout too.
	DialTimeout, ReadTimeout time.Duration
}

// String shows the options without the password.
func (o Options) String() string {
	pw := ""
	if o.Password != "" {
		pw = credential.Redacted
	}
	return fmt.Sprintf("mcpredis.Options{Password:%q, DB:%d, Prefix:%q, DialTimeout:%s, ReadTimeout:%s}",
		pw, o.DB, o.Prefix, o.DialTimeout, o.ReadTimeout)
}

// GoString is String, so that %#v shows no password either.
func (o Options) GoString() string { return o.String() }

// LogValue is String, for slog.
func (o Options) LogValue() slog.Value { return slog.StringValue(o.String()) }

// Store is an gateway.Store on Redis. It is safe for concurrent use.
type Store struct {
	rdb    redis.UniversalClient
	prefix string

	// Every Take, GetTake and Claim has an id of its own, a random base
	// (this Store's), a dot and the count ops, so that a command run twice
	// (sent again by the client after Redis ran it, see the package
	// documentation) finds its first run's trace and answers as it did.
	// opIDs is the base and the dot, opKeys the same after the prefix and
	// "op:": the key of a Take's trace.
	opIDs, opKeys string
	ops           atomic.Uint64
	// opLife is how long that trace is kept, in milliseconds (see opLife),
	// boxed once: an argument of every Take.
	opLife any
}

var _ gateway.Store = (*Store)(nil)

// New returns a Store on rdb, a client configured by the caller (a
// redis.Client, a ClusterClient or a failover client). Of o only Prefix
// applies; on a ClusterClient a prefix without a hash tag is taken as one
// ("apitwin:mcp:" becomes "{apitwin:mcp:}"), so that every key a script
// touches is in one slot (see the package documentation). Close closes
// rdb.
func New(rdb redis.UniversalClient, o Options) *Store {
	p := o.Prefix
	if p == "" {
		p = DefaultPrefix
	}
	if _, ok := rdb.(*redis.ClusterClient); ok && !hasHashTag(p) {
		p = "{" + p + "}"
	}
	ids := strconv.FormatUint(rand.Uint64(), 36) + "."
	return &Store{rdb: rdb, prefix: p, opIDs: ids, opKeys: p + "op:" + ids,
		opLife: opLife(rdb).Milliseconds()}
}

// opMargin is what an operation's trace is kept beyond the longest its
// client can take to send the operation again: room for a Redis that
// stalls (a fork, a slow script) between running it and running it again.
const opMargin = 5 * time.Second

// opLife is how long Take and GetTake keep their answer, under the
// operation's id, for a repeat of the command: opMargin more than the
// longest rdb can take from a command's first attempt to its last. Each
// retry follows a reply that did not come (ReadTimeout), a backoff (at
// most MaxRetryBackoff), a connection (DialTimeout, or PoolTimeout for a
// free one) and the write (WriteTimeout). Open's client retries once:
// 0.25+1+0.5+0.25 s, 7 s with the margin. Of a client whose options it
// cannot read, or a timeout that is off (a reply awaited for ever), it
// assumes go-redis's defaults: three retries, 5 s to read, write or dial,
// 6 s for a free connection, 1 s of backoff: 56 s with the margin.
func opLife(rdb redis.UniversalClient) time.Duration {
	retries, dial, read, write, pool, backoff := 3, 5*time.Second, 5*time.Second, 5*time.Second, 6*time.Second, time.Second
	set := func(d *time.Duration, v time.Duration) {
		if v > 0 {
			*d = v
		}
	}
	switch c := rdb.(type) {
	case *redis.Client:
		o := c.Options()
		retries = max(0, o.MaxRetries)
		set(&dial, o.DialTimeout)
		set(&read, o.ReadTimeout)
		set(&write, o.WriteTimeout)
		set(&pool, o.PoolTimeout)
		set(&backoff, o.MaxRetryBackoff)
	case *redis.ClusterClient:
		// Each of the cluster's attempts (a first and MaxRedirects more)
		// runs its node client's, which retries MaxRetries times.
		o := c.Options()
		retries = (max(0, o.MaxRedirects)+1)*(max(0, o.MaxRetries)+1) - 1
		set(&dial, o.DialTimeout)
		set(&read, o.ReadTimeout)
		set(&write, o.WriteTimeout)
		set(&pool, o.PoolTimeout)
		set(&backoff, o.MaxRetryBackoff)
	}
	return time.Duration(retries)*(read+backoff+max(dial, pool)+write) + opMargin
}

// newOp is a new operation's count after pre (opIDs: its id; opKeys: the
// key of its trace), in one allocation: unique to this Store's call, and
// across Stores by the random base.
func (s *Store) newOp(pre string) string {
	var buf [128]byte
	return string(strconv.AppendUint(append(buf[:0], pre...), s.ops.Add(1), 36))
}

// Open returns a Store on the Redis server at addr (host:port), with a
// client made to fail fast when the server cannot be reached: dial and
// command timeouts of a quarter of a second (Options may change them), one
// dial attempt per connection, and one retry of a failed command (so that a
// connection broken by a restart of Redis does not count as an outage;
// every command is safe to run twice, see the package documentation).
// Nothing is connected until the first command; Ping to check the address.
func Open(addr string, o Options) *Store {
	return New(redis.NewClient(failFast([]string{addr}, o).Simple()), o)
}

// OpenCluster returns a Store on the Redis Cluster one of whose nodes
// (host:port; give several, in case one is down) is in addrs, with a client
// that fails fast as Open's does (Options' timeouts, one dial attempt, one
// retry of a failed command per node, go-redis's three redirections). A
// cluster has no databases: o.DB must be 0. Keys are in the one slot of the
// prefix's hash tag (see New).
func OpenCluster(addrs []string, o Options) (*Store, error) {
	if len(addrs) == 0 {
		return nil, errors.New("mcpredis: a cluster needs the address of at least one node")
	}
	if o.DB != 0 {
		return nil, fmt.Errorf("mcpredis: Redis Cluster has only database 0, not %d", o.DB)
	}
	return New(redis.NewClusterClient(failFast(addrs, o).Cluster()), o), nil
}

// failFast is the client settings of Open and OpenCluster: o's timeouts
// (or the defaults) for dialing and for each command, one dial attempt
// (go-redis's default is 5, 100 ms apart), one retry of a failed command
// (go-redis reads 0 as its default, 3), a free connection awaited as long
// as a dial and a command take, and go-redis's default pool (10
// connections per GOMAXPROCS).
func failFast(addrs []string, o Options) *redis.UniversalOptions {
	dial, read := o.DialTimeout, o.ReadTimeout
	if dial <= 0 {
		dial = DefaultDialTimeout
	}
	if read <= 0 {
		read = DefaultReadTimeout
	}
	return &redis.UniversalOptions{
		Addrs:         addrs,
		Password:      o.Password,
		DB:            o.DB,
		DialTimeout:   dial,
		DialerRetries: 1,
		ReadTimeout:   read,
		WriteTimeout:  read,
		MaxRetries:    1,
		PoolTimeout:   dial + read,
	}
}

// hasHashTag reports whether every key beginning with p has p's hash tag:
// a "{" followed, later, by a "}" with something between.
func hasHashTag(p string) bool {
	i := strings.IndexByte(p, '{')
	return i >= 0 && strings.IndexByte(p[i+1:], '}') > 0
}

// Close closes the client (the one given to New too).
func (s *Store) Close() error {
	if err := s.rdb.Close(); err != nil {
		return fmt.Errorf("mcpredis: close: %w", err)
	}
	return nil
}

// Prefix is what every key of the Store begins with: Options.Prefix, or
// DefaultPrefix, in braces on a cluster when it had no hash tag (see New).
func (s *Store) Prefix() string { return s.prefix }

func (s *Store) key(k string) string       { return s.prefix + k }
func (s *Store) tagKey(t string) string    { return s.prefix + "tag:" + t }
func (s *Store) bucketKey(k string) string { return s.prefix + "bucket:" + k }

// takeLua is the token bucket of gateway.MemoryStore (its takeTokens) in
// Lua, so that the refill and the spending are one atomic step in Redis
// whichever gateway asks. The bucket is a string of three numbers and two
// spaces: the tokens (a float, written with 17 significant digits so that
// it reads back exactly), the Unix time in milliseconds of the last refill,
// by the gateways' clock, and the nanoseconds within that millisecond. Time
// elapsed is counted in whole nanoseconds and turned into seconds as Go's
// Duration.Seconds does, so that the figures are those of MemoryStore to
// the last bit (for intervals under 104 days, past which float64
// nanoseconds round; a bucket is full long before, unless its rate is
// below a token in 104 days).
//
// A script reads every key it needs in one MGET (the operation's answer,
// the bucket, and for GetTake the verdict and the values after it) and
// writes two, the bucket and the operation's answer, each one SET with its
// expiry: Redis runs each command a script calls much as it runs one sent
// to it, less the round trip, so a script is cheaper by each command it
// does not call.
//
// takeLua defines take(bucket, key, op, argv, o): the step on the bucket
// whose value is bucket (false for none) at key, with its arguments in
// argv from o+1 on: n, per minute, burst, now_ms, now_ns, margin, longest
// life and the life of op in milliseconds. It returns {allowed (0 or 1),
// tokens left as a string}, and keeps that answer under op, the
// operation's key, for op's life. And it defines done(r): the answer r
// kept under an operation's key, which ran already and must not spend
// again.
const takeLua = `
local function done(r)
  return {tonumber(string.sub(r, 1, 1)), string.sub(r, 2)}
end

local function take(bucket, key, op, argv, o)
  local n = tonumber(argv[o+1])
  local per_minute = tonumber(argv[o+2])
  local burst = tonumber(argv[o+3])
  local now_ms, now_ns = tonumber(argv[o+4]), tonumber(argv[o+5])
  local per_second = per_minute / 60

  local t, ms, ns
  if bucket then
    t, ms, ns = string.match(bucket, '^(%S+) (%d+) (%d+)$')
  end
  local tokens, at_ms, at_ns, at_ms_s, at_ns_s
  if t then
    tokens, at_ms, at_ns = tonumber(t), tonumber(ms), tonumber(ns)
    at_ms_s, at_ns_s = ms, ns
  else
    tokens, at_ms, at_ns = burst, now_ms, now_ns
    at_ms_s, at_ns_s = argv[o+4], argv[o+5]
  end

  local elapsed = (now_ms - at_ms) * 1000000 + (now_ns - at_ns)
  if elapsed > 0 then
    local sec = math.floor(elapsed / 1000000000)
    local seconds = sec + (elapsed - sec * 1000000000) / 1000000000
    tokens = math.min(burst, tokens + seconds * per_second)
    at_ms_s, at_ns_s = argv[o+4], argv[o+5]
  end

  local allowed = 0
  if tokens >= n then
    tokens = tokens - n
    allowed = 1
  end
  local left = string.format('%.17g', tokens)

  local life = tonumber(argv[o+7])
  if per_second > 0 then
    life = math.min(life, math.ceil(math.max(0, burst - tokens) / per_second * 1000) + tonumber(argv[o+6]))
  end
  redis.call('SET', key, left .. ' ' .. at_ms_s .. ' ' .. at_ns_s, 'PX', string.format('%d', life))
  redis.call('SET', op, allowed .. left, 'PX', argv[o+8])
  return {allowed, left}
end
`

// takeScript is take on the bucket KEYS[1] as the operation KEYS[2], with
// ARGV as takeLua says, unless that operation already ran: then its
// answer.
var takeScript = redis.NewScript(takeLua + `
local v = redis.call('MGET', KEYS[1], KEYS[2])
if v[2] then
  return done(v[2])
end
return take(v[1], KEYS[1], KEYS[2], ARGV, 0)
`)

// getTakeScript is GetTake: the value under KEYS[1] and, when it is
// ARGV[1] byte for byte, take on the bucket KEYS[2] as the operation
// KEYS[3] with ARGV[2:] as takeLua says, and the values under KEYS[4:]
// (Also, then the Marks) when there are any. Returns {0} when there is no
// value, {1, value} when it is another, {2, allowed, tokens left, then
// KEYS[4:]'s values, false (nil) for one absent} when it was ARGV[1] and
// the bucket was asked, or when the operation already asked it (whatever
// the value is now: the take happened). Every key is declared, as Redis
// Cluster requires; there they must share a slot (a Prefix with a hash
// tag, as for Set and Invalidate). All are read in one MGET, those after
// the third also when they are not returned (a verdict that is not the
// one wanted, which is rare).
var getTakeScript = redis.NewScript(takeLua + `
local v = redis.call('MGET', unpack(KEYS))
local r
if v[3] then
  r = done(v[3])
elseif not v[1] then
  return {0}
elseif v[1] ~= ARGV[1] then
  return {1, v[1]}
else
  r = take(v[2], KEYS[2], KEYS[3], ARGV, 1)
end
local out = {2, r[1], r[2]}
for i = 4, #KEYS do
  out[i] = v[i]
end
return out
`)

// Take spends n requests of key's bucket if it holds them, with the
// arithmetic of gateway.MemoryStore: for the same calls at the same instants
// both give the same RateDecision. now, the gateway's clock, is the only
// time the bucket is figured by; Redis's clock only expires the bucket
// once it would be full again (plus a minute's margin). Run twice by a
// retry of its command, it spends once and answers as its first run did
// (see the package documentation).
func (s *Store) Take(ctx context.Context, key string, n int, r gateway.Rate, now time.Time) (gateway.RateDecision, error) {
	sec, nsec := now.Unix(), int64(now.Nanosecond())
	ms, ns := sec*1000+nsec/1e6, nsec%1e6
	res, err := takeScript.Run(ctx, s.rdb, []string{s.bucketKey(key), s.newOp(s.opKeys)},
		n, r.PerMinute, r.Burst, ms, ns, bucketMargin.Milliseconds(), maxBucketLife.Milliseconds(), s.opLife).Slice()
	if err != nil {
		return gateway.RateDecision{}, fmt.Errorf("mcpredis: take: %w", err)
	}
	allowed, left, err := parseTake(res)
	if err != nil {
		return gateway.RateDecision{}, fmt.Errorf("mcpredis: take: %w", err)
	}
	return r.Decision(allowed, left, n, now), nil
}

// GetTake returns the value under q.Key and, only when it is q.Want byte
// for byte, spends q.N requests of q.Bucket as Take does and reads q.Also
// (when not ""): one script, so one round trip where Get, Take and Get are
// three. A key that holds no value, or another, is only read: no bucket is
// made or touched, and q.Also is not read. Run twice by a retry of its
// command, it spends once, as Take.
func (s *Store) GetTake(ctx context.Context, q gateway.GetTakeRequest) (gateway.GetTakeResult, error) {
	sec, nsec := q.Now.Unix(), int64(q.Now.Nanosecond())
	ms, ns := sec*1000+nsec/1e6, nsec%1e6
	keys := make([]string, 3, 4+len(q.Marks))
	keys[0], keys[1], keys[2] = s.key(q.Key), s.bucketKey(q.Bucket), s.newOp(s.opKeys)
	if q.Also != "" {
		keys = append(keys, s.key(q.Also))
		for _, m := range q.Marks {
			keys = append(keys, s.key(m))
		}
	}
	res, err := getTakeScript.Run(ctx, s.rdb, keys,
		q.Want, q.N, q.Rate.PerMinute, q.Rate.Burst, ms, ns, bucketMargin.Milliseconds(), maxBucketLife.Milliseconds(), s.opLife).Slice()
	if err != nil {
		return gateway.GetTakeResult{}, fmt.Errorf("mcpredis: get and take: %w", err)
	}
	var what int64
	if len(res) > 0 {
		what, _ = res[0].(int64)
	}
	switch {
	case what == 0 && len(res) == 1:
		return gateway.GetTakeResult{}, nil
	case what == 1 && len(res) == 2:
		if v, ok := res[1].(string); ok {
			return gateway.GetTakeResult{Value: []byte(v), Found: true}, nil
		}
	case what == 2 && len(res) == len(keys):
		allowed, left, err := parseTake(res[1:3])
		if err != nil {
			return gateway.GetTakeResult{}, fmt.Errorf("mcpredis: get and take: %w", err)
		}
		out := gateway.GetTakeResult{Value: q.Want, Found: true, Taken: true, Decision: q.Rate.Decision(allowed, left, q.N, q.Now)}
		if q.Also == "" {
			return out, nil
		}
		vals, ok := values(res[3:])
		if !ok {
			break
		}
		out.Also, out.AlsoFound, out.Marks = vals[0], vals[0] != nil, vals[1:]
		return out, nil
	}
	return gateway.GetTakeResult{}, fmt.Errorf("mcpredis: get and take: script answered %v", res)
}

var _ gateway.GetTaker = (*Store)(nil)

func parseTake(res []any) (allowed bool, tokens float64, err error) {
	if len(res) != 2 {
		return false, 0, fmt.Errorf("script answered %v", res)
	}
	a, ok1 := res[0].(int64)
	t, ok2 := res[1].(string)
	if !ok1 || !ok2 {
		return false, 0, fmt.Errorf("script answered %v", res)
	}
	tokens, err = strconv.ParseFloat(t, 64)
	if err != nil {
		return false, 0, fmt.Errorf("script answered tokens %q", t)
	}
	return a == 1, tokens, nil
}

// Get returns the value under key while it lives (Redis expires it).
func (s *Store) Get(ctx context.Context, key string) ([]byte, bool, error) {
	b, err := s.rdb.Get(ctx, s.key(key)).Bytes()
	switch {
	case errors.Is(err, redis.Nil):
		return nil, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("mcpredis: get: %w", err)
	}
	return b, true, nil
}

// setLua defines store(last): the value ARGV[1] under KEYS[1] for ARGV[2]
// milliseconds, filed under the tags' sets KEYS[2:last], in one step, so
// that an Invalidate never finds the value stored but not yet filed. A
// tag's set lives at least as long as the longest value filed in it.
const setLua = `
local function store(last)
  local ttl = tonumber(ARGV[2])
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  for i = 2, last do
    redis.call('SADD', KEYS[i], KEYS[1])
    if redis.call('PTTL', KEYS[i]) < ttl then
      redis.call('PEXPIRE', KEYS[i], ARGV[2])
    end
  end
  return 1
end
`

// setScript is Set with tags: store, KEYS[2:] all tags' sets.
var setScript = redis.NewScript(setLua + `return store(#KEYS)`)

// setMarkedScript is SetMarked: store, with ARGV[3] tags' sets after the
// value's key, only when the keys after them (the marks) hold the values
// ARGV[4:] (an absent one as ""). Returns 1 when it stored, 0 when a mark
// had changed.
var setMarkedScript = redis.NewScript(setLua + `
local tags = tonumber(ARGV[3])
for i = 2 + tags, #KEYS do
  if (redis.call('GET', KEYS[i]) or '') ~= ARGV[i + 2 - tags] then
    return 0
  end
end
return store(1 + tags)
`)

// Set stores value under key for ttl (rounded up to a millisecond), filed
// under tags. A ttl of zero or less stores nothing and drops what was
// there, as MemoryStore does.
//
// A value stored again under other tags stays filed under its old ones
// too, until they are invalidated or expire: invalidating one of them drops
// it, which for a cache is one miss too many, never a stale answer.
func (s *Store) Set(ctx context.Context, key string, value []byte, ttl time.Duration, tags ...string) error {
	if ttl <= 0 {
		if err := s.rdb.Del(ctx, s.key(key)).Err(); err != nil {
			return fmt.Errorf("mcpredis: set: %w", err)
		}
		return nil
	}
	ms := millis(ttl)
	var err error
	if len(tags) == 0 {
		err = s.rdb.Set(ctx, s.key(key), value, time.Duration(ms)*time.Millisecond).Err()
	} else {
		keys := make([]string, 0, 1+len(tags))
		keys = append(keys, s.key(key))
		for _, t := range tags {
			keys = append(keys, s.tagKey(t))
		}
		err = setScript.Run(ctx, s.rdb, keys, value, ms).Err()
	}
	if err != nil {
		return fmt.Errorf("mcpredis: set: %w", full(err))
	}
	return nil
}

// GetMarked returns the value under key and the values under marks (nil
// for one absent) in one MGET: one round trip. On Redis Cluster the keys
// share the prefix's slot.
func (s *Store) GetMarked(ctx context.Context, key string, marks []string) ([]byte, bool, [][]byte, error) {
	keys := make([]string, 1+len(marks))
	keys[0] = s.key(key)
	for i, m := range marks {
		keys[1+i] = s.key(m)
	}
	res, err := s.rdb.MGet(ctx, keys...).Result()
	if err != nil {
		return nil, false, nil, fmt.Errorf("mcpredis: get: %w", err)
	}
	vals, ok := values(res)
	if !ok || len(vals) != len(keys) {
		return nil, false, nil, fmt.Errorf("mcpredis: get: MGET answered %d values for %d keys", len(res), len(keys))
	}
	return vals[0], vals[0] != nil, vals[1:], nil
}

// SetMarked stores value under key for ttl, filed under tags, as Set does,
// only when the values under marks are want (an absent one nil): one
// script, one round trip. It reports whether it stored.
func (s *Store) SetMarked(ctx context.Context, key string, value []byte, ttl time.Duration, tags, marks []string, want [][]byte) (bool, error) {
	if len(marks) != len(want) {
		return false, fmt.Errorf("mcpredis: set: %d marks, %d values wanted", len(marks), len(want))
	}
	if ttl <= 0 {
		return true, s.Set(ctx, key, value, ttl) // stores nothing: drops what was there
	}
	keys := make([]string, 0, 1+len(tags)+len(marks))
	keys = append(keys, s.key(key))
	for _, t := range tags {
		keys = append(keys, s.tagKey(t))
	}
	for _, m := range marks {
		keys = append(keys, s.key(m))
	}
	args := make([]any, 0, 3+len(want))
	args = append(args, value, millis(ttl), len(tags))
	for _, w := range want {
		args = append(args, w)
	}
	stored, err := setMarkedScript.Run(ctx, s.rdb, keys, args...).Int()
	if err != nil {
		return false, fmt.Errorf("mcpredis: set: %w", full(err))
	}
	return stored == 1, nil
}

var _ gateway.MarkedCache = (*Store)(nil)

// values reads the strings (or nils) of a script's or MGET's answer.
func values(res []any) ([][]byte, bool) {
	out := make([][]byte, len(res))
	for i, r := range res {
		switch v := r.(type) {
		case nil:
		case string:
			out[i] = []byte(v)
		default:
			return nil, false
		}
	}
	return out, true
}

// millis is d in whole milliseconds, rounded up: Redis's PX unit.
func millis(d time.Duration) int64 {
	return int64((d + time.Millisecond - 1) / time.Millisecond)
}

// Delete drops keys.
func (s *Store) Delete(ctx context.Context, keys ...string) error {
	if len(keys) == 0 {
		return nil
	}
	ks := make([]string, len(keys))
	for i, k := range keys {
		ks[i] = s.key(k)
	}
	if err := s.rdb.Del(ctx, ks...).Err(); err != nil {
		return fmt.Errorf("mcpredis: delete: %w", err)
	}
	return nil
}

// invalidateScript drops every value filed under the tags' sets, and the
// sets, in one step. DEL takes the members a thousand at a time, well
// within Lua's stack.
//
// KEYS: the tags' sets. Returns the number of values dropped.
var invalidateScript = redis.NewScript(`
local dropped = 0
for i = 1, #KEYS do
  local members = redis.call('SMEMBERS', KEYS[i])
  for j = 1, #members, 1000 do
    dropped = dropped + redis.call('DEL', unpack(members, j, math.min(j + 999, #members)))
  end
  redis.call('DEL', KEYS[i])
end
return dropped
`)

// Invalidate drops every value filed under any of tags.
func (s *Store) Invalidate(ctx context.Context, tags ...string) error {
	if len(tags) == 0 {
		return nil
	}
	keys := make([]string, len(tags))
	for i, t := range tags {
		keys[i] = s.tagKey(t)
	}
	if err := invalidateScript.Run(ctx, s.rdb, keys).Err(); err != nil {
		return fmt.Errorf("mcpredis: invalidate: %w", err)
	}
	return nil
}

// claimScript records KEYS[1] with the claim's id ARGV[1] as its value for
// ARGV[2] milliseconds, unless a record is there; it returns 1 when the
// claim is new: recorded now, or recorded by this very claim (its id
// found), which a command run twice finds.
var claimScript = redis.NewScript(`
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return 1
end
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return 1
end
return 0
`)

// Claim records key for ttl (rounded up to a millisecond), with the
// claim's id as its value (SET NX PX in a script), and reports whether it
// was new: a repeat of the command finds its own id and answers new again.
// A ttl of zero or less records nothing and reports whether no record is
// there now. A Redis out of memory (with maxmemory-policy noeviction, as
// the package documentation asks) is gateway.ErrStoreFull.
func (s *Store) Claim(ctx context.Context, key string, ttl time.Duration) (bool, error) {
	if ttl <= 0 {
		n, err := s.rdb.Exists(ctx, s.key(key)).Result()
		if err != nil {
			return false, fmt.Errorf("mcpredis: claim: %w", err)
		}
		return n == 0, nil
	}
	fresh, err := claimScript.Run(ctx, s.rdb, []string{s.key(key)}, s.newOp(s.opIDs), millis(ttl)).Int()
	if err != nil {
		return false, fmt.Errorf("mcpredis: claim: %w", full(err))
	}
	return fresh == 1, nil
}

// full marks Redis's refusal to grow (maxmemory reached under noeviction)
// as gateway.ErrStoreFull: an answer, which the gateway acts on, not an
// outage.
func full(err error) error {
	if redis.HasErrorPrefix(err, "OOM") {
		return fmt.Errorf("%w: %w", gateway.ErrStoreFull, err)
	}
	return err
}

// Ping reports whether Redis answers: on a cluster, the master that holds
// the Store's slot (another node answering says nothing of it).
func (s *Store) Ping(ctx context.Context) error {
	var pinger redis.Cmdable = s.rdb
	if c, ok := s.rdb.(*redis.ClusterClient); ok {
		m, err := c.MasterForKey(ctx, s.prefix)
		if err != nil {
			return fmt.Errorf("mcpredis: ping: the cluster's master for %q: %w", s.prefix, err)
		}
		pinger = m
	}
	if err := pinger.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("mcpredis: ping: %w", err)
	}
	return nil
}
