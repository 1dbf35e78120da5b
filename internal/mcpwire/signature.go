package mcpwire

import (
	"crypto/hmac"
	"crypto/sha256"
)

// BodyOnlyPrefix starts the specification's original X-MCP-Signature
// value, "sha256=" and the hex HMAC of the body alone.
const BodyOnlyPrefix = "sha256="

// requestVersion starts what a request signature covers.
const requestVersion = "mcp-v2"

// BodyMAC is the HMAC-SHA256 of body under secret: the body-only form.
func BodyMAC(secret, body []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return m.Sum(nil)
}

// RequestMAC is the HMAC-SHA256, under secret, of what a request signature
// covers:
//
//	"mcp-v2\n" + ts + "\n" + nonce + "\n" + method + "\n" + path + "\n" + body
//
// (ts the unix seconds as written, path as sent, escaped, without the
// query).
func RequestMAC(secret []byte, ts, nonce, method, path string, body []byte) []byte {
	m := hmac.New(sha256.New, secret)
	for _, part := range []string{requestVersion, ts, nonce, method, path} {
		m.Write([]byte(part))
		m.Write([]byte{'\n'})
	}
	m.Write(body)
	return m.Sum(nil)
}
