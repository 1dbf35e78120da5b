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

// endlessFile makes path a named pipe fed 64 MiB of spaces, a file that
// for a reader never ends; the channel says how much the reader took
// before it closed the pipe.
func endlessFile(t *testing.T, path string) <-chan int {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	const feed = 64 << 20
	written := make(chan int, 1)
	go func() {
		n := 0
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
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
	return written
}

// TestLoadConfigReadsAtMostItsBound: LoadConfig stops reading a
// configuration file past MaxConfigSize instead of reading it whole
// first.
func TestLoadConfigReadsAtMostItsBound(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	written := endlessFile(t, filepath.Join(dir, cloudauth.ConfigFileName))
	_, err := cloudauth.LoadConfig(dir)
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("LoadConfig: %v", err)
	}
	if n := <-written; n > 4*cloudauth.MaxConfigSize {
		t.Fatalf("LoadConfig read %d bytes of a file bounded at %d", n, cloudauth.MaxConfigSize)
	}
}

// TestFileStoreReadsAtMostATokensSize: a token file is read up to
// MaxTokenSize, the largest token the package reads, and no further.
func TestFileStoreReadsAtMostATokensSize(t *testing.T) {
	t.Parallel()
	s := &cloudauth.FileStore{Dir: t.TempDir()}
	written := endlessFile(t, s.Path("dev"))
	if tok, err := s.Load("dev"); err == nil {
		t.Errorf("Load of an endless token file: %d bytes", len(tok))
	}
	if n := <-written; n > 4<<20 {
		t.Fatalf("Load read %d bytes of a token file", n)
	}
}
