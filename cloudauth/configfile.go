package cloudauth

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The configuration file's own fields; every other field, at the top or in
// a profile, is kept as it was read and written back (see Config).
const (
	fieldCurrent  = "current_profile"
	fieldProfiles = "profiles"
	fieldURL      = "url"
	fieldTenant   = "tenant"
	fieldUsername = "username"
	fieldAccounts = "accounts"
)

// fieldError is a configuration value that cannot be used: the path of the
// field ("profiles.prod.url") and the problem.
type fieldError struct {
	path string
	err  error
}

func (e *fieldError) Error() string {
	if e.path == "" {
		return e.err.Error()
	}
	return e.path + ": " + e.err.Error()
}

func (e *fieldError) Unwrap() error { return e.err }

func fieldErr(path, format string, v ...any) error {
	return &fieldError{path: path, err: fmt.Errorf(format, v...)}
}

// profilePath is the path of a profile's field in an error: profiles.prod,
// or profiles["odd name"] for a name that is not a plain word.
func profilePath(name string) string {
	if name != "" && profileNameRE.MatchString(name) && !strings.Contains(name, ".") {
		return fieldProfiles + "." + name
	}
	return fmt.Sprintf("%s[%q]", fieldProfiles, name)
}

// jsonKind names the kind of a JSON value for an error ("a string").
func jsonKind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// stringField reads a string field; null is "".
func stringField(path string, raw json.RawMessage) (string, error) {
	if jsonKind(raw) == "null" {
		return "", nil
	}
	var s string
	if jsonKind(raw) != "a string" || json.Unmarshal(raw, &s) != nil {
		return "", fieldErr(path, "want a string, got %s", jsonKind(raw))
	}
	return s, nil
}

// stringsField reads an array of non-empty strings; null is none.
func stringsField(path string, raw json.RawMessage) ([]string, error) {
	if jsonKind(raw) == "null" {
		return nil, nil
	}
	var out []string
	if json.Unmarshal(raw, &out) != nil {
		return nil, fieldErr(path, "want an array of strings, got %s", jsonKind(raw))
	}
	for i, s := range out {
		if strings.TrimSpace(s) == "" {
			return nil, fieldErr(fmt.Sprintf("%s[%d]", path, i), "want a username, got an empty string")
		}
	}
	return out, nil
}

// objectField reads an object into its members; null is none.
func objectField(path string, raw json.RawMessage) (map[string]json.RawMessage, error) {
	if jsonKind(raw) == "null" {
		return nil, nil
	}
	var m map[string]json.RawMessage
	if jsonKind(raw) != "an object" || json.Unmarshal(raw, &m) != nil {
		if path == "" {
			return nil, fmt.Errorf("want a JSON object, got %s", jsonKind(raw))
		}
		return nil, fieldErr(path, "want an object, got %s", jsonKind(raw))
	}
	return m, nil
}

// UnmarshalJSON reads the configuration file's JSON: the known fields,
// checked for their types (an error names the field: "profiles.prod.url:
// want a string, got a number"), and every other field kept as it is, to
// be written back by MarshalJSON. Values are checked by LoadConfig.
func (c *Config) UnmarshalJSON(b []byte) error {
	top, err := objectField("", b)
	if err != nil {
		return err
	}
	out := Config{Profiles: map[string]Profile{}}
	for k, v := range top {
		switch k {
		case fieldCurrent:
			if out.Current, err = stringField(k, v); err != nil {
				return err
			}
		case fieldProfiles:
			profiles, err := objectField(k, v)
			if err != nil {
				return err
			}
			for name, raw := range profiles {
				p, extra, err := unmarshalProfile(profilePath(name), raw)
				if err != nil {
					return err
				}
				p.Name = name
				out.Profiles[name] = p
				if len(extra) > 0 {
					if out.profileExtra == nil {
						out.profileExtra = map[string]map[string]json.RawMessage{}
					}
					out.profileExtra[name] = extra
				}
			}
		default:
			if out.extra == nil {
				out.extra = map[string]json.RawMessage{}
			}
			out.extra[k] = v
		}
	}
	*c = out
	return nil
}

func unmarshalProfile(path string, raw json.RawMessage) (Profile, map[string]json.RawMessage, error) {
	fields, err := objectField(path, raw)
	if err != nil {
		return Profile{}, nil, err
	}
	if fields == nil {
		return Profile{}, nil, fieldErr(path, "want an object, got null")
	}
	var (
		p     Profile
		extra map[string]json.RawMessage
	)
	for k, v := range fields {
		var dst *string
		switch k {
		case fieldAccounts:
			if p.Accounts, err = stringsField(path+"."+k, v); err != nil {
				return Profile{}, nil, err
			}
			continue
		case fieldURL:
			dst = &p.URL
		case fieldTenant:
			dst = &p.Tenant
		case fieldUsername:
			dst = &p.Username
		default:
			if extra == nil {
				extra = map[string]json.RawMessage{}
			}
			extra[k] = v
			continue
		}
		if *dst, err = stringField(path+"."+k, v); err != nil {
			return Profile{}, nil, err
		}
	}
	return p, extra, nil
}

// MarshalJSON writes the configuration file's JSON, with the fields this
// version does not know where they were read.
func (c Config) MarshalJSON() ([]byte, error) {
	top := make(map[string]any, len(c.extra)+2)
	for k, v := range c.extra {
		top[k] = v
	}
	if c.Current != "" {
		top[fieldCurrent] = c.Current
	}
	profiles := make(map[string]any, len(c.Profiles))
	for name, p := range c.Profiles {
		m := make(map[string]any, len(c.profileExtra[name])+3)
		for k, v := range c.profileExtra[name] {
			m[k] = v
		}
		m[fieldURL] = p.URL
		if p.Tenant != "" {
			m[fieldTenant] = p.Tenant
		}
		if p.Username != "" {
			m[fieldUsername] = p.Username
		}
		if len(p.Accounts) > 0 {
			m[fieldAccounts] = p.Accounts
		}
		profiles[name] = m
	}
	top[fieldProfiles] = profiles
	return json.Marshal(top)
}

// syntaxError places a JSON syntax error in the file: line and column.
func syntaxError(b []byte, err error) error {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return err
	}
	// Offset counts the bytes read, the offending one included.
	off := int(max(0, min(se.Offset-1, int64(len(b)))))
	line := 1 + bytes.Count(b[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(b[:off], '\n')
	return fmt.Errorf("line %d, column %d: %w", line, col, err)
}

// UpdateConfig reads the configuration file in dir, lets fn change it, and
// writes it back, holding the directory's lock all along, so that
// cloudctl processes run at once (twenty "profile create" in a script)
// never lose each other's changes. Before reading, it removes what a
// writer killed before it could finish left behind (temporary files of
// the configuration). When fn fails nothing is written. It returns the
// configuration as written.
//
// The lock is a lock file in dir (config.lock) locked with flock on Unix
// and opened for exclusive access on Windows; the operating system
// releases it when its holder dies. UpdateConfig waits for it at most
// ConfigLockTimeout.
func UpdateConfig(dir string, fn func(*Config) error) (*Config, error) {
	if err := privateDir(dir); err != nil {
		return nil, err
	}
	unlock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	removeLeftovers(filepath.Join(dir, ConfigFileName), 0)
	cfg, err := LoadConfig(dir)
	if err != nil {
		return nil, err
	}
	if err := fn(cfg); err != nil {
		return nil, err
	}
	if err := cfg.Save(dir); err != nil {
		return nil, err
	}
	return cfg, nil
}

// ConfigLockTimeout is how long UpdateConfig waits for another process to
// release the configuration's lock.
const ConfigLockTimeout = 10 * time.Second

// configLockName is the lock file's name in the configuration directory.
const configLockName = "config.lock"

// lockDir takes dir's lock, waiting at most ConfigLockTimeout.
func lockDir(dir string) (unlock func(), err error) {
	path := filepath.Join(dir, configLockName)
	deadline := time.Now().Add(ConfigLockTimeout)
	wait := time.Millisecond
	for {
		unlock, busy, err := tryLock(path)
		if err != nil {
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		if !busy {
			return unlock, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s: another cloudctl has held the configuration's lock for %v", path, ConfigLockTimeout)
		}
		time.Sleep(wait)
		wait = min(2*wait, 50*time.Millisecond)
	}
}

// removeLeftovers removes the temporary files writeFileAtomic makes for
// path that are older than age (all of them for 0): a writer killed
// between creating one and renaming it leaves it behind.
func removeLeftovers(path string, age time.Duration) {
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(path), tempPattern(path)))
	for _, m := range matches {
		if age > 0 {
			fi, err := os.Lstat(m)
			if err != nil || time.Since(fi.ModTime()) < age {
				continue
			}
		}
		_ = os.Remove(m)
	}
}

// tempPattern is the glob of writeFileAtomic's temporary files for path:
// ".<name>.<random>.tmp".
func tempPattern(path string) string { return "." + filepath.Base(path) + ".*.tmp" }
