package gateway_test

import (
	"testing"

	"github.com/apitwin/apitwin/internal/leaktest"
	"github.com/apitwin/apitwin/mcp/gateway"
)

// The gateway printed any way shows neither its signing secret nor the
// credentials in its upstream URL.
func TestGatewayPrintedAnyWayShowsNoSecret(t *testing.T) {
	t.Parallel()
	const secret, password = "mcp-PRINT-GW-SIGNING-3333", "upstream-PRINT-pa55word"
	cfg := gateway.Config{Upstream: "http://gw-user:" + password + "@127.0.0.1:1/api/v4"}
	cfg.Security.SigningSecret = secret
	gw, err := gateway.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	leaktest.NoSecretIn(t, "the gateway", gw, secret, password)
	leaktest.NoSecretIn(t, "the config", &cfg, secret, password)
}
