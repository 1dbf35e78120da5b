package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"runtime"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/apitwin/apitwin/internal/version"
	"github.com/apitwin/apitwin/mcp/gateway"
)

// counters are the gateway's counters (gateway.Metrics) as Prometheus metrics,
// one for each field.
var counters = []struct {
	name, help string
	value      func(gateway.Metrics) uint64
}{
	{"mcp_gateway_requests_total", "HTTP requests to the gateway's path.", func(m gateway.Metrics) uint64 { return m.Requests }},
	{"mcp_gateway_refused_total", "Requests refused before any method ran (the gateway's own 4xx and 5xx).", func(m gateway.Metrics) uint64 { return m.Refused }},
	{"mcp_gateway_calls_total", "Method calls run (a batch of 20 is 20).", func(m gateway.Metrics) uint64 { return m.Calls }},
	{"mcp_gateway_upstream_calls_total", "Calls that went to the source-hosting API (cache misses and writes).", func(m gateway.Metrics) uint64 { return m.UpstreamCalls }},
	{"mcp_gateway_cache_hits_total", "Calls answered from the cache.", func(m gateway.Metrics) uint64 { return m.CacheHits }},
	{"mcp_gateway_verifications_total", "Tokens verified with the source-hosting API.", func(m gateway.Metrics) uint64 { return m.Verifications }},
	{"mcp_gateway_verify_limited_total", "Token verifications refused by the per-address or global verification limit.", func(m gateway.Metrics) uint64 { return m.VerifyLimited }},
	{"mcp_gateway_tokens_refused_total", "Requests refused for their token (401, 403).", func(m gateway.Metrics) uint64 { return m.TokensRefused }},
	{"mcp_gateway_rate_limited_total", "Requests refused by the per-token rate limit (429).", func(m gateway.Metrics) uint64 { return m.RateLimited }},
	{"mcp_gateway_signatures_refused_total", "Requests refused for their signature, replays among them.", func(m gateway.Metrics) uint64 { return m.SignaturesRefused }},
	{"mcp_gateway_replays_refused_total", "Signed requests refused as replays.", func(m gateway.Metrics) uint64 { return m.ReplaysRefused }},
	{"mcp_gateway_store_failures_total", "Calls to the shared store (Redis) that failed and were served from memory.", func(m gateway.Metrics) uint64 { return m.StoreFailures }},
}

// durationBuckets are the upper bounds, in seconds, of the request
// duration histogram: from a cached answer to a write's worst case.
var durationBuckets = [...]float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

// statusClasses are the histogram's series: 1xx answers (none expected)
// count as 2xx, anything past 5xx as 5xx.
var statusClasses = [...]string{"2xx", "3xx", "4xx", "5xx"}

// histogram is a Prometheus histogram of request durations by status
// class, safe for concurrent use.
type histogram struct {
	classes [len(statusClasses)]struct {
		buckets [len(durationBuckets) + 1]atomic.Uint64 // not cumulative; the last is +Inf
		sumNano atomic.Uint64
	}
}

func classOf(status int) int {
	return min(max(status/100-2, 0), len(statusClasses)-1)
}

func (h *histogram) observe(status int, d time.Duration) {
	c := &h.classes[classOf(status)]
	s := d.Seconds()
	i := 0
	for i < len(durationBuckets) && s > durationBuckets[i] {
		i++
	}
	c.buckets[i].Add(1)
	c.sumNano.Add(uint64(max(d, 0)))
}

// metricsHandler serves the metrics in Prometheus' text format.
func (a *app) metricsHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "GET only", http.StatusMethodNotAllowed)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), probeTimeout)
		defer cancel()
		degraded := a.gw.Ready(ctx) != nil
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		bw := bufio.NewWriter(w)
		a.writeMetrics(bw, degraded)
		bw.Flush()
	})
}

// writeMetrics writes every metric with its # HELP and # TYPE lines.
func (a *app) writeMetrics(w *bufio.Writer, degraded bool) {
	m := a.gw.Metrics()
	for _, c := range counters {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s counter\n%s %d\n", c.name, c.help, c.name, c.name, c.value(m))
	}
	gauge := func(name, help string, v int64) {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s gauge\n%s %d\n", name, help, name, name, v)
	}
	gauge("mcp_gateway_store_degraded", "1 while the shared store (Redis) cannot be reached and this replica serves from its memory, else 0.", boolInt(degraded))
	gauge("mcp_gateway_in_flight_requests", "Requests to the gateway's path being served now.", a.inFlight.Load())
	gauge("mcp_gateway_stopping", "1 once the process has been told to stop and is draining, else 0.", boolInt(a.stopping.Load()))

	const hist = "mcp_gateway_request_duration_seconds"
	fmt.Fprintf(w, "# HELP %s Time to answer a request to the gateway's path, by HTTP status class.\n# TYPE %s histogram\n", hist, hist)
	for i, class := range statusClasses {
		c := &a.durations.classes[i]
		var cum uint64
		for j, le := range durationBuckets {
			cum += c.buckets[j].Load()
			fmt.Fprintf(w, "%s_bucket{code=%q,le=%q} %d\n", hist, class, strconv.FormatFloat(le, 'g', -1, 64), cum)
		}
		cum += c.buckets[len(durationBuckets)].Load()
		fmt.Fprintf(w, "%s_bucket{code=%q,le=\"+Inf\"} %d\n", hist, class, cum)
		fmt.Fprintf(w, "%s_sum{code=%q} %s\n", hist, class, strconv.FormatFloat(float64(c.sumNano.Load())/1e9, 'g', -1, 64))
		fmt.Fprintf(w, "%s_count{code=%q} %d\n", hist, class, cum)
	}

	fmt.Fprintf(w, "# HELP mcp_gateway_build_info The program's version, 1.\n# TYPE mcp_gateway_build_info gauge\n")
	fmt.Fprintf(w, "mcp_gateway_build_info{version=%q,goversion=%q} 1\n", version.Version, runtime.Version())
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
