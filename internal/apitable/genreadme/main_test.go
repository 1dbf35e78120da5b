package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/internal/apitable"
)

func TestWritesBetweenTheMarkers(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "README.md")
	before := "# x\n\nintro\n\n" + begin + "\nstale\n" + end + "\n\n## after\n"
	if err := os.WriteFile(path, []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(path, true); err == nil || !strings.Contains(err.Error(), "out of date") {
		t.Fatalf("-check of a stale README: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != before {
		t.Fatal("-check changed the README")
	}
	if err := run(path, false); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	want := "# x\n\nintro\n\n" + begin + "\n" + string(tables(apitable.Tables())) + end + "\n\n## after\n"
	if string(got) != want {
		t.Fatalf("README after:\n%s", got)
	}
	if err := run(path, true); err != nil {
		t.Fatalf("-check after writing: %v", err)
	}
	for _, want := range []string{
		"| [`GET /projects/{id}/issues`](https://docs.gitlab.com/api/issues/#list-project-issues) | `ListIssues`, `AllIssues` |",
		"| `GET /` | `Ping` |", // a table that links to no docs
		"| `GET /explorer` | none: redirects to /explorer/ |",
	} {
		if !strings.Contains(string(got), want) {
			t.Errorf("no row %s", want)
		}
	}
}

func TestNoMarkers(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "README.md")
	if err := os.WriteFile(path, []byte("# x\n"+begin+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(path, false); err == nil || !strings.Contains(err.Error(), "no lines") {
		t.Fatalf("a README without the end marker: %v", err)
	}
}
