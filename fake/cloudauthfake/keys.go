package cloudauthfake

import (
	"crypto/rand"
	"crypto/rsa"
	"fmt"
	"sync"
)

// KeyBits is the size of the RSA keys the fake makes.
const KeyBits = 2048

// processKey is the key of every fake built without WithKey: made once per
// process, the first time a fake needs it, and never written anywhere, so
// that a token signed by a fake of another process (another test binary, a
// run of apitwin-fake) never verifies against this one's key. Making a
// 2048-bit key takes tens of milliseconds; a suite that starts a fake per
// test pays it once.
var processKey = sync.OnceValues(func() (*rsa.PrivateKey, error) { return newKey() })

func newKey() (*rsa.PrivateKey, error) {
	k, err := rsa.GenerateKey(rand.Reader, KeyBits)
	if err != nil {
		return nil, fmt.Errorf("cloudauthfake: making an RSA key: %w", err)
	}
	return k, nil
}

// signingKey is a key tokens are signed with, and its key id.
type signingKey struct {
	kid string
	key *rsa.PrivateKey
}

// keySet is what the fake signs with and publishes: the current key, and
// after a rotation the one before it, which still verifies the tokens it
// signed. A keySet is never changed once made; a rotation swaps in a new
// one.
type keySet struct {
	current  signingKey
	previous *signingKey
}

// lookup returns the public key of a key id the fake publishes.
func (ks *keySet) lookup(kid string) (*rsa.PublicKey, bool) {
	switch {
	case kid == ks.current.kid:
		return &ks.current.key.PublicKey, true
	case ks.previous != nil && kid == ks.previous.kid:
		return &ks.previous.key.PublicKey, true
	}
	return nil, false
}

// RotateKey makes the fake sign new tokens with another key, as a gateway
// rotating its signing key does: key under kid, or, when key is nil, a
// fresh 2048-bit key made now (which takes tens of milliseconds), under its
// RFC 7638 thumbprint when kid is empty. The public-key document then lists
// the new key and the one it replaced, so tokens issued before still verify
// until they expire; a second rotation drops the older key, and tokens it
// signed are refused from then on. It returns the new key id. A kid the
// fake already publishes is refused.
func (s *Server) RotateKey(key *rsa.PrivateKey, kid string) (string, error) {
	if key == nil {
		k, err := newKey()
		if err != nil {
			return "", err
		}
		key = k
	}
	if kid == "" {
		kid = Thumbprint(&key.PublicKey)
	}
	s.keyMu.Lock()
	defer s.keyMu.Unlock()
	old := s.keys.Load()
	if _, dup := old.lookup(kid); dup {
		return "", fmt.Errorf("cloudauthfake: key id %q is already published", kid)
	}
	prev := old.current
	s.keys.Store(&keySet{current: signingKey{kid: kid, key: key}, previous: &prev})
	return kid, nil
}
