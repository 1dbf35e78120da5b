package testtools_test

import (
	"path/filepath"
	"testing"

	"github.com/apitwin/apitwin/internal/testtools"
)

func TestFindReturnsTheFirstOnPath(t *testing.T) {
	if got := testtools.Find(t, "no-such-program-here", "go"); filepath.Base(got) != "go" {
		t.Fatalf("Find = %q, want the go binary", got)
	}
}

func TestFindSkipsWhenNoneIsInstalled(t *testing.T) {
	t.Setenv(testtools.RequireEnv, "")
	var skipped bool
	t.Run("missing", func(t *testing.T) {
		defer func() { skipped = t.Skipped() }()
		testtools.Find(t, "no-such-program-here")
		t.Error("Find returned for a missing program")
	})
	if !skipped {
		t.Fatal("a missing program did not skip the test")
	}
}
