// Package orchwire holds what the orch client and the orch fake must agree
// on beyond the protobuf contract: the error codes and how they travel on
// each transport, the JSON options of the HTTP side, the HTTP binding of
// each RPC (read from the contract's google.api.http options), and the names
// of headers and metadata keys.
//
// It is deliberately small and has no behaviour of its own: the client and
// the fake are the two places that act on it.
package orchwire
