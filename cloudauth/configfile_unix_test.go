//go:build unix

package cloudauth_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/apitwin/apitwin/cloudauth"
)

// TestLoadConfigReadsAtMostItsBound: LoadConfig stops reading a
// configuration file past MaxConfigSize instead of reading it whole
// first: a file that never ends (here a pipe fed 64 MiB) costs it no more
// than the bound.
func TestLoadConfigReadsAtMostItsBound(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, cloudauth.ConfigFileName)
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	const feed = 64 << 20
	written := make(chan int, 1)
	go func() {
		n := 0
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			written <- n
			return
		}
		defer f.Close()
		chunk := []byte(strings.Repeat(" ", 64<<10))
		for n < feed {
			m, err := f.Write(chunk)
			n += m
			if err != nil { // the reader is gone
				break
			}
		}
		written <- n
	}()
	_, err := cloudauth.LoadConfig(dir)
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("LoadConfig: %v", err)
	}
	if n := <-written; n > 4*cloudauth.MaxConfigSize {
		t.Fatalf("LoadConfig read %d bytes of a file bounded at %d", n, cloudauth.MaxConfigSize)
	}
}
