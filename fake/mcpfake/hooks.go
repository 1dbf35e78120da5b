package mcpfake

import "github.com/apitwin/apitwin/mcp/gateway"

// Where the gateway lets configure_webhook send hooks (see
// gateway.SecurityConfig.AllowLocalWebhooks): the fake allows the local
// network by default, as the source-hosting fake does, since tests receive
// their hooks on loopback; link-local addresses and the clouds' metadata
// services are refused all the same.

// WithAllowLocalRequests sets whether hooks may go to the local network
// (loopback, private networks; never link-local addresses or the cloud
// metadata services), default true: the gateway's
// Security.AllowLocalWebhooks, whatever WithConfig says, and, for the
// upstream the Server makes, sourcehostfake.WithAllowLocalRequests (unless
// WithUpstreamOptions says otherwise). With false, configure_webhook
// refuses them as a gateway deployed with its defaults does: -32602 on
// url, "is blocked: Requests to loopback addresses are not allowed".
func WithAllowLocalRequests(allow bool) Option {
	return option("WithAllowLocalRequests", func(c *config) { c.blockLocalHooks = !allow })
}

// WithHookResolver resolves the host names of configure_webhook's URLs
// with r instead of net.DefaultResolver: the gateway's Config.Resolver
// (unless WithConfig gives one) and, for the upstream the Server makes,
// sourcehostfake.WithHookResolver. For tests of where hooks may go, which
// must not depend on a real DNS; addresses and localhost need no lookup.
func WithHookResolver(r gateway.Resolver) Option {
	return option("WithHookResolver", func(c *config) { c.hookResolver = r })
}
