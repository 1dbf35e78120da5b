package cloudauth

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Profile is a named environment: a server, a tenant on it and, when
// remembered, a username.
type Profile struct {
	Name     string `json:"-"`
	URL      string `json:"url"`
	Tenant   string `json:"tenant,omitempty"`
	Username string `json:"username,omitempty"`
	// Accounts are the other users logged in on the profile's server
	// besides Username, whose tokens cloudctl keeps for auth switch.
	Accounts []string `json:"accounts,omitempty"`
}

// Equal reports whether two profiles hold the same settings.
func (p Profile) Equal(q Profile) bool {
	return p.Name == q.Name && p.URL == q.URL && p.Tenant == q.Tenant && p.Username == q.Username && slices.Equal(p.Accounts, q.Accounts)
}

// Check validates the profile's name and URL.
func (p Profile) Check() error {
	if err := ValidProfileName(p.Name); err != nil {
		return err
	}
	if err := CheckURL(p.URL); err != nil {
		return fmt.Errorf("profile %q: %w", p.Name, err)
	}
	return nil
}

// CheckURL checks a server URL: absolute http or https, with a host, and
// without user information, query or fragment.
func CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error // its text quotes raw whole
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("invalid server URL %q: %w", urlForError(raw), err)
	}
	switch {
	case u.Scheme != "https" && u.Scheme != "http" || u.Host == "":
		return fmt.Errorf("invalid server URL %q: want https://host[:port]", urlForError(raw))
	case u.User != nil:
		return errors.New("invalid server URL: it must not carry a user or password")
	case u.RawQuery != "" || u.Fragment != "":
		return fmt.Errorf("invalid server URL %q: it must not carry a query or fragment", raw)
	}
	return nil
}

// urlForError is a refused URL as its error shows it: what comes before an
// @ (user information, which may hold a password) replaced.
func urlForError(raw string) string {
	i := strings.LastIndex(raw, "@")
	if i < 0 {
		return raw
	}
	scheme := ""
	if j := strings.Index(raw[:i], "://"); j >= 0 {
		scheme = raw[:j+3]
	}
	return scheme + "[REDACTED]@" + raw[i+1:]
}

// Config is the command line's configuration file: the profiles and which
// one is current. Its zero value is an empty configuration.
//
//	{
//	  "current_profile": "prod",
//	  "profiles": {
//	    "prod": {"url": "https://cloud.example.com", "tenant": "acme", "username": "alice"}
//	  }
//	}
//
// Fields this version does not know, at the top or in a profile, are kept
// and ignored: they are written back as they were read (MarshalJSON), so a
// file a newer cloudctl wrote keeps working with this one. A value of the
// wrong type, a bad URL or profile name, or a current profile that does
// not exist is refused with the file, the field and the problem named.
//
// Programs that change the file while others may (cloudctl run twice at
// once) should go through [UpdateConfig], which holds the file's lock.
type Config struct {
	Current  string             `json:"current_profile,omitempty"`
	Profiles map[string]Profile `json:"profiles"`

	// extra and profileExtra are the fields this version does not know,
	// at the top and by profile name.
	extra        map[string]json.RawMessage
	profileExtra map[string]map[string]json.RawMessage
}

// ConfigFileName is the configuration file's name inside its directory.
const ConfigFileName = "config.json"

// DefaultConfigDir returns the command line's configuration directory:
// cloudctl under the user's configuration directory (os.UserConfigDir:
// $XDG_CONFIG_HOME or ~/.config on Linux, ~/Library/Application Support
// on macOS, %AppData% on Windows).
func DefaultConfigDir() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("finding the configuration directory: %w", err)
	}
	return filepath.Join(dir, "cloudctl"), nil
}

// MaxConfigSize bounds the configuration file LoadConfig reads.
const MaxConfigSize = 1 << 20

// LoadConfig reads the configuration file in dir. A missing file is an
// empty configuration.
func LoadConfig(dir string) (*Config, error) {
	path := filepath.Join(dir, ConfigFileName)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Config{Profiles: map[string]Profile{}}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// One byte past the bound tells a file too large, without reading it
	// whole.
	b, err := io.ReadAll(io.LimitReader(f, MaxConfigSize+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxConfigSize {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, MaxConfigSize)
	}
	return parseConfig(path, b)
}

func parseConfig(path string, b []byte) (*Config, error) {
	if err := json.Unmarshal(b, new(json.RawMessage)); err != nil {
		return nil, fmt.Errorf("%s: %w", path, syntaxError(b, err))
	}
	cfg := &Config{}
	if err := json.Unmarshal(b, cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := cfg.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

// check validates the values of a configuration read from a file, naming
// the field of the first bad one (profiles are checked in name order).
func (c *Config) check() error {
	if c.Profiles == nil {
		c.Profiles = map[string]Profile{}
	}
	for _, p := range c.List() {
		path := profilePath(p.Name)
		if err := ValidProfileName(p.Name); err != nil {
			return &fieldError{path: path, err: err}
		}
		if p.URL == "" {
			return fieldErr(path+"."+fieldURL, "missing (every profile needs its server's URL)")
		}
		if err := CheckURL(p.URL); err != nil {
			return &fieldError{path: path + "." + fieldURL, err: err}
		}
	}
	if c.Current != "" {
		if _, ok := c.Profiles[c.Current]; !ok {
			return fieldErr(fieldCurrent, "profile %q does not exist", c.Current)
		}
	}
	return nil
}

// Save writes the configuration file in dir atomically (a new file renamed
// over the old), readable by its owner only, in a directory open to its
// owner only.
func (c *Config) Save(dir string) error {
	if err := privateDir(dir); err != nil {
		return err
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, ConfigFileName), append(b, '\n'))
}

// Add adds a profile, or replaces the one of the same name (keeping the
// fields of the file this version does not know).
func (c *Config) Add(p Profile) error {
	if err := p.Check(); err != nil {
		return err
	}
	if c.Profiles == nil {
		c.Profiles = map[string]Profile{}
	}
	c.Profiles[p.Name] = p
	return nil
}

// Delete removes a profile; when it was the current one, no profile is
// current any more. Deleting a profile that does not exist is an error.
func (c *Config) Delete(name string) error {
	if _, ok := c.Profiles[name]; !ok {
		return fmt.Errorf("profile %q does not exist", name)
	}
	delete(c.Profiles, name)
	delete(c.profileExtra, name)
	if c.Current == name {
		c.Current = ""
	}
	return nil
}

// Rename gives a profile another name, keeping its fields (those this
// version does not know too) and whether it is the current one. The new
// name must be valid and free.
func (c *Config) Rename(from, to string) error {
	p, ok := c.Profiles[from]
	if !ok {
		return fmt.Errorf("profile %q does not exist", from)
	}
	if _, taken := c.Profiles[to]; taken {
		return fmt.Errorf("profile %q already exists", to)
	}
	p.Name = to
	if err := p.Check(); err != nil {
		return err
	}
	delete(c.Profiles, from)
	c.Profiles[to] = p
	if extra, ok := c.profileExtra[from]; ok {
		delete(c.profileExtra, from)
		c.profileExtra[to] = extra
	}
	if c.Current == from {
		c.Current = to
	}
	return nil
}

// Use makes a profile the current one.
func (c *Config) Use(name string) error {
	if _, ok := c.Profiles[name]; !ok {
		return fmt.Errorf("profile %q does not exist", name)
	}
	c.Current = name
	return nil
}

// Profile returns a profile by name.
func (c *Config) Profile(name string) (Profile, bool) {
	p, ok := c.Profiles[name]
	return p, ok
}

// List returns the profiles sorted by name.
func (c *Config) List() []Profile {
	out := make([]Profile, 0, len(c.Profiles))
	for _, p := range c.Profiles {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b Profile) int { return strings.Compare(a.Name, b.Name) })
	return out
}
