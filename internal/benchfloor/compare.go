package benchfloor

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// Compare runs a fake's handler and its floor side by side as two
// sub-benchmarks of b, "<name>/fake" and "<name>/floor=plain", so their
// ratio reads in one run: each answers req into a fresh
// httptest.ResponseRecorder per iteration, no network. The floor is
// [Handler] built from the fake's first answer, which must be a 200.
//
// Besides ns/op and the allocations, each reports cpu-ns/op, the process's
// CPU time (every thread's, the GC's included) per call where the system
// tells it: on a machine shared with other work, wall time swings with the
// load and CPU time much less.
//
// Compare allocs/op, not B/op: the fake's request log keeps a copy of
// each answer's body (up to its body limit, 64 KiB by default), which the
// floor does not, so a fake's B/op reads about twice the floor's for the
// one copy. With the log keeping one byte (WithRequestLog(n, 1)),
// sourcehostfake's page of 20 projects measured 23.7 KB against the
// floor's 20.6 KB, where it is 42.7 KB with the default.
func Compare(b *testing.B, name string, fake http.Handler, req *http.Request) {
	b.Helper()
	rec := httptest.NewRecorder()
	fake.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		b.Fatalf("%s: the fake answered %d %.300s", name, rec.Code, rec.Body)
	}
	floor, err := Handler(rec.Body.Bytes(), rec.Header())
	if err != nil {
		b.Fatalf("%s: %v", name, err)
	}
	for _, h := range []struct {
		name string
		h    http.Handler
	}{{"fake", fake}, {"floor=plain", floor}} {
		b.Run(name+"/"+h.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu := ProcessCPU()
			for b.Loop() {
				rec := httptest.NewRecorder()
				h.h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("%d %.300s", rec.Code, rec.Body)
				}
			}
			ReportCPU(b, cpu)
		})
	}
}

// ReportCPU reports cpu-ns/op, the process's CPU time per iteration since
// start (a [ProcessCPU] reading), when the system tells it.
func ReportCPU(b *testing.B, start time.Duration) {
	if start == 0 || b.N == 0 {
		return
	}
	b.ReportMetric(float64(ProcessCPU()-start)/float64(b.N), "cpu-ns/op")
}
