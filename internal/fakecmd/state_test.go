package fakecmd

import (
	"crypto/rand"
	"crypto/rsa"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/apitwin/apitwin/internal/leaktest"
)

// The clock goes on after a restore as far past the snapshot's time as the
// wall clock is past the moment the snapshot was taken (time passes while
// the program is down, advances made through the control API are kept),
// and never goes back before the snapshot's time.
func TestResumeAt(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name              string
		clock, taken, now time.Time
		want              time.Time
	}{
		{"following the wall clock, down an hour", at, at, at.Add(time.Hour), at.Add(time.Hour)},
		{"a day ahead of the wall clock (advanced), down an hour", at.Add(24 * time.Hour), at, at.Add(time.Hour), at.Add(25 * time.Hour)},
		{"the wall clock set back", at, at, at.Add(-time.Hour), at},
	} {
		if got := resumeAt(tt.clock, tt.taken, tt.now); !got.Equal(tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// writeAtomic leaves the file whole, private, and no temporary file
// beside it; written again, the new content replaces the old.
func TestWriteAtomic(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	for _, content := range []string{"first", "second, longer than the first"} {
		if err := writeAtomic(path, []byte(content)); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		info, _ := os.Stat(path)
		if err != nil || string(b) != content || info.Mode().Perm() != 0o600 {
			t.Errorf("after writing %q: %q, mode %v, %v", content, b, info.Mode().Perm(), err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("files beside it: %v", entries)
	}
	if err := writeAtomic(filepath.Join(dir, "missing", "x"), []byte("x")); err == nil {
		t.Error("writing into a missing directory succeeded")
	}
}

// Credentials print as a redaction, whatever the verb or logger.
func TestCredentialsPrintNoSecret(t *testing.T) {
	t.Parallel()
	key, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	c := &credentials{key: key}
	c.ERP.APIKey, c.ERP.AdminPassword = "ERP-KEY-SECRET", "ERP-PW-SECRET"
	c.CloudAuth.AdminPassword, c.SourceHost.Token, c.Control.Token = "CLOUD-PW-SECRET", "SH-TOKEN-SECRET", "CONTROL-TOKEN-SECRET"
	leaktest.NoSecretIn(t, "the credentials", c, "ERP-KEY-SECRET", "ERP-PW-SECRET", "CLOUD-PW-SECRET", "SH-TOKEN-SECRET", "CONTROL-TOKEN-SECRET")
	leaktest.NoSecretIn(t, "the state directory", &stateDir{dir: "/some/dir"}, "ERP-KEY-SECRET")
}
