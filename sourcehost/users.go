package sourcehost

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"slices"
	"strconv"
	"time"
)

// User is a user as the API shows it inside other resources.
type User struct {
	ID        int64  `json:"id"`
	Username  string `json:"username"`
	Name      string `json:"name"`
	State     string `json:"state"` // active, blocked, …
	AvatarURL string `json:"avatar_url"`
	WebURL    string `json:"web_url"`
}

// CurrentUser is the caller, from GET /user.
type CurrentUser struct {
	User
	Email     string    `json:"email"`
	IsAdmin   bool      `json:"is_admin"`
	CreatedAt time.Time `json:"created_at"`
}

// CurrentUser returns the user the token belongs to.
//
// GitLab API: [GET /user]
//
// [GET /user]: https://docs.gitlab.com/api/users/#get-the-current-user
func (c *Client) CurrentUser(ctx context.Context) (*CurrentUser, error) {
	return do[CurrentUser](ctx, c, http.MethodGet, "/user", nil, nil)
}

// Token scopes.
const (
	ScopeAPI             = "api"              // full read and write access
	ScopeReadAPI         = "read_api"         // read access to the API
	ScopeReadUser        = "read_user"        // the caller's own profile
	ScopeReadRepository  = "read_repository"  // repository contents
	ScopeWriteRepository = "write_repository" // pushing to repositories
	ScopeReadRegistry    = "read_registry"
	ScopeWriteRegistry   = "write_registry"
	ScopeSudo            = "sudo"       // acting as another user, for administrators (see WithSudo)
	ScopeAdminMode       = "admin_mode" // administrator actions, where admin mode is on
)

// PersonalAccessToken describes a token, from GET /personal_access_tokens/self.
type PersonalAccessToken struct {
	ID         int64      `json:"id"`
	Name       string     `json:"name"`
	Revoked    bool       `json:"revoked"`
	Active     bool       `json:"active"`
	Scopes     []string   `json:"scopes"`
	UserID     int64      `json:"user_id"`
	CreatedAt  time.Time  `json:"created_at"`
	LastUsedAt *time.Time `json:"last_used_at"`
	ExpiresAt  *Date      `json:"expires_at"` // nil: never expires
}

// scopeGrants is GitLab's scope hierarchy: what each scope grants beside
// itself. api gives full access (GitLab's Gitlab::Auth gives it every
// ability: reading and pushing code, the registry, and every API endpoint,
// /user among them); read_api gives read-only access (downloading code,
// reading the registry, and the API's read endpoints, /user among them);
// write_repository gives downloading code with pushing. The other scopes
// grant only themselves.
var scopeGrants = map[string][]string{
	ScopeAPI:             {ScopeReadAPI, ScopeReadUser, ScopeReadRepository, ScopeWriteRepository, ScopeReadRegistry, ScopeWriteRegistry},
	ScopeReadAPI:         {ScopeReadUser, ScopeReadRepository, ScopeReadRegistry},
	ScopeWriteRepository: {ScopeReadRepository},
}

// ScopesGrant reports whether a token with the scopes held may do what
// scope want allows, by GitLab's hierarchy: api grants read_api,
// read_user, read_repository, write_repository, read_registry and
// write_registry; read_api grants read_user, read_repository and
// read_registry; write_repository grants read_repository.
func ScopesGrant(held []string, want string) bool {
	for _, h := range held {
		if h == want || slices.Contains(scopeGrants[h], want) {
			return true
		}
	}
	return false
}

// Grants reports whether the token's scopes grant every scope named, by
// GitLab's hierarchy (see ScopesGrant): a token with api grants
// read_repository. HasScopes asks for the scopes literally.
func (t *PersonalAccessToken) Grants(scopes ...string) bool {
	for _, s := range scopes {
		if !ScopesGrant(t.Scopes, s) {
			return false
		}
	}
	return true
}

// HasScopes reports whether the token carries every scope named, as
// written (see Grants for what they allow).
func (t *PersonalAccessToken) HasScopes(scopes ...string) bool {
	for _, s := range scopes {
		if !slices.Contains(t.Scopes, s) {
			return false
		}
	}
	return true
}

// CurrentToken describes the token the client authenticates with, its
// scopes among it.
//
// GitLab API: [GET /personal_access_tokens/self]
//
// [GET /personal_access_tokens/self]: https://docs.gitlab.com/api/personal_access_tokens/#self-inform
func (c *Client) CurrentToken(ctx context.Context) (*PersonalAccessToken, error) {
	return do[PersonalAccessToken](ctx, c, http.MethodGet, "/personal_access_tokens/self", nil, nil)
}

// Date is a calendar date, "2006-01-02" on the wire.
type Date struct{ time.Time }

// DateLayout is how dates travel.
const DateLayout = "2006-01-02"

// MarshalJSON writes the date as "2006-01-02".
func (d Date) MarshalJSON() ([]byte, error) { return json.Marshal(d.Format(DateLayout)) }

// UnmarshalJSON reads "2006-01-02" (or null, leaving the zero date).
func (d *Date) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	t, err := time.Parse(DateLayout, s)
	if err != nil {
		return fmt.Errorf("sourcehost: date %q: %w", s, err)
	}
	d.Time = t
	return nil
}

// UserDetails is a user as GET /users and GET /users/:id show one. Email
// and IsAdmin are sent to administrators only; others see them empty.
type UserDetails struct {
	User
	CreatedAt time.Time `json:"created_at"`
	Bio       string    `json:"bio"`
	Email     string    `json:"email"`
	IsAdmin   bool      `json:"is_admin"`
}

// ListUsersOptions filters and pages users.
type ListUsersOptions struct {
	ListOptions
	Username string `url:"username,omitempty"` // exactly this username (case-insensitively)
	Search   string `url:"search,omitempty"`   // in username, name and (for administrators) email
	Active   *bool  `url:"active,omitempty"`   // only active users
	Blocked  *bool  `url:"blocked,omitempty"`  // only blocked users
	OrderBy  string `url:"order_by,omitempty"` // id (default), name, username, created_at or updated_at: under keyset pagination
	Sort     string `url:"sort,omitempty"`     // desc (default) or asc: under keyset pagination
}

// ListUsers returns one page of users, in id order; under keyset
// pagination in OrderBy's order (ties broken by id), Sort's way.
//
// GitLab API: [GET /users]
//
// [GET /users]: https://docs.gitlab.com/api/users/#list-users
func (c *Client) ListUsers(ctx context.Context, opts *ListUsersOptions) (*Page[UserDetails], error) {
	return list[UserDetails](ctx, c, "/users", opts)
}

// AllUsers iterates users a page at a time.
//
// GitLab API: [GET /users]
//
// [GET /users]: https://docs.gitlab.com/api/users/#list-users
func (c *Client) AllUsers(ctx context.Context, opts *ListUsersOptions) iter.Seq2[*UserDetails, error] {
	return all[UserDetails](ctx, c, "/users", opts)
}

// GetUser returns a user by id.
//
// GitLab API: [GET /users/{user_id}]
//
// [GET /users/{user_id}]: https://docs.gitlab.com/api/users/#get-a-single-user
func (c *Client) GetUser(ctx context.Context, userID int64) (*UserDetails, error) {
	if userID <= 0 {
		return nil, fmt.Errorf("sourcehost: invalid user id %d", userID)
	}
	return do[UserDetails](ctx, c, http.MethodGet, "/users/"+strconv.FormatInt(userID, 10), nil, nil)
}
