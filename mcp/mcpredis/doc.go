// Package mcpredis is a gateway.Store on Redis, through the go-redis v9
// client (github.com/redis/go-redis/v9): the state that replicas of the
// mcp gateway share, so that several behind one load balancer enforce one
// rate limit per token, refuse a revoked token together, accept a signed
// request once across all of them, and share cached answers.
//
//	store := mcpredis.Open("redis.internal:6379", mcpredis.Options{Password: pw})
//	defer store.Close()
//	gw, err := gateway.New(gateway.Config{Upstream: "https://git.example.com", Store: store})
//
// # What is kept where
//
// Every key begins with Options.Prefix (default "apitwin:mcp:"), followed
// by the gateway's own key, which already says what it is for:
//
//	<prefix>bucket:rl:<who>  a token bucket: a string "<tokens> <at_ms> <at_ns>", SET PX
//	<prefix>tok:<hash>   a token's verdict: a string, SET PX the verification TTL
//	<prefix>ans:<hash>   a cached answer: a string, SET PX its TTL
//	<prefix>sig:<hmac>   a seen signature (Claim): the claim's id, SET NX PX the replay window
//	<prefix>tag:<tag>    the keys of the answers filed under tag: a set
//	<prefix>op:<id>      the answer of one Take or GetTake, for a repeat of it: a string, PX a few seconds
//
// (The gateway's keys never begin with "bucket:", "tag:" or "op:", so
// they cannot meet.) The gateway makes its keys from digests: no token or
// secret is ever a key or a value. (Earlier versions kept a bucket as a
// hash under <prefix>rl:<who>: under its new name, gateways of both
// versions sharing a Redis during a rolling upgrade count apart rather
// than fail on a key of the other's type, and the old hashes expire a
// minute after they are full.)
//
// Take is one Lua script (EVALSHA, falling back to EVAL when Redis does
// not have it cached, as go-redis's Script does): it reads the bucket, and
// the operation's answer (see below), in one MGET, refills the bucket for
// the time passed, spends n tokens when they are there, and writes the
// bucket back with one SET that has it expire once it would be full
// again, plus a minute. It is gateway.MemoryStore's arithmetic step for
// step, so that for the same calls at the same instants the two give the
// same RateDecision, to the last bit of the tokens left (see the
// conformance suite in mcp/internal/storetest). GetTake, with which the
// gateway reads a token's verdict, is that script with the verdict read in
// the same MGET: when the verdict is the very one the gateway already
// knows good and fresh, the request's rate limit is taken in the same
// step, and the call's cached answer (with the marks of writes) read in
// that MGET too when the call asks for one, so that a call of a verified
// caller costs one round trip, not two (three from the cache); any other
// verdict (none, since a revocation dropped it) is only read. A script
// calls three commands (MGET and two SETs: the bucket and the operation's
// answer), as few as a step that must be repeatable allows: each command
// a script calls costs Redis about what it costs sent on its own, less
// the round trip. Set with tags is a script too, storing the value and
// adding its key to each tag's set in one step (the set lives as long as
// its longest value); Invalidate is a script that drops every key in the
// tags' sets and the sets. Claim is a script around SET NX PX, Delete is
// DEL, Ping is PING.
//
// # Time
//
// The token buckets are figured by the time the gateway passes to Take
// (its Config.Clock), not by Redis's clock: replicas agree when their
// clocks do (keep them in NTP), and tests with a fake clock get exact
// figures. Redis's clock only expires keys: a value or claim lasts its ttl
// by Redis's clock, and a bucket goes a minute after it would be full
// again, by which time it is the same as no bucket.
//
// # Deploying
//
// Run several gateways on one Redis with the same Prefix (a Prefix per
// environment keeps environments apart in one Redis). Use maxmemory-policy
// noeviction: a seen signature must not be evicted before its window ends,
// or a captured request could be replayed; with noeviction a full Redis
// refuses writes, which Claim and Set report as gateway.ErrStoreFull (the
// gateway refuses the signed request with 503 rather than forget it, and
// does not cache). Expired keys still go, so the memory used follows the
// traffic of the longest time to live (a good token's verdict is kept a
// day). Replication to a Redis replica is asynchronous: a failover can
// lose the last claims, and so let another gateway than the one that
// accepted those signed requests accept them once more (each gateway
// remembers in its own memory the signatures it has seen, and never
// accepts one twice). Run Redis with appendonly yes for the same reason: a
// restart without persistence forgets every claim.
//
// # Commands sent twice
//
// go-redis sends a command again when its connection broke or its answer
// did not come within the read timeout (MaxRetries times; Open's client
// once), so that a connection broken by a restart of Redis does not count
// as an outage. Redis may have run the command already: only its answer
// was lost. So every command the Store sends is safe to run twice:
//
//   - Get and Ping read, and so does a GetTake that spends nothing.
//   - Set, Delete and Invalidate leave, run twice in a row, what they leave
//     run once. A repeat that lands after another gateway's write is the
//     same as a Set or Delete that was slow to arrive: one cache miss too
//     many, or an answer stored again that the gateway's marks of writes
//     (gateway.Store) drop.
//   - Take and GetTake (when it spends) run as an operation with an id of
//     its own, unique to the call: the script keeps its answer under
//     <prefix>op:<id> and answers a repeat from there, spending nothing
//     more, whatever happened to the bucket or the verdict between the
//     two runs.
//   - Claim stores the claim's id as the record's value: a repeat that
//     finds a record holding its own id answers new, as the first run
//     did, rather than refusing a fresh signed request as a replay.
//
// An operation's answer is kept for as long as its client can take to send
// it again, plus five seconds for a Redis that stalls between the two runs:
// each retry follows a read timeout, a backoff (MaxRetryBackoff at most), a
// connection (the dial or pool timeout) and a write. That is 7 s for Open's
// client (0.25 + 1 + 0.5 + 0.25 s, one retry), and is read from the
// options of a redis.Client or redis.ClusterClient given to New (56 s for
// go-redis's defaults: three retries of up to 17 s; go-redis's defaults
// for any other client). Redis therefore holds one such key, some 200
// bytes with its expiry, per Take and GetTake of the last 7 s with Open's
// client: 1.4 MB at a thousand calls a second.
//
// Open makes a client that fails fast: 250 ms to connect and to read or
// write, one attempt to dial, one retry of a failed command. When Redis
// cannot be reached each gateway serves from its own memory instead
// (limits and replay protection per replica meanwhile), logs it, tries
// Redis again every few seconds, and says so in gateway.Gateway.Ready. go-redis
// also logs each failed dial itself (to stderr; redis.SetLogger changes
// that, for the whole process).
//
// # Redis Cluster
//
// OpenCluster (or New with a ClusterClient) puts the Store on a Redis
// Cluster. The scripts of Set, Invalidate, Take and GetTake touch several
// keys, which Cluster runs only when they share a hash slot; every key a
// script touches is passed to it in KEYS, as Cluster requires. So every
// key begins with a prefix holding a hash tag: give one, such as
// "{apitwin:mcp}:", or the Store makes its prefix one by putting it in
// braces ("{apitwin:mcp:}"). All of a Store's keys are then in one slot,
// on one master: a cluster holds the gateway's state no faster than one
// Redis does, and is for deployments that run Cluster anyway. A master
// that fails (or a slot not served) is an error from every method, as an
// unreachable Redis is ("mcpredis: take: dial tcp …: connection refused",
// "mcpredis: take: CLUSTERDOWN …"), never a decision; Ping asks the master
// of the Store's slot, not any node. Give that master a replica, so that
// Cluster fails over instead.
package mcpredis
