package sourcehostfake

import "strings"

type currentUserJSON struct {
	userJSON
	CreatedAt stamp  `json:"created_at"`
	Email     string `json:"email"`
	IsAdmin   bool   `json:"is_admin"`
	Bio       string `json:"bio"`
}

func (c *call) currentUser() answer {
	return ok(currentUserJSON{userJSON: *c.renderUser(c.user), CreatedAt: stamp(c.user.createdAt), Email: c.user.email, IsAdmin: c.user.admin})
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

func (c *call) currentToken() answer {
	t := c.tok
	out := tokenJSON{ID: t.id, Name: t.name, Revoked: t.revoked, CreatedAt: stamp(t.createdAt), Scopes: append([]string{}, t.scopes...),
		UserID: t.user.id, LastUsedAt: stampPtr(t.lastUsed), Active: c.st.tokenState(t) == ""}
	if t.expiresAt != nil {
		d := t.expiresAt.Format("2006-01-02")
		out.ExpiresAt = &d
	}
	return ok(out)
}

// containsFold reports whether s contains sub, ignoring case.
func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}
