package orchfake

import (
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch/orchpb"
	"github.com/golang-jwt/jwt/v5"
)

// The permissions of the specification's hierarchy, and the one the fake
// adds for workers (see doc.go). A name ending in ":*" grants every
// permission below it.
const (
	PermAll             = "orch:*"
	PermCluster         = "orch:cluster:*"
	PermClusterRead     = "orch:cluster:read"
	PermClusterWrite    = "orch:cluster:write"
	PermNamespace       = "orch:namespace:*"
	PermNamespaceCreate = "orch:namespace:create"
	PermNamespaceRead   = "orch:namespace:read"
	PermNamespaceUpdate = "orch:namespace:update"
	PermNamespaceDelete = "orch:namespace:delete"
	PermWorkflow        = "orch:workflow:*"
	PermWorkflowStart   = "orch:workflow:start"
	PermWorkflowSignal  = "orch:workflow:signal"
	PermWorkflowQuery   = "orch:workflow:query"
	PermWorkflowRead    = "orch:workflow:read"
	PermWorkflowList    = "orch:workflow:list"
	PermWorkflowTerm    = "orch:workflow:terminate"
	PermWorkflowCancel  = "orch:workflow:cancel"
	// PermWorkflowWorker is the fake's addition: polling task queues and
	// answering tasks, what a worker does.
	PermWorkflowWorker = "orch:workflow:worker"
	// PermWorkflowUpdate is the fake's addition too: sending updates
	// (UpdateWorkflowExecution), which the specification's list predates.
	PermWorkflowUpdate = "orch:workflow:update"
	// PermWorkflowSchedule is the fake's addition too: creating,
	// changing and deleting schedules (reading them needs
	// PermWorkflowRead, listing PermWorkflowList).
	PermWorkflowSchedule = "orch:workflow:schedule"

	PermWorkflowTerminate = PermWorkflowTerm
)

// Token claims the fake issues and expects.
const (
	// Issuer is the iss of the tokens the fake issues and accepts.
	Issuer = "https://orchfake.apitwin.dev"
	// Audience is the aud of the tokens the fake issues and accepts.
	Audience = "orch"
	// TokenTTL is how long an issued token lives, on the fake clock.
	TokenTTL = time.Hour
)

// Claims are a token's claims, as the specification lists them.
type Claims struct {
	Subject     string   `json:"sub"`
	Namespace   string   `json:"namespace,omitempty"` // "" or "*": every namespace
	Permissions []string `json:"permissions"`
	Issuer      string   `json:"iss,omitempty"` // default Issuer
	Audience    string   `json:"aud,omitempty"` // default Audience
	IssuedAt    int64    `json:"iat,omitempty"` // default now on the fake clock
	ExpiresAt   int64    `json:"exp,omitempty"` // default iat + TokenTTL
}

type authState struct {
	mu      sync.Mutex
	key     []byte
	apiKeys map[string]*principal
}

type principal struct {
	sub       string
	namespace string
	perms     []string
}

type principalKey struct{}

func (a *authState) init(key []byte) {
	if len(key) == 0 {
		key = make([]byte, 32)
		_, _ = rand.Read(key)
	}
	a.key = key
	a.apiKeys = map[string]*principal{}
}

func (a *authState) signingKey() []byte {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.key
}

func (a *authState) apiKey(cred string) *principal {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.apiKeys[cred]
}

// IssueToken returns a signed JWT (HS256) for sub, limited to namespace
// ("" for every namespace), holding permissions, valid for TokenTTL on
// the fake clock.
func (s *Server) IssueToken(sub, namespace string, permissions ...string) string {
	tok, err := s.SignToken(Claims{Subject: sub, Namespace: namespace, Permissions: permissions})
	if err != nil { // HS256 signing with a key in memory cannot fail
		panic(err)
	}
	return tok
}

// SignToken signs claims as given (defaults for the empty ones), for tests
// of expired, foreign or odd tokens.
func (s *Server) SignToken(c Claims) (string, error) {
	now := s.clk.Now()
	if c.Issuer == "" {
		c.Issuer = Issuer
	}
	if c.Audience == "" {
		c.Audience = Audience
	}
	if c.IssuedAt == 0 {
		c.IssuedAt = now.Unix()
	}
	if c.ExpiresAt == 0 {
		c.ExpiresAt = time.Unix(c.IssuedAt, 0).Add(TokenTTL).Unix()
	}
	mc := jwt.MapClaims{
		"iss": c.Issuer, "sub": c.Subject, "aud": c.Audience,
		"iat": c.IssuedAt, "exp": c.ExpiresAt,
		"permissions": append([]string{}, c.Permissions...),
	}
	if c.Namespace != "" {
		mc["namespace"] = c.Namespace
	}
	return jwt.NewWithClaims(jwt.SigningMethodHS256, mc).SignedString(s.auth.signingKey())
}

// AddAPIKey makes key a credential (sent as "Authorization: Bearer <key>")
// for namespace ("" for every namespace) with permissions. The key is its
// own subject in the request log, cut to its first 4 characters.
func (s *Server) AddAPIKey(key, namespace string, permissions ...string) error {
	if key == "" || strings.Count(key, ".") == 2 {
		return errors.New("orchfake: an API key must be non-empty and not shaped like a JWT")
	}
	sub := "apikey:" + key[:min(4, len(key))] + "…"
	s.auth.mu.Lock()
	defer s.auth.mu.Unlock()
	s.auth.apiKeys[key] = &principal{sub: sub, namespace: namespace, perms: slices.Clone(permissions)}
	return nil
}

// RevokeAPIKey revokes an API key.
func (s *Server) RevokeAPIKey(key string) {
	s.auth.mu.Lock()
	defer s.auth.mu.Unlock()
	delete(s.auth.apiKeys, key)
}

// authenticate reads the Authorization value. With auth off it returns no
// principal and no error whatever was sent.
func (s *Server) authenticate(authz string) (*principal, error) {
	if !s.cfg.auth {
		return nil, nil
	}
	if authz == "" {
		return nil, unauthenticated("missing credentials: send Authorization: Bearer <token>")
	}
	scheme, cred, ok := strings.Cut(authz, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(cred) == "" {
		return nil, unauthenticated("malformed Authorization header: want Bearer <token>")
	}
	cred = strings.TrimSpace(cred)
	if strings.Count(cred, ".") != 2 {
		p := s.auth.apiKey(cred)
		if p == nil {
			return nil, unauthenticated("invalid API key")
		}
		return p, nil
	}
	return s.verifyToken(cred)
}

func (s *Server) verifyToken(tok string) (*principal, error) {
	key := s.auth.signingKey()
	var claims jwt.MapClaims
	_, err := jwt.ParseWithClaims(tok, &claims, func(*jwt.Token) (any, error) { return key, nil },
		jwt.WithValidMethods([]string{"HS256"}),
		jwt.WithIssuer(Issuer),
		jwt.WithAudience(Audience),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithTimeFunc(s.clk.Now),
	)
	if err != nil {
		switch {
		case errors.Is(err, jwt.ErrTokenExpired):
			return nil, unauthenticated("token expired")
		case errors.Is(err, jwt.ErrTokenSignatureInvalid):
			return nil, unauthenticated("invalid token: bad signature")
		}
		return nil, unauthenticated("invalid token: " + err.Error())
	}
	sub, _ := claims["sub"].(string)
	if sub == "" {
		return nil, unauthenticated("invalid token: no sub claim")
	}
	p := &principal{sub: sub}
	if ns, ok := claims["namespace"]; ok {
		if p.namespace, ok = ns.(string); !ok {
			return nil, unauthenticated("invalid token: namespace claim is not a string")
		}
	}
	switch perms := claims["permissions"].(type) {
	case nil:
	case []any:
		for _, v := range perms {
			str, ok := v.(string)
			if !ok {
				return nil, unauthenticated("invalid token: permissions claim is not an array of strings")
			}
			p.perms = append(p.perms, str)
		}
	default:
		return nil, unauthenticated("invalid token: permissions claim is not an array of strings")
	}
	return p, nil
}

func unauthenticated(msg string) *apiError {
	return &apiError{code: orchwire.Unauthenticated, msg: msg}
}

// allow checks that p holds perm, on namespace ns when the operation has
// one. The message is "access denied"; the detail says what was missing.
func (p *principal) allow(perm, ns string) error {
	if !grants(p.perms, perm) {
		return accessDenied(fmt.Sprintf("%s lacks %s", p.sub, perm))
	}
	if ns != "" && !p.coversNamespace(ns) {
		return accessDenied(fmt.Sprintf("%s may not use namespace %q", p.sub, ns))
	}
	return nil
}

func (p *principal) coversNamespace(ns string) bool {
	return p == nil || p.namespace == "" || p.namespace == "*" || p.namespace == ns
}

func accessDenied(why string) *apiError {
	return &apiError{code: orchwire.PermissionDenied, msg: "access denied",
		details: []*orchpb.ErrorDetail{{Type: "PermissionDenied", Field: "permissions", Description: why}}}
}

// grants reports whether held covers want: exactly, or through a wildcard
// above it ("orch:*", "orch:workflow:*").
func grants(held []string, want string) bool {
	for _, h := range held {
		if h == want {
			return true
		}
		if prefix, ok := strings.CutSuffix(h, "*"); ok && strings.HasSuffix(prefix, ":") && strings.HasPrefix(want, prefix) {
			return true
		}
	}
	return false
}
