package cloudauth

import (
	"fmt"
	"log/slog"
	"strings"

	"github.com/apitwin/apitwin/internal/rest"
)

// The command line's environment variables.
const (
	EnvURL       = "CLI_URL"        // server URL
	EnvTenant    = "CLI_TENANT"     // tenant
	EnvUsername  = "CLI_USERNAME"   // username
	EnvProfile   = "CLI_PROFILE"    // profile name
	EnvVerifySSL = "CLI_VERIFY_SSL" // "false" turns certificate verification off
	EnvCACert    = "CLI_CA_CERT"    // path of a PEM file of CA certificates to trust
	EnvToken     = "CLI_TOKEN"      // a token used as it is, instead of a stored one
)

// DefaultProfileName is the profile name tokens are stored under when no
// profile is in use.
const DefaultProfileName = "default"

// Overrides are settings given on the command line; empty values were not
// given.
type Overrides struct {
	Profile     string
	URL         string
	Tenant      string
	Username    string
	CACert      string
	NoVerifySSL bool
}

// Settings are the values a command works with, each taken from the first
// place that gives it: the command line, then the environment, then the
// profile, then the default.
type Settings struct {
	// Profile is the profile in use: named by --profile or CLI_PROFILE, or
	// the current one; "" when none.
	Profile string
	URL     string
	// Tenant is "" when nothing gives one: the login then sends none and
	// the server chooses its default tenant.
	Tenant   string
	Username string
	// VerifySSL is false only when --no-verify-ssl or CLI_VERIFY_SSL=false
	// said so.
	VerifySSL bool
	CACert    string
	// Token is CLI_TOKEN's value, used instead of a stored token.
	Token string
	// Sources says where each setting came from ("flag", "env CLI_URL",
	// "profile prod", "default"), by setting name, for --verbose.
	Sources map[string]string
}

// String describes the settings without the token: Token shows as
// [REDACTED] when set.
func (s Settings) String() string {
	tok := ""
	if s.Token != "" {
		tok = rest.Redacted
	}
	return fmt.Sprintf("Settings{Profile: %q, URL: %q, Tenant: %q, Username: %q, VerifySSL: %t, CACert: %q, Token: %s}",
		s.Profile, s.URL, s.Tenant, s.Username, s.VerifySSL, s.CACert, tok)
}

// GoString is String, so that %#v does not print the token either.
func (s Settings) GoString() string { return s.String() }

// LogValue is what slog logs of the settings: String's fields, the token
// redacted.
func (s Settings) LogValue() slog.Value {
	tok := ""
	if s.Token != "" {
		tok = rest.Redacted
	}
	return slog.GroupValue(slog.String("profile", s.Profile), slog.String("url", s.URL), slog.String("tenant", s.Tenant),
		slog.String("username", s.Username), slog.Bool("verify_ssl", s.VerifySSL), slog.String("ca_cert", s.CACert),
		slog.String("token", tok))
}

// TokenKey is the name the token is stored under: the profile's, or
// DefaultProfileName.
func (s *Settings) TokenKey() string {
	if s.Profile != "" {
		return s.Profile
	}
	return DefaultProfileName
}

// ClientOptions returns the options for New that the settings ask for
// (certificate verification off, or a CA file).
func (s *Settings) ClientOptions() []Option {
	var opts []Option
	if !s.VerifySSL {
		opts = append(opts, WithInsecureSkipVerify())
	} else if s.CACert != "" {
		opts = append(opts, WithCAFile(s.CACert))
	}
	return opts
}

// ResolveSettings works out the settings from the command line's values,
// the environment (getenv; an empty value counts as unset) and the
// configuration. A profile named by the command line or CLI_PROFILE must
// exist; CLI_VERIFY_SSL must be "true" or "false" (any case) when set.
func ResolveSettings(o Overrides, getenv func(string) string, cfg *Config) (*Settings, error) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	if cfg == nil {
		cfg = &Config{}
	}
	s := &Settings{VerifySSL: true, Sources: map[string]string{}}
	env := func(name string) string { return strings.TrimSpace(getenv(name)) }

	switch {
	case o.Profile != "":
		s.Profile, s.Sources["profile"] = o.Profile, "flag"
	case env(EnvProfile) != "":
		s.Profile, s.Sources["profile"] = env(EnvProfile), "env "+EnvProfile
	case cfg.Current != "":
		s.Profile, s.Sources["profile"] = cfg.Current, "current profile"
	}
	var prof Profile
	if s.Profile != "" {
		p, ok := cfg.Profile(s.Profile)
		if !ok {
			if err := ValidProfileName(s.Profile); err != nil {
				return nil, err
			}
			return nil, fmt.Errorf("profile %q does not exist (create it with: cloudctl profile create %s --url <url> --tenant <tenant>)", s.Profile, s.Profile)
		}
		prof = p
	}

	pick := func(name, flag, envName, fromProfile, def string) string {
		switch {
		case flag != "":
			s.Sources[name] = "flag"
			return flag
		case env(envName) != "":
			s.Sources[name] = "env " + envName
			return env(envName)
		case fromProfile != "":
			s.Sources[name] = "profile " + s.Profile
			return fromProfile
		case def != "":
			s.Sources[name] = "default"
			return def
		}
		return ""
	}
	s.URL = strings.TrimRight(pick("url", o.URL, EnvURL, prof.URL, ""), "/")
	s.Tenant = pick("tenant", o.Tenant, EnvTenant, prof.Tenant, "")
	s.Username = pick("username", o.Username, EnvUsername, prof.Username, "")
	s.CACert = pick("ca-cert", o.CACert, EnvCACert, "", "")

	switch v := env(EnvVerifySSL); {
	case o.NoVerifySSL:
		s.VerifySSL, s.Sources["verify-ssl"] = false, "flag"
	case strings.EqualFold(v, "false"):
		s.VerifySSL, s.Sources["verify-ssl"] = false, "env "+EnvVerifySSL
	case v == "":
		s.Sources["verify-ssl"] = "default"
	case strings.EqualFold(v, "true"):
		s.Sources["verify-ssl"] = "env " + EnvVerifySSL
	default:
		return nil, fmt.Errorf("%s=%q: want true or false", EnvVerifySSL, v)
	}
	if t := env(EnvToken); t != "" {
		s.Token, s.Sources["token"] = t, "env "+EnvToken
	}
	if s.URL != "" {
		if err := CheckURL(s.URL); err != nil {
			return nil, fmt.Errorf("%w (from %s)", err, s.Sources["url"])
		}
	}
	return s, nil
}
