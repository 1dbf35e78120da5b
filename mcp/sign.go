package mcp

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"time"

	"github.com/apitwin/apitwin/internal/mcpwire"
)

// SignatureHeader carries the request signature. The gateway's form is
//
//	X-MCP-Signature: t=<unix seconds>,nonce=<16 to 64 letters, digits, - or _>,v2=<hex>
//
// where v2 is the hex HMAC-SHA256, keyed with the signing secret, of
//
//	"mcp-v2\n" + t + "\n" + nonce + "\n" + method + "\n" + path + "\n" + body
//
// (path as sent, escaped, without the query). The gateway accepts it when t
// is within its signature window (300 s by default) of its clock, and only
// once: the signature is remembered for as long as it could be valid, so a
// captured request cannot be sent again. The specification's original form,
// "sha256=" and the HMAC of the body alone (Sign), is accepted only when the
// gateway is configured to (security.accept_body_only_signature).
// WithSigningSecret signs every request of a Client in the gateway's form;
// WithSignatureForm(SignatureBodyOnly) signs in the specification's, for a
// gateway that knows only that one.
const SignatureHeader = "X-MCP-Signature"

// SignatureForm is the form in which a Client signs its requests
// (WithSignatureForm).
type SignatureForm int

const (
	// SignatureReplayProof is the gateway's form and the default: the time,
	// a fresh nonce, the method, the path and the body (SignRequest). A
	// gateway with a signing secret accepts it whatever its configuration,
	// and only once.
	SignatureReplayProof SignatureForm = iota
	// SignatureBodyOnly is the specification's form: "sha256=" and the
	// HMAC of the body alone (Sign). It can be replayed: use it only with
	// a gateway that accepts nothing else. This gateway accepts it only
	// with security.accept_body_only_signature on, and otherwise answers
	// 401 saying which form to use.
	SignatureBodyOnly
)

// String names the form as WithSignatureForm's documentation does.
func (f SignatureForm) String() string {
	switch f {
	case SignatureReplayProof:
		return "replay-proof"
	case SignatureBodyOnly:
		return "body-only"
	}
	return "SignatureForm(" + strconv.Itoa(int(f)) + ")"
}

// Sign returns the specification's body-only X-MCP-Signature value of body
// under secret. It can be replayed; prefer SignRequest.
func Sign(secret, body []byte) string {
	return mcpwire.BodyOnlyPrefix + hex.EncodeToString(mcpwire.BodyMAC(secret, body))
}

// SignRequest returns the X-MCP-Signature value of a request (see
// SignatureHeader) made at t with nonce, a value the caller never uses
// twice (NewNonce makes one).
func SignRequest(secret []byte, t time.Time, nonce, method, path string, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",nonce=" + nonce + ",v2=" + hex.EncodeToString(mcpwire.RequestMAC(secret, ts, nonce, method, path, body))
}

// NewNonce returns a random nonce for SignRequest: 128 bits, in hex.
func NewNonce() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand panics rather than return short)
	return hex.EncodeToString(b[:])
}
