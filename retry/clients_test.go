package retry_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/apicall"
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
	"github.com/apitwin/apitwin/sourcehost"
)

// subject is one client against its fake, with a call that is safe to send
// twice (a read) and one that is not (a create), and the fake's routes for
// them.
type subject struct {
	name         string
	fake         control.Controls
	safe, unsafe func(ctx context.Context) error
	safeRoute    string
	unsafeRoute  string
	// noTransient: the client retries only refusals for rate (mcp: a
	// JSON-RPC call carries no sign of being safe to repeat).
	noTransient bool
}

func subjects(t *testing.T) []subject {
	sh := sourcehostfake.Start(t)
	shc := sh.Client()
	pid, err := sh.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	ef := erpfake.Start(t)
	ec := ef.Client()
	cf := cloudauthfake.Start(t)
	cc := cf.Client()
	of := orchfake.Start(t)
	oc := of.Client()
	t.Cleanup(func() { _ = oc.Close() })
	// A start carries a request id the service deduplicates by, so it is
	// safe to send again; a terminate is not.
	if _, err := oc.StartWorkflow(t.Context(), "W", "q", nil, &orch.StartWorkflowOptions{ID: "victim"}); err != nil {
		t.Fatal(err)
	}
	mf := mcpfake.Start(t)
	mc := mf.Client()
	return []subject{
		{name: "sourcehost", fake: sh,
			safe: func(ctx context.Context) error {
				_, err := shc.GetProject(ctx, sourcehost.ProjectID(pid), nil)
				return err
			},
			unsafe: func(ctx context.Context) error {
				_, err := shc.CreateIssue(ctx, sourcehost.ProjectID(pid), &sourcehost.CreateIssueRequest{Title: "once"})
				return err
			},
			safeRoute: "GET /api/v4/projects/{id}", unsafeRoute: "POST /api/v4/projects/{id}/issues"},
		{name: "erp", fake: ef,
			safe: func(ctx context.Context) error { _, err := ec.GetUser(ctx, 1); return err },
			unsafe: func(ctx context.Context) error {
				_, err := ec.CreateThirdparty(ctx, &erp.CreateThirdpartyRequest{Name: fmt.Sprint("Acme ", ctx.Value(runKey{}))})
				return err
			},
			safeRoute: "GET /api/index.php/users/{id}", unsafeRoute: "POST /api/index.php/thirdparties"},
		{name: "cloudauth", fake: cf,
			safe: func(ctx context.Context) error { _, err := cc.PublicKeys(ctx); return err },
			unsafe: func(ctx context.Context) error {
				_, err := cc.Login(ctx, &cloudauth.LoginRequest{Username: cloudauthfake.AdminUsername, Password: cloudauthfake.AdminPassword})
				return err
			},
			safeRoute: cloudauthfake.RoutePublicKey, unsafeRoute: cloudauthfake.RouteLogin},
		{name: "orch", fake: of,
			safe:      func(ctx context.Context) error { _, err := oc.DescribeCluster(ctx); return err },
			unsafe:    func(ctx context.Context) error { return oc.TerminateWorkflow(ctx, "victim", "", nil) },
			safeRoute: "DescribeCluster", unsafeRoute: "TerminateWorkflowExecution"},
		{name: "mcp", fake: mf, noTransient: true,
			safe: func(ctx context.Context) error {
				_, err := mc.ListProjects(ctx, &mcp.ListProjectsParams{})
				return err
			},
			unsafe: func(ctx context.Context) error {
				_, err := mc.ListProjects(ctx, &mcp.ListProjectsParams{})
				return err
			},
			safeRoute: "POST /mcp", unsafeRoute: "POST /mcp"},
	}
}

type runKey struct{}

// The rules of package retry, met by every client through its own
// transport: what is sent again, how often, and what the caller learns.
func TestEveryClientFollowsTheRules(t *testing.T) {
	t.Parallel()
	for _, s := range subjects(t) {
		for i, tc := range []struct {
			name      string
			status    int
			times     int
			unsafe    bool
			transient bool // the row is about a 5xx
			attempts  int
			ok        bool
		}{
			{name: "a 503 of a read is sent again", status: http.StatusServiceUnavailable, times: 1, transient: true, attempts: 2, ok: true},
			{name: "a 503 of a create is not", status: http.StatusServiceUnavailable, times: 1, unsafe: true, transient: true, attempts: 1},
			{name: "a 429 of a create is sent again", status: http.StatusTooManyRequests, times: 1, unsafe: true, attempts: 2, ok: true},
			{name: "429s until the retries are spent", status: http.StatusTooManyRequests, times: 10, attempts: 4},
		} {
			if tc.transient && s.noTransient {
				continue
			}
			t.Run(s.name+"/"+tc.name, func(t *testing.T) {
				route, call := s.safeRoute, s.safe
				if tc.unsafe {
					route, call = s.unsafeRoute, s.unsafe
				}
				s.fake.ClearFaults()
				s.fake.ResetRequests()
				if err := s.fake.InjectFault(route, control.Fault{Status: tc.status, Times: tc.times}); err != nil {
					t.Fatal(err)
				}
				var res apicall.Info
				ctx := context.WithValue(apicall.Capture(t.Context(), &res), runKey{}, i)
				err := call(ctx)
				s.fake.ClearFaults()
				if got := len(s.fake.RequestsTo(route)); got != tc.attempts {
					t.Errorf("%d attempts, want %d (%v)", got, tc.attempts, err)
				}
				if (err == nil) != tc.ok {
					t.Errorf("error %v, want success %v", err, tc.ok)
				}
				// The caller learns why a failure was not sent again.
				if want := map[bool]string{true: "not retried", false: "gave up after 3 retries"}[tc.unsafe]; err != nil && !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
				if res.Retries != tc.attempts-1 {
					t.Errorf("response says %d retries", res.Retries)
				}
			})
		}
	}
}
