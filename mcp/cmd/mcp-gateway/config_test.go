package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"log/slog"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/mcp/gateway"
)

// writeFile writes content to a new file in the test's directory and
// returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// selfSigned writes a certificate for 127.0.0.1 and its key, and returns
// their paths.
func selfSigned(t *testing.T) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "mcp-gateway test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:         true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile = writeFile(t, "tls.crt", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})))
	keyFile = writeFile(t, "tls.key", string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb})))
	return certFile, keyFile
}

// Each setting comes from its default, the file, the environment and the
// flags, each overriding the one before.
func TestPrecedence(t *testing.T) {
	t.Parallel()
	file := writeFile(t, "gateway.yaml", `
listen: 127.0.0.1:1001
upstream: http://file.example
metrics_listen: 127.0.0.1:2001
redis: {address: file.example:6379, password: from-file}
security: {signing_secret: from-file}
`)
	type want struct{ listen, upstream, metrics, redis, redisPassword, secret string }
	tests := []struct {
		name string
		args []string
		env  []string
		want want
	}{
		{"defaults", nil, nil, want{defaultListen, "http://flag.example", "", "", "", ""}},
		{"file", []string{"-config", file}, nil,
			want{"127.0.0.1:1001", "http://file.example", "127.0.0.1:2001", "file.example:6379", "from-file", "from-file"}},
		{"file named by the environment", nil, []string{envConfig, file},
			want{"127.0.0.1:1001", "http://file.example", "127.0.0.1:2001", "file.example:6379", "from-file", "from-file"}},
		{"environment over file", []string{"-config", file}, []string{
			envListen, "127.0.0.1:1002", envUpstream, "http://env.example", envMetricsListen, "127.0.0.1:2002",
			envRedis, "env.example:6379", envRedisPassword, "from-env", envSigningSecret, "from-env"},
			want{"127.0.0.1:1002", "http://env.example", "127.0.0.1:2002", "env.example:6379", "from-env", "from-env"}},
		{"flags over environment", []string{"-config", file, "-listen", "127.0.0.1:1003", "-upstream", "http://flag.example",
			"-metrics-listen", "127.0.0.1:2003", "-redis", "flag.example:6379"}, []string{
			envListen, "127.0.0.1:1002", envUpstream, "http://env.example", envMetricsListen, "127.0.0.1:2002",
			envRedis, "env.example:6379", envSigningSecret, "from-env"},
			want{"127.0.0.1:1003", "http://flag.example", "127.0.0.1:2003", "flag.example:6379", "from-file", "from-env"}},
		{"an empty variable is unset", []string{"-config", file}, []string{envListen, "", envSigningSecret, ""},
			want{"127.0.0.1:1001", "http://file.example", "127.0.0.1:2001", "file.example:6379", "from-file", "from-file"}},
		{"an empty flag is set", []string{"-config", file, "-metrics-listen", ""}, []string{envMetricsListen, "127.0.0.1:2002"},
			want{"127.0.0.1:1001", "http://file.example", "", "file.example:6379", "from-file", "from-file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args := tt.args
			if tt.name == "defaults" {
				args = []string{"-upstream", "http://flag.example"}
			}
			s, err := loadSettings(args, env(tt.env...), io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			got := want{s.Listen, s.Gateway.Upstream, s.MetricsListen, s.Redis.Address, s.Redis.Password, s.Gateway.Security.SigningSecret}
			if got != tt.want {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestDefaults(t *testing.T) {
	t.Parallel()
	s, err := loadSettings([]string{"-upstream", "http://git.example"}, env(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := timeoutsConfig{ReadHeader: 10 * time.Second, Read: 30 * time.Second, Write: 60 * time.Second,
		Idle: 120 * time.Second, Shutdown: 20 * time.Second}
	if s.Timeouts != want || s.Listen != "127.0.0.1:8930" || s.MetricsListen != "" || s.level != slog.LevelInfo ||
		s.path != "/mcp" || s.cert != nil || s.Redis.Address != "" {
		t.Errorf("defaults: %+v", s)
	}
}

// Every configuration the program cannot run with is exit code 2, before
// anything is printed to standard output, with a message naming the key
// (and where its value came from, when not the file).
func TestInvalidConfigurationNamesTheKey(t *testing.T) {
	t.Parallel()
	cert, key := selfSigned(t)
	garbage := writeFile(t, "garbage.pem", "not a certificate\n")
	const up = "upstream: http://git.example\n"
	tests := []struct {
		name string
		file string // "" for none
		args []string
		env  []string
		want []string
	}{
		{"unknown key", up + "listne: :8930\n", nil, nil, []string{"line 2: listne: unknown key"}},
		{"unknown nested key", up + "security:\n  ip_whitlist: [10.0.0.1]\n", nil, nil, []string{"line 3: security.ip_whitlist: unknown key"}},
		{"unknown key of the program's", up + "timeouts:\n  shutdown_dealy: 1s\n", nil, nil, []string{"line 3: timeouts.shutdown_dealy: unknown key"}},
		{"unknown keys, all named", up + "tls:\n  cert: x\nredis:\n  addr: x\n", nil, nil,
			[]string{"line 3: tls.cert: unknown key", "line 5: redis.addr: unknown key"}},
		{"wrong type", up + "rate_limit: {per_minute: lots}\n", nil, nil, []string{"line 2: rate_limit.per_minute: cannot unmarshal"}},
		{"wrong type, flow mapping", up + "rate_limit: {burst: 5, per_minute: lots}\n", nil, nil, []string{"line 2: rate_limit.per_minute: cannot unmarshal"}},
		{"wrong type in a list", up + "security:\n  blocked_ips:\n    - {a: 1}\n", nil, nil, []string{"line 4: security.blocked_ips[0]"}},
		{"duration without a unit", up + "timeouts:\n  read: 30\n", nil, nil, []string{"line 3: timeouts.read:", "with a unit"}},
		{"negative duration", up + "timeouts:\n  idle: -1s\n", nil, nil, []string{"timeouts.idle: must be positive"}},
		{"syntax error", up + "security: [\n", nil, nil, []string{"gateway.yaml: yaml: line"}},
		{"two documents", up + "---\nlisten: :1\n", nil, nil, []string{"more than one YAML document"}},
		{"no upstream", "listen: :8930\n", nil, nil, []string{"upstream: must be the http or https base URL"}},
		{"no upstream, no file", "", nil, nil, []string{"upstream: must be"}},
		{"bad upstream from the environment", "", nil, []string{envUpstream, "git.example"}, []string{`upstream (from MCP_GATEWAY_UPSTREAM): must be`}},
		{"bad upstream from the flag", up, []string{"-upstream", "ftp://git.example"}, nil, []string{`upstream (from -upstream): must be`}},
		{"bad listen", up + "listen: localhost\n", nil, nil, []string{`listen: "localhost" is not host:port`}},
		{"bad listen port", up + "listen: :99999\n", nil, nil, []string{`listen: ":99999" has port "99999"`}},
		{"bad listen from the flag", up, []string{"-listen", "nope"}, nil, []string{`listen (from -listen): "nope" is not host:port`}},
		{"bad listen from the environment", up, nil, []string{envListen, "nope"}, []string{`listen (from MCP_GATEWAY_LISTEN): "nope"`}},
		{"bad metrics_listen", up + "metrics_listen: 9930\n", nil, nil, []string{`metrics_listen: "9930" is not host:port`}},
		{"metrics on the gateway's address", up + "listen: :8930\nmetrics_listen: :8930\n", nil, nil, []string{`metrics_listen: ":8930" is listen's address too`}},
		{"certificate without key", up + "tls:\n  cert_file: " + cert + "\n", nil, nil, []string{"tls.key_file: is required with tls.cert_file"}},
		{"key without certificate", up + "tls:\n  key_file: " + key + "\n", nil, nil, []string{"tls.cert_file: is required with tls.key_file"}},
		{"unreadable certificate", up + "tls:\n  cert_file: /nonexistent/tls.crt\n  key_file: " + key + "\n", nil, nil,
			[]string{"tls.cert_file: open /nonexistent/tls.crt: no such file"}},
		{"unreadable key", up + "tls:\n  cert_file: " + cert + "\n  key_file: /nonexistent/tls.key\n", nil, nil,
			[]string{"tls.key_file: open /nonexistent/tls.key: no such file"}},
		{"not a certificate", up + "tls:\n  cert_file: " + garbage + "\n  key_file: " + key + "\n", nil, nil,
			[]string{"tls.cert_file: with tls.key_file:"}},
		{"bad redis address", up + "redis:\n  address: redis\n", nil, nil, []string{`redis.address: "redis" is not host:port`}},
		{"bad redis address from the flag", up, []string{"-redis", "redis"}, nil, []string{`redis.address (from -redis): "redis"`}},
		{"bad redis address from the environment", up, nil, []string{envRedis, "redis:0"}, []string{`redis.address (from MCP_GATEWAY_REDIS): "redis:0" names port 0`}},
		{"negative redis db", up + "redis:\n  address: redis:6379\n  db: -1\n", nil, nil, []string{"redis.db: must be 0 or more"}},
		{"negative max_connections", up + "max_connections: -1\n", nil, nil, []string{"max_connections: must be 0 (a tenth of the open-file limit) or more"}},
		{"bad log level", up + "log:\n  level: loud\n", nil, nil, []string{`log.level: must be debug, info, warn or error, got "loud"`}},
		{"path of a probe", up + "path: /healthz\n", nil, nil, []string{`path: "/healthz" is the program's own probe`}},
		{"path without slash", up + "path: mcp\n", nil, nil, []string{"path: must start with /"}},
		{"signature without secret", up + "security:\n  signature: required\n", nil, nil, []string{`security.signature: "required" needs security.signing_secret`}},
		{"bad CIDR", up + "security:\n  trusted_proxies: [10.0.0.0/33]\n", nil, nil, []string{`security.trusted_proxies: "10.0.0.0/33"`}},
		{"negative rate", up + "rate_limit:\n  per_minute: -1\n", nil, nil, []string{"rate_limit: per_minute and burst must be positive"}},
		{"unreadable upstream CA file", up + "upstream_ca_file: /nonexistent/ca.pem\n", nil, nil, []string{"upstream_ca_file: reading CA file: open /nonexistent/ca.pem"}},
		{"negative upstream header timeout", up + "upstream_header_timeout_seconds: -1\n", nil, nil, []string{"upstream_header_timeout_seconds: must be positive"}},
		{"upstream header timeout past a day", up + "upstream_header_timeout_seconds: 86401\n", nil, nil, []string{"upstream_header_timeout_seconds: must be at most 86400"}},
		{"upstream header timeout not a number", up + "upstream_header_timeout_seconds: 30s\n", nil, nil, []string{"line 2: upstream_header_timeout_seconds: cannot unmarshal"}},
		{"batch past burst", up + "rate_limit:\n  burst: 5\nbatch:\n  max_size: 10\n", nil, nil, []string{"batch.max_size: 10 is more than rate_limit.burst 5"}},
		{"several at once, all named", up + "listen: nope\nlog:\n  level: loud\nverify:\n  ttl_seconds: -1\n", nil, nil,
			[]string{"listen:", "log.level:", "verify.ttl_seconds: must be positive"}},
		{"missing file", "", []string{"-config", "/nonexistent/gateway.yaml"}, nil, []string{"config file: open /nonexistent/gateway.yaml"}},
		{"unknown flag", "", []string{"-nope"}, nil, []string{"flag provided but not defined: -nope"}},
		{"arguments", up, []string{"serve"}, nil, []string{`unexpected arguments ["serve"]`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args := tt.args
			if tt.file != "" {
				args = append([]string{"-config", writeFile(t, "gateway.yaml", tt.file)}, args...)
			}
			var out, errOut bytes.Buffer
			code := run(context.Background(), args, env(tt.env...), &out, &errOut)
			if code != 2 {
				t.Errorf("exit code %d, want 2", code)
			}
			if out.Len() != 0 {
				t.Errorf("printed %q", out.String())
			}
			for _, w := range tt.want {
				if !strings.Contains(errOut.String(), w) {
					t.Errorf("stderr does not name %q:\n%s", w, errOut.String())
				}
			}
		})
	}
}

// The gateway's wrong keys are reported from the *gateway.ConfigError
// values its Validate returns, not read back from its error's text: each
// is one line, its key (with where its value came from) and its problem,
// whatever the gateway's own message wraps them in.
func TestGatewayKeysReportedFromConfigErrors(t *testing.T) {
	t.Parallel()
	file := "path: mcp\nrate_limit:\n  burst: -1\nsecurity:\n  trusted_proxies: [0.0.0.0/0, nope]\n"
	cfg := gateway.Config{Upstream: "git.example", Path: "mcp"}
	cfg.RateLimit.Burst = -1
	cfg.Security.TrustedProxies = []string{"0.0.0.0/0", "nope"}
	wrong := configErrors(cfg.Validate())
	if len(wrong) < 4 {
		t.Fatalf("Validate named %d keys, want upstream, path, trusted_proxies twice, rate_limit: %v", len(wrong), cfg.Validate())
	}
	var errOut bytes.Buffer
	if code := run(context.Background(), []string{"-config", writeFile(t, "gateway.yaml", file)}, env(envUpstream, "git.example"), io.Discard, &errOut); code != 2 {
		t.Fatalf("exit code %d, want 2", code)
	}
	var lines []string
	for _, line := range strings.Split(strings.TrimSpace(errOut.String()), "\n")[1:] {
		lines = append(lines, strings.TrimSpace(line))
	}
	var want []string
	for _, e := range wrong {
		key := e.Key
		if key == "upstream" {
			key += " (from " + envUpstream + ")"
		}
		want = append(want, key+": "+e.Problem)
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("reported:\n%s\nwant the gateway's ConfigErrors:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

func TestHelp(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"-h"}, env(), &out, &errOut); code != 0 {
		t.Errorf("-h: exit code %d", code)
	}
	for _, f := range []string{"-config", "-listen", "-upstream", "-redis", "-metrics-listen"} {
		if !strings.Contains(errOut.String(), f) {
			t.Errorf("usage does not mention %s:\n%s", f, errOut.String())
		}
	}
}

// The file examples of the package documentation load as they are (with
// certificate files that exist).
func TestDocumentedExamplesLoad(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	examples := docYAML(string(src))
	if len(examples) != 2 {
		t.Fatalf("found %d YAML examples in doc.go, want 2 (the full file and the replicas')", len(examples))
	}
	cert, key := selfSigned(t)
	for i, ex := range examples {
		ex = strings.NewReplacer("/etc/mcp-gateway/tls.crt", cert, "/etc/mcp-gateway/tls.key", key,
			"/etc/mcp-gateway/upstream-ca.pem", cert).Replace(ex)
		// The secret is in the environment, as the documentation says.
		s, err := loadSettings([]string{"-config", writeFile(t, "gateway.yaml", ex)}, env(envSigningSecret, "shared"), io.Discard)
		if err != nil {
			t.Errorf("example %d:\n%s\ndoes not load: %v", i, ex, err)
			continue
		}
		if s.Gateway.Upstream != "https://git.example.com" || s.Redis.Address == "" {
			t.Errorf("example %d loaded as %+v", i, s.fileConfig)
		}
	}
}

// docYAML returns the indented blocks of doc.go that begin with a YAML key
// line ("upstream:" or a comment followed by keys).
func docYAML(src string) []string {
	var blocks []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			text := strings.Join(cur, "\n") + "\n"
			if strings.Contains(text, "upstream: https://git.example.com") && !strings.Contains(text, "mcp-gateway ") {
				blocks = append(blocks, text)
			}
		}
		cur = nil
	}
	for line := range strings.SplitSeq(src, "\n") {
		if code, ok := strings.CutPrefix(line, "//\t"); ok {
			cur = append(cur, code)
			continue
		}
		if line == "//" && len(cur) > 0 {
			cur = append(cur, "")
			continue
		}
		flush()
	}
	return blocks
}

func TestWorldReadableSecretWarns(t *testing.T) {
	t.Parallel()
	file := writeFile(t, "gateway.yaml", "upstream: http://git.example\nsecurity:\n  signing_secret: s3cret\n")
	if err := os.Chmod(file, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := loadSettings([]string{"-config", file}, env(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.warnings) != 1 || !strings.Contains(s.warnings[0], "chmod 600") || strings.Contains(s.warnings[0], "s3cret") {
		t.Errorf("warnings %q", s.warnings)
	}
	if err := os.Chmod(file, 0o600); err != nil {
		t.Fatal(err)
	}
	if s, err := loadSettings([]string{"-config", file}, env(), io.Discard); err != nil || len(s.warnings) != 0 {
		t.Errorf("a private file: %v, %q", err, s.warnings)
	}
}
