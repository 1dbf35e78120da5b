package gateway_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/fake/mcpfake"
	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/mcp/gateway"
)

// specOnlyGateway is a gateway as the specification describes it, which
// knows only the body-only signature: it checks X-MCP-Signature as
// "sha256=" + hex HMAC-SHA256 of the body (computed here from the
// specification's words, not with the module's helpers) and refuses
// anything else with 401, in front of a gateway that checks none.
func specOnlyGateway(t *testing.T, secret string) (url, token string) {
	t.Helper()
	inner := mcpfake.Start(t)
	h := func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		m := hmac.New(sha256.New, []byte(secret))
		m.Write(body)
		if want := "sha256=" + hex.EncodeToString(m.Sum(nil)); !hmac.Equal([]byte(r.Header.Get(mcp.SignatureHeader)), []byte(want)) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": nil,
				"error": map[string]any{"code": mcp.CodeUpstreamError, "message": "invalid signature", "data": map[string]any{"status": 401}}})
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.Header.Del(mcp.SignatureHeader)
		inner.ServeHTTP(w, r)
	}
	srv := httptest.NewServer(http.HandlerFunc(h))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp", inner.Token()
}

// The client signs in either form the gateway accepts, chosen by
// WithSignatureForm, and each gateway configuration takes the forms it
// should: the gateway's own (replay-proof) always, the specification's
// (body-only) only with accept_body_only_signature, a gateway that knows
// only the specification's form only that. A mismatch fails as a 401 that
// says which form the gateway wants. Finding 8 of issue 34: the client
// could only sign in the replay-proof form, so a gateway that knows only
// the body-only form could not be called by our own client.
func TestClientSignsInEitherForm(t *testing.T) {
	t.Parallel()
	const secret = "s1gn-me-0123456789"
	ours := func(bodyOnly bool) func(t *testing.T) (string, string) {
		return func(t *testing.T) (string, string) {
			srv := mcpfake.Start(t, mcpfake.WithConfig(gateway.Config{Security: gateway.SecurityConfig{
				SigningSecret: secret, AcceptBodyOnlySignature: bodyOnly}}))
			return srv.URL() + "/mcp", srv.Token()
		}
	}
	for _, gw := range []struct {
		name  string
		start func(t *testing.T) (url, token string)
		// refuses is the form refused ("" none), and what the 401 says.
		refuses mcp.SignatureForm
		says    string
	}{
		{name: "replay-proof only (the default)", start: ours(false), refuses: mcp.SignatureBodyOnly,
			says: "of the body alone is not accepted: sign t=<unix time>,nonce=<nonce>,v2="},
		{name: "accept_body_only_signature", start: ours(true), refuses: -1},
		{name: "the specification's gateway", refuses: mcp.SignatureReplayProof, says: "invalid signature",
			start: func(t *testing.T) (string, string) { return specOnlyGateway(t, secret) }},
	} {
		for _, form := range []mcp.SignatureForm{mcp.SignatureReplayProof, mcp.SignatureBodyOnly} {
			t.Run(gw.name+"/"+form.String(), func(t *testing.T) {
				t.Parallel()
				url, token := gw.start(t)
				c, err := mcp.New(url, mcp.WithToken(token), mcp.WithSigningSecret(secret), mcp.WithSignatureForm(form), mcp.WithoutRetries())
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(c.String(), "signing: "+form.String()) {
					t.Errorf("%v does not name the signature form %v", c, form)
				}
				// Twice: a body-only signature can be sent again, a
				// replay-proof one is made afresh for each call.
				for range 2 {
					_, err = c.ListProjects(t.Context(), nil)
					if form != gw.refuses {
						if err != nil {
							t.Fatalf("signed %v: %v", form, err)
						}
						continue
					}
					if !errors.Is(err, mcp.ErrUnauthorized) || !strings.Contains(err.Error(), gw.says) {
						t.Fatalf("signed %v: %v; want 401 saying %q", form, err, gw.says)
					}
					if strings.Contains(err.Error(), secret) {
						t.Errorf("the error shows the secret: %v", err)
					}
				}
			})
		}
	}
}

// WithSignatureForm without a secret, or with a form that does not exist,
// is refused when the client is made.
func TestSignatureFormNeedsASecret(t *testing.T) {
	t.Parallel()
	for _, opts := range [][]mcp.Option{
		{mcp.WithSignatureForm(mcp.SignatureBodyOnly)},
		{mcp.WithSigningSecret("x"), mcp.WithSignatureForm(7)},
	} {
		if c, err := mcp.New("http://127.0.0.1:1", opts...); err == nil {
			t.Errorf("%v made with %d options, want an error", c, len(opts))
		}
	}
}
