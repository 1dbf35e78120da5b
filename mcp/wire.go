package mcp

import (
	"io"

	"github.com/apitwin/apitwin/internal/mcpwire"
)

// What the client shares with the gateway, under the names the client's
// code uses: see internal/mcpwire.

const jsonrpcVersion = mcpwire.Version

// objectMembers is mcpwire.Members: the answer's members, read without a
// map where their keys are plain.
func objectMembers(b []byte, f func(key, value []byte) bool) bool { return mcpwire.Members(b, f) }

// appendRead is mcpwire.AppendRead: an answer's body read into one buffer.
func appendRead(b []byte, r io.Reader) ([]byte, error) { return mcpwire.AppendRead(b, r) }
