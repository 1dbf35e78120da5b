package testtools

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite the golden files from what the tests got")

// Golden compares got with the golden file at path, byte for byte, and
// reports the first line where they differ. Run with -update-golden
// (go test ./pkg -run TestX -args -update-golden), it writes got to path
// instead, after you have checked the change is meant.
func Golden(tb testing.TB, path string, got []byte) {
	tb.Helper()
	if *updateGolden {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			tb.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	if bytes.Equal(got, want) {
		return
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range max(len(gl), len(wl)) {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			tb.Errorf("%s differs from line %d:\n got: %.2000s\nwant: %.2000s", path, i+1, g, w)
			return
		}
	}
}
