package gateway_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"

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
	var outs []string
	for _, v := range []any{cfg, &cfg, cfg.Security, gw} {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
			outs = append(outs, fmt.Sprintf(verb, v))
		}
	}
	var buf bytes.Buffer
	for _, h := range []slog.Handler{slog.NewJSONHandler(&buf, nil), slog.NewTextHandler(&buf, nil)} {
		slog.New(h).Info("starting", "config", cfg, "security", cfg.Security, "gateway", gw)
	}
	outs = append(outs, buf.String())
	for _, out := range outs {
		if strings.Contains(out, secret) {
			t.Errorf("the secret printed: %s", out)
		}
	}
	if !strings.Contains(buf.String(), "[redacted]") {
		t.Errorf("the log does not show that a secret is set: %s", buf.String())
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
	var outs []string
	for _, v := range []any{cfg, &cfg, gw} {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
			outs = append(outs, fmt.Sprintf(verb, v))
		}
	}
	var buf bytes.Buffer
	for _, h := range []slog.Handler{slog.NewJSONHandler(&buf, nil), slog.NewTextHandler(&buf, nil)} {
		slog.New(h).Info("starting", "config", cfg, "gateway", gw)
	}
	outs = append(outs, buf.String())
	for _, bad := range []string{"ftp://gw-user:" + password + "@git.example.com", "http://gw-user:" + password + "@"} {
		_, err := gateway.New(gateway.Config{Upstream: bad})
		if err == nil {
			t.Fatalf("upstream %q accepted", bad)
		}
		outs = append(outs, err.Error())
	}
	for _, out := range outs {
		if strings.Contains(out, password) {
			t.Errorf("the upstream's password printed: %s", out)
		}
	}
	if !strings.Contains(gw.String(), "127.0.0.1:1/api/v4") {
		t.Errorf("the gateway's String no longer names its upstream: %s", gw)
	}
}
