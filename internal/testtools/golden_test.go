package testtools_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/internal/testtools"
)

func TestGoldenReportsTheFirstDifferingLine(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "a.golden")
	if err := os.WriteFile(path, []byte("one\ntwo\nthree"), 0o644); err != nil {
		t.Fatal(err)
	}
	testtools.Golden(t, path, []byte("one\ntwo\nthree"))
	ft := &failRecorder{TB: t}
	testtools.Golden(ft, path, []byte("one\nTWO\nthree"))
	if !strings.Contains(ft.msg, "line 2") || !strings.Contains(ft.msg, "TWO") {
		t.Errorf("a changed line reported as %q", ft.msg)
	}
	ft = &failRecorder{TB: t}
	testtools.Golden(ft, path, []byte("one\ntwo"))
	if !strings.Contains(ft.msg, "line 3") {
		t.Errorf("a missing line reported as %q", ft.msg)
	}
}

// failRecorder keeps what a check reported instead of failing the test.
type failRecorder struct {
	testing.TB
	msg string
}

func (f *failRecorder) Errorf(format string, args ...any) { f.msg = fmt.Sprintf(format, args...) }
func (f *failRecorder) Helper()                           {}
