package main

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/apitwin/apitwin/orch"
)

// TestOrchAuthAsAProcess: --orch-auth turns the orchestration service's
// authentication on and prints the API key to use on the orch line; a call
// without it is refused over both transports, a call with it served; and
// without the flag the line says auth=off and prints no key.
func TestOrchAuthAsAProcess(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the program as a process")
	}
	p := startProcess(t, "--orch-auth", "--state-dir", filepath.Join(t.TempDir(), "state"))
	o := p.services["orch"]
	if o["auth"] != "on" || len(o["api_key"]) < 16 {
		t.Fatalf("orch line: %v", o)
	}
	ctx := t.Context()
	for _, transport := range []string{"grpc", "http"} {
		dial := func(opts ...orch.Option) *orch.Client {
			var c *orch.Client
			var err error
			if transport == "grpc" {
				c, err = orch.Dial(o["grpc"], append(opts, orch.WithInsecure())...)
			} else {
				c, err = orch.NewHTTP(o["url"], opts...)
			}
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = c.Close() })
			return c
		}
		if _, err := dial().CountWorkflows(ctx, ""); !errors.Is(err, orch.ErrUnauthenticated) {
			t.Errorf("%s without a credential: %v, want Unauthenticated", transport, err)
		}
		if _, err := dial(orch.WithToken("not-the-key")).CountWorkflows(ctx, ""); !errors.Is(err, orch.ErrUnauthenticated) {
			t.Errorf("%s with another key: %v, want Unauthenticated", transport, err)
		}
		c := dial(orch.WithToken(o["api_key"]))
		if _, err := c.StartWorkflow(ctx, "Order", "orders", nil, &orch.StartWorkflowOptions{ID: "order-" + transport}); err != nil {
			t.Errorf("%s with the printed key: %v", transport, err)
		}
		if err := c.RegisterNamespace(ctx, "ns-"+transport, nil); err != nil {
			t.Errorf("%s: the key holds every permission: %v", transport, err)
		}
	}
	off := startProcess(t)
	if o := off.services["orch"]; o["auth"] != "off" || o["api_key"] != "" {
		t.Errorf("without --orch-auth the orch line is %v", o)
	}
}
