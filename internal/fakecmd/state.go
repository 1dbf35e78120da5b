package fakecmd

import (
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/apitwin/apitwin/fake"
	"github.com/apitwin/apitwin/fake/controlapi"
	"github.com/apitwin/apitwin/internal/credential"
	"github.com/apitwin/apitwin/internal/fakekit"
)

// The files of a -state-dir.
const (
	credentialsFile = "credentials.json"
	stateFile       = "state.json"
	// maxStateFile bounds what is read of state.json: every fake holds at
	// most its stored-record bounds, far below this; a larger file is not
	// one apitwin-fake wrote.
	maxStateFile = 1 << 30
	// maxCredentialsFile bounds credentials.json: a few keys and an RSA
	// key in PEM.
	maxCredentialsFile = 1 << 20
)

// credentialsFormat and credentialsVersion name credentials.json's shape.
const (
	credentialsFormat  = "apitwin-fake credentials"
	credentialsVersion = 1
)

// credentials are what apitwin-fake prints, and the key that makes the
// tokens it issued verify, made once and reused by every start with the
// same -state-dir. Their printing shows none of them.
type credentials struct {
	fakekit.SnapshotHeader
	ERP struct {
		APIKey        string `json:"api_key"`
		AdminPassword string `json:"admin_password"`
	} `json:"erp"`
	CloudAuth struct {
		AdminPassword string `json:"admin_password"`
		// SigningKey is the RSA key tokens are signed with (PKCS #8 PEM),
		// so that a token issued before a restart verifies after it.
		SigningKey string `json:"signing_key"`
	} `json:"cloudauth"`
	SourceHost struct {
		// Token is root's token: the sourcehost token and the mcp one.
		Token string `json:"token"`
	} `json:"sourcehost"`
	Control struct {
		Token string `json:"token"`
	} `json:"control"`
	Orch struct {
		// APIKey is what --orch-auth prints (orch:* in every namespace);
		// made at the first start whether or not auth is on, so that the
		// key is the same whenever it is turned on. Absent from files of
		// earlier versions: a new one each start then.
		APIKey string `json:"api_key,omitempty"`
	} `json:"orch"`

	key *rsa.PrivateKey // SigningKey, read
}

// String names the credentials without any of them. Its receiver, as
// GoString's and LogValue's, is a value, so that credentials printed by
// value (*c) show none of them either.
func (c credentials) String() string { return "fakecmd.credentials{" + credential.Redacted + "}" }

// GoString is String, for %#v.
func (c credentials) GoString() string { return c.String() }

// LogValue logs the credentials as String.
func (c credentials) LogValue() slog.Value { return slog.StringValue(c.String()) }

// stateDir is a -state-dir: the credentials made at the first start, and
// the last snapshot of the fakes, each written whole (to a temporary file
// then renamed), so that a crash leaves the one before. It holds neither
// once they are read: only the directory.
type stateDir struct {
	dir string
	mu  sync.Mutex // one save at a time (shutdown, the control API)
}

// String names the directory only.
func (d *stateDir) String() string { return "fakecmd.stateDir{" + d.dir + "}" }

// openStateDir makes dir (0700) if it is not there, and reads what it
// holds: the credentials (nil at the first start) and the last snapshot
// (nil before the first). A directory others may read, a file that is not
// apitwin-fake's or of another version, and one that cannot be read are
// errors that name the file and say what to do.
func openStateDir(dir string) (d *stateDir, creds *credentials, state []byte, err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, nil, fmt.Errorf("-state-dir: %w", err)
	}
	info, err := os.Stat(dir)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("-state-dir: %w", err)
	}
	if !info.IsDir() {
		return nil, nil, nil, fmt.Errorf("-state-dir %s is not a directory", dir)
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		return nil, nil, nil, fmt.Errorf("-state-dir %s is open to other users (mode %#o); it holds credentials: chmod 700 it", dir, perm)
	}
	if b, err := readFile(filepath.Join(dir, credentialsFile), maxCredentialsFile); err != nil {
		return nil, nil, nil, err
	} else if b != nil {
		if creds, err = readCredentials(b); err != nil {
			return nil, nil, nil, fmt.Errorf("%s: %w (remove it to make new credentials)", filepath.Join(dir, credentialsFile), err)
		}
	}
	if state, err = readFile(filepath.Join(dir, stateFile), maxStateFile); err != nil {
		return nil, nil, nil, err
	}
	if state != nil {
		if _, _, err := fake.SnapshotTimes(state); err != nil {
			return nil, nil, nil, fmt.Errorf("%s: %w (remove it to start with empty fakes)", filepath.Join(dir, stateFile), err)
		}
	}
	return &stateDir{dir: dir}, creds, state, nil
}

// readFile reads path whole, nil when it does not exist; a file larger
// than limit is refused.
func readFile(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes: not a file apitwin-fake wrote", path, limit)
	}
	return b, nil
}

func readCredentials(b []byte) (*credentials, error) {
	var c credentials
	if err := fakekit.DecodeSnapshot(b, credentialsFormat, credentialsVersion, &c); err != nil {
		return nil, err
	}
	if c.ERP.APIKey == "" || c.ERP.AdminPassword == "" || c.CloudAuth.AdminPassword == "" || c.SourceHost.Token == "" ||
		len(c.Control.Token) < controlapi.MinTokenLength {
		return nil, errors.New("a credential is missing or too short")
	}
	block, _ := pem.Decode([]byte(c.CloudAuth.SigningKey))
	if block == nil {
		return nil, errors.New("cloudauth.signing_key is not PEM")
	}
	key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, errors.New("cloudauth.signing_key is not a PKCS #8 private key")
	}
	rk, ok := key.(*rsa.PrivateKey)
	if !ok {
		return nil, errors.New("cloudauth.signing_key is not an RSA key")
	}
	c.key = rk
	return &c, nil
}

// saveCredentials writes the credentials of a first start.
func (d *stateDir) saveCredentials(c *credentials) error {
	der, err := x509.MarshalPKCS8PrivateKey(c.key)
	if err != nil {
		return err
	}
	c.SnapshotHeader = fakekit.SnapshotHeader{Format: credentialsFormat, Version: credentialsVersion}
	c.CloudAuth.SigningKey = string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	b, err := fakekit.EncodeSnapshot(c)
	if err != nil {
		return err
	}
	return writeAtomic(filepath.Join(d.dir, credentialsFile), b)
}

// save writes a snapshot of f as the directory's state.
func (d *stateDir) save(f *fake.Fakes) (controlapi.SnapshotInfo, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	b, err := f.Snapshot()
	if err != nil {
		return controlapi.SnapshotInfo{}, err
	}
	path := filepath.Join(d.dir, stateFile)
	if err := writeAtomic(path, b); err != nil {
		return controlapi.SnapshotInfo{}, err
	}
	clockAt, taken, err := fake.SnapshotTimes(b)
	if err != nil {
		return controlapi.SnapshotInfo{}, err
	}
	return controlapi.SnapshotInfo{Path: path, Bytes: int64(len(b)), Clock: clockAt, Taken: taken}, nil
}

// writeAtomic writes data to path as a whole or not at all: to a new file
// (0600) beside it, synced, then renamed over it, the directory synced.
func writeAtomic(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp") // 0600
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmp.Name())
			err = fmt.Errorf("writing %s: %w", path, err)
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	if df, err := os.Open(dir); err == nil {
		_ = df.Sync() // the rename itself, on file systems that need it
		df.Close()
	}
	return nil
}

// resumeAt is where the fakes' clock goes on after a restore: as far past
// the snapshot's time as the wall clock is past the moment it was taken,
// so that time passes while the program is down, as it does for the real
// services (tokens expire, timers fall due); never before the snapshot's
// time, should the wall clock have gone back.
func resumeAt(clockAt, taken, now time.Time) time.Time {
	at := now.Add(clockAt.Sub(taken))
	if at.Before(clockAt) {
		return clockAt
	}
	return at
}
