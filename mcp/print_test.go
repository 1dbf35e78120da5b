package mcp_test

import (
	"testing"

	"github.com/apitwin/apitwin/internal/leaktest"
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
	leaktest.NoSecretIn(t, "the client", c, token, secret)
}
