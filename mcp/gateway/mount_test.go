package gateway_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/mcpfake"
	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/mcp/gateway"
)

// A gateway mounted elsewhere than /mcp is reachable from the client given
// its endpoint (issue 16, finding 10: New appended /mcp to every URL).
func TestClientReachesAGatewayMountedElsewhere(t *testing.T) {
	t.Parallel()
	srv, _ := seeded(t, mcpfake.WithConfig(gateway.Config{Path: "/tools/rpc"}))
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

// A caller the source-hosting API rate-limits learns how long it asked to
// wait: data.retry_after, which the client waits on its clock before it
// sends again (issue 16, finding 8: the gateway dropped Retry-After).
func TestUpstreamRetryAfterReachesTheCaller(t *testing.T) {
	t.Parallel()
	srv, id := seeded(t)
	up := srv.Upstream()
	route := "GET /api/v4/projects/{id}/issues"
	fault := control.Fault{Status: http.StatusTooManyRequests, Header: http.Header{"Retry-After": {"7"}}}
	if err := up.InjectFault(route, fault); err != nil {
		t.Fatal(err)
	}
	_, err := srv.Client(mcp.WithoutRetries()).ListIssues(t.Context(), &mcp.ListIssuesParams{ProjectID: id})
	var e *mcp.Error
	if !errors.As(err, &e) || !errors.Is(err, mcp.ErrRateLimited) || e.RetryAfter != 7*time.Second || !strings.Contains(string(e.Data), `"retry_after":7`) {
		t.Fatalf("%v (%+v)", err, e)
	}

	// With retries, the client waits the 7 s asked for, on the fake clock,
	// and gets in once the source-hosting API lets it.
	up.ClearFaults()
	fault.Times = 2 // the gateway does not retry for its callers: the client does
	if err := up.InjectFault(route, fault); err != nil {
		t.Fatal(err)
	}
	start := srv.Clock().Now()
	if _, err := srv.Client().ListIssues(t.Context(), &mcp.ListIssuesParams{ProjectID: id}); err != nil {
		t.Fatal(err)
	}
	if waited := srv.Clock().Now().Sub(start); waited != 2*7*time.Second {
		t.Errorf("the clock moved %v, less than the waits asked for", waited)
	}
}
