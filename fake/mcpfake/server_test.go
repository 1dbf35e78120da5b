package mcpfake_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/mcpfake"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/mcp"
)

func TestSharedClockAndUpstream(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	srv := mcpfake.Start(t, mcpfake.WithClock(clk), mcpfake.WithConfig(mcp.Config{RateLimit: mcp.RateLimitConfig{PerMinute: 60, Burst: 1}}))
	if srv.Clock() != clk || srv.Upstream().Clock() != clk {
		t.Fatal("the gateway and the upstream do not share the clock given")
	}
	c := srv.Client(mcp.WithoutRetries())
	ctx := context.Background()
	if _, err := c.ListProjects(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListProjects(ctx, nil); !errors.Is(err, mcp.ErrRateLimited) {
		t.Fatalf("second call in the same second: %v", err)
	}
	clk.Advance(time.Second)
	if _, err := c.ListProjects(ctx, nil); err != nil {
		t.Fatalf("after a second on the shared clock: %v", err)
	}
}

func TestWithExistingUpstream(t *testing.T) {
	t.Parallel()
	up := sourcehostfake.Start(t)
	id, err := up.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	srv := mcpfake.Start(t, mcpfake.WithUpstream(up))
	if srv.Upstream() != up || srv.Clock() != up.Clock() {
		t.Fatal("the given upstream is not the one used")
	}
	p, err := srv.Client().GetProject(context.Background(), &mcp.GetProjectParams{ProjectID: id})
	if err != nil || p.Name != "shop" {
		t.Fatalf("%+v %v", p, err)
	}
}

func TestListen(t *testing.T) {
	t.Parallel()
	srv, err := mcpfake.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if _, err := srv.Client().ListProjects(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := mcpfake.Listen(srv.URL()[len("http://"):]); err == nil {
		t.Error("a port in use was accepted")
	}
}

func TestBadConfigFailsStart(t *testing.T) {
	t.Parallel()
	if _, err := mcpfake.Listen("127.0.0.1:0", mcpfake.WithConfig(mcp.Config{Security: mcp.SecurityConfig{BlockedIPs: []string{"x"}}})); err == nil {
		t.Error("a bad configuration was accepted")
	}
}
