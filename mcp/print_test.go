package mcp_test

import (
	"testing"

	"github.com/apitwin/apitwin/internal/testtools"
	"github.com/apitwin/apitwin/mcp"
)

// A client printed any way shows neither its token nor its signing secret,
// even printed by value, where its String method is not called.
func TestClientPrintedAnyWayShowsNoSecret(t *testing.T) {
	t.Parallel()
	const token, secret = "glpat-PRINT-TOKEN-1111", "mcp-PRINT-SIGNING-2222"
	c, err := mcp.New("http://gw.example.com", mcp.WithToken(token), mcp.WithSigningSecret(secret))
	if err != nil {
		t.Fatal(err)
	}
	testtools.ShowsNoSecret(t, c, token, secret)
}

// The gateway printed any way shows neither its signing secret nor the
// credentials in its upstream URL.
func TestGatewayPrintedAnyWayShowsNoSecret(t *testing.T) {
	t.Parallel()
	const secret, password = "mcp-PRINT-GW-SIGNING-3333", "upstream-PRINT-pa55word"
	cfg := mcp.Config{Upstream: "http://gw-user:" + password + "@127.0.0.1:1/api/v4"}
	cfg.Security.SigningSecret = secret
	gw, err := mcp.NewGateway(cfg)
	if err != nil {
		t.Fatal(err)
	}
	testtools.ShowsNoSecret(t, gw, secret, password)
	testtools.ShowsNoSecret(t, &cfg, secret, password)
}
