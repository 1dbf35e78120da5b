package mcpfake

import "slices"

// secretFields are the fields in which the gateway's JSON-RPC requests
// carry secrets: configure_webhook's token, the secret the hook's
// deliveries carry (in a tool call's arguments, or a batch's). The
// gateway answers none: a hook's token is never shown again.
var secretFields = []string{"token"}

// SecretFields names the fields in which the gateway's requests carry
// secrets (token, configure_webhook's argument): the request log keeps
// "[REDACTED]" in place of their values at any depth of a JSON-RPC
// message, as it does for credential headers (Authorization: "Bearer
// [REDACTED]", X-MCP-Signature).
func SecretFields() []string { return slices.Clone(secretFields) }

// RequestCount is how many requests the gateway's log holds, without
// copying it.
func (s *Server) RequestCount() int { return s.kit.RequestCount() }
