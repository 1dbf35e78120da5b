package cloudauth_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/cloudauth"
)

// storeContract is what every TokenStore does.
func storeContract(t *testing.T, s cloudauth.TokenStore) {
	t.Helper()
	if _, err := s.Load("dev"); !errors.Is(err, cloudauth.ErrNoToken) {
		t.Fatalf("empty load: %v", err)
	}
	if err := s.Delete("dev"); err != nil {
		t.Fatalf("deleting nothing: %v", err)
	}
	if err := s.Save("dev", "tok-1"); err != nil {
		t.Fatal(err)
	}
	if err := s.Save("prod", "tok-2"); err != nil {
		t.Fatal(err)
	}
	if err := s.Save("dev", "tok-3"); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Load("dev"); err != nil || got != "tok-3" {
		t.Fatalf("load dev: %q %v", got, err)
	}
	if err := s.Delete("dev"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load("dev"); !errors.Is(err, cloudauth.ErrNoToken) {
		t.Fatalf("load after delete: %v", err)
	}
	if got, _ := s.Load("prod"); got != "tok-2" {
		t.Fatalf("prod: %q", got)
	}
	if err := s.Save("../escape", "x"); err == nil {
		t.Fatal("a path as profile name was accepted")
	}
}

func TestMemoryStore(t *testing.T) {
	t.Parallel()
	storeContract(t, cloudauth.NewMemoryStore())
}

func TestKeyringStore(t *testing.T) {
	t.Parallel()
	kr := cloudauth.NewMemoryKeyring()
	storeContract(t, &cloudauth.KeyringStore{Service: "test", Keyring: kr})
	if kr.Len() != 1 {
		t.Fatalf("%d entries", kr.Len())
	}
}

func TestFileStore(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "a", "tokens")
	s := &cloudauth.FileStore{Dir: dir}
	storeContract(t, s)
	if runtime.GOOS == "windows" {
		return
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Fatalf("dir mode %v", fi.Mode())
	}
	if fi, _ := os.Stat(s.Path("prod")); fi.Mode().Perm() != 0o600 {
		t.Fatalf("file mode %v", fi.Mode())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("left behind: %v", entries)
	}
}

func TestFileStoreNarrowsAnOpenDirectory(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permissions")
	}
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	if err := (&cloudauth.FileStore{Dir: dir}).Save("dev", "tok"); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Fatalf("dir mode %v", fi.Mode())
	}
}

// hangingKeyring never answers, like a Secret Service waiting on an unlock
// prompt nobody sees.
type hangingKeyring struct{ release chan struct{} }

func (h hangingKeyring) Set(string, string, string) error   { <-h.release; return nil }
func (h hangingKeyring) Get(string, string) (string, error) { <-h.release; return "", nil }
func (h hangingKeyring) Delete(string, string) error        { <-h.release; return nil }

// TestKeyringTimeout: a keyring that does not answer fails the call once
// the timeout has passed on the store's clock (a fake one here, moved by
// the test: nothing waits on the wall clock).
func TestKeyringTimeout(t *testing.T) {
	t.Parallel()
	h := hangingKeyring{release: make(chan struct{})}
	defer close(h.release)
	clk := clock.NewFake(t0)
	clk.SetAutoAdvance(false)
	s := &cloudauth.KeyringStore{Service: "test", Keyring: h, Timeout: 5 * time.Second, Clock: clk}
	errs := make(chan error, 1)
	go func() { errs <- s.Save("dev", "tok") }()
	if err := clk.WaitForSleepers(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	clk.Advance(5*time.Second - time.Nanosecond)
	select {
	case err := <-errs:
		t.Fatalf("gave up before the timeout: %v", err)
	default:
	}
	clk.Advance(time.Nanosecond)
	if err := <-errs; err == nil || !strings.Contains(err.Error(), "no answer within 5s") {
		t.Fatalf("err %v", err)
	}
	go func() { _, err := s.Load("dev"); errs <- err }()
	if err := clk.WaitForSleepers(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	clk.Advance(5 * time.Second)
	if err := <-errs; err == nil {
		t.Fatal("load from a hanging keyring")
	}
}

func TestKeyringSizeCheck(t *testing.T) {
	t.Parallel()
	kr := cloudauth.NewMemoryKeyring()
	s := &cloudauth.KeyringStore{Service: "test", Keyring: kr}
	if err := s.Save("dev", strings.Repeat("x", cloudauth.DefaultMaxSecretSize)); err != nil {
		t.Fatal(err)
	}
	if err := s.Save("dev", strings.Repeat("x", cloudauth.DefaultMaxSecretSize+1)); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("err %v", err)
	}
	small := &cloudauth.KeyringStore{Service: "test", Keyring: kr, MaxSize: 3}
	if err := small.Save("dev", "four"); err == nil {
		t.Fatal("MaxSize ignored")
	}
}

// TestFallbackStore: a keyring that refuses makes the store keep the token
// in a private file and say "Could not store token securely"; a keyring
// that works again takes the token back and the file goes.
func TestFallbackStore(t *testing.T) {
	t.Parallel()
	kr := cloudauth.NewMemoryKeyring()
	dir := filepath.Join(t.TempDir(), "tokens")
	s := cloudauth.NewStore("cloudctl", dir, kr)

	kr.SetFailure(errors.New("The name org.freedesktop.secrets was not provided by any .service files"))
	err := s.Save("dev", "tok-1")
	var w *cloudauth.InsecureStorageError
	if !errors.As(err, &w) || !errors.Is(err, cloudauth.ErrInsecureStorage) || err.Error() != "Could not store token securely" {
		t.Fatalf("err %v", err)
	}
	if !strings.Contains(w.Err.Error(), "org.freedesktop.secrets") || w.Location != filepath.Join(dir, "dev.token") {
		t.Fatalf("warning %+v", w)
	}
	if got, err := s.Load("dev"); err != nil || got != "tok-1" {
		t.Fatalf("load from the fallback: %q %v", got, err)
	}
	if runtime.GOOS != "windows" {
		if fi, _ := os.Stat(w.Location); fi.Mode().Perm() != 0o600 {
			t.Fatalf("file mode %v", fi.Mode())
		}
	}

	kr.SetFailure(nil)
	if err := s.Save("dev", "tok-2"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(w.Location); !os.IsNotExist(err) {
		t.Fatalf("the fallback copy stayed: %v", err)
	}
	if got, _ := s.Load("dev"); got != "tok-2" || kr.Len() != 1 {
		t.Fatalf("load %q, %d entries", got, kr.Len())
	}
	if err := s.Delete("dev"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load("dev"); !errors.Is(err, cloudauth.ErrNoToken) {
		t.Fatalf("after delete: %v", err)
	}
}

func TestFallbackStoreBothFail(t *testing.T) {
	t.Parallel()
	kr := cloudauth.NewMemoryKeyring()
	kr.SetFailure(errors.New("locked"))
	file := filepath.Join(t.TempDir(), "a-file")
	os.WriteFile(file, nil, 0o600)
	s := cloudauth.NewStore("cloudctl", filepath.Join(file, "tokens"), kr) // a directory under a file cannot be made
	err := s.Save("dev", "tok")
	if err == nil || errors.Is(err, cloudauth.ErrInsecureStorage) {
		t.Fatalf("err %v", err)
	}
}

func TestStoresConcurrently(t *testing.T) {
	t.Parallel()
	stores := map[string]cloudauth.TokenStore{
		"memory":   cloudauth.NewMemoryStore(),
		"fallback": cloudauth.NewStore("cloudctl", t.TempDir(), cloudauth.NewMemoryKeyring()),
	}
	for name, s := range stores {
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Go(func() {
				p := []string{"a", "b"}[i%2]
				if err := s.Save(p, "tok"); err != nil {
					t.Errorf("%s: %v", name, err)
				}
				s.Load(p)
			})
		}
		wg.Wait()
	}
}

// TestFallbackStoreWithoutKeyring: on a machine with no keyring at all, the
// token lives in the file, and Delete removes it without an error for the
// keyring that is not there.
func TestFallbackStoreWithoutKeyring(t *testing.T) {
	t.Parallel()
	kr := cloudauth.NewMemoryKeyring()
	kr.SetFailure(&cloudauth.KeyringUnavailableError{Reason: "no D-Bus session bus"})
	s := cloudauth.NewStore("cloudctl", filepath.Join(t.TempDir(), "tokens"), kr)
	err := s.Save("dev", "tok")
	var w *cloudauth.InsecureStorageError
	if !errors.As(err, &w) || !errors.Is(w.Err, cloudauth.ErrNoKeyring) || !strings.Contains(w.Err.Error(), "no keyring available: no D-Bus session bus") {
		t.Fatalf("save: %v", err)
	}
	if err := s.Delete("dev"); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, err := s.Load("dev"); !errors.Is(err, cloudauth.ErrNoToken) {
		t.Fatalf("after delete: %v", err)
	}
}

// TestFallbackStoreDropsTheOlderKeyringToken: a token the keyring refuses
// (here, too large for it) goes to the file; the keyring's older token of
// the same profile must not stay there to be loaded in its place.
func TestFallbackStoreDropsTheOlderKeyringToken(t *testing.T) {
	t.Parallel()
	kr := cloudauth.NewMemoryKeyring()
	s := cloudauth.NewStore("cloudctl", filepath.Join(t.TempDir(), "tokens"), kr)
	if err := s.Save("dev", "old-token"); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("n", cloudauth.DefaultMaxSecretSize+1)
	if err := s.Save("dev", big); !errors.Is(err, cloudauth.ErrInsecureStorage) {
		t.Fatalf("save of a token too large for the keyring: %v", err)
	}
	if got, err := s.Load("dev"); err != nil || got != big {
		t.Fatalf("load after the new token went to the file: %.20q… (%d bytes), %v; want the new token", got, len(got), err)
	}
	if kr.Len() != 0 {
		t.Fatalf("the keyring still holds %d entries", kr.Len())
	}
}
