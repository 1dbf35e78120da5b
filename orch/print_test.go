package orch_test

import (
	"testing"

	"github.com/apitwin/apitwin/internal/leaktest"
	"github.com/apitwin/apitwin/orch"
)

// A client printed any way, over either transport and for another
// namespace, shows no token, even printed by value, where its String
// method is not called.
func TestClientPrintedAnyWayShowsNoToken(t *testing.T) {
	t.Parallel()
	const token = "orch-PRINT-TOKEN-1111"
	h, err := orch.NewHTTP("http://orch.example.com", orch.WithToken(token))
	if err != nil {
		t.Fatal(err)
	}
	g, err := orch.Dial("orch.example.com:7233", orch.WithToken(token), orch.WithInsecure())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	for _, c := range []*orch.Client{h, g, h.WithNamespace("billing")} {
		leaktest.NoSecretIn(t, "the client", c, token)
	}
}
