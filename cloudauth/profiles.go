package cloudauth

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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
		return fmt.Errorf("invalid server URL: %w", err)
	}
	switch {
	case u.Scheme != "https" && u.Scheme != "http" || u.Host == "":
		return fmt.Errorf("invalid server URL %q: want https://host[:port]", raw)
	case u.User != nil:
		return errors.New("invalid server URL: it must not carry a user or password")
	case u.RawQuery != "" || u.Fragment != "":
		return fmt.Errorf("invalid server URL %q: it must not carry a query or fragment", raw)
	}
	return nil
}

// Config is the command line's configuration file: the profiles and which
// one is current. Its zero value is an empty configuration.
//
//	{
//	  "current_profile": "prod",
//	  "profiles": {
//	    "prod": {"url": "https://cloud.example.com", "tenant": "vsphere.local", "username": "alice"}
//	  }
//	}
type Config struct {
	Current  string             `json:"current_profile,omitempty"`
	Profiles map[string]Profile `json:"profiles"`
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
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Config{Profiles: map[string]Profile{}}, nil
	}
	if err != nil {
		return nil, err
	}
	if len(b) > MaxConfigSize {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, MaxConfigSize)
	}
	return parseConfig(path, b)
}

func parseConfig(path string, b []byte) (*Config, error) {
	cfg := &Config{}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if cfg.Profiles == nil {
		cfg.Profiles = map[string]Profile{}
	}
	for name, p := range cfg.Profiles {
		p.Name = name
		if err := p.Check(); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		cfg.Profiles[name] = p
	}
	if cfg.Current != "" {
		if _, ok := cfg.Profiles[cfg.Current]; !ok {
			return nil, fmt.Errorf("%s: the current profile %q does not exist", path, cfg.Current)
		}
	}
	return cfg, nil
}

// Save writes the configuration file in dir atomically (a new file renamed
// over the old), readable by its owner only, in a directory open to its
// owner only.
func (c *Config) Save(dir string) error {
	if err := privateDir(dir); err != nil {
		return err
	}
	cp := *c
	if cp.Profiles == nil {
		cp.Profiles = map[string]Profile{}
	}
	b, err := json.MarshalIndent(&cp, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, ConfigFileName), append(b, '\n'))
}

// Add adds a profile, or replaces the one of the same name.
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
