package mcp_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The client is imported by programs that only call a gateway: it must not
// link what serving one takes (the MCP SDK, YAML, the Redis client), nor
// the gateway itself. go list -deps is what `go build` of an importer
// would link, test files aside.
func TestClientDoesNotLinkTheGateway(t *testing.T) {
	t.Parallel()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	deps := func(pkg string) []string {
		out, err := exec.Command(goTool, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", pkg).Output()
		if err != nil {
			var stderr string
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = string(ee.Stderr)
			}
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, stderr)
		}
		return strings.Fields(string(out))
	}
	const module = "github.com/apitwin/apitwin/"
	// The modules of the gateway's own dependencies, and the gateway's
	// packages: none may reach the client.
	forbidden := []string{
		"github.com/modelcontextprotocol/go-sdk",
		"go.yaml.in/yaml",
		"gopkg.in/yaml",
		"github.com/segmentio/",
		"github.com/redis/go-redis",
		module + "mcp/gateway",
		module + "mcp/mcpredis",
	}
	// Outside this module, the client links what the REST clients it
	// stands on link (sourcehost's, for File.Decode), and nothing else.
	allowed := []string{module, "github.com/hashicorp/go-cleanhttp", "github.com/hashicorp/go-retryablehttp", "github.com/google/go-querystring"}

	client := deps(module + "mcp")
	linked := map[string][]string{} // a forbidden prefix -> the packages of it linked
	for _, p := range client {
		if i := slices.IndexFunc(forbidden, func(f string) bool { return strings.HasPrefix(p, f) }); i >= 0 {
			linked[forbidden[i]] = append(linked[forbidden[i]], p)
		} else if !slices.ContainsFunc(allowed, func(a string) bool { return strings.HasPrefix(p, a) }) {
			t.Errorf("the mcp client links %s: a new dependency of every program that imports it", p)
		}
	}
	for _, f := range forbidden {
		if ps := linked[f]; len(ps) > 0 {
			t.Errorf("the mcp client links %d packages of %s, which only the gateway needs: %s", len(ps), f, strings.Join(ps, ", "))
		}
	}
	// The test means something only while the gateway does link them.
	gw := deps(module + "mcp/gateway")
	if !slices.ContainsFunc(gw, func(p string) bool { return strings.HasPrefix(p, forbidden[0]) }) {
		t.Errorf("the gateway no longer links %s: update this test's list", forbidden[0])
	}
}
