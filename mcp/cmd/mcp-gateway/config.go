package main

import (
	"bytes"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/mcp/gateway"
)

// fileConfig is the configuration file: every key of gateway.Config at the top
// level, and the program's own beside them.
type fileConfig struct {
	Gateway gateway.Config `yaml:",inline"`

	Listen        string `yaml:"listen"`
	MetricsListen string `yaml:"metrics_listen"`
	// MaxConnections bounds the connections each listener holds at once;
	// 0 is a tenth of the open-file limit (fakekit.DefaultMaxConns).
	MaxConnections int            `yaml:"max_connections"`
	TLS            tlsConfig      `yaml:"tls"`
	Redis          redisConfig    `yaml:"redis"`
	Timeouts       timeoutsConfig `yaml:"timeouts"`
	Log            logConfig      `yaml:"log"`
}

type tlsConfig struct {
	CertFile string `yaml:"cert_file"`
	KeyFile  string `yaml:"key_file"`
}

type redisConfig struct {
	Address string `yaml:"address"`
	// Cluster lists nodes of a Redis Cluster (host:port), instead of
	// Address; every key is then in the slot of the prefix's hash tag.
	Cluster  []string `yaml:"cluster"`
	Password string   `yaml:"password"`
	DB       int      `yaml:"db"`
	Prefix   string   `yaml:"prefix"`
}

type timeoutsConfig struct {
	ReadHeader    time.Duration `yaml:"read_header"`
	Read          time.Duration `yaml:"read"`
	Write         time.Duration `yaml:"write"`
	Idle          time.Duration `yaml:"idle"`
	Shutdown      time.Duration `yaml:"shutdown"`
	ShutdownDelay time.Duration `yaml:"shutdown_delay"`
}

type logConfig struct {
	Level string `yaml:"level"`
}

// The program's defaults.
const (
	defaultListen            = "127.0.0.1:8930"
	defaultReadHeaderTimeout = 10 * time.Second
	defaultReadTimeout       = 30 * time.Second
	defaultWriteTimeout      = 60 * time.Second
	defaultIdleTimeout       = 120 * time.Second
	defaultShutdownTimeout   = 20 * time.Second
	maxHeaderBytes           = 64 << 10
)

// The environment variables read.
const (
	envConfig        = "MCP_GATEWAY_CONFIG"
	envListen        = "MCP_GATEWAY_LISTEN"
	envUpstream      = "MCP_GATEWAY_UPSTREAM"
	envRedis         = "MCP_GATEWAY_REDIS"
	envRedisPassword = "MCP_GATEWAY_REDIS_PASSWORD"
	envSigningSecret = "MCP_GATEWAY_SIGNING_SECRET"
	envMetricsListen = "MCP_GATEWAY_METRICS_LISTEN"
)

// settings is the configuration the program runs with: the file's, with
// the environment and the flags applied, defaults filled and checked.
type settings struct {
	fileConfig
	level slog.Level
	cert  *tls.Certificate // loaded from tls.cert_file and tls.key_file
	path  string           // the gateway's path, defaulted
	// warnings are logged on start: settings that work but should not
	// be as they are.
	warnings []string
}

// loadSettings reads the flags, the file they or MCP_GATEWAY_CONFIG name,
// and the environment, in that order of precedence (flags win), and checks
// the result. The error names every key that is wrong. flag.ErrHelp is
// returned, after the usage, for -h.
func loadSettings(args []string, getenv func(string) string, stderr io.Writer) (*settings, error) {
	fs := flag.NewFlagSet("mcp-gateway", flag.ContinueOnError)
	fs.SetOutput(stderr)
	configPath := fs.String("config", "", "YAML configuration file (default $"+envConfig+"; none: flags and environment only)")
	listen := fs.String("listen", "", "address to serve the gateway on, host:port (default "+defaultListen+")")
	upstream := fs.String("upstream", "", "the source-hosting API's URL, with or without /api/v4")
	redisAddr := fs.String("redis", "", "Redis host:port shared by the replicas (default: none, state in memory)")
	metricsListen := fs.String("metrics-listen", "", "address to serve /metrics on, host:port (default: no metrics)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: mcp-gateway [-config file.yaml] [-listen host:port] [-upstream URL] [-redis host:port] [-metrics-listen host:port]")
		fmt.Fprintln(fs.Output(), "\nServes the mcp tool gateway (see go doc github.com/apitwin/apitwin/mcp/cmd/mcp-gateway).\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q: settings are flags, the file or the environment", fs.Args())
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })

	s := &settings{}
	source := map[string]string{} // key -> where its value came from, when not the file
	if *configPath == "" {
		*configPath = getenv(envConfig)
	}
	if *configPath != "" {
		fc, err := readConfigFile(*configPath)
		if err != nil {
			return nil, err
		}
		s.fileConfig = fc
		if fc.Gateway.Security.SigningSecret != "" || fc.Redis.Password != "" {
			if st, err := os.Stat(*configPath); err == nil && st.Mode().Perm()&0o004 != 0 {
				s.warnings = append(s.warnings, fmt.Sprintf("%s holds a secret and every user of this machine can read it: "+
					"chmod 600 it, or give the secrets as %s and %s", *configPath, envSigningSecret, envRedisPassword))
			}
		}
	}
	for _, o := range []struct {
		key, env, flag string
		flagValue      *string
		into           *string
	}{
		{"listen", envListen, "listen", listen, &s.Listen},
		{"upstream", envUpstream, "upstream", upstream, &s.Gateway.Upstream},
		{"redis.address", envRedis, "redis", redisAddr, &s.Redis.Address},
		{"redis.password", envRedisPassword, "", nil, &s.Redis.Password},
		{"security.signing_secret", envSigningSecret, "", nil, &s.Gateway.Security.SigningSecret},
		{"metrics_listen", envMetricsListen, "metrics-listen", metricsListen, &s.MetricsListen},
	} {
		if v := getenv(o.env); v != "" {
			*o.into, source[o.key] = v, o.env
		}
		if o.flag != "" && set[o.flag] {
			*o.into, source[o.key] = *o.flagValue, "-"+o.flag
		}
	}
	if err := s.check(source); err != nil {
		return nil, err
	}
	return s, nil
}

// readConfigFile decodes a configuration file, refusing unknown keys; its
// errors name the file, the line and the key.
func readConfigFile(path string) (fileConfig, error) {
	var fc fileConfig
	b, err := os.ReadFile(path)
	if err != nil {
		return fc, fmt.Errorf("config file: %w", err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	err = dec.Decode(&fc)
	if errors.Is(err, io.EOF) {
		return fileConfig{}, nil // an empty file: flags and environment only
	}
	if err != nil {
		return fc, errors.New(explainYAML(path, b, err))
	}
	var more yaml.Node
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		return fc, fmt.Errorf("config %s: holds more than one YAML document", path)
	}
	return fc, nil
}

var yamlLine = regexp.MustCompile(`^line (\d+): (.*)$`)

// explainYAML rewrites the decoder's errors ("line 7: field ip_whitlist not
// found in type gateway.SecurityConfig") so that each names the file, the line
// and the key's full path ("gateway.yaml: line 7: security.ip_whitlist:
// unknown key"), one a line.
func explainYAML(file string, src []byte, err error) string {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return file + ": " + err.Error() // a syntax error: it names its line already
	}
	var root yaml.Node
	_ = yaml.Unmarshal(src, &root) // it parsed once already
	keys := map[int][]keyAt{}
	collectKeys(&root, "", keys)
	lines := make([]string, 0, len(te.Errors))
	for _, e := range te.Errors {
		m := yamlLine.FindStringSubmatch(e)
		if m == nil {
			lines = append(lines, file+": "+e)
			continue
		}
		n, _ := strconv.Atoi(m[1])
		msg := m[2]
		var field string
		if f, ok := strings.CutPrefix(msg, "field "); ok && strings.Contains(f, " not found in type ") {
			field, _, _ = strings.Cut(f, " ")
			msg = "unknown key"
		} else if strings.HasSuffix(msg, "into time.Duration") {
			msg = strings.TrimSuffix(msg, "into time.Duration") + "into a duration: write it with a unit, such as 30s or 2m"
		}
		// The key the error is about: the one named, else the one whose
		// value the message quotes, else the last on the line.
		path := ""
		_, quoted, _ := strings.Cut(msg, "`")
		quoted, _, _ = strings.Cut(quoted, "`")
		ks := keys[n]
		for _, k := range ks {
			if (field != "" && k.name == field) || (field == "" && quoted != "" && k.value == quoted) {
				path = k.path
				break
			}
		}
		if path == "" && field == "" && len(ks) > 0 {
			path = ks[len(ks)-1].path
		}
		if path != "" {
			msg = path + ": " + msg
		}
		lines = append(lines, fmt.Sprintf("%s: line %d: %s", file, n, msg))
	}
	return strings.Join(lines, "\n")
}

// keyAt is a mapping key (or sequence entry) of a YAML document and the
// dotted path that leads to it.
type keyAt struct{ name, path, value string }

func collectKeys(n *yaml.Node, prefix string, out map[int][]keyAt) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			collectKeys(c, prefix, out)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := k.Value
			if prefix != "" {
				p = prefix + "." + k.Value
			}
			out[k.Line] = append(out[k.Line], keyAt{k.Value, p, v.Value})
			collectKeys(v, p, out)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			p := fmt.Sprintf("%s[%d]", prefix, i)
			if c.Kind == yaml.ScalarNode {
				out[c.Line] = append(out[c.Line], keyAt{"", p, c.Value})
			}
			collectKeys(c, p, out)
		}
	}
}

// check fills the program's defaults and checks its keys; the gateway's
// own keys are checked by gateway.Config.Validate. source names, for keys
// set from the environment or a flag, where the value came from.
func (s *settings) check(source map[string]string) error {
	var errs []error
	bad := func(key, format string, args ...any) {
		if src := source[key]; src != "" {
			key += " (from " + src + ")"
		}
		errs = append(errs, fmt.Errorf("%s: "+format, append([]any{key}, args...)...))
	}
	if s.Listen == "" {
		s.Listen = defaultListen
	}
	if err := checkHostPort(s.Listen); err != nil {
		bad("listen", "%q %v (:8930 for every address of this machine)", s.Listen, err)
	}
	if s.MetricsListen != "" {
		if err := checkHostPort(s.MetricsListen); err != nil {
			bad("metrics_listen", "%q %v", s.MetricsListen, err)
		} else if s.MetricsListen == s.Listen && !strings.HasSuffix(s.Listen, ":0") {
			bad("metrics_listen", "%q is listen's address too: give metrics a port of its own", s.MetricsListen)
		}
	}

	t := &s.TLS
	switch {
	case t.CertFile != "" && t.KeyFile == "":
		bad("tls.key_file", "is required with tls.cert_file")
	case t.CertFile == "" && t.KeyFile != "":
		bad("tls.cert_file", "is required with tls.key_file")
	case t.CertFile != "":
		readable := true
		for _, f := range []struct{ key, path string }{{"tls.cert_file", t.CertFile}, {"tls.key_file", t.KeyFile}} {
			if _, err := os.ReadFile(f.path); err != nil {
				bad(f.key, "%v", err)
				readable = false
			}
		}
		if readable {
			cert, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
			if err != nil {
				bad("tls.cert_file", "with tls.key_file: %v", err)
			} else {
				s.cert = &cert
			}
		}
	}

	r := &s.Redis
	if r.Address != "" {
		if err := checkHostPort(r.Address); err != nil {
			bad("redis.address", "%q %v", r.Address, err)
		} else if _, port, _ := net.SplitHostPort(r.Address); port == "0" {
			bad("redis.address", "%q names port 0", r.Address)
		}
	}
	if r.DB < 0 {
		bad("redis.db", "must be 0 or more, got %d", r.DB)
	}
	if len(r.Cluster) > 0 {
		if r.Address != "" {
			bad("redis.cluster", "is instead of redis.address (and -redis, MCP_GATEWAY_REDIS): give one or the other")
		}
		if r.DB != 0 {
			bad("redis.db", "must be 0 on a cluster, which has no other database, got %d", r.DB)
		}
		for _, a := range r.Cluster {
			if err := checkHostPort(a); err != nil {
				bad("redis.cluster", "%q %v", a, err)
			} else if _, port, _ := net.SplitHostPort(a); port == "0" {
				bad("redis.cluster", "%q names port 0", a)
			}
		}
	}
	if s.MaxConnections < 0 {
		bad("max_connections", "must be 0 (a tenth of the open-file limit) or more, got %d", s.MaxConnections)
	}

	to := &s.Timeouts
	for _, d := range []struct {
		key string
		v   *time.Duration
		def time.Duration
	}{
		{"timeouts.read_header", &to.ReadHeader, defaultReadHeaderTimeout},
		{"timeouts.read", &to.Read, defaultReadTimeout},
		{"timeouts.write", &to.Write, defaultWriteTimeout},
		{"timeouts.idle", &to.Idle, defaultIdleTimeout},
		{"timeouts.shutdown", &to.Shutdown, defaultShutdownTimeout},
		{"timeouts.shutdown_delay", &to.ShutdownDelay, 0},
	} {
		switch {
		case *d.v < 0:
			bad(d.key, "must be positive, got %s", *d.v)
		case *d.v == 0:
			*d.v = d.def
		}
	}

	switch strings.ToLower(s.Log.Level) {
	case "", "info":
		s.level = slog.LevelInfo
	case "debug":
		s.level = slog.LevelDebug
	case "warn", "warning":
		s.level = slog.LevelWarn
	case "error":
		s.level = slog.LevelError
	default:
		bad("log.level", "must be debug, info, warn or error, got %q", s.Log.Level)
	}

	s.path = s.Gateway.Path
	if s.path == "" {
		s.path = mcp.DefaultPath
	}
	if s.path == healthzPath || s.path == readyzPath {
		bad("path", "%q is the program's own probe; the gateway needs another path", s.path)
	}
	// The gateway's keys, checked by the gateway itself: each wrong one is
	// a *gateway.ConfigError naming it, read as such, not from the text.
	if err := s.Gateway.Validate(); err != nil {
		wrong := configErrors(err)
		for _, e := range wrong {
			bad(e.Key, "%s", e.Problem)
		}
		if len(wrong) == 0 { // not one the gateway documents: shown as it is
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// configErrors is every *gateway.ConfigError in err's tree, in order:
// Validate joins one per wrong key.
func configErrors(err error) []*gateway.ConfigError {
	var out []*gateway.ConfigError
	var walk func(error)
	walk = func(err error) {
		switch e := err.(type) {
		case nil:
		case *gateway.ConfigError:
			out = append(out, e)
		case interface{ Unwrap() []error }:
			for _, inner := range e.Unwrap() {
				walk(inner)
			}
		case interface{ Unwrap() error }:
			walk(e.Unwrap())
		}
	}
	walk(err)
	return out
}

// checkHostPort accepts what net.Listen takes for TCP: host:port with a
// numeric port (the host may be empty, for every address).
func checkHostPort(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return errors.New("is not host:port")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("has port %q, not a number from 0 to 65535", port)
	}
	return nil
}

// indent puts each line of an error's text on its own indented line.
func indent(err error) string {
	var b strings.Builder
	for line := range strings.SplitSeq(err.Error(), "\n") {
		b.WriteString("\n  ")
		b.WriteString(line)
	}
	return b.String()
}
