package main

import (
	"context"
	"os"
	"strings"
	"testing"
)

// TestExample keeps the example working against the embedded gateway. It
// cannot be parallel: it clears the environment with t.Setenv and captures
// os.Stdout.
func TestExample(t *testing.T) {
	t.Setenv("MCP_URL", "")
	t.Setenv("MCP_TOKEN", "")
	t.Setenv("MCP_PROJECT_ID", "")
	out := captureStdout(t, func() {
		if err := run(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
	for _, want := range []string{
		"list_projects: you own 2 project(s)",
		"list_issues twice (cache_ttl 30): 0 open issue(s)",
		"saw 1 issues request(s)",
		"list_issues again: 1 open issue(s)",
		`search_issues "Safari": 1 hit(s)`,
		"get_project → root/shop, default branch main",
		"errors.Is(err, mcp.ErrMethodNotFound) = true",
		"errors.Is(err, mcp.ErrNotFound) = true (code -32000",
		"errors.Is(err, mcp.ErrInvalidParams) = true",
		"a minute sustained",
		"done\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// captureStdout returns what f prints on os.Stdout.
func captureStdout(t *testing.T, f func()) string {
	t.Helper()
	tmp, err := os.CreateTemp(t.TempDir(), "stdout")
	if err != nil {
		t.Fatal(err)
	}
	defer tmp.Close()
	saved := os.Stdout
	os.Stdout = tmp
	defer func() { os.Stdout = saved }()
	f()
	b, err := os.ReadFile(tmp.Name())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
