package cloudauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/zalando/go-keyring"

	"github.com/apitwin/apitwin/clock"
)

// TokenStore keeps one token per profile. Implementations are safe for
// concurrent use.
type TokenStore interface {
	// Save keeps token for profile, replacing what was there.
	Save(profile, token string) error
	// Load returns profile's token, or an error matching ErrNoToken.
	Load(profile string) (string, error)
	// Delete forgets profile's token; deleting none is not an error.
	Delete(profile string) error
}

var profileNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// ValidProfileName checks a profile name: 1 to 64 letters, digits, dots,
// dashes and underscores, starting with a letter or digit. Names are used
// as keyring entries and file names, so nothing else is allowed.
func ValidProfileName(name string) error {
	if !profileNameRE.MatchString(name) {
		return fmt.Errorf("invalid profile name %q: use 1 to 64 letters, digits, '.', '-' or '_', starting with a letter or digit", name)
	}
	return nil
}

// MemoryStore is a TokenStore in memory, for tests and short-lived
// programs.
type MemoryStore struct {
	mu     sync.Mutex
	tokens map[string]string
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore { return &MemoryStore{tokens: map[string]string{}} }

// String names the profiles the store holds a token for, not the tokens:
// a store printed by mistake (%v) shows none.
func (m *MemoryStore) String() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return fmt.Sprintf("cloudauth.MemoryStore{profiles: %q}", slices.Sorted(maps.Keys(m.tokens)))
}

// GoString is String, so %#v shows no token either.
func (m *MemoryStore) GoString() string { return m.String() }

// Save keeps the token.
func (m *MemoryStore) Save(profile, token string) error {
	if err := ValidProfileName(profile); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.tokens[profile] = token
	return nil
}

// Load returns the token.
func (m *MemoryStore) Load(profile string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.tokens[profile]
	if !ok {
		return "", ErrNoToken
	}
	return t, nil
}

// Delete forgets the token.
func (m *MemoryStore) Delete(profile string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.tokens, profile)
	return nil
}

// Keyring is the part of an operating-system keyring a KeyringStore uses.
// Get and Delete report a missing entry with an error matching ErrNoToken
// or keyring.ErrNotFound of github.com/zalando/go-keyring.
type Keyring interface {
	Set(service, user, secret string) error
	Get(service, user string) (string, error)
	Delete(service, user string) error
}

// SystemKeyring returns the operating system's keyring: the macOS
// Keychain, the Windows Credential Manager, or the Secret Service (GNOME
// Keyring, KWallet) over D-Bus elsewhere.
//
// Where the Secret Service is used, a machine without a D-Bus session bus
// (no DBUS_SESSION_BUS_ADDRESS, no bus socket in the user's runtime
// directory, or an address naming a socket that does not exist: a server,
// a container, an SSH session) has no keyring: every call then fails at
// once with a [*KeyringUnavailableError], instead of trying to start a
// bus with dbus-launch.
func SystemKeyring() Keyring { return systemKeyring{} }

type systemKeyring struct{}

func (systemKeyring) Set(service, user, secret string) error {
	if err := keyringProblem(os.Getenv, os.Getuid()); err != nil {
		return err
	}
	return keyring.Set(service, user, secret)
}
func (systemKeyring) Get(service, user string) (string, error) {
	if err := keyringProblem(os.Getenv, os.Getuid()); err != nil {
		return "", err
	}
	return keyring.Get(service, user)
}
func (systemKeyring) Delete(service, user string) error {
	if err := keyringProblem(os.Getenv, os.Getuid()); err != nil {
		return err
	}
	return keyring.Delete(service, user)
}

// KeyringUnavailableError is the error of a keyring that is not there at
// all, as opposed to one that refused: its text is "no keyring available:
// " and the reason. errors.Is matches ErrNoKeyring.
type KeyringUnavailableError struct {
	// Reason says what is missing ("no D-Bus session bus
	// (DBUS_SESSION_BUS_ADDRESS is not set)").
	Reason string
}

func (e *KeyringUnavailableError) Error() string { return "no keyring available: " + e.Reason }

// Is matches ErrNoKeyring.
func (e *KeyringUnavailableError) Is(target error) bool { return target == ErrNoKeyring }

// ErrNoKeyring matches a [*KeyringUnavailableError].
var ErrNoKeyring = errors.New("no keyring available")

// MemoryKeyring is a Keyring in memory, for tests: it lets a test run the
// real KeyringStore and FallbackStore without the machine's keyring. Fail,
// when set, is returned by every call instead.
type MemoryKeyring struct {
	mu      sync.Mutex
	entries map[string]string
	fail    error
}

// NewMemoryKeyring returns an empty MemoryKeyring.
func NewMemoryKeyring() *MemoryKeyring { return &MemoryKeyring{entries: map[string]string{}} }

// String counts the secrets the keyring holds and shows none of them.
func (k *MemoryKeyring) String() string {
	return fmt.Sprintf("cloudauth.MemoryKeyring{entries: %d}", k.Len())
}

// GoString is String, so %#v shows no secret either.
func (k *MemoryKeyring) GoString() string { return k.String() }

// SetFailure makes every later call fail with err (nil to stop), as a
// keyring that is locked or absent does.
func (k *MemoryKeyring) SetFailure(err error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.fail = err
}

// Set keeps the secret.
func (k *MemoryKeyring) Set(service, user, secret string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.fail != nil {
		return k.fail
	}
	k.entries[service+"\x00"+user] = secret
	return nil
}

// Get returns the secret.
func (k *MemoryKeyring) Get(service, user string) (string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.fail != nil {
		return "", k.fail
	}
	s, ok := k.entries[service+"\x00"+user]
	if !ok {
		return "", ErrNoToken
	}
	return s, nil
}

// Delete forgets the secret.
func (k *MemoryKeyring) Delete(service, user string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.fail != nil {
		return k.fail
	}
	if _, ok := k.entries[service+"\x00"+user]; !ok {
		return ErrNoToken
	}
	delete(k.entries, service+"\x00"+user)
	return nil
}

// Len returns how many secrets the keyring holds.
func (k *MemoryKeyring) Len() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.entries)
}

// Defaults of a KeyringStore.
const (
	// DefaultKeyringTimeout bounds one keyring call: a Secret Service
	// waiting for an unlock prompt nobody will answer must not hang the
	// program.
	DefaultKeyringTimeout = 5 * time.Second
	// DefaultMaxSecretSize is the largest token put in a keyring: Windows'
	// Credential Manager takes at most 2,560 bytes and macOS's Keychain
	// about 3,000 once encoded, so a larger token goes to the fallback
	// rather than failing there.
	DefaultMaxSecretSize = 2500
)

// KeyringStore keeps tokens in a keyring, one entry per profile (the
// entry's user name) under one service name. Each call is bounded by
// Timeout; a call that runs out leaves its goroutine behind, blocked in the
// keyring, which a program that is about to exit can afford.
type KeyringStore struct {
	// Service names the entries ("cloudctl").
	Service string
	// Keyring is the keyring used; nil means SystemKeyring().
	Keyring Keyring
	// Timeout bounds each call; 0 means DefaultKeyringTimeout.
	Timeout time.Duration
	// MaxSize is the largest token saved; 0 means DefaultMaxSecretSize.
	MaxSize int
	// Clock is what Timeout is measured on; nil means the wall clock. A
	// test's fake clock with auto-advance off (clock.Fake.SetAutoAdvance)
	// decides when a call runs out.
	Clock clock.Clock
}

// Save puts the token in the keyring. A token larger than MaxSize is
// refused, and the profile's older token is removed from the keyring, so
// that it is not read in place of the new one kept elsewhere.
func (s *KeyringStore) Save(profile, token string) error {
	if err := ValidProfileName(profile); err != nil {
		return err
	}
	limit := s.MaxSize
	if limit <= 0 {
		limit = DefaultMaxSecretSize
	}
	if len(token) > limit {
		// The profile's older token must not stay behind to be read in
		// place of this one, which goes elsewhere (FallbackStore.Load
		// reads the keyring first).
		_ = s.Delete(profile)
		return fmt.Errorf("keyring: a token of %d bytes is larger than the %d the keyring takes", len(token), limit)
	}
	_, err := s.call("storing", func(kr Keyring) (string, error) { return "", kr.Set(s.Service, profile, token) })
	return err
}

// Load reads the token from the keyring.
func (s *KeyringStore) Load(profile string) (string, error) {
	return s.call("reading", func(kr Keyring) (string, error) { return kr.Get(s.Service, profile) })
}

// Delete removes the token from the keyring. A keyring that is not there
// at all (ErrNoKeyring) holds no token, so there is nothing to delete.
func (s *KeyringStore) Delete(profile string) error {
	_, err := s.call("deleting", func(kr Keyring) (string, error) { return "", kr.Delete(s.Service, profile) })
	if errors.Is(err, ErrNoToken) || errors.Is(err, ErrNoKeyring) {
		return nil
	}
	return err
}

// call runs one keyring operation within the timeout.
func (s *KeyringStore) call(what string, op func(Keyring) (string, error)) (string, error) {
	kr := s.Keyring
	if kr == nil {
		kr = SystemKeyring()
	}
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = DefaultKeyringTimeout
	}
	type result struct {
		v   string
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := op(kr)
		done <- result{v, err}
	}()
	clk := s.Clock
	if clk == nil {
		clk = clock.Real()
	}
	expired := make(chan struct{})
	wait, stop := context.WithCancel(context.Background())
	defer stop()
	go func() {
		if clk.Sleep(wait, timeout) == nil {
			close(expired)
		}
	}()
	select {
	case r := <-done:
		switch {
		case r.err == nil:
			return r.v, nil
		case errors.Is(r.err, ErrNoToken), errors.Is(r.err, keyring.ErrNotFound):
			return "", ErrNoToken
		}
		return "", fmt.Errorf("keyring: %s the token: %w", what, r.err)
	case <-expired:
		return "", fmt.Errorf("keyring: %s the token: no answer within %v", what, timeout)
	}
}

// FileStore keeps tokens in files, one per profile, named <profile>.token
// in Dir. Dir is made (or narrowed) to be open to its owner only (0700) and
// each file readable by its owner only (0600), written atomically.
type FileStore struct {
	Dir string
}

func (s *FileStore) path(profile string) (string, error) {
	if err := ValidProfileName(profile); err != nil {
		return "", err
	}
	if s.Dir == "" {
		return "", errors.New("file store: no directory")
	}
	return filepath.Join(s.Dir, profile+".token"), nil
}

// Path returns the file a profile's token is kept in.
func (s *FileStore) Path(profile string) string {
	p, _ := s.path(profile)
	return p
}

// Save writes the token file.
func (s *FileStore) Save(profile, token string) error {
	p, err := s.path(profile)
	if err != nil {
		return err
	}
	if err := privateDir(s.Dir); err != nil {
		return err
	}
	// A save killed before its rename left its temporary file; one that
	// old is no running save's.
	removeLeftovers(p, 10*time.Minute)
	return writeFileAtomic(p, []byte(token))
}

// Load reads the token file.
func (s *FileStore) Load(profile string) (string, error) {
	p, err := s.path(profile)
	if err != nil {
		return "", err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", ErrNoToken
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	// A file larger than any token this package reads is not read whole.
	b, err := io.ReadAll(io.LimitReader(f, MaxTokenSize+1))
	if err != nil {
		return "", err
	}
	if len(b) > MaxTokenSize {
		return "", fmt.Errorf("file store: %s is larger than the %d bytes of a token", p, MaxTokenSize)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", ErrNoToken
	}
	return tok, nil
}

// Delete removes the token file.
func (s *FileStore) Delete(profile string) error {
	p, err := s.path(profile)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// InsecureStorageError is what FallbackStore.Save returns when the secure
// store refused the token and the fallback kept it: the token is saved,
// and the caller owes the user the warning. Its text is exactly the
// specification's "Could not store token securely"; errors.Is matches
// ErrInsecureStorage, and Err says why the secure store refused.
type InsecureStorageError struct {
	// Err is the secure store's error.
	Err error
	// Location says where the token went instead (a file path for a
	// FileStore fallback).
	Location string
}

func (e *InsecureStorageError) Error() string { return ErrInsecureStorage.Error() }

// Is matches ErrInsecureStorage.
func (e *InsecureStorageError) Is(target error) bool { return target == ErrInsecureStorage }

// Unwrap returns the secure store's error.
func (e *InsecureStorageError) Unwrap() error { return e.Err }

// FallbackStore keeps tokens in Secure (a keyring) and, when that fails, in
// Fallback (files), telling the caller so: see Save.
type FallbackStore struct {
	Secure   TokenStore
	Fallback TokenStore
}

// NewStore returns the store the command line uses: the keyring (nil means
// the system's) under service, falling back to a FileStore in dir.
func NewStore(service, dir string, kr Keyring) *FallbackStore {
	return &FallbackStore{
		Secure:   &KeyringStore{Service: service, Keyring: kr},
		Fallback: &FileStore{Dir: dir},
	}
}

// Save keeps the token in Secure and removes any copy Fallback held. When
// Secure fails and Fallback keeps the token, Save returns an
// *InsecureStorageError (errors.Is(err, ErrInsecureStorage)): the token is
// saved, and the user should be warned. When both fail, the error says why
// each did.
func (s *FallbackStore) Save(profile, token string) error {
	err := s.Secure.Save(profile, token)
	if err == nil {
		if derr := s.Fallback.Delete(profile); derr != nil {
			return fmt.Errorf("token stored in the keyring, but an older copy could not be removed: %w", derr)
		}
		return nil
	}
	if ferr := s.Fallback.Save(profile, token); ferr != nil {
		return fmt.Errorf("storing the token failed: %w; and the fallback: %w", err, ferr)
	}
	w := &InsecureStorageError{Err: err}
	if fst, ok := s.Fallback.(*FileStore); ok {
		w.Location = fst.Path(profile)
	}
	return w
}

// Load returns the token from Secure, else from Fallback. When neither
// gives one and either said it holds none, the error matches ErrNoToken:
// a keyring that fails (no Secret Service running, a locked one) is taken
// to hold none, as the token went to Fallback when it failed at Save.
func (s *FallbackStore) Load(profile string) (string, error) {
	tok, err := s.Secure.Load(profile)
	if err == nil {
		return tok, nil
	}
	tok, ferr := s.Fallback.Load(profile)
	if ferr == nil {
		return tok, nil
	}
	if errors.Is(err, ErrNoToken) || errors.Is(ferr, ErrNoToken) {
		return "", fmt.Errorf("%w (%v)", ErrNoToken, errors.Join(err, ferr))
	}
	return "", errors.Join(err, ferr)
}

// Delete removes the token from both stores.
func (s *FallbackStore) Delete(profile string) error {
	return errors.Join(s.Secure.Delete(profile), s.Fallback.Delete(profile))
}

// privateDir makes dir (and its parents) and leaves dir open to its owner
// only.
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return os.Chmod(dir, 0o700)
	}
	return nil
}

// writeFileAtomic writes data to a new file beside path, readable by its
// owner only, and renames it over path, so readers see the old file or the
// new one and never a part.
func writeFileAtomic(path string, data []byte) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), tempPattern(path))
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(f.Name())
		}
	}()
	if err = f.Chmod(0o600); err != nil {
		return err
	}
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
