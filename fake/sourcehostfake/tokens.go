package sourcehostfake

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// TokenSeed is a personal access token to add (AddToken, Seed.Tokens).
type TokenSeed struct {
	// Username is the user the token belongs to.
	Username string `json:"username" yaml:"username"`
	// Name is the token's name; empty means "token-<id>".
	Name string `json:"name,omitempty" yaml:"name,omitempty"`
	// Token is the secret to present in PRIVATE-TOKEN; empty means a
	// random one, which AddToken returns.
	Token string `json:"token,omitempty" yaml:"token,omitempty"`
	// Scopes are at least one of api, read_api, read_user,
	// read_repository, write_repository, read_registry, write_registry,
	// sudo, admin_mode.
	Scopes []string `json:"scopes" yaml:"scopes"`
	// ExpiresAt is the day (YYYY-MM-DD, UTC) the token stops working, at
	// its start; empty means never.
	ExpiresAt string `json:"expires_at,omitempty" yaml:"expires_at,omitempty"`
	// Revoked tokens are refused with 401.
	Revoked bool `json:"revoked,omitempty" yaml:"revoked,omitempty"`
}

// knownScopes are the token scopes the fake accepts.
var knownScopes = []string{"api", "read_api", "read_user", "read_repository", "write_repository", "read_registry",
	"write_registry", "sudo", "admin_mode"}

// AddToken gives a user a personal access token and returns its secret.
func (s *Server) AddToken(seed TokenSeed) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.seedRoom(recordNeed{"token", 1}); err != nil {
		return "", err
	}
	t, err := s.st.seedToken(seed)
	if err != nil {
		return "", err
	}
	return t.secret, nil
}

// seedToken checks and adds a token. s.mu must be held.
func (st *state) seedToken(seed TokenSeed) (*token, error) {
	if len(seed.Scopes) == 0 {
		return nil, errors.New("sourcehostfake: a token needs at least one scope")
	}
	for _, sc := range seed.Scopes {
		if !slices.Contains(knownScopes, sc) {
			return nil, fmt.Errorf("sourcehostfake: unknown scope %q", sc)
		}
	}
	if seed.Token != "" && !validSecret(seed.Token) {
		return nil, errors.New("sourcehostfake: a token secret is 1 to 255 printable ASCII characters, without spaces")
	}
	var expires *time.Time
	if seed.ExpiresAt != "" {
		day, err := time.Parse(time.DateOnly, seed.ExpiresAt)
		if err != nil {
			return nil, fmt.Errorf("sourcehostfake: expires_at %q is not a date (YYYY-MM-DD)", seed.ExpiresAt)
		}
		expires = &day
	}
	u, err := st.userNamed(seed.Username)
	if err != nil {
		return nil, err
	}
	name := firstNonEmpty(seed.Name, "token-"+strconv.FormatInt(st.seq["token"]+1, 10))
	t, err := st.addToken(u, name, seed.Token, seed.Scopes, expires)
	if err != nil {
		return nil, err
	}
	t.revoked = seed.Revoked
	return t, nil
}

// validSecret: what can travel in a header as it is.
func validSecret(s string) bool {
	if len(s) > 255 {
		return false
	}
	for _, c := range []byte(s) {
		if c <= ' ' || c >= 0x7f {
			return false
		}
	}
	return true
}

// IssueToken gives a user a personal access token with the scopes named
// (sourcehost.ScopeAPI, …) and returns its secret: AddToken in short.
func (s *Server) IssueToken(username string, scopes ...string) (string, error) {
	return s.AddToken(TokenSeed{Username: username, Scopes: scopes})
}

// IssueTokenExpiring is IssueToken for a token that stops working when
// the fake clock reaches the start of the day expires (UTC).
func (s *Server) IssueTokenExpiring(username string, expires time.Time, scopes ...string) (string, error) {
	return s.AddToken(TokenSeed{Username: username, Scopes: scopes, ExpiresAt: expires.UTC().Format(time.DateOnly)})
}

// RevokeToken revokes a token: requests with it are refused with 401.
func (s *Server) RevokeToken(secret string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.st.tokens[secret]
	if t == nil {
		return errors.New("sourcehostfake: no such token")
	}
	t.revoked = true
	return nil
}

type tokenJSON struct {
	ID          int64    `json:"id"`
	Name        string   `json:"name"`
	Revoked     bool     `json:"revoked"`
	CreatedAt   stamp    `json:"created_at"`
	Description string   `json:"description"`
	Scopes      []string `json:"scopes"`
	UserID      int64    `json:"user_id"`
	LastUsedAt  *stamp   `json:"last_used_at"`
	Active      bool     `json:"active"`
	ExpiresAt   *string  `json:"expires_at"`
}

// currentToken is GET /personal_access_tokens/self: the personal access
// token the request came with; 404 for an OAuth token, which is none
// (GET /oauth/token/info describes those).
func (c *call) currentToken() fakekit.Answer {
	if c.tok.oauth != nil {
		return message(http.StatusNotFound, "404 Not Found")
	}
	return ok(c.tokenView(c.tok))
}

// tokenView is t as the API shows it (never its secret).
func (c *call) tokenView(t *token) tokenJSON {
	out := tokenJSON{ID: t.id, Name: t.name, Revoked: t.revoked, CreatedAt: stamp(t.createdAt), Scopes: append([]string{}, t.scopes...),
		UserID: t.user.id, LastUsedAt: stampPtr(t.lastUsed), Active: c.st.tokenState(t) == ""}
	if t.expiresAt != nil {
		d := t.expiresAt.Format(time.DateOnly)
		out.ExpiresAt = &d
	}
	return out
}

// newTokenJSON is a token just created: the only answer that holds its
// secret (the request log masks it: secretAnswerFields).
type newTokenJSON struct {
	tokenJSON
	Token string `json:"token"`
}

// maxTokenName bounds a token's name, as the real service's column.
const maxTokenName = 255

// createUserToken is POST /users/:user_id/personal_access_tokens: an
// administrator makes a token for a user, with exactly the scopes named.
func (c *call) createUserToken() fakekit.Answer {
	if !c.user.admin {
		return forbidden()
	}
	p := c.p
	name := p.required("name")
	scopes, hasScopes := p.list("scopes")
	if !hasScopes || len(scopes) == 0 {
		p.fail("scopes", "is missing")
	}
	expires, hasExpiry := p.str("expires_at")
	if msg := p.problem(); msg != "" {
		return badRequest(msg)
	}
	for _, sc := range scopes {
		if !slices.Contains(knownScopes, sc) {
			return badRequest("scopes does not have a valid value")
		}
	}
	var expiresAt *time.Time
	if hasExpiry && expires != "" {
		day, err := time.Parse(time.DateOnly, expires)
		if err != nil {
			return badRequest("expires_at is invalid")
		}
		if !day.After(c.st.clock.Now()) {
			return invalid(http.StatusBadRequest, map[string][]string{"expires_at": {"must be in the future"}})
		}
		expiresAt = &day
	}
	if len(name) > maxTokenName {
		return invalid(http.StatusBadRequest, map[string][]string{"name": {"is too long (maximum is 255 characters)"}})
	}
	u, fail := c.pathUser()
	if fail != nil {
		return *fail
	}
	t, err := c.st.addToken(u, name, "", scopes, expiresAt)
	if err != nil { // a random secret that clashes: not in this universe
		return message(http.StatusInternalServerError, "500 Internal Server Error")
	}
	return created(newTokenJSON{tokenJSON: c.tokenView(t), Token: t.secret})
}

// listTokens is GET /personal_access_tokens: an administrator's are every
// user's (user_id narrows them to one), another user's are their own
// (user_id naming someone else is 401); narrowed by revoked, state
// (active or inactive) and search (in the name); in id order.
func (c *call) listTokens() fakekit.Answer {
	p := c.p
	userID, byUser := p.int("user_id")
	revoked, byRevoked := p.boolean("revoked")
	state, _ := p.oneOf("state", "active", "inactive")
	search, _ := p.str("search")
	if msg := p.problem(); msg != "" {
		return badRequest(msg)
	}
	if byUser && !c.user.admin && userID != c.user.id {
		return message(http.StatusUnauthorized, "401 Unauthorized")
	}
	if !c.user.admin {
		userID, byUser = c.user.id, true
	}
	var items []*token
	for _, t := range c.st.tokens {
		if t.oauth != nil { // an OAuth token is no personal access token
			continue
		}
		active := c.st.tokenState(t) == ""
		switch {
		case byUser && t.user.id != userID,
			byRevoked && t.revoked != revoked,
			state == "active" && !active,
			state == "inactive" && active,
			search != "" && !containsFold(t.name, search):
			continue
		}
		items = append(items, t)
	}
	slices.SortFunc(items, func(a, b *token) int { return cmp.Compare(a.id, b.id) })
	page, fail := paginate(c, items)
	if fail != nil {
		return *fail
	}
	return ok(renderAll(page, c.tokenView))
}

// tokenByID finds a token by its id. s.mu must be held.
func (st *state) tokenByID(id int64) *token {
	for _, t := range st.tokens {
		if t.id == id && t.oauth == nil {
			return t
		}
	}
	return nil
}

// getToken is GET /personal_access_tokens/:token_id: a user's own token,
// or any for an administrator. As the real service, only administrators
// learn that a token does not exist (404); others are 401 for a token
// that is not theirs or is none.
func (c *call) getToken() fakekit.Answer {
	id, _ := c.pathInt("token_id")
	t := c.st.tokenByID(id)
	switch {
	case t != nil && (c.user.admin || t.user == c.user):
		return ok(c.tokenView(t))
	case c.user.admin:
		return message(http.StatusNotFound, "404 Not Found")
	}
	return message(http.StatusUnauthorized, "401 Unauthorized")
}

// revokeToken is DELETE /personal_access_tokens/:token_id: 204, the token
// refused from then on; 404 "404 Not found" for no such token, 400 "400
// Bad request - Not permitted to revoke" for another user's (an
// administrator may revoke any).
func (c *call) revokeToken() fakekit.Answer {
	id, _ := c.pathInt("token_id")
	t := c.st.tokenByID(id)
	switch {
	case t == nil:
		return message(http.StatusNotFound, "404 Not found")
	case t.user != c.user && !c.user.admin:
		return message(http.StatusBadRequest, "400 Bad request - Not permitted to revoke")
	}
	t.revoked = true
	return fakekit.Answer{Status: http.StatusNoContent}
}

// revokeCurrentToken is DELETE /personal_access_tokens/self: the token the
// request came with is revoked (whatever its scopes), 204.
func (c *call) revokeCurrentToken() fakekit.Answer {
	if c.tok.oauth != nil { // revoked at /oauth/revoke
		return message(http.StatusNotFound, "404 Not Found")
	}
	c.tok.revoked = true
	return fakekit.Answer{Status: http.StatusNoContent}
}
