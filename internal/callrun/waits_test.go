package callrun_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/retry"
)

// sleepLog is a fake clock that writes down every wait asked of it.
type sleepLog struct {
	*clock.Fake
	mu    sync.Mutex
	waits []time.Duration
}

func (s *sleepLog) Sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	s.mu.Unlock()
	return s.Fake.Sleep(ctx, d)
}

func (s *sleepLog) log() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.waits)
}

// throttledConn is a gRPC connection whose every call is refused for its
// rate, RESOURCE_EXHAUSTED with a Retry-After in the header metadata, as
// the orchestration service answers.
type throttledConn struct{ retryAfter int }

func (c throttledConn) Invoke(_ context.Context, _ string, _, _ any, opts ...grpc.CallOption) error {
	for _, o := range opts {
		if h, ok := o.(grpc.HeaderCallOption); ok {
			*h.HeaderAddr = metadata.Pairs("retry-after", strconv.Itoa(c.retryAfter))
		}
	}
	return orchwire.Status(orchwire.ResourceExhausted, "rate limit exceeded").Err()
}

func (throttledConn) NewStream(context.Context, *grpc.StreamDesc, string, ...grpc.CallOption) (grpc.ClientStream, error) {
	panic("not used")
}

// Every client waits the longer of its backoff (1 s doubling) and the wait
// the server asked for, never less than either, and gives up at once when
// the server asks for more than MaxWait. Finding 7 of issue 34: after the
// retry loops were merged, a server's Retry-After replaced the backoff, so
// a gateway answering "Retry-After: 1" to every call was sent it again
// after 1, 1 and 1 s, where the specification says the delay doubles.
func TestEveryClientWaitsTheLongerOfBackoffAndRetryAfter(t *testing.T) {
	t.Parallel()
	for _, s := range subjects(t) {
		for _, tc := range []struct {
			name       string
			retryAfter int
			policy     *retry.Policy
			waits      []time.Duration
		}{
			{name: "Retry-After 1", retryAfter: 1, waits: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}},
			{name: "Retry-After 3", retryAfter: 3, waits: []time.Duration{3 * time.Second, 3 * time.Second, 4 * time.Second}},
			{name: "backoff capped by MaxWait", retryAfter: 1, policy: &retry.Policy{MaxRetries: 4, MaxWait: 3 * time.Second},
				waits: []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 3 * time.Second}},
			{name: "more than MaxWait", retryAfter: 61},
		} {
			t.Run(s.name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				clk := &sleepLog{Fake: clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))}
				o := opts{clock: clk, retry: tc.policy}
				var call func(context.Context) error
				var attempts func() int
				if s.name == "orch-grpc" {
					conn := throttledConn{retryAfter: tc.retryAfter}
					c, err := orch.NewFromConn(conn, o.orch()...)
					if err != nil {
						t.Fatal(err)
					}
					call = func(ctx context.Context) error { _, err := c.DescribeCluster(ctx); return err }
				} else {
					var mu sync.Mutex
					n := 0
					srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						mu.Lock()
						n++
						mu.Unlock()
						w.Header().Set("Content-Type", "application/json")
						w.Header().Set("Retry-After", strconv.Itoa(tc.retryAfter))
						w.WriteHeader(http.StatusTooManyRequests)
						body := s.body429
						if body == "" { // orch over HTTP
							body = string(orchwire.HTTPBody(orchwire.ResourceExhausted, "rate limit exceeded"))
						}
						_, _ = w.Write([]byte(body))
					}))
					t.Cleanup(srv.Close)
					attempts = func() int { mu.Lock(); defer mu.Unlock(); return n }
					var err error
					if call, err = s.newAt(srv.URL, o); err != nil {
						t.Fatal(err)
					}
				}
				err := call(t.Context())
				if err == nil {
					t.Fatal("a call refused every time succeeded")
				}
				if got := clk.log(); !slices.Equal(got, tc.waits) {
					t.Errorf("waits %v, want %v (%v)", got, tc.waits, err)
				}
				if attempts != nil {
					if got := attempts(); got != len(tc.waits)+1 {
						t.Errorf("%d attempts, want %d", got, len(tc.waits)+1)
					}
				}
			})
		}
	}
}
