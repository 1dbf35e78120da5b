package cloudauth

import (
	"context"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"sort"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/apitwin/apitwin/internal/rest"
)

// KeySet holds the public keys a gateway signs its tokens with, by key id,
// as it publishes them at PublicKeyPath in JWKS form:
//
//	{"keys":[{"kty":"RSA","alg":"RS256","use":"sig","kid":"…","n":"…","e":"AQAB"}]}
//
// Only RSA signing keys are kept; other entries are skipped.
type KeySet struct {
	keys map[string]*rsa.PublicKey
}

// MaxKeySetSize bounds the key documents ParseKeySet reads.
const MaxKeySetSize = 1 << 20

// minRSABits is the smallest RSA modulus accepted; smaller keys are
// forgeable.
const minRSABits = 2048

// JWK is one key of a JWKS document.
type JWK struct {
	KeyType   string `json:"kty"`
	Algorithm string `json:"alg,omitempty"`
	Use       string `json:"use,omitempty"`
	KeyID     string `json:"kid,omitempty"`
	N         string `json:"n,omitempty"`
	E         string `json:"e,omitempty"`
}

// JWKS is a key set document.
type JWKS struct {
	Keys []JWK `json:"keys"`
}

// PublicJWK returns the JWKS entry of an RSA public key.
func PublicJWK(kid string, pub *rsa.PublicKey) JWK {
	return JWK{
		KeyType: "RSA", Algorithm: "RS256", Use: "sig", KeyID: kid,
		N: base64.RawURLEncoding.EncodeToString(pub.N.Bytes()),
		E: base64.RawURLEncoding.EncodeToString(big.NewInt(int64(pub.E)).Bytes()),
	}
}

// ParseKeySet reads a JWKS document. It fails when the document is not
// JSON or holds no usable RSA signing key.
func ParseKeySet(data []byte) (*KeySet, error) {
	if len(data) > MaxKeySetSize {
		return nil, fmt.Errorf("cloudauth: key set of %d bytes is larger than %d", len(data), MaxKeySetSize)
	}
	var doc JWKS
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("cloudauth: reading key set: %w", err)
	}
	ks := &KeySet{keys: map[string]*rsa.PublicKey{}}
	var skipped []error
	for i, k := range doc.Keys {
		if k.KeyType != "RSA" || k.Use != "" && k.Use != "sig" || k.Algorithm != "" && k.Algorithm != "RS256" {
			continue
		}
		pub, err := k.rsaKey()
		if err != nil {
			skipped = append(skipped, fmt.Errorf("key %d (%q): %w", i, k.KeyID, err))
			continue
		}
		if _, dup := ks.keys[k.KeyID]; dup {
			skipped = append(skipped, fmt.Errorf("key %d: key id %q used twice", i, k.KeyID))
			continue
		}
		ks.keys[k.KeyID] = pub
	}
	if len(ks.keys) == 0 {
		return nil, fmt.Errorf("cloudauth: key set holds no RSA signing key: %w", errors.Join(skipped...))
	}
	return ks, nil
}

func (k JWK) rsaKey() (*rsa.PublicKey, error) {
	n, err := base64.RawURLEncoding.DecodeString(k.N)
	if err != nil {
		return nil, fmt.Errorf("modulus: %w", err)
	}
	e, err := base64.RawURLEncoding.DecodeString(k.E)
	if err != nil {
		return nil, fmt.Errorf("exponent: %w", err)
	}
	if len(e) == 0 || len(e) > 4 {
		return nil, errors.New("exponent out of range")
	}
	pub := &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
	if pub.N.BitLen() < minRSABits {
		return nil, fmt.Errorf("modulus of %d bits is shorter than %d", pub.N.BitLen(), minRSABits)
	}
	if pub.E < 3 || pub.E%2 == 0 {
		return nil, fmt.Errorf("exponent %d is not an odd number of at least 3", pub.E)
	}
	return pub, nil
}

// KeyIDs returns the ids of the keys held, sorted.
func (ks *KeySet) KeyIDs() []string {
	out := make([]string, 0, len(ks.keys))
	for id := range ks.keys {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// Key returns the key of an id.
func (ks *KeySet) Key(kid string) (*rsa.PublicKey, bool) {
	k, ok := ks.keys[kid]
	return k, ok
}

// errUnknownKey is a token signed by a key id the set lacks.
var errUnknownKey = errors.New("token signed by an unknown key")

// Verify checks a token's signature (RS256 only, by the key its kid names;
// a token without kid is accepted only from a set of one key) and its
// claims: exp is required and must not have passed, iat must not be in the
// future, iss must match opts.Issuer when set.
func (ks *KeySet) Verify(raw string, opts VerifyOptions) (*Token, error) {
	if err := checkShape(raw); err != nil {
		return nil, err
	}
	popts := []jwt.ParserOption{
		jwt.WithValidMethods([]string{jwt.SigningMethodRS256.Alg()}),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithLeeway(opts.Leeway),
	}
	if opts.Issuer != "" {
		popts = append(popts, jwt.WithIssuer(opts.Issuer))
	}
	if !opts.Now.IsZero() {
		now := opts.Now
		popts = append(popts, jwt.WithTimeFunc(func() time.Time { return now }))
	}
	var cl claims
	tok, err := jwt.NewParser(popts...).ParseWithClaims(raw, &cl, ks.keyFunc)
	if err != nil {
		return nil, verifyError(err)
	}
	return newToken(raw, tok, &cl, true), nil
}

func (ks *KeySet) keyFunc(t *jwt.Token) (any, error) {
	kid, _ := t.Header["kid"].(string)
	if kid == "" {
		if len(ks.keys) == 1 {
			for _, k := range ks.keys {
				return k, nil
			}
		}
		return nil, errors.New("token names no key (kid) and the key set holds several")
	}
	if k, ok := ks.keys[kid]; ok {
		return k, nil
	}
	return nil, fmt.Errorf("%w %q", errUnknownKey, kid)
}

// keyRefreshInterval is the least time between two fetches of the key set
// that a token with an unknown key id may cause.
const keyRefreshInterval = time.Minute

// PublicKeys fetches the server's token-signing keys from PublicKeyPath.
//
// Login API: GET /csp/gateway/am/api/auth/token-public-key
func (c *Client) PublicKeys(ctx context.Context) (*KeySet, error) {
	var raw json.RawMessage
	if err := c.do(ctx, &rest.Request{Method: http.MethodGet, Path: PublicKeyPath}, &raw); err != nil {
		return nil, err
	}
	return ParseKeySet(raw)
}

// VerifyToken checks a token against the server's public keys (fetched
// once and kept; fetched again, at most once a minute, when a token names a
// key id they lack, as after a key rotation) and the claims: RS256 only,
// issuer (see WithIssuer), exp required and not passed, with the client's
// leeway, on the client's clock. A failure matches ErrTokenExpired or
// ErrTokenInvalid, or is the error of fetching the keys.
//
// Login API: GET /csp/gateway/am/api/auth/token-public-key
func (c *Client) VerifyToken(ctx context.Context, raw string) (*Token, error) {
	if err := checkShape(raw); err != nil {
		return nil, err
	}
	ks, err := c.keySet(ctx, false)
	if err != nil {
		return nil, err
	}
	opts := VerifyOptions{Issuer: c.issuer, Now: c.clock.Now(), Leeway: c.leeway}
	tok, err := ks.Verify(raw, opts)
	if err != nil && errors.Is(err, errUnknownKey) {
		if fresh, ferr := c.keySet(ctx, true); ferr == nil && fresh != ks {
			tok, err = fresh.Verify(raw, opts)
		}
	}
	return tok, err
}

// keySet returns the cached keys, fetching them when there are none, or
// when refresh is asked and no other refresh happened in the last
// keyRefreshInterval.
func (c *Client) keySet(ctx context.Context, refresh bool) (*KeySet, error) {
	c.keysMu.Lock()
	defer c.keysMu.Unlock()
	now := c.clock.Now()
	if c.keys != nil && (!refresh || !c.keysRefreshed.IsZero() && now.Sub(c.keysRefreshed) < keyRefreshInterval) {
		return c.keys, nil
	}
	ks, err := c.PublicKeys(ctx)
	if refresh {
		c.keysRefreshed = now // a failed refresh counts too, so a down server is not asked at every call
	}
	if err != nil {
		return nil, err
	}
	c.keys = ks
	return ks, nil
}
