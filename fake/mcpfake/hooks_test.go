package mcpfake_test

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"testing"

	"github.com/apitwin/apitwin/fake/mcpfake"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/mcp/gateway"
)

// oneName resolves receiver.test to loopback and no other name.
type oneName struct{}

func (oneName) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if host == "receiver.test" {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// The fake's gateway lets hooks go to loopback, where tests receive them,
// unless told otherwise; link-local addresses and the metadata services
// never; host names are looked up with WithHookResolver's resolver.
func TestWebhooksToLocalNetwork(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	configure := func(srv *mcpfake.Server, url string) error {
		id, err := srv.Upstream().AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = srv.Client(mcp.WithoutRetries()).ConfigureWebhook(ctx, &mcp.ConfigureWebhookParams{ProjectID: id, URL: url})
		return err
	}
	for _, tc := range []struct {
		opts  []mcpfake.Option
		url   string
		allow bool
	}{
		{nil, "http://127.0.0.1:9/hook", true},
		{nil, "http://localhost:9/hook", true},
		{nil, "http://[::1]:9/hook", true},
		{nil, "http://169.254.169.254/latest/meta-data/", false},
		{nil, "http://169.254.1.1/hook", false},
		{[]mcpfake.Option{mcpfake.WithHookResolver(oneName{})}, "http://receiver.test:9/hook", true},
		{[]mcpfake.Option{mcpfake.WithHookResolver(oneName{})}, "http://elsewhere.test/hook", false},
		{[]mcpfake.Option{mcpfake.WithAllowLocalRequests(false)}, "http://127.0.0.1:9/hook", false},
		{[]mcpfake.Option{mcpfake.WithAllowLocalRequests(false), mcpfake.WithConfig(gateway.Config{Security: gateway.SecurityConfig{AllowLocalWebhooks: true}})}, "http://127.0.0.1:9/hook", false},
	} {
		err := configure(newFake(t, tc.opts...), tc.url)
		if tc.allow != (err == nil) {
			t.Errorf("%d options, %s: %v, want allowed %v", len(tc.opts), tc.url, err, tc.allow)
		}
		if !tc.allow && !errors.Is(err, mcp.ErrInvalidParams) {
			t.Errorf("%d options, %s: %v, want the gateway's -32602", len(tc.opts), tc.url, err)
		}
	}
	if !newFake(t).Upstream().AllowLocalRequests() || newFake(t, mcpfake.WithAllowLocalRequests(false)).Upstream().AllowLocalRequests() {
		t.Error("the upstream's local-requests setting does not follow the fake's")
	}
}
