package gateway_test

import (
	"bytes"
	"log/slog"
	"net/url"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/internal/credential"
	"github.com/apitwin/apitwin/internal/leaktest"
	"github.com/apitwin/apitwin/mcp/gateway"
)

// The signing secret never prints: not in any fmt verb of the config, its
// security part or the gateway, nor in slog output (issue 16, finding 9).
func TestSigningSecretNeverPrints(t *testing.T) {
	t.Parallel()
	const secret = "s3cret-signing-key-0123456789"
	cfg := gateway.Config{Upstream: "http://127.0.0.1:1/api/v4"}
	cfg.Security.SigningSecret = secret
	gw, err := gateway.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]any{"the config": cfg, "its security part": cfg.Security, "the gateway": gw} {
		leaktest.NoSecretIn(t, name, v, secret)
	}
	leaktest.NoSecretIn(t, "the config's pointer", &cfg, secret)
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("starting", "config", cfg, "security", cfg.Security)
	if !strings.Contains(buf.String(), `\"signing_secret\":\"`+credential.Redacted+`\"`) {
		t.Errorf("the log does not show that a secret is set, with the marker %s: %s", credential.Redacted, buf.String())
	}
}

// Credentials in the upstream URL (user:password@, or a token in the user
// part) never print either: not in the config's or the gateway's fmt verbs
// or slog output, nor in the error refusing an upstream URL, as the
// source-hosting client and mcp-gateway's log already keep them out.
func TestUpstreamCredentialsNeverPrint(t *testing.T) {
	t.Parallel()
	const password = "upstream-pa55word"
	cfg := gateway.Config{Upstream: "http://gw-user:" + password + "@127.0.0.1:1/api/v4"}
	gw, err := gateway.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	leaktest.NoSecretIn(t, "the config", cfg, password)
	leaktest.NoSecretIn(t, "the config's pointer", &cfg, password)
	leaktest.NoSecretIn(t, "the gateway", gw, password)
	for _, bad := range []string{"ftp://gw-user:" + password + "@git.example.com", "http://gw-user:" + password + "@",
		"ftp://git.example.com/api/v4?private_token=" + password} {
		_, err := gateway.New(gateway.Config{Upstream: bad})
		if err == nil {
			t.Fatalf("upstream %q accepted", bad)
		}
		leaktest.NoSecretIn(t, "the error refusing a bad upstream", err, password)
	}
	// A token given as the user, and the marker where it was.
	const token = "glpat-upstream-USER-token"
	withToken, err := gateway.New(gateway.Config{Upstream: "http://" + token + "@127.0.0.1:1/api/v4"})
	if err != nil {
		t.Fatal(err)
	}
	leaktest.NoSecretIn(t, "the gateway with a token as the user", withToken, token)
	if want := "http://" + url.User(credential.Redacted).String() + "@127.0.0.1:1/api/v4"; !strings.Contains(withToken.String(), want) {
		t.Errorf("the gateway's String does not name its upstream as %s: %s", want, withToken)
	}
	if !strings.Contains(gw.String(), "127.0.0.1:1/api/v4") {
		t.Errorf("the gateway's String no longer names its upstream: %s", gw)
	}
}
