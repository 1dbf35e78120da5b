package fake_test

import (
	"context"
	"testing"

	"github.com/apitwin/apitwin/fake/cloudauthfake"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/erpfake"
	"github.com/apitwin/apitwin/fake/mcpfake"
	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/sourcehost"
)

// Each fake's StartInMemory serves it as Start does, reached by its own
// clients, with nothing listening on a port.
func TestEachFakeInMemory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("erp", func(t *testing.T) {
		t.Parallel()
		s := erpfake.Start(t, control.WithInMemory())
		if err := s.Client().Ping(ctx); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("cloudauth", func(t *testing.T) {
		t.Parallel()
		s := cloudauthfake.Start(t, control.WithInMemory())
		if _, err := s.Client().PublicKeys(ctx); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("orch", func(t *testing.T) {
		t.Parallel()
		s := orchfake.Start(t, control.WithInMemory())
		if _, err := s.HTTPClient().DescribeNamespace(ctx, "default"); err != nil {
			t.Errorf("HTTP: %v", err)
		}
		gc := s.GRPCClient()
		defer gc.Close()
		if _, err := gc.DescribeNamespace(ctx, "default"); err != nil {
			t.Errorf("gRPC: %v", err)
		}
	})
	t.Run("sourcehost", func(t *testing.T) {
		t.Parallel()
		s := sourcehostfake.Start(t, control.WithInMemory())
		if _, err := s.Client().CreateProject(ctx, &sourcehost.CreateProjectRequest{Name: "in-memory"}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("mcp", func(t *testing.T) {
		t.Parallel()
		s := mcpfake.Start(t, control.WithInMemory())
		p, err := s.Upstream().Client().CreateProject(ctx, &sourcehost.CreateProjectRequest{Name: "behind"})
		if err != nil {
			t.Fatal(err)
		}
		if got, err := s.Client().GetProject(ctx, &mcp.GetProjectParams{ProjectID: p.ID}); err != nil || got.ID != p.ID {
			t.Fatalf("through the in-memory gateway to the in-memory upstream: %v %v", got, err)
		}
	})
}
