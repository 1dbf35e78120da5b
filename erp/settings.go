package erp

import (
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/apitwin/apitwin/internal/rest"
)

// Profile is a deployment profile of the ERP: which database it uses, and
// whether the database administration tool runs beside it.
type Profile string

// The three deployment profiles.
const (
	ProfileInternalDB      Profile = "internal-db"       // the ERP with its own database container
	ProfileInternalDBTools Profile = "internal-db-tools" // the same, plus the database administration tool (port 8081)
	ProfileExternalDB      Profile = "external-db"       // the ERP using a database it is given (DB_HOST, …)
)

// Profiles lists the profiles, in the order above.
func Profiles() []Profile {
	return []Profile{ProfileInternalDB, ProfileInternalDBTools, ProfileExternalDB}
}

func (p Profile) valid() bool {
	switch p {
	case ProfileInternalDB, ProfileInternalDBTools, ProfileExternalDB:
		return true
	}
	return false
}

func (p Profile) internalDB() bool { return p == ProfileInternalDB || p == ProfileInternalDBTools }

// Default ports of the deployment.
const (
	DefaultERPPort     = 8080
	DefaultDBAdminPort = 8081
	DefaultDBPort      = 3306
)

// AdminLogin is the initial web user, whose password is ERP_ADMIN_PASSWORD.
const AdminLogin = "admin"

// Settings are the deployment settings of an ERP, read from the variables
// of the deployment (names exact; see LoadSettings). Passwords are kept out
// of String, GoString and slog output.
type Settings struct {
	Profile Profile

	AdminPassword  string // ERP_ADMIN_PASSWORD: the password of the web user admin
	DBPassword     string // DB_PASSWORD: the application database user's password
	DBRootPassword string // DB_ROOT_PASSWORD: the database root password (internal database)

	ERPPort        int // ERP_PORT: host port of the web interface and API
	DBAdminPort    int // DBADMIN_PORT: host port of the database administration tool
	DBExternalPort int // DB_EXTERNAL_PORT: host port of the database; 0 when not exposed
	// URLRoot is ERP_URL_ROOT, the public root URL; "" when unset (see
	// BaseURL).
	URLRoot string

	DBHost string // DB_HOST (external database)
	DBPort int    // DB_PORT (external database; 3306 when unset)
	DBUser string // DB_USER (external database)
	DBName string // DB_NAME (external database)

	PHP PHPSettings
}

// PHPSettings are the tunable runtime settings. A zero value means the
// setting is unset and the image's default applies (the specification does
// not give the defaults).
type PHPSettings struct {
	MemoryLimit       Size // PHP_MEMORY_LIMIT ("512M"; -1 for no limit)
	MaxExecutionTime  int  // PHP_MAX_EXECUTION_TIME, seconds; -1 when set to 0, PHP's "no limit"
	UploadMaxFilesize Size // PHP_UPLOAD_MAX_FILESIZE
	PostMaxSize       Size // PHP_POST_MAX_SIZE (-1 when set to 0, PHP's "no limit")
	MaxFileUploads    int  // PHP_MAX_FILE_UPLOADS
}

// Size is a size in bytes written in PHP's shorthand ("128M", "2G", "512K",
// "1048576"). Unlimited is -1; 0 is unset.
type Size int64

// Unlimited is the Size of a setting that has no limit.
const Unlimited Size = -1

// String writes the size in PHP's shorthand, with the largest exact unit.
func (s Size) String() string {
	switch {
	case s == Unlimited:
		return "-1"
	case s <= 0:
		return "0"
	}
	for _, u := range []struct {
		suffix string
		n      Size
	}{{"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}} {
		if s%u.n == 0 {
			return strconv.FormatInt(int64(s/u.n), 10) + u.suffix
		}
	}
	return strconv.FormatInt(int64(s), 10)
}

// ParseSize reads PHP's shorthand: digits with an optional K, M or G
// (either case), or -1 for no limit.
func ParseSize(v string) (Size, error) {
	v = strings.TrimSpace(v)
	if v == "-1" {
		return Unlimited, nil
	}
	mult := int64(1)
	if n := len(v); n > 0 {
		switch v[n-1] {
		case 'k', 'K':
			mult, v = 1<<10, v[:n-1]
		case 'm', 'M':
			mult, v = 1<<20, v[:n-1]
		case 'g', 'G':
			mult, v = 1<<30, v[:n-1]
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || v == "" || v[0] == '+' {
		return 0, errors.New("is not a size (digits with an optional K, M or G, or -1)")
	}
	if n > (1<<62)/mult {
		return 0, errors.New("is too large")
	}
	return Size(n * mult), nil
}

// SettingsError lists every problem of a set of deployment settings.
type SettingsError struct {
	Profile  Profile
	Problems []SettingsProblem
}

// SettingsProblem is one variable's problem.
type SettingsProblem struct {
	Name    string // the variable: "DB_HOST"
	Problem string // "is required with an external database"
}

func (e *SettingsError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.Name + " " + p.Problem
	}
	return fmt.Sprintf("erp: deployment settings for profile %s: %s", e.Profile, strings.Join(parts, "; "))
}

// LoadSettings reads and checks the deployment settings of profile through
// getenv (os.Getenv, or a map's lookup in tests). Every missing or malformed
// value is named in the one *SettingsError returned.
//
// Required in every profile: ERP_ADMIN_PASSWORD and DB_PASSWORD. With the
// internal database (internal-db, internal-db-tools): DB_ROOT_PASSWORD.
// With an external database: DB_HOST, DB_USER and DB_NAME (DB_PORT defaults
// to 3306). Ports are 1–65535: ERP_PORT (default 8080), DBADMIN_PORT
// (default 8081), DB_EXTERNAL_PORT (unset: the database port is not
// exposed); ports published on the host must differ. ERP_URL_ROOT, when
// set, is an absolute http or https URL. The PHP_* settings are checked when
// set: sizes in PHP's shorthand, PHP_MAX_EXECUTION_TIME a whole number of
// seconds (0 for no limit), PHP_MAX_FILE_UPLOADS at least 1, and
// PHP_POST_MAX_SIZE no smaller than PHP_UPLOAD_MAX_FILESIZE (or uploads of
// that size fail). Settings the profile does not use are still checked for
// form when set, since a typo there is a typo all the same.
func LoadSettings(profile Profile, getenv func(string) string) (*Settings, error) {
	if getenv == nil {
		return nil, errors.New("erp: LoadSettings needs a getenv function")
	}
	r := settingsReader{getenv: getenv}
	s := &Settings{Profile: profile}
	if !profile.valid() {
		r.fail("profile", fmt.Sprintf("%q is not one of %s, %s, %s", profile, ProfileInternalDB, ProfileInternalDBTools, ProfileExternalDB))
	}

	s.AdminPassword = r.required("ERP_ADMIN_PASSWORD", "")
	s.DBPassword = r.required("DB_PASSWORD", "")
	if profile.internalDB() {
		s.DBRootPassword = r.required("DB_ROOT_PASSWORD", "with the internal database")
	} else {
		s.DBRootPassword = getenv("DB_ROOT_PASSWORD")
	}

	s.ERPPort = r.port("ERP_PORT", DefaultERPPort)
	s.DBAdminPort = r.port("DBADMIN_PORT", DefaultDBAdminPort)
	s.DBExternalPort = r.port("DB_EXTERNAL_PORT", 0)
	s.URLRoot = r.url("ERP_URL_ROOT")

	if profile == ProfileExternalDB {
		s.DBHost = r.required("DB_HOST", "with an external database")
		s.DBUser = r.required("DB_USER", "with an external database")
		s.DBName = r.required("DB_NAME", "with an external database")
	} else {
		s.DBHost, s.DBUser, s.DBName = getenv("DB_HOST"), getenv("DB_USER"), getenv("DB_NAME")
	}
	s.DBPort = r.port("DB_PORT", DefaultDBPort)
	if s.DBHost != "" && strings.ContainsAny(s.DBHost, " /") {
		r.fail("DB_HOST", fmt.Sprintf("%q is not a host name or address", s.DBHost))
	}

	s.PHP.MemoryLimit = r.size("PHP_MEMORY_LIMIT", minusOneIsUnlimited)
	s.PHP.MaxExecutionTime = r.seconds("PHP_MAX_EXECUTION_TIME")
	s.PHP.UploadMaxFilesize = r.size("PHP_UPLOAD_MAX_FILESIZE", alwaysLimited)
	s.PHP.PostMaxSize = r.size("PHP_POST_MAX_SIZE", zeroIsUnlimited)
	s.PHP.MaxFileUploads = r.count("PHP_MAX_FILE_UPLOADS")
	if up, post := s.PHP.UploadMaxFilesize, s.PHP.PostMaxSize; up > 0 && post > 0 && post < up {
		r.fail("PHP_POST_MAX_SIZE", fmt.Sprintf("(%s) is smaller than PHP_UPLOAD_MAX_FILESIZE (%s): uploads that large would fail", post, up))
	}
	if m, post := s.PHP.MemoryLimit, s.PHP.PostMaxSize; m > 0 && post > 0 && m < post {
		r.fail("PHP_MEMORY_LIMIT", fmt.Sprintf("(%s) is smaller than PHP_POST_MAX_SIZE (%s)", m, post))
	}

	// Ports published on the host must not collide.
	published := map[int]string{s.ERPPort: "ERP_PORT"}
	check := func(name string, port int) {
		if port == 0 {
			return
		}
		if other, taken := published[port]; taken {
			r.fail(name, fmt.Sprintf("(%d) is the same host port as %s", port, other))
			return
		}
		published[port] = name
	}
	if profile == ProfileInternalDBTools {
		check("DBADMIN_PORT", s.DBAdminPort)
	}
	if profile.internalDB() {
		check("DB_EXTERNAL_PORT", s.DBExternalPort)
	}

	if len(r.problems) > 0 {
		return nil, &SettingsError{Profile: profile, Problems: r.problems}
	}
	return s, nil
}

// SettingsFromEnv is LoadSettings from the process environment.
func SettingsFromEnv(profile Profile) (*Settings, error) { return LoadSettings(profile, os.Getenv) }

type settingsReader struct {
	getenv   func(string) string
	problems []SettingsProblem
}

func (r *settingsReader) fail(name, problem string) {
	r.problems = append(r.problems, SettingsProblem{Name: name, Problem: problem})
}

// required reads a value that must be set; its value is never quoted in a
// problem, since the required values are passwords or may be.
func (r *settingsReader) required(name, when string) string {
	v := r.getenv(name)
	if strings.TrimSpace(v) == "" {
		p := "is required"
		if when != "" {
			p += " " + when
		}
		r.fail(name, p)
	}
	return v
}

func (r *settingsReader) port(name string, def int) int {
	v := strings.TrimSpace(r.getenv(name))
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 65535 {
		r.fail(name, fmt.Sprintf("%q is not a port number (1-65535)", v))
		return def
	}
	return n
}

func (r *settingsReader) url(name string) string {
	v := strings.TrimSpace(r.getenv(name))
	if v == "" {
		return ""
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		r.fail(name, fmt.Sprintf("%q is not an absolute http or https URL", printableURL(v)))
		return ""
	}
	return strings.TrimRight(v, "/")
}

// noLimit is how a PHP size setting says "no limit", if it can.
type noLimit int

const (
	alwaysLimited       noLimit = iota // upload_max_filesize: -1 and 0 are refused
	minusOneIsUnlimited                // memory_limit = -1
	zeroIsUnlimited                    // post_max_size = 0
)

// size reads a size in PHP's shorthand; the setting's own way of saying no
// limit (however it is spelt: "0", "0K", "00") reads as Unlimited.
func (r *settingsReader) size(name string, unlimited noLimit) Size {
	v := strings.TrimSpace(r.getenv(name))
	if v == "" {
		return 0
	}
	s, err := ParseSize(v)
	switch {
	case err != nil:
		r.fail(name, fmt.Sprintf("%q %v", v, err))
		return 0
	case s == Unlimited && unlimited != minusOneIsUnlimited:
		r.fail(name, fmt.Sprintf("%q: -1 (no limit) is only for PHP_MEMORY_LIMIT", v))
		return 0
	case s == 0 && unlimited == zeroIsUnlimited:
		return Unlimited
	case s == 0:
		r.fail(name, fmt.Sprintf("%q is zero", v))
	}
	return s
}

func (r *settingsReader) seconds(name string) int {
	v := strings.TrimSpace(r.getenv(name))
	if v == "" {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		r.fail(name, fmt.Sprintf("%q is not a whole number of seconds (0 for no limit)", v))
		return 0
	}
	if n == 0 {
		return -1
	}
	return n
}

func (r *settingsReader) count(name string) int {
	v := strings.TrimSpace(r.getenv(name))
	if v == "" {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		r.fail(name, fmt.Sprintf("%q is not a whole number of at least 1", v))
		return 0
	}
	return n
}

// BaseURL is the root URL to reach the ERP at: ERP_URL_ROOT, or
// http://localhost:ERP_PORT when it is unset.
func (s *Settings) BaseURL() string {
	if s.URLRoot != "" {
		return s.URLRoot
	}
	return fmt.Sprintf("http://localhost:%d", s.ERPPort)
}

// DBAdminURL is the database administration tool's address on the local
// host, or "" when the profile does not run it.
func (s *Settings) DBAdminURL() string {
	if s.Profile != ProfileInternalDBTools {
		return ""
	}
	return fmt.Sprintf("http://localhost:%d", s.DBAdminPort)
}

// String describes the settings with the passwords redacted. Like GoString
// and LogValue it has a value receiver, so that settings printed by value
// (%+v of a Settings) keep their passwords too.
func (s Settings) String() string {
	c := s
	for _, p := range []*string{&c.AdminPassword, &c.DBPassword, &c.DBRootPassword} {
		if *p != "" {
			*p = rest.Redacted
		}
	}
	c.URLRoot = printableURL(c.URLRoot)
	type plain Settings
	return fmt.Sprintf("erp.Settings%+v", plain(c))
}

// GoString is String, for %#v.
func (s Settings) GoString() string { return s.String() }

// LogValue logs the settings without their passwords.
func (s Settings) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("profile", string(s.Profile)), slog.String("url", printableURL(s.BaseURL())),
		slog.Int("erp_port", s.ERPPort), slog.Int("dbadmin_port", s.DBAdminPort), slog.Int("db_external_port", s.DBExternalPort),
		slog.String("db_host", s.DBHost), slog.Int("db_port", s.DBPort), slog.String("db_user", s.DBUser), slog.String("db_name", s.DBName),
	)
}

// NewFromSettings returns a client for the deployment s describes: at its
// BaseURL, logged in as admin with ERP_ADMIN_PASSWORD. opts come after
// those, so they may override the URL's transport settings but not the
// login.
func NewFromSettings(s *Settings, opts ...Option) (*Client, error) {
	if s == nil {
		return nil, errors.New("erp: NewFromSettings needs settings")
	}
	if s.AdminPassword == "" {
		return nil, errors.New("erp: the settings carry no ERP_ADMIN_PASSWORD")
	}
	return New(s.BaseURL(), append([]Option{WithLogin(AdminLogin, s.AdminPassword)}, opts...)...)
}
