package mcpfake_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/mcpfake"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/internal/testtools"
	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/mcp/gateway"
)

// starts are the ways to make a Server whose gateway reaches the upstream
// it made in-process.
var starts = []struct {
	name  string
	start func(testing.TB, ...mcpfake.Option) *mcpfake.Server
}{
	{"Start", mcpfake.Start},
	{"Start WithTLS", func(tb testing.TB, opts ...mcpfake.Option) *mcpfake.Server {
		return mcpfake.Start(tb, append(opts, control.WithTLS())...)
	}},
	{"Start WithInMemory", func(tb testing.TB, opts ...mcpfake.Option) *mcpfake.Server {
		return mcpfake.Start(tb, append(opts, control.WithInMemory())...)
	}},
	{"New", func(tb testing.TB, opts ...mcpfake.Option) *mcpfake.Server {
		s, err := mcpfake.New(opts...)
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(s.Close)
		return s
	}},
}

// Start opens no port for the upstream until something asks for its
// address: the gateway's calls reach it in-process, and it names itself by
// the host the gateway calls, having adopted no URL (starting is what
// adopts one). Its URL then answers, and it names itself by that.
func TestStartOpensTheUpstreamOnFirstAsk(t *testing.T) {
	t.Parallel()
	testtools.SkipInMemory(t)
	ctx := context.Background()
	for _, opts := range [][]mcpfake.Option{nil, {control.WithTLS()}} {
		srv := mcpfake.Start(t, opts...)
		id, err := srv.Upstream().AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
		if err != nil {
			t.Fatal(err)
		}
		c := srv.Client()
		p, err := c.GetProject(ctx, &mcp.GetProjectParams{ProjectID: id})
		if err != nil || p.WebURL != "http://sourcehost.mcpfake.internal/root/shop" {
			t.Fatalf("before the upstream's address was asked for: %+v %v", p, err)
		}
		if n := len(srv.Upstream().RequestsTo("GET /api/v4/projects/{id}")); n != 1 {
			t.Fatalf("the upstream logged %d project reads", n)
		}

		u := srv.Upstream().URL()
		if u == "" {
			t.Fatal("the upstream has no URL")
		}
		resp, err := srv.Upstream().RawClient().Get(u + "/api/v4/user")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized { // it answers, as itself: no token, no user
			t.Fatalf("GET %s/api/v4/user without a token: %d", u, resp.StatusCode)
		}
		if p, err := c.GetProject(ctx, &mcp.GetProjectParams{ProjectID: id}); err != nil || p.WebURL != u+"/root/shop" {
			t.Fatalf("after: %+v %v, want it named by %s", p, err, u)
		}

		// Close stops the port it opened too.
		rc := srv.Upstream().RawClient()
		srv.Close()
		if resp, err := rc.Get(u + "/api/v4/user"); err == nil {
			resp.Body.Close()
			t.Fatalf("%s answers after Close", u)
		}
	}
}

// What the upstream's controls do reaches the gateway's call, however the
// Server was made: a status, a dropped connection (once: not retried out
// of sight), a wait past the gateway's UpstreamHeaderTimeoutSeconds.
func TestUpstreamFaultsReachTheGateway(t *testing.T) {
	t.Parallel()
	for _, st := range starts {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			// A short timeout is the configuration under test; the upstream's
			// wait is on the fake clock, which nothing advances.
			srv := st.start(t, mcpfake.WithConfig(gateway.Config{UpstreamHeaderTimeoutSeconds: 0.05}))
			c := srv.Client(mcp.WithoutRetries())
			if _, err := c.ListProjects(ctx, nil); err != nil { // the token's verification out of the way
				t.Fatal(err)
			}
			up := srv.Upstream()
			const route = "GET /api/v4/projects"

			up.InjectFault(route, control.Fault{Status: http.StatusServiceUnavailable, Times: 1})
			var e *mcp.Error
			if _, err := c.ListProjects(ctx, nil); !errors.As(err, &e) || e.Status != http.StatusServiceUnavailable {
				t.Errorf("upstream 503: %v", err)
			}

			up.InjectFault(route, control.Fault{Drop: true, Times: 1})
			up.ResetRequests()
			if _, err := c.ListProjects(ctx, nil); !errors.As(err, &e) || !strings.Contains(err.Error(), "could not be reached") {
				t.Errorf("upstream drop: %v", err)
			}
			if n := len(up.RequestsTo(route)); n != 1 {
				t.Errorf("the upstream saw the dropped call %d times", n)
			}

			up.InjectFault(route, control.Fault{Latency: time.Hour, OnClock: true, Times: 1})
			if _, err := c.ListProjects(ctx, nil); !errors.As(err, &e) || e.Status != http.StatusGatewayTimeout {
				t.Errorf("upstream slower than the header timeout: %v", err)
			}

			if _, err := c.ListProjects(ctx, nil); err != nil {
				t.Errorf("after the faults: %v", err)
			}
		})
	}
}
