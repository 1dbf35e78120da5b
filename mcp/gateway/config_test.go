package gateway_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apitwin/apitwin/mcp/gateway"
	"github.com/apitwin/apitwin/sourcehost"
)

func TestLoadConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	yamlFile := filepath.Join(dir, "gateway.yaml")
	jsonFile := filepath.Join(dir, "gateway.json")
	write := func(path, text string) {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(yamlFile, `
upstream: https://git.example.com
security:
  ip_whitelist: [10.0.0.0/8, 192.168.1.0/24]
  blocked_ips: [10.0.0.66]
  trusted_proxies: [10.0.0.1/32]
  signing_secret: s3cret
  signature: optional
  allow_local_webhooks: true
  local_webhook_allowlist: [169.254.10.0/24]
rate_limit:
  per_minute: 120
  burst: 20
batch:
  concurrency: 4
`)
	write(jsonFile, `{"upstream":"https://git.example.com","security":{"ip_whitelist":["10.0.0.0/8","192.168.1.0/24"],"blocked_ips":["10.0.0.66"],"trusted_proxies":["10.0.0.1/32"],"signing_secret":"s3cret","signature":"optional","allow_local_webhooks":true,"local_webhook_allowlist":["169.254.10.0/24"]},"rate_limit":{"per_minute":120,"burst":20},"batch":{"concurrency":4}}`)
	want := gateway.Config{
		Upstream: "https://git.example.com",
		Security: gateway.SecurityConfig{
			IPWhitelist: []string{"10.0.0.0/8", "192.168.1.0/24"}, BlockedIPs: []string{"10.0.0.66"}, TrustedProxies: []string{"10.0.0.1/32"},
			SigningSecret: "s3cret", Signature: gateway.SignatureOptional,
			AllowLocalWebhooks: true, LocalWebhookAllowlist: []string{"169.254.10.0/24"},
		},
		RateLimit: gateway.RateLimitConfig{PerMinute: 120, Burst: 20},
		Batch:     gateway.BatchConfig{Concurrency: 4},
	}
	for _, path := range []string{yamlFile, jsonFile} {
		got, err := gateway.LoadConfig(path)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", filepath.Base(path), d)
		}
		if _, err := gateway.New(got); err != nil {
			t.Errorf("%s: %v", filepath.Base(path), err)
		}
		if strings.Contains(got.String(), "s3cret") || strings.Contains(strings.ReplaceAll(got.GoString(), " ", ""), "s3cret") {
			t.Errorf("the secret shows in %s", got)
		}
	}

	write(yamlFile, "upstream: https://git.example.com\nsecurity:\n  ip_whitelst: [10.0.0.0/8]\n")
	if _, err := gateway.LoadConfig(yamlFile); err == nil || !strings.Contains(err.Error(), "ip_whitelst") {
		t.Errorf("misspelt key: %v", err)
	}
}

func TestConfigErrors(t *testing.T) {
	t.Parallel()
	_, err := gateway.New(gateway.Config{
		Upstream: "git.example.com",
		Security: gateway.SecurityConfig{IPWhitelist: []string{"10.0.0.0/33"}, BlockedIPs: []string{"nope"}, Signature: "sometimes"},
		Batch:    gateway.BatchConfig{MaxSize: 500},
	})
	if err == nil {
		t.Fatal("bad configuration accepted")
	}
	for _, key := range []string{"upstream", "security.ip_whitelist", "security.blocked_ips", "security.signature", "batch.max_size"} {
		if !strings.Contains(err.Error(), key) {
			t.Errorf("error does not name %s: %v", key, err)
		}
	}
	// The same, typed: Validate finds what New would, and each
	// wrong setting is a ConfigError naming its key.
	verr := gateway.Config{
		Upstream: "git.example.com",
		Security: gateway.SecurityConfig{IPWhitelist: []string{"10.0.0.0/33"}, BlockedIPs: []string{"nope"}, Signature: "sometimes"},
		Batch:    gateway.BatchConfig{MaxSize: 500},
	}.Validate()
	var first *gateway.ConfigError
	if !errors.As(verr, &first) || first.Key != "upstream" || !strings.Contains(first.Problem, `"git.example.com"`) {
		t.Errorf("errors.As: %#v from %v", first, verr)
	}
	var keys []string
	var walk func(error)
	walk = func(e error) {
		if ce, ok := e.(*gateway.ConfigError); ok {
			keys = append(keys, ce.Key)
		}
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, e := range j.Unwrap() {
				walk(e)
			}
		} else if u := errors.Unwrap(e); u != nil {
			walk(u)
		}
	}
	walk(verr)
	if want := []string{"upstream", "security.signature", "security.ip_whitelist", "security.blocked_ips", "batch.max_size"}; !slices.Equal(keys, want) {
		t.Errorf("keys %v, want %v", keys, want)
	}
	if err := (gateway.Config{Upstream: "https://git.example.com/api/v4"}).Validate(); err != nil {
		t.Errorf("a good configuration: %v", err)
	}
	if _, err := gateway.New(gateway.Config{Upstream: "https://x", Security: gateway.SecurityConfig{Signature: gateway.SignatureRequired}}); err == nil {
		t.Error("signature required without a secret accepted")
	}
	_, err = gateway.New(gateway.Config{Upstream: "https://x", UpstreamOptions: []sourcehost.Option{sourcehost.WithCAFile("/no/such/ca.pem")}})
	if err == nil || !strings.Contains(err.Error(), "upstream options") {
		t.Errorf("a bad upstream option: %v", err)
	}
}

// A trusted proxy range holding every address (0.0.0.0/0, ::/0) makes every
// hop of X-Forwarded-For a proxy, so the caller is judged by the left-most
// one, which the client writes itself: any address could pass the access
// lists and the per-address limits. Such a range is refused.
func TestTrustingEveryAddressIsRefused(t *testing.T) {
	t.Parallel()
	for _, r := range []string{"0.0.0.0/0", "::/0", "::ffff:0.0.0.0/96"} {
		err := gateway.Config{Upstream: "https://git.example.com", Security: gateway.SecurityConfig{TrustedProxies: []string{"10.0.0.1", r}}}.Validate()
		var ce *gateway.ConfigError
		if !errors.As(err, &ce) || ce.Key != "security.trusted_proxies" || !strings.Contains(ce.Problem, r) {
			t.Errorf("trusted_proxies %s: %v, want a ConfigError naming it", r, err)
		}
	}
	if err := (gateway.Config{Upstream: "https://git.example.com", Security: gateway.SecurityConfig{TrustedProxies: []string{"10.0.0.0/8"}}}).Validate(); err != nil {
		t.Errorf("a proxy range: %v", err)
	}
}
