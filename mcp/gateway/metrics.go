package gateway

import (
	"context"
	"sync/atomic"
)

// Metrics are the gateway's counters since it started, for a metrics
// endpoint (mcp-gateway serves them in Prometheus' text format).
type Metrics struct {
	Requests          uint64 // HTTP requests to the gateway's path
	Refused           uint64 // of those, refused before any method ran (4xx, 5xx of the gateway's own)
	Calls             uint64 // method calls run (a batch of 20 is 20)
	UpstreamCalls     uint64 // calls that went to the source-hosting API (cache misses and writes)
	CacheHits         uint64 // calls answered from the cache
	Verifications     uint64 // tokens verified with the source-hosting API
	VerifyLimited     uint64 // verifications refused by the per-address limit
	TokensRefused     uint64 // requests refused for their token (401, 403)
	RateLimited       uint64 // requests refused by the per-token rate limit
	SignaturesRefused uint64 // requests refused for their signature (replays among them)
	ReplaysRefused    uint64 // signed requests refused as replays
	StoreFailures     uint64 // calls to the shared store that failed and fell back to memory
}

type metrics struct {
	requests, refused, calls, upstreamCalls, cacheHits       atomic.Uint64
	verifications, verifyLimited, tokensRefused, rateLimited atomic.Uint64
	signaturesRefused, replaysRefused, storeFailures         atomic.Uint64
}

// Metrics returns the gateway's counters.
func (g *Gateway) Metrics() Metrics {
	m := &g.metrics
	return Metrics{
		Requests: m.requests.Load(), Refused: m.refused.Load(), Calls: m.calls.Load(),
		UpstreamCalls: m.upstreamCalls.Load(), CacheHits: m.cacheHits.Load(),
		Verifications: m.verifications.Load(), VerifyLimited: m.verifyLimited.Load(),
		TokensRefused: m.tokensRefused.Load(), RateLimited: m.rateLimited.Load(),
		SignaturesRefused: m.signaturesRefused.Load(), ReplaysRefused: m.replaysRefused.Load(),
		StoreFailures: m.storeFailures.Load(),
	}
}

// Ready reports whether the gateway serves as configured: nil, or why not.
// A shared store that cannot be reached is such a reason, though the
// gateway goes on serving from its memory meanwhile (limits per replica,
// signatures remembered per replica): a readiness probe can show it
// without taking every replica out of service.
func (g *Gateway) Ready(ctx context.Context) error {
	if g.shared == nil {
		return nil
	}
	// Asked now, so that an outage (or a recovery) shows without waiting
	// for traffic to meet it.
	if g.shared.Ping(ctx) != nil {
		return g.shared.health()
	}
	return nil
}
