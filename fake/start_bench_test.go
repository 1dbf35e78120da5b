package fake_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake"
	"github.com/apitwin/apitwin/fake/cloudauthfake"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/erpfake"
	"github.com/apitwin/apitwin/fake/mcpfake"
	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
)

// BenchmarkStart is what a test pays for a fake: start it, make one
// request through its client, close it, on loopback and in memory, beside
// the floor of the same run (httptest.NewServer, one request, Close). Read
// the ratios from one run:
//
//	go test -run '^$' -bench 'BenchmarkStart$' -benchmem ./fake/
//
// Each fake's sub-benchmark also runs the floor every floorEvery
// iterations, outside its timer, and reports it (floor-ns/op) and its own
// time over it (x-floor): the two measured under the same conditions. The
// floor's own sub-benchmark runs first, and every start and request on
// loopback leaves sockets in TIME_WAIT for a minute, which slow every later
// listen and dial (the kernel searches further for a free port), so a
// later sub-benchmark meets a dearer loopback than the floor's did.
//
// mcpfake's one request is a tool call: behind the one exchange on the
// wire, the gateway makes two with its upstream fake (the caller's token
// verified, then the tool's own request), in-process but each through a
// typed client and the fake's whole handler, so it does three requests'
// work where the floor does one. Bare in-process exchanges cost little
// (a floor whose handler makes two through fakekit.HandlerTransport
// measured 0.94-1.00x the bare floor); the gateway's and the fakes' work
// in them is what its ratio shows.
func BenchmarkStart(b *testing.B) {
	ctx := context.Background()
	hello := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "{}") })
	floor := func(b *testing.B) {
		s := httptest.NewServer(hello)
		resp, err := s.Client().Get(s.URL)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		s.Close()
	}
	b.Run("floor=httptest", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			floor(b)
		}
	})
	// fake.New on loopback opens six listeners (ERP, cloud login, orch's
	// gRPC and HTTP, sourcehost, the MCP gateway), at once as it does: this
	// floor is six httptest servers started the same way, one request,
	// all closed, what any program serving six ports pays.
	b.Run("floor=httptest-six", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var six [6]*httptest.Server
			var wg sync.WaitGroup
			for i := range six {
				wg.Go(func() { six[i] = httptest.NewServer(hello) })
			}
			wg.Wait()
			resp, err := six[0].Client().Get(six[0].URL)
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			for _, s := range six {
				s.Close()
			}
		}
	})
	type starter struct {
		name string
		run  func(tb testing.TB, inMemory bool)
	}
	starters := []starter{
		{"erpfake", startThen(erpfake.Start, func(s *erpfake.Server) error {
			return s.Client().Ping(ctx)
		})},
		{"cloudauthfake", startThen(cloudauthfake.Start, func(s *cloudauthfake.Server) error {
			_, err := s.Client().PublicKeys(ctx)
			return err
		})},
		{"sourcehostfake", startThen(sourcehostfake.Start, func(s *sourcehostfake.Server) error {
			_, err := s.Client().CurrentUser(ctx)
			return err
		})},
		{"orchfake", startThen(orchfake.Start, func(s *orchfake.Server) error {
			c := s.HTTPClient()
			defer c.Close()
			_, err := c.DescribeNamespace(ctx, "default")
			return err
		})},
		{"mcpfake", startThen(mcpfake.Start, func(s *mcpfake.Server) error {
			_, err := s.Client().ListProjects(ctx, nil)
			return err
		})},
		{"fake.New", func(tb testing.TB, mem bool) {
			var opts []fake.Option
			if mem {
				opts = append(opts, control.WithInMemory())
			}
			f, err := fake.New(opts...)
			if err != nil {
				tb.Fatal(err)
			}
			if err := f.Clients.ERP.Ping(ctx); err != nil {
				tb.Fatal(err)
			}
			f.Close()
		}},
	}
	for _, s := range starters {
		for _, mode := range []struct {
			name string
			mem  bool
		}{{"loopback", false}, {"in-memory", true}} {
			b.Run(s.name+"/"+mode.name, func(b *testing.B) {
				b.ReportAllocs()
				// Once before the timer, for what a process pays once
				// (cloudauthfake's key, the tables the fakes share), which
				// a suite of many tests does not pay per test, and which
				// would weigh on a short run (-benchtime 200x).
				floor(b)
				s.run(b, mode.mem)
				var floorTime time.Duration
				floorRuns, i := 0, 0
				for b.Loop() {
					if i%floorEvery == 0 {
						b.StopTimer()
						t0 := time.Now()
						floor(b)
						floorTime += time.Since(t0)
						floorRuns++
						b.StartTimer()
					}
					i++
					s.run(b, mode.mem)
				}
				if floorTime > 0 {
					perFloor := float64(floorTime.Nanoseconds()) / float64(floorRuns)
					b.ReportMetric(perFloor, "floor-ns/op")
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/perFloor, "x-floor")
				}
			})
		}
	}
}

// floorEvery is how often a fake's sub-benchmark runs the floor beside it:
// often enough to meet the same conditions, seldom enough not to add many
// sockets in TIME_WAIT to the run (a long run can use up the ephemeral
// ports).
const floorEvery = 4

// startThen is a starter: the fake started on loopback or in memory, one
// call through its client, then Close.
func startThen[S interface{ Close() }](start func(testing.TB, ...control.Option) S, call func(S) error) func(testing.TB, bool) {
	return func(b testing.TB, inMemory bool) {
		tb := &oneTest{TB: b}
		defer tb.end()
		var s S
		if inMemory {
			s = start(tb, control.WithInMemory())
		} else {
			s = start(tb)
		}
		if err := call(s); err != nil {
			tb.Fatal(err)
		}
		s.Close()
	}
}

// oneTest is the testing.TB an iteration hands its fake: the cleanups the
// fake registers run when the iteration ends, as a test's run when the
// test ends. Registered with the benchmark's own TB they would run only
// when the whole sub-benchmark ends, keeping every fake closed so far (17
// KB each for mcpfake) alive, and marked by every GC cycle of the run,
// which no suite does. Each cleanup is still registered with the
// benchmark's TB, so an iteration pays what testing.T.Cleanup costs; what
// the benchmark keeps is a closure of an emptied slot.
type oneTest struct {
	testing.TB
	slots []*func()
}

func (t *oneTest) Cleanup(f func()) {
	slot := &f
	t.slots = append(t.slots, slot)
	t.TB.Cleanup(func() {
		if *slot != nil { // only if the iteration did not end (it failed)
			(*slot)()
		}
	})
}

// end runs the iteration's cleanups, the last registered first.
func (t *oneTest) end() {
	for i := len(t.slots) - 1; i >= 0; i-- {
		f := *t.slots[i]
		*t.slots[i] = nil
		f()
	}
}
