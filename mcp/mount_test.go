package mcp_test

import (
	"testing"

	"github.com/apitwin/apitwin/fake/mcpfake"
	"github.com/apitwin/apitwin/mcp"
)

// A gateway mounted elsewhere than /mcp is reachable from the client given
// its endpoint (issue 16, finding 10: New appended /mcp to every URL).
func TestClientReachesAGatewayMountedElsewhere(t *testing.T) {
	t.Parallel()
	srv, _ := seeded(t, mcpfake.WithConfig(mcp.Config{Path: "/tools/rpc"}))
	c, err := mcp.New(srv.URL()+"/tools/rpc", mcp.WithToken(srv.Token()))
	if err != nil {
		t.Fatal(err)
	}
	list, err := c.ListProjects(t.Context(), &mcp.ListProjectsParams{})
	if err != nil || len(list.Projects) != 1 {
		t.Fatalf("%+v %v", list, err)
	}
	// A bare root still means the default endpoint.
	def, _ := seeded(t)
	if c, err := mcp.New(def.URL()+"/", mcp.WithToken(def.Token())); err != nil {
		t.Fatal(err)
	} else if _, err := c.ListProjects(t.Context(), &mcp.ListProjectsParams{}); err != nil {
		t.Fatalf("root URL: %v", err)
	}
}
