package callrun_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apitwin/apitwin/apicall"
	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake/cloudauthfake"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/erpfake"
	"github.com/apitwin/apitwin/fake/mcpfake"
	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/retry"
	"github.com/apitwin/apitwin/sourcehost"
)

// These tests hold every client to the same behaviour, through its own
// transport against its own fake: each runs its calls through the one
// pipeline, so what a hook, a log, apicall.Info and an error say of a call
// does not depend on which client made it. Every row ran differently in at
// least one client before the pipeline was one (see each test).

// opts are the settings a test gives a client, whatever its package.
type opts struct {
	hook      apicall.Hook
	logger    *slog.Logger
	retry     *retry.Policy
	transport apicall.Transport
	clock     clock.Clock
}

// subject is one client against its fake: a call safe to send twice (a
// read) and one that is not (a create), the fake's routes for them, and
// what the client calls them.
type subject struct {
	name    string
	service string
	fake    control.Controls
	clock   *clock.Fake
	// safe and unsafe make a client with o and make the call.
	safe, unsafe     func(ctx context.Context, o opts) error
	safeRoute        string
	unsafeRoute      string
	safeOp           string // the hook's Operation of the safe call
	rateLimited      error  // the package's ErrRateLimited
	code429, code502 string // the service's error code for a 429 / 502 answer ("" for REST)
	status502        int    // the status the call reports for a 502 answer (over gRPC, that of its code)
	// body429 is the service's 429 answer without the wait its fake adds
	// (Retry-After); "" for a fake that adds none, which then takes no
	// bodies or headers in its faults (orch's are per operation).
	body429 string
	// newAt makes a client of the service at url and returns its safe call.
	newAt func(url string, o opts) (func(context.Context) error, error)
}

func (o opts) sourcehost() []sourcehost.Option {
	var r []sourcehost.Option
	if o.hook != nil {
		r = append(r, sourcehost.WithHook(o.hook))
	}
	if o.logger != nil {
		r = append(r, sourcehost.WithLogger(o.logger))
	}
	if o.retry != nil {
		r = append(r, sourcehost.WithRetry(*o.retry))
	}
	if o.transport != nil {
		r = append(r, sourcehost.WithTransport(o.transport))
	}
	if o.clock != nil {
		r = append(r, sourcehost.WithClock(o.clock))
	}
	return r
}

func (o opts) erp() []erp.Option {
	var r []erp.Option
	if o.hook != nil {
		r = append(r, erp.WithHook(o.hook))
	}
	if o.logger != nil {
		r = append(r, erp.WithLogger(o.logger))
	}
	if o.retry != nil {
		r = append(r, erp.WithRetry(*o.retry))
	}
	if o.transport != nil {
		r = append(r, erp.WithTransport(o.transport))
	}
	if o.clock != nil {
		r = append(r, erp.WithClock(o.clock))
	}
	return r
}

func (o opts) cloudauth() []cloudauth.Option {
	var r []cloudauth.Option
	if o.hook != nil {
		r = append(r, cloudauth.WithHook(o.hook))
	}
	if o.logger != nil {
		r = append(r, cloudauth.WithLogger(o.logger))
	}
	if o.retry != nil {
		r = append(r, cloudauth.WithRetry(*o.retry))
	}
	if o.transport != nil {
		r = append(r, cloudauth.WithTransport(o.transport))
	}
	if o.clock != nil {
		r = append(r, cloudauth.WithClock(o.clock))
	}
	return r
}

func (o opts) orch() []orch.Option {
	var r []orch.Option
	if o.hook != nil {
		r = append(r, orch.WithHook(o.hook))
	}
	if o.logger != nil {
		r = append(r, orch.WithLogger(o.logger))
	}
	if o.retry != nil {
		r = append(r, orch.WithRetry(*o.retry))
	}
	if o.transport != nil {
		r = append(r, orch.WithTransport(o.transport))
	}
	if o.clock != nil {
		r = append(r, orch.WithClock(o.clock))
	}
	return r
}

func (o opts) mcp() []mcp.Option {
	var r []mcp.Option
	if o.hook != nil {
		r = append(r, mcp.WithHook(o.hook))
	}
	if o.logger != nil {
		r = append(r, mcp.WithLogger(o.logger))
	}
	if o.retry != nil {
		r = append(r, mcp.WithRetry(*o.retry))
	}
	if o.transport != nil {
		r = append(r, mcp.WithTransport(o.transport))
	}
	if o.clock != nil {
		r = append(r, mcp.WithClock(o.clock))
	}
	return r
}

func subjects(t *testing.T) []*subject {
	t.Helper()
	sh := sourcehostfake.Start(t)
	pid, err := sh.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	ef := erpfake.Start(t)
	cf := cloudauthfake.Start(t)
	of := orchfake.Start(t)
	mf := mcpfake.Start(t)
	var created atomic.Int64 // a name per create, so that none is refused as a duplicate
	orchSubject := func(name string, newClient func(o opts) *orch.Client) *subject {
		s := &subject{name: name, service: "orch", fake: of, clock: of.Clock(),
			safeRoute: "DescribeCluster", unsafeRoute: "TerminateWorkflowExecution",
			safeOp:      "DescribeCluster",
			rateLimited: orch.ErrRateLimited, code429: orch.CodeResourceExhausted, code502: orch.CodeUnavailable,
			status502: http.StatusServiceUnavailable} // orchfake answers a 502 fault as UNAVAILABLE
		s.safe = func(ctx context.Context, o opts) error {
			c := newClient(o)
			defer c.Close()
			_, err := c.DescribeCluster(ctx)
			return err
		}
		s.unsafe = func(ctx context.Context, o opts) error {
			c := newClient(o)
			defer c.Close()
			id := fmt.Sprint("victim-", created.Add(1))
			// A start carries a request id the service deduplicates by, so
			// it is safe to send again; a terminate is not.
			if _, err := c.StartWorkflow(context.WithoutCancel(ctx), "W", "q", nil, &orch.StartWorkflowOptions{ID: id}); err != nil {
				return fmt.Errorf("starting the victim: %w", err)
			}
			return c.TerminateWorkflow(ctx, id, "", nil)
		}
		s.newAt = func(url string, o opts) (func(context.Context) error, error) {
			c, err := orch.NewHTTP(url, o.orch()...)
			if err != nil {
				return nil, err
			}
			return func(ctx context.Context) error { _, err := c.DescribeCluster(ctx); return err }, nil
		}
		return s
	}
	return []*subject{
		{name: "sourcehost", service: "sourcehost", fake: sh, clock: sh.Clock(),
			safe: func(ctx context.Context, o opts) error {
				_, err := sh.Client(o.sourcehost()...).GetProject(ctx, sourcehost.ProjectID(pid), nil)
				return err
			},
			unsafe: func(ctx context.Context, o opts) error {
				_, err := sh.Client(o.sourcehost()...).CreateIssue(ctx, sourcehost.ProjectID(pid), &sourcehost.CreateIssueRequest{Title: "once"})
				return err
			},
			safeRoute: "GET /api/v4/projects/{id}", unsafeRoute: "POST /api/v4/projects/{id}/issues",
			safeOp:      "GET /projects/" + strconv.FormatInt(pid, 10),
			rateLimited: sourcehost.ErrRateLimited, status502: http.StatusBadGateway, body429: `{"message":"429 Too Many Requests"}`,
			newAt: func(url string, o opts) (func(context.Context) error, error) {
				c, err := sourcehost.New(url, o.sourcehost()...)
				if err != nil {
					return nil, err
				}
				return func(ctx context.Context) error { _, err := c.GetProject(ctx, sourcehost.ProjectID(1), nil); return err }, nil
			}},
		{name: "erp", service: "erp", fake: ef, clock: ef.Clock(),
			safe: func(ctx context.Context, o opts) error { _, err := ef.Client(o.erp()...).GetUser(ctx, 1); return err },
			unsafe: func(ctx context.Context, o opts) error {
				_, err := ef.Client(o.erp()...).CreateThirdparty(ctx, &erp.CreateThirdpartyRequest{Name: fmt.Sprint("Acme ", created.Add(1))})
				return err
			},
			safeRoute: "GET /api/index.php/users/{id}", unsafeRoute: "POST /api/index.php/thirdparties",
			safeOp:      "GET /users/1",
			rateLimited: erp.ErrRateLimited, status502: http.StatusBadGateway, body429: `{"error":{"code":429,"message":"Too Many Requests"}}`,
			newAt: func(url string, o opts) (func(context.Context) error, error) {
				c, err := erp.New(url, append(o.erp(), erp.WithAPIKey("k3y-for-the-test"))...)
				if err != nil {
					return nil, err
				}
				return func(ctx context.Context) error { _, err := c.GetUser(ctx, 1); return err }, nil
			}},
		{name: "cloudauth", service: "cloudauth", fake: cf, clock: cf.Clock(),
			safe: func(ctx context.Context, o opts) error {
				_, err := cf.Client(o.cloudauth()...).PublicKeys(ctx)
				return err
			},
			unsafe: func(ctx context.Context, o opts) error {
				_, err := cf.Client(o.cloudauth()...).Login(ctx, &cloudauth.LoginRequest{Username: cloudauthfake.AdminUsername, Password: cloudauthfake.AdminPassword})
				return err
			},
			safeRoute: cloudauthfake.RoutePublicKey, unsafeRoute: cloudauthfake.RouteLogin,
			safeOp:      "GET " + cloudauth.PublicKeyPath,
			rateLimited: cloudauth.ErrRateLimited, status502: http.StatusBadGateway, body429: `{"message":"Too many requests"}`,
			newAt: func(url string, o opts) (func(context.Context) error, error) {
				c, err := cloudauth.New(url, o.cloudauth()...)
				if err != nil {
					return nil, err
				}
				return func(ctx context.Context) error { _, err := c.PublicKeys(ctx); return err }, nil
			}},
		orchSubject("orch-grpc", func(o opts) *orch.Client { return of.Client(o.orch()...) }),
		orchSubject("orch-http", func(o opts) *orch.Client { return of.HTTPClient(o.orch()...) }),
		{name: "mcp", service: "mcp", fake: mf, clock: mf.Clock(),
			safe: func(ctx context.Context, o opts) error {
				_, err := mf.Client(o.mcp()...).ListProjects(ctx, &mcp.ListProjectsParams{})
				return err
			},
			unsafe: func(ctx context.Context, o opts) error {
				_, err := mf.Client(o.mcp()...).ListProjects(ctx, &mcp.ListProjectsParams{})
				return err
			},
			safeRoute: "POST /mcp", unsafeRoute: "POST /mcp", safeOp: "list_projects",
			rateLimited: mcp.ErrRateLimited, code429: strconv.Itoa(mcp.CodeUpstreamError), code502: strconv.Itoa(mcp.CodeInternalError),
			status502: http.StatusBadGateway,
			body429:   `{"jsonrpc":"2.0","error":{"code":-32000,"message":"source-hosting API Error","data":{"status":429,"message":"Too Many Requests"}},"id":null}`,
			newAt: func(url string, o opts) (func(context.Context) error, error) {
				c, err := mcp.New(url, o.mcp()...)
				if err != nil {
					return nil, err
				}
				return func(ctx context.Context) error { _, err := c.ListProjects(ctx, &mcp.ListProjectsParams{}); return err }, nil
			}},
	}
}

// throttled is a 429 fault on times requests (0: all) whose answer asks
// for no wait, so that the client's backoff decides.
func (s *subject) throttled(times int) control.Fault {
	return control.Fault{Status: http.StatusTooManyRequests, Times: times, Body: s.body429}
}

// fault injects f on route, clearing what an earlier row left.
func (s *subject) fault(t *testing.T, route string, f control.Fault) {
	t.Helper()
	s.fake.ClearFaults()
	s.fake.ResetRequests()
	if err := s.fake.InjectFault(route, f); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.fake.ClearFaults)
}

// hookRecord is what a hook saw of one call.
type hookRecord struct {
	call    apicall.Call
	outcome apicall.Outcome
	ended   int
}

// hooks collects what a hook sees.
type hooks struct {
	mu    sync.Mutex
	calls []*hookRecord
}

func (h *hooks) hook(ctx context.Context, c apicall.Call) (context.Context, func(apicall.Outcome)) {
	r := &hookRecord{call: c}
	h.mu.Lock()
	h.calls = append(h.calls, r)
	h.mu.Unlock()
	return ctx, func(o apicall.Outcome) {
		h.mu.Lock()
		defer h.mu.Unlock()
		r.outcome = o
		r.ended++
	}
}

// A hook sees each call once whatever its retries, named as the apicall
// package says (the REST path, the RPC, the JSON-RPC method), and its
// outcome is the caller's: the error the caller got, the status and the
// retries apicall.Info reports, the service's code. Before the pipeline
// was one, the mcp client's hook ran in the REST core, once per attempt,
// named "POST /mcp", with no retries, no code, and no error for a
// JSON-RPC error inside a 200.
func TestEveryClientHooksEachCallOnce(t *testing.T) {
	t.Parallel()
	for _, s := range subjects(t) {
		for _, tc := range []struct {
			name    string
			fault   control.Fault
			retries int
			status  int
			code    string
			fails   bool
		}{
			{name: "a 429 then an answer", fault: s.throttled(1), retries: 1, status: http.StatusOK},
			{name: "429s until the retries are spent", fault: s.throttled(0), retries: 3,
				status: http.StatusTooManyRequests, code: s.code429, fails: true},
		} {
			t.Run(s.name+"/"+tc.name, func(t *testing.T) {
				s.fault(t, s.safeRoute, tc.fault)
				var h hooks
				var info apicall.Info
				err := s.safe(apicall.Capture(t.Context(), &info), opts{hook: h.hook})
				if (err != nil) != tc.fails {
					t.Fatalf("error %v, want failure %v", err, tc.fails)
				}
				if len(h.calls) != 1 {
					t.Fatalf("the hook saw %d calls, want 1: %+v", len(h.calls), h.calls)
				}
				r := h.calls[0]
				want := apicall.Call{Service: s.service, Operation: s.safeOp}
				if r.call != want || r.ended != 1 {
					t.Errorf("hook saw %+v, ended %d times; want %+v, once", r.call, r.ended, want)
				}
				o := r.outcome
				if o.Err != err || o.Retries != tc.retries || o.StatusCode != tc.status || o.Code != tc.code {
					t.Errorf("outcome {status %d code %q retries %d err %v}; want {status %d code %q retries %d err %v}",
						o.StatusCode, o.Code, o.Retries, o.Err, tc.status, tc.code, tc.retries, err)
				}
				if info.StatusCode != o.StatusCode || info.Retries != o.Retries {
					t.Errorf("apicall.Info says status %d, %d retries; the hook %d, %d", info.StatusCode, info.Retries, o.StatusCode, o.Retries)
				}
			})
		}
	}
}

// logRecord is one record a logger received.
type logRecord struct {
	level slog.Level
	msg   string
	attrs map[string]slog.Value
}

// recorder is a slog.Handler that keeps every record.
type recorder struct {
	mu      sync.Mutex
	records []logRecord
}

func (r *recorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *recorder) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *recorder) WithGroup(string) slog.Handler            { return r }
func (r *recorder) Handle(_ context.Context, rec slog.Record) error {
	lr := logRecord{level: rec.Level, msg: rec.Message, attrs: map[string]slog.Value{}}
	rec.Attrs(func(a slog.Attr) bool { lr.attrs[a.Key] = a.Value.Resolve(); return true })
	r.mu.Lock()
	r.records = append(r.records, lr)
	r.mu.Unlock()
	return nil
}

func keys(m map[string]slog.Value) []string {
	var k []string
	for name := range m {
		k = append(k, name)
	}
	slices.Sort(k)
	return k
}

// Every client writes the same lines, with the same fields: one per retry
// (info), one per call (debug, or warn when it failed). Before the
// pipeline was one, the REST clients wrote "retrying request" and
// "request" with method and path, orch "retrying call" and "call" with a
// transport and no status, and the mcp client no retry line at all and a
// "request" line per attempt.
func TestEveryClientLogsAlike(t *testing.T) {
	t.Parallel()
	for _, s := range subjects(t) {
		t.Run(s.name, func(t *testing.T) {
			var rec recorder
			s.fault(t, s.safeRoute, s.throttled(1))
			start := s.clock.Now()
			if err := s.safe(t.Context(), opts{logger: slog.New(&rec)}); err != nil {
				t.Fatal(err)
			}
			waited := s.clock.Now().Sub(start) // the wait before the retry
			s.fault(t, s.safeRoute, s.throttled(0))
			failed := s.safe(t.Context(), opts{logger: slog.New(&rec), retry: &retry.Policy{Disabled: true}})
			if failed == nil {
				t.Fatal("a 429 without retries succeeded")
			}
			type line struct {
				level slog.Level
				msg   string
				keys  []string
			}
			want := []line{
				{slog.LevelInfo, "retrying call", []string{"operation", "reason", "retry", "service", "wait"}},
				{slog.LevelDebug, "call", []string{"elapsed", "operation", "retries", "service", "status"}},
				{slog.LevelWarn, "call", []string{"elapsed", "error", "operation", "retries", "service", "status"}},
			}
			if s.code429 != "" {
				want[2].keys = []string{"code", "elapsed", "error", "operation", "retries", "service", "status"}
			}
			var got []line
			for _, r := range rec.records {
				got = append(got, line{r.level, r.msg, keys(r.attrs)})
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("lines\n%v\nwant\n%v", got, want)
			}
			retryLine, done, fail := rec.records[0].attrs, rec.records[1].attrs, rec.records[2].attrs
			if retryLine["service"].String() != s.service || retryLine["operation"].String() != s.safeOp || retryLine["retry"].Int64() != 1 ||
				retryLine["wait"].Duration() != waited || waited == 0 {
				t.Errorf("retry line %v", retryLine)
			}
			if done["operation"].String() != s.safeOp || done["status"].Int64() != http.StatusOK || done["retries"].Int64() != 1 {
				t.Errorf("call line %v", done)
			}
			if fail["status"].Int64() != http.StatusTooManyRequests || fail["retries"].Int64() != 0 || fail["error"].String() != failed.Error() {
				t.Errorf("failed call's line %v, the caller's error %q", fail, failed)
			}
			if s.code429 != "" && fail["code"].String() != s.code429 {
				t.Errorf("failed call's code %v, want %s", fail["code"], s.code429)
			}
		})
	}
}

// A call refused for its rate until the retries are spent ends, in every
// client, in an *apicall.RateLimitError that says how often it was sent
// again, why no more, and how long the client would have waited next (the
// fourth backoff, 8 s, or until the reset the answer named), wrapping the
// client's own error. Before the pipeline was one, orch returned its
// *Error alone, and the mcp client's RateLimitError said 1 s: the REST
// core it ran with retries off computed the wait of a first retry.
func TestEveryClientEndsARateLimitAlike(t *testing.T) {
	t.Parallel()
	for _, s := range subjects(t) {
		t.Run(s.name, func(t *testing.T) {
			s.fault(t, s.safeRoute, s.throttled(0))
			start := s.clock.Now()
			err := s.safe(t.Context(), opts{})
			var rl *apicall.RateLimitError
			if !errors.As(err, &rl) {
				t.Fatalf("%T %v: not an *apicall.RateLimitError", err, err)
			}
			wait, waited := 8*time.Second, 7*time.Second // backoff: 1, 2, 4, next 8
			if reset := rl.RateLimit.Reset; reset.After(s.clock.Now()) {
				// orchfake's answers name their window's reset, which comes
				// before backoff
				wait, waited = reset.Sub(s.clock.Now()), s.clock.Now().Sub(start)
			}
			if rl.Retries != 3 || rl.Reason != "gave up after 3 retries" || rl.RetryAfter != wait {
				t.Errorf("retries %d, reason %q, retry after %v; want 3, %q, %v", rl.Retries, rl.Reason, rl.RetryAfter, "gave up after 3 retries", wait)
			}
			if !errors.Is(err, s.rateLimited) {
				t.Errorf("errors.Is(%v, ErrRateLimited) is false", err)
			}
			if got := s.clock.Now().Sub(start); got != waited {
				t.Errorf("the client waited %v on the clock, want %v", got, waited)
			}
			if n := len(s.fake.RequestsTo(s.safeRoute)); n != 4 {
				t.Errorf("%d attempts, want 4", n)
			}
		})
	}
}

// A 429 that names no Retry-After but a reset time is waited out until the
// reset, and a 429 a proxy in front of the service answered (its own page,
// not the service's error shape) is retried like the service's own, by
// every client. Before the pipeline was one, the mcp client read only
// Retry-After (it waited 1 s, not until the reset) and did not retry a 429
// whose body was not a JSON-RPC error.
func TestEveryClientWaitsOutA429(t *testing.T) {
	t.Parallel()
	for _, s := range subjects(t) {
		if s.body429 == "" {
			continue // orchfake's faults are per operation, without headers or bodies
		}
		for _, tc := range []struct {
			name   string
			fault  func(now time.Time) control.Fault
			waited time.Duration
		}{
			{name: "until the reset", waited: 20 * time.Second, fault: func(now time.Time) control.Fault {
				reset := strconv.FormatInt(now.Add(20*time.Second).Unix(), 10)
				return control.Fault{Status: http.StatusTooManyRequests, Times: 1, Body: s.body429, Header: http.Header{"X-Ratelimit-Reset": {reset}}}
			}},
			{name: "a proxy's page", waited: time.Second, fault: func(time.Time) control.Fault {
				return control.Fault{Status: http.StatusTooManyRequests, Times: 1, Body: "<html><h1>429 Too Many Requests</h1></html>",
					Header: http.Header{"Content-Type": {"text/html"}}}
			}},
		} {
			t.Run(s.name+"/"+tc.name, func(t *testing.T) {
				start := s.clock.Now().Truncate(time.Second)
				s.clock.Set(start)
				s.fault(t, s.safeRoute, tc.fault(start))
				var info apicall.Info
				if err := s.safe(apicall.Capture(t.Context(), &info), opts{}); err != nil {
					t.Fatalf("%v (%d attempts)", err, len(s.fake.RequestsTo(s.safeRoute)))
				}
				if waited := s.clock.Now().Sub(start); waited != tc.waited || info.Retries != 1 {
					t.Errorf("waited %v, %d retries; want %v, 1", waited, info.Retries, tc.waited)
				}
			})
		}
	}
}

// A caller that gives up while the client waits to send a call again gets
// an error that says both: its context ended (errors.Is context.Canceled),
// and what the last answer was (errors.Is ErrRateLimited). Before the
// pipeline was one, the REST clients gave the context's error alone, orch
// its own CANCELED error alone, and the mcp client both.
func TestEveryClientThatStopsWaitingSaysWhy(t *testing.T) {
	t.Parallel()
	for _, s := range subjects(t) {
		t.Run(s.name, func(t *testing.T) {
			s.fault(t, s.safeRoute, control.Fault{Status: http.StatusTooManyRequests})
			s.clock.SetAutoAdvance(false)
			defer s.clock.SetAutoAdvance(true)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var info apicall.Info
			done := make(chan error, 1)
			go func() { done <- s.safe(apicall.Capture(ctx, &info), opts{}) }()
			if err := s.clock.WaitForSleepers(t.Context(), 1); err != nil {
				t.Fatal(err)
			}
			cancel()
			var err error
			select {
			case err = <-done:
			case <-time.After(30 * time.Second): // failsafe only
				t.Fatal("the call did not end when its context did")
			}
			if !errors.Is(err, context.Canceled) || !errors.Is(err, s.rateLimited) {
				t.Errorf("%v: errors.Is Canceled %v, ErrRateLimited %v; want both", err, errors.Is(err, context.Canceled), errors.Is(err, s.rateLimited))
			}
			if info.StatusCode != http.StatusTooManyRequests || info.Retries != 0 {
				t.Errorf("info: status %d, %d retries; want 429, 0", info.StatusCode, info.Retries)
			}
		})
	}
}

// A failure that may pass but was not sent again says why in a
// *retry.Error, in every client, and the hook and apicall.Info report the
// answer's status. Before the pipeline was one, orch explained in its
// *Error alone.
func TestEveryClientReportsAFailedAnswerAlike(t *testing.T) {
	t.Parallel()
	for _, s := range subjects(t) {
		t.Run(s.name, func(t *testing.T) {
			s.fault(t, s.unsafeRoute, control.Fault{Status: http.StatusBadGateway})
			var h hooks
			var info apicall.Info
			err := s.unsafe(apicall.Capture(t.Context(), &info), opts{hook: h.hook})
			if err == nil {
				t.Fatal("a 502 succeeded")
			}
			if info.StatusCode != s.status502 {
				t.Errorf("info: status %d, want %d", info.StatusCode, s.status502)
			}
			var re *retry.Error
			if !errors.As(err, &re) || re.Reason != "not retried: the call is not idempotent, and sending it again could do it twice" || re.Retries != 0 {
				t.Errorf("%T %v: want a *retry.Error saying it was not retried", err, err)
			}
			last := h.calls[len(h.calls)-1]
			if last.outcome.StatusCode != s.status502 || last.outcome.Code != s.code502 || last.outcome.Err != err {
				t.Errorf("hook: %+v", last.outcome)
			}
			if n := len(s.fake.RequestsTo(s.unsafeRoute)); n != 1 {
				t.Errorf("%d attempts, want 1", n)
			}
		})
	}
}

// A certificate that does not verify is not tried again, whatever wraps
// the transport's error: whether a transport failure is one no retry cures
// is decided in one place. Before, the REST core asked go-retryablehttp,
// which looks only at the error the transport returned itself, while orch
// over HTTP looked down the chain; a WithTransport wrapper that wraps its
// errors (as tracing and logging wrappers do) made the REST clients try a
// bad certificate four times.
func TestEveryClientStopsAtABadCertificate(t *testing.T) {
	t.Parallel()
	for _, s := range subjects(t) {
		if s.name == "orch-grpc" {
			continue // gRPC dials and reports its handshakes itself
		}
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			var conns atomic.Int32
			srv := httptest.NewUnstartedServer(http.NotFoundHandler())
			srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
				if st == http.StateNew {
					conns.Add(1)
				}
			}
			srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshakes fail, as they should
			srv.StartTLS()
			t.Cleanup(srv.Close)
			wrap := func(next http.RoundTripper) http.RoundTripper {
				return roundTripFunc(func(r *http.Request) (*http.Response, error) {
					resp, err := next.RoundTrip(r)
					if err != nil {
						err = fmt.Errorf("traced: %w", err)
					}
					return resp, err
				})
			}
			call, err := s.newAt(srv.URL, opts{transport: wrap, clock: clock.NewFake(time.Unix(1_700_000_000, 0))})
			if err != nil {
				t.Fatal(err)
			}
			if err := call(t.Context()); err == nil {
				t.Fatal("an untrusted certificate was accepted")
			}
			if n := conns.Load(); n != 1 {
				t.Errorf("%d connections, want 1", n)
			}
		})
	}
}

// What a call reports is its last answer's status as the wire carried it:
// a proxy's 502 in front of the service is a 502 in apicall.Info and in
// the hook, for every HTTP client. Before the pipeline was one, orch over
// HTTP reported the status of the code it read the answer as
// (UNAVAILABLE: 503).
func TestEveryClientReportsTheStatusOnTheWire(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		io.WriteString(w, "<html><h1>502 Bad Gateway</h1></html>")
	}))
	t.Cleanup(srv.Close)
	for _, s := range subjects(t) {
		if s.name == "orch-grpc" {
			continue // no proxy page over gRPC
		}
		t.Run(s.name, func(t *testing.T) {
			var h hooks
			call, err := s.newAt(srv.URL, opts{hook: h.hook, clock: clock.NewFake(time.Unix(1_700_000_000, 0))})
			if err != nil {
				t.Fatal(err)
			}
			var info apicall.Info
			if err := call(apicall.Capture(t.Context(), &info)); err == nil {
				t.Fatal("a 502 succeeded")
			}
			if info.StatusCode != http.StatusBadGateway || len(h.calls) != 1 || h.calls[0].outcome.StatusCode != http.StatusBadGateway {
				t.Errorf("info says %d, the hook %+v; want 502", info.StatusCode, h.calls)
			}
		})
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
