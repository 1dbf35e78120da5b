// Package mcpwire holds what the mcp client and the gateway (mcp/gateway)
// must agree on beyond the public types of package mcp: the JSON-RPC
// version, the data member of the gateway's errors, the MACs of
// X-MCP-Signature, and the plain walk over a JSON object's members both
// use on their hot paths (the gateway over requests and params, the client
// over answers).
//
// It is deliberately small and has no behaviour of its own: the client and
// the gateway are the two places that act on it. What users see of it is
// package mcp's (Error, SignRequest, Sign).
package mcpwire

// Version is the JSON-RPC version every message names.
const Version = "2.0"
