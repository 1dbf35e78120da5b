package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/internal/credential"
	"github.com/apitwin/apitwin/internal/rest"
	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/sourcehost"
)

// Config is the gateway's configuration. It is loaded from a YAML or JSON
// file with LoadConfig, or built in Go. Zero values take the defaults named
// on each field. Keys in files are the snake_case names shown in the tags
// (security.ip_whitelist, security.blocked_ips, …).
type Config struct {
	// Upstream is the source-hosting API's base URL (the part before
	// /api/v4). Required.
	Upstream string `yaml:"upstream" json:"upstream"`
	// UpstreamHeaderTimeoutSeconds is how long the gateway waits for the
	// source-hosting API to start answering a call (its response headers)
	// before it gives up on the call, whatever the caller's own deadline
	// (default 30, at most 86400; fractions allowed). A call it gave up on
	// is -32603 with data.status 504; a token verification, an HTTP 504
	// refusal. It applies to the source-hosting client's own transport
	// (sourcehost.WithResponseHeaderTimeout): an HTTPClient, here or in
	// UpstreamOptions, keeps its own timeouts.
	UpstreamHeaderTimeoutSeconds float64 `yaml:"upstream_header_timeout_seconds" json:"upstream_header_timeout_seconds"`
	// UpstreamCAFile is a PEM file of certificate authorities to trust for
	// the source-hosting server, besides the system's: a server with a
	// private CA. Read when the gateway is made, so a bad file fails New
	// (sourcehost.WithCAFile). Not with HTTPClient, whose transport holds
	// its own trust.
	UpstreamCAFile string `yaml:"upstream_ca_file" json:"upstream_ca_file"`
	// Path is where the gateway answers (default "/mcp").
	Path string `yaml:"path" json:"path"`
	// AllowedOrigins lists the browser origins (scheme://host[:port],
	// e.g. https://app.example.com) whose pages may call the gateway: a
	// request with another Origin header is refused with 403, against DNS
	// rebinding, and their CORS preflights are answered. Requests with no
	// Origin (every client that is not a browser) are always served.
	// Unset, pages on loopback (localhost, 127.0.0.1, [::1], any port) may
	// call a gateway reached on a loopback address (one listening on
	// loopback), and no page may call it otherwise; an empty list refuses
	// every browser page. Compared without case and default ports.
	AllowedOrigins []string `yaml:"allowed_origins" json:"allowed_origins"`

	Security  SecurityConfig  `yaml:"security" json:"security"`
	Resource  ResourceConfig  `yaml:"resource" json:"resource"`
	RateLimit RateLimitConfig `yaml:"rate_limit" json:"rate_limit"`
	Verify    VerifyConfig    `yaml:"verify" json:"verify"`
	Batch     BatchConfig     `yaml:"batch" json:"batch"`
	// Memory bounds what the gateway keeps in this process: the whole
	// store without Redis, the fallback with it, and with it too the
	// signatures this replica has seen within their window.
	Memory MemoryLimits `yaml:"memory" json:"memory"`

	// MaxBodyBytes bounds a request body (default 1 MiB); a larger one is
	// refused with 413.
	MaxBodyBytes int64 `yaml:"max_body_bytes" json:"max_body_bytes"`

	// The rest is set from Go only.

	// Clock drives rate-limit buckets, cache lifetimes and the scope
	// check's memory (default the real clock).
	Clock clock.Clock `yaml:"-" json:"-"`
	// Store keeps what replicas share (rate limits, token verdicts, seen
	// signatures, cached answers): mcpredis.New for Redis. Nil keeps it all
	// in this process, in a MemoryStore bounded by Memory. While a Store
	// cannot be reached the gateway serves from its memory instead, logs it
	// and says so in Ready.
	Store Store `yaml:"-" json:"-"`
	// UpstreamOptions are added to every caller's source-hosting client
	// (after the gateway's own, before the caller's token): a CA file
	// (sourcehost.WithCAFile), a retry policy, an HTTP client. Every
	// request to the source-hosting server goes through that one client:
	// its API calls and the OAuth token information alike.
	UpstreamOptions []sourcehost.Option `yaml:"-" json:"-"`
	// HTTPClient, when set, carries every request to the source-hosting
	// server, with its own transport, TLS settings and timeouts (TLS
	// options in UpstreamOptions are then refused: configure its
	// transport). By default the source-hosting client's own pooled
	// transport does, waiting UpstreamHeaderTimeoutSeconds for an answer.
	// An HTTP client given in UpstreamOptions replaces either.
	HTTPClient *http.Client `yaml:"-" json:"-"`
	// Logger receives warnings (upstream unreachable, a shared cache
	// failing); silent by default. Tokens never appear in it.
	Logger *slog.Logger `yaml:"-" json:"-"`
	// Resolver looks up the host names of configure_webhook's URLs, whose
	// addresses decide whether the hook is allowed
	// (SecurityConfig.AllowLocalWebhooks); default net.DefaultResolver.
	// Each lookup is given 5 seconds.
	Resolver Resolver `yaml:"-" json:"-"`
}

// Resolver finds the addresses of a host name; *net.Resolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// SecurityConfig is who may call the gateway.
type SecurityConfig struct {
	// IPWhitelist lists the CIDR ranges (or single addresses) callers may
	// come from; empty lets every address in.
	IPWhitelist []string `yaml:"ip_whitelist" json:"ip_whitelist"`
	// BlockedIPs lists addresses (or CIDR ranges) refused even when the
	// allow list lets them in.
	BlockedIPs []string `yaml:"blocked_ips" json:"blocked_ips"`
	// TrustedProxies lists the CIDR ranges of reverse proxies whose
	// X-Forwarded-For the gateway believes. From anyone else the header is
	// ignored and the connection's address is the caller's. The caller is
	// the right-most hop that is not a trusted proxy, read with or without
	// a port, brackets or an IPv6 zone; a hop that cannot be read refuses
	// the request (403), so that access control fails closed. A range
	// holding every address (0.0.0.0/0, ::/0) is refused: with every hop a
	// proxy, the caller would be the left-most, which the client writes.
	TrustedProxies []string `yaml:"trusted_proxies" json:"trusted_proxies"`

	// SigningSecret keys the HMAC-SHA256 of X-MCP-Signature.
	SigningSecret string `yaml:"signing_secret" json:"signing_secret"`
	// Signature is the policy: "off", "optional" (verified when present) or
	// "required". The default is "required" when SigningSecret is set and
	// "off" when it is not.
	Signature SignaturePolicy `yaml:"signature" json:"signature"`
	// SignatureWindowSeconds is how far a signed request's timestamp may be
	// from the gateway's clock, either way (default 300). A signature is
	// accepted once: it is remembered for as long as it could be valid.
	SignatureWindowSeconds int `yaml:"signature_window_seconds" json:"signature_window_seconds"`
	// AcceptBodyOnlySignature also accepts the specification's original
	// form, "sha256=" and the HMAC of the body alone. Such a signature
	// names no time, method or path, so a captured request can be sent
	// again and again, by anyone holding any valid token: turn it on only
	// for clients that cannot sign the new way, and only on a network
	// where requests cannot be captured.
	AcceptBodyOnlySignature bool `yaml:"accept_body_only_signature" json:"accept_body_only_signature"`
	// SharedReplayCheckOnly refuses signed requests (503, Retry-After)
	// while the shared Store cannot be reached. Every replica remembers the
	// signatures it has seen in its own memory, whatever the shared Store
	// does, so none accepts a request twice; by default a replica keeps
	// serving signed requests during an outage on that memory alone, and a
	// request accepted meanwhile can then be sent once more to each other
	// replica within its window. Turn it on where a replayed request costs
	// more than signed requests refused during an outage. It does not cover
	// a shared Store that lost its keys (a Redis restarted without
	// persistence): a request accepted before can then be sent once more to
	// each replica that had not seen it. Without a shared Store it changes
	// nothing.
	SharedReplayCheckOnly bool `yaml:"shared_replay_check_only" json:"shared_replay_check_only"`

	// RequiredScopes are the token scopes every caller needs (default api,
	// read_user, read_repository, as the specification says). A token
	// whose scopes do not grant them is refused with 403. Scopes are read
	// by GitLab's hierarchy (sourcehost.ScopesGrant): api grants read_user
	// and read_repository, so a token with api alone passes the default.
	RequiredScopes []string `yaml:"required_scopes" json:"required_scopes"`

	// AllowLocalWebhooks lets configure_webhook send hooks to addresses
	// off the public internet: the source-hosting server itself
	// (localhost, loopback), private networks, the shared address space,
	// reserved ranges (default false: refused, as GitLab refuses them
	// unless an administrator allows "requests to the local network from
	// webhooks"). Even with it on, link-local addresses (169.254.0.0/16,
	// fe80::/10) and the clouds' metadata services (169.254.169.254,
	// fd00:ec2::254, 100.100.100.200, …) are refused unless
	// LocalWebhookAllowlist names them. A hook URL's host name is judged
	// by every address it resolves to (Config.Resolver) when the hook is
	// configured; one that does not resolve is refused.
	AllowLocalWebhooks bool `yaml:"allow_local_webhooks" json:"allow_local_webhooks"`
	// LocalWebhookAllowlist lists the addresses or CIDR ranges hooks may
	// reach though they are not public, whatever AllowLocalWebhooks says:
	// a CI server on the private network (10.1.2.0/24), say. A range of
	// every address (0.0.0.0/0, ::/0) is refused.
	LocalWebhookAllowlist []string `yaml:"local_webhook_allowlist" json:"local_webhook_allowlist"`
}

// ResourceConfig is the gateway as an OAuth 2.1 protected resource (the
// Model Context Protocol's authorization, RFC 9728): what its metadata
// document says and which OAuth tokens it accepts (see resource.go).
type ResourceConfig struct {
	// URL is the gateway's canonical MCP URL, as clients reach it
	// ("https://mcp.example.com/mcp"): the resource its protected-resource
	// metadata names, and the audience (RFC 8707 resource) an OAuth token
	// must have been issued for. Set it when the gateway runs behind a
	// proxy or under another name; mcp-gateway derives it from its listen
	// address otherwise. Empty in Go: the metadata names the URL each
	// request was sent to, and OAuth tokens are refused (personal access
	// tokens work as ever), since an audience taken from a request's Host
	// would be the caller's to choose. No query, no fragment.
	URL string `yaml:"url" json:"url"`
	// AuthorizationServers are the issuers of the OAuth tokens the gateway
	// accepts (default: the upstream, whose /oauth endpoints issue them).
	AuthorizationServers []string `yaml:"authorization_servers" json:"authorization_servers"`
	// ScopesSupported are the scopes the metadata names, which clients ask
	// the authorization server for (default: security.required_scopes).
	ScopesSupported []string `yaml:"scopes_supported" json:"scopes_supported"`
}

// VerifyConfig is how callers' tokens are verified and remembered.
type VerifyConfig struct {
	// TTLSeconds is how long a verified token is believed before the
	// source-hosting API is asked again (default 60): the most a revoked
	// token keeps working, cached answers included. A replica believes its
	// own verdict on a recent caller for as long when the shared Store has
	// lost it (a Redis restarted empty, or down), so that not every
	// caller is verified again at once.
	TTLSeconds int `yaml:"ttl_seconds" json:"ttl_seconds"`
	// NegativeTTLSeconds is how long a refused token (unknown, revoked,
	// expired, lacking scopes) is refused without asking again (default
	// 60).
	NegativeTTLSeconds int `yaml:"negative_ttl_seconds" json:"negative_ttl_seconds"`
	// PerIPPerMinute and PerIPBurst limit the verifications, the calls to
	// the source-hosting API for tokens not remembered, that one address
	// (an IPv6 /64) can cause (default 60 a minute, 20 at once): a flood
	// of made-up tokens reaches the source-hosting API at about one a
	// second, and is refused with 429 after that.
	PerIPPerMinute int `yaml:"per_ip_per_minute" json:"per_ip_per_minute"`
	PerIPBurst     int `yaml:"per_ip_burst" json:"per_ip_burst"`
	// PerMinute and Burst limit the verifications of all addresses
	// together (default 300 a minute, 50 at once), against a flood from
	// many addresses. Neither limit holds back a token that was good when
	// last asked about (its revalidation); new tokens wait (429) while a
	// flood lasts.
	PerMinute int `yaml:"per_minute" json:"per_minute"`
	Burst     int `yaml:"burst" json:"burst"`
}

// SignaturePolicy says whether requests must be signed.
type SignaturePolicy string

// The signature policies.
const (
	SignatureOff      SignaturePolicy = "off"
	SignatureOptional SignaturePolicy = "optional" // verify when present
	SignatureRequired SignaturePolicy = "required"
)

// RateLimitConfig is the per-token token bucket.
type RateLimitConfig struct {
	PerMinute int  `yaml:"per_minute" json:"per_minute"` // sustained rate (default 600)
	Burst     int  `yaml:"burst" json:"burst"`           // most at once (default 100)
	Disabled  bool `yaml:"disabled" json:"disabled"`
}

// BatchConfig bounds batches.
type BatchConfig struct {
	// MaxSize is the most requests in one batch (default 100, or the rate
	// limit's burst when smaller, so that a batch can always pass a full
	// bucket).
	MaxSize int `yaml:"max_size" json:"max_size"`
	// Concurrency is how many entries of a batch run at once (default 10).
	Concurrency int `yaml:"concurrency" json:"concurrency"`
}

// The defaults.
const (
	DefaultMaxBodyBytes    = 1 << 20
	DefaultPerMinute       = 600
	DefaultBurst           = 100
	DefaultMaxBatch        = 100
	DefaultConcurrency     = 10
	DefaultSignatureWindow = 300 // seconds
	DefaultVerifyTTL       = 60  // seconds
	DefaultNegativeTTL     = 60  // seconds
	DefaultPerIPPerMinute  = 60
	DefaultPerIPBurst      = 20
	DefaultVerifyPerMinute = 300
	DefaultVerifyBurst     = 50
	// DefaultUpstreamHeaderTimeout is how long, in seconds, the gateway
	// waits for the source-hosting API's response headers.
	DefaultUpstreamHeaderTimeout = 30
	// maxUpstreamHeaderTimeout bounds UpstreamHeaderTimeoutSeconds (a day).
	maxUpstreamHeaderTimeout = 24 * 3600
)

// DefaultRequiredScopes are the scopes the specification requires of a
// caller's token.
var DefaultRequiredScopes = []string{"api", "read_user", "read_repository"}

// LoadConfig reads a configuration file: JSON when its name ends in .json,
// YAML otherwise. Unknown keys are errors, so a misspelt setting is not
// silently ignored.
func LoadConfig(path string) (Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("gateway: config: %w", err)
	}
	var c Config
	if strings.EqualFold(filepath.Ext(path), ".json") {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		err = dec.Decode(&c)
	} else {
		dec := yaml.NewDecoder(bytes.NewReader(b))
		dec.KnownFields(true)
		err = dec.Decode(&c)
	}
	if err != nil {
		return Config{}, fmt.Errorf("gateway: config %s: %w", path, err)
	}
	return c, nil
}

// String shows the configuration without its signing secret, or
// credentials in the upstream URL.
func (c Config) String() string {
	if c.Security.SigningSecret != "" {
		c.Security.SigningSecret = credential.Redacted
	}
	c.Upstream = redactUpstream(c.Upstream)
	b, _ := json.Marshal(c)
	return string(b)
}

// GoString is String, so %#v does not show the secret either.
func (c Config) GoString() string { return c.String() }

// LogValue is String for slog, whose JSON handler would otherwise encode
// the fields, the secret among them.
func (c Config) LogValue() slog.Value { return slog.StringValue(c.String()) }

// String shows the security settings without the signing secret.
func (s SecurityConfig) String() string {
	if s.SigningSecret != "" {
		s.SigningSecret = credential.Redacted
	}
	b, _ := json.Marshal(s)
	return string(b)
}

// GoString is String.
func (s SecurityConfig) GoString() string { return s.String() }

// LogValue is String, for slog.
func (s SecurityConfig) LogValue() slog.Value { return slog.StringValue(s.String()) }

// ConfigError is one setting of a Config that is wrong: Key is its name as
// the configuration file spells it ("rate_limit.burst"), Problem what is
// wrong with it. Validate and New return every ConfigError at once,
// joined; errors.As finds the first, and the joined error's
// Unwrap() []error lists them all.
type ConfigError struct {
	Key     string
	Problem string
}

func (e *ConfigError) Error() string { return e.Key + ": " + e.Problem }

// Validate checks every setting of c as New does, without building
// a gateway: nil, or an error naming each wrong setting (see ConfigError).
func (c Config) Validate() error {
	_, err := c.withDefaults()
	return err
}

// withDefaults fills zero values and checks every setting, naming each one
// that is wrong in a single error.
func (c Config) withDefaults() (Config, error) {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, &ConfigError{Key: key, Problem: fmt.Sprintf(format, args...)})
	}
	if u, err := url.Parse(c.Upstream); c.Upstream == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		bad("upstream", "must be the http or https base URL of the source-hosting API, got %q", redactUpstream(c.Upstream))
	}
	switch t := c.UpstreamHeaderTimeoutSeconds; {
	case t == 0:
		c.UpstreamHeaderTimeoutSeconds = DefaultUpstreamHeaderTimeout
	case !(t > 0): // negative, or NaN
		bad("upstream_header_timeout_seconds", "must be positive")
	case t > maxUpstreamHeaderTimeout:
		bad("upstream_header_timeout_seconds", "must be at most %d (a day)", maxUpstreamHeaderTimeout)
	}
	if c.UpstreamCAFile != "" {
		if c.HTTPClient != nil {
			bad("upstream_ca_file", "cannot be used with an HTTPClient: configure its transport's trust instead")
		} else if _, err := rest.LoadCAFile(c.UpstreamCAFile); err != nil {
			bad("upstream_ca_file", "%v", err)
		}
	}
	if c.Path == "" {
		c.Path = mcp.DefaultPath
	} else if !strings.HasPrefix(c.Path, "/") {
		bad("path", "must start with /")
	}
	for _, o := range c.AllowedOrigins {
		if _, err := canonicalOrigin(o); err != nil {
			bad("allowed_origins", "%v", err)
		}
	}
	if c.MaxBodyBytes == 0 {
		c.MaxBodyBytes = DefaultMaxBodyBytes
	} else if c.MaxBodyBytes < 0 {
		bad("max_body_bytes", "must be positive")
	}
	s := &c.Security
	switch s.Signature {
	case "":
		s.Signature = SignatureOff
		if s.SigningSecret != "" {
			s.Signature = SignatureRequired
		}
	case SignatureOff, SignatureOptional, SignatureRequired:
		if s.Signature != SignatureOff && s.SigningSecret == "" {
			bad("security.signature", "%q needs security.signing_secret", s.Signature)
		}
	default:
		bad("security.signature", "must be off, optional or required, got %q", s.Signature)
	}
	if s.RequiredScopes == nil {
		s.RequiredScopes = DefaultRequiredScopes
	}
	if s.SignatureWindowSeconds == 0 {
		s.SignatureWindowSeconds = DefaultSignatureWindow
	} else if s.SignatureWindowSeconds < 0 {
		bad("security.signature_window_seconds", "must be positive")
	}
	if s.AcceptBodyOnlySignature && s.Signature == SignatureOff {
		bad("security.accept_body_only_signature", "needs a signature policy other than off")
	}
	c.Resource = c.Resource.withDefaults(c.Upstream, s.RequiredScopes, bad)
	v := &c.Verify
	for _, f := range []struct {
		key string
		v   *int
		def int
	}{
		{"verify.ttl_seconds", &v.TTLSeconds, DefaultVerifyTTL},
		{"verify.negative_ttl_seconds", &v.NegativeTTLSeconds, DefaultNegativeTTL},
		{"verify.per_ip_per_minute", &v.PerIPPerMinute, DefaultPerIPPerMinute},
		{"verify.per_ip_burst", &v.PerIPBurst, DefaultPerIPBurst},
		{"verify.per_minute", &v.PerMinute, DefaultVerifyPerMinute},
		{"verify.burst", &v.Burst, DefaultVerifyBurst},
	} {
		if *f.v == 0 {
			*f.v = f.def
		} else if *f.v < 0 {
			bad(f.key, "must be positive")
		}
	}
	if c.Memory.MaxBytes < 0 || c.Memory.MaxClaims < 0 || c.Memory.MaxBuckets < 0 {
		bad("memory", "max_bytes, max_claims and max_buckets must be positive")
	}
	c.Memory = c.Memory.withDefaults()
	for _, l := range []struct {
		key  string
		list []string
	}{{"security.ip_whitelist", s.IPWhitelist}, {"security.blocked_ips", s.BlockedIPs}, {"security.trusted_proxies", s.TrustedProxies},
		{"security.local_webhook_allowlist", s.LocalWebhookAllowlist}} {
		for _, v := range l.list {
			p, err := parsePrefix(v)
			switch {
			case err != nil:
				bad(l.key, "%q is neither an address nor a CIDR range", v)
			case l.key == "security.trusted_proxies" && p.Bits() == 0:
				// Every hop would be a proxy, and the caller the left-most
				// one, which the client writes itself.
				bad(l.key, "%q trusts every address, so any client could name its own address in X-Forwarded-For: list the proxies' addresses", v)
			case l.key == "security.local_webhook_allowlist" && p.Bits() == 0:
				bad(l.key, "%q allows every address, the clouds' metadata services among them: set allow_local_webhooks, and list only what hooks must reach beyond it", v)
			}
		}
	}
	r := &c.RateLimit
	if r.PerMinute == 0 {
		r.PerMinute = DefaultPerMinute
	}
	if r.Burst == 0 {
		r.Burst = DefaultBurst
	}
	if r.PerMinute < 0 || r.Burst < 0 {
		bad("rate_limit", "per_minute and burst must be positive")
	}
	b := &c.Batch
	if b.MaxSize == 0 {
		b.MaxSize = DefaultMaxBatch
		if !r.Disabled && r.Burst > 0 {
			b.MaxSize = min(b.MaxSize, r.Burst)
		}
	}
	if b.Concurrency == 0 {
		b.Concurrency = DefaultConcurrency
	}
	if b.MaxSize < 0 || b.Concurrency < 0 {
		bad("batch", "max_size and concurrency must be positive")
	}
	if !r.Disabled && b.MaxSize > r.Burst {
		bad("batch.max_size", "%d is more than rate_limit.burst %d: such a batch could never pass the limit", b.MaxSize, r.Burst)
	}
	if err := errors.Join(errs...); err != nil {
		return c, fmt.Errorf("gateway: config: %w", err)
	}
	return c, nil
}

// upstreamHeaderTimeout is UpstreamHeaderTimeoutSeconds as a duration (of
// a checked configuration).
func (c Config) upstreamHeaderTimeout() time.Duration {
	return time.Duration(c.UpstreamHeaderTimeoutSeconds * float64(time.Second))
}

// redactUpstream is an upstream URL without the credentials it may carry
// (user:password@, a token as the user, a token in the query), for
// messages and logs.
func redactUpstream(raw string) string {
	u, err := url.Parse(raw)
	switch {
	case err != nil && strings.Contains(raw, "@"):
		return "[unparsable URL, not shown]"
	case err != nil:
		return raw
	}
	return credential.RedactURL(u)
}

// parsePrefix reads a CIDR range or a single address (as a one-address range).
// An IPv4-mapped IPv6 range (::ffff:198.51.100.0/120) is read as the IPv4
// range it maps, as callers' addresses are unmapped before they are judged.
func parsePrefix(s string) (netip.Prefix, error) {
	if strings.Contains(s, "/") {
		p, err := netip.ParsePrefix(strings.TrimSpace(s))
		if err == nil && p.Addr().Is4In6() && p.Bits() >= 96 {
			p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
		}
		return p.Masked(), err
	}
	a, err := netip.ParseAddr(strings.TrimSpace(s))
	if err != nil {
		return netip.Prefix{}, err
	}
	a = a.Unmap()
	return netip.PrefixFrom(a, a.BitLen()), nil
}
