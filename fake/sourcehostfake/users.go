package sourcehostfake

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// UserSeed is a user to add (AddUser, Seed.Users). Every user gets a
// namespace of its own, named after the username.
type UserSeed struct {
	Username string `json:"username" yaml:"username"`
	// Name is the display name; empty means the username.
	Name string `json:"name,omitempty" yaml:"name,omitempty"`
	// Email empty means <username>@example.com.
	Email string `json:"email,omitempty" yaml:"email,omitempty"`
	// Admin users have Owner access to every project.
	Admin bool `json:"admin,omitempty" yaml:"admin,omitempty"`
}

// AddUser adds a user with a namespace of its own and returns its id. It
// has no token until AddToken (or IssueToken) gives it one.
func (s *Server) AddUser(seed UserSeed) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.seedRoom(recordNeed{"user", 1}, recordNeed{"namespace", 1}); err != nil {
		return 0, err
	}
	u, err := s.st.seedUser(seed)
	if err != nil {
		return 0, err
	}
	return u.id, nil
}

// seedUser checks and adds a user. s.mu must be held.
func (st *state) seedUser(seed UserSeed) (*user, error) {
	if !usernameRE.MatchString(seed.Username) || len(seed.Username) > 255 {
		return nil, fmt.Errorf("sourcehostfake: invalid username %q", seed.Username)
	}
	if st.userByName[strings.ToLower(seed.Username)] != nil || st.nsByPath[strings.ToLower(seed.Username)] != nil {
		return nil, fmt.Errorf("sourcehostfake: username %q is taken", seed.Username)
	}
	name := firstNonEmpty(seed.Name, seed.Username)
	email := firstNonEmpty(seed.Email, seed.Username+"@example.com")
	return st.addUser(seed.Username, name, email, seed.Admin), nil
}

// userNamed finds a user by username, for seeds. s.mu must be held.
func (st *state) userNamed(username string) (*user, error) {
	u := st.userByName[strings.ToLower(username)]
	if u == nil {
		return nil, fmt.Errorf("sourcehostfake: no user %q", username)
	}
	return u, nil
}

func (c *call) currentUser() fakekit.Answer {
	u := c.user
	v := currentUserJSON{CreatedAt: stamp(u.createdAt), Email: u.email, IsAdmin: u.admin}
	c.userView(&v.userJSON, u)
	return c.doc(http.StatusOK, v.appendJSON(c.buf()))
}

// containsFold reports whether s contains sub, ignoring case.
func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

// userDetailJSON is a user as GET /users and GET /users/:id show one: the
// public fields to everyone, and to administrators also the email and
// whether the user is one (the real service's UserDetailsWithAdmin).
type userDetailJSON struct {
	userJSON
	CreatedAt stamp   `json:"created_at"`
	Bio       string  `json:"bio"`
	Email     *string `json:"email,omitempty"`
	IsAdmin   *bool   `json:"is_admin,omitempty"`
}

func (c *call) userDetail(u *user) userDetailJSON {
	v := userDetailJSON{CreatedAt: stamp(u.createdAt)}
	c.userView(&v.userJSON, u)
	if c.user != nil && c.user.admin {
		v.Email, v.IsAdmin = &u.email, &u.admin
	}
	return v
}

// listUsers is GET /users: every user, by id, narrowed by username (exact,
// case-insensitively), search (in username, name and, for administrators,
// email) and active or blocked (the fake's users are all active).
func (c *call) listUsers() fakekit.Answer {
	p := c.p
	username, byName := p.str("username")
	search, _ := p.str("search")
	active, _ := p.boolean("active")
	blocked, _ := p.boolean("blocked")
	if msg := p.problem(); msg != "" {
		return badRequest(msg)
	}
	admin := c.user != nil && c.user.admin
	items := keep(slices.Sorted(maps.Keys(c.st.users)), func(id int64) bool {
		u := c.st.users[id]
		switch {
		case byName && !strings.EqualFold(u.username, username),
			search != "" && !containsFold(u.username, search) && !containsFold(u.name, search) && !(admin && containsFold(u.email, search)),
			active && u.state != "active",
			blocked && u.state != "blocked":
			return false
		}
		return true
	})
	keyset, desc, fail := c.keysetOrder("desc", "asc")
	if fail != nil {
		return *fail
	}
	var page []int64
	if keyset { // by id, newest first unless sort=asc (keyset.go)
		if desc {
			slices.Reverse(items)
		}
		page, fail = cursorPage(c, items, func(id int64) int64 { return id }, desc)
	} else {
		page, fail = paginate(c, items)
	}
	if fail != nil {
		return *fail
	}
	return ok(renderAll(page, func(id int64) userDetailJSON { return c.userDetail(c.st.users[id]) }))
}

// getUser is GET /users/:user_id.
func (c *call) getUser() fakekit.Answer {
	u, fail := c.pathUser()
	if fail != nil {
		return *fail
	}
	return ok(c.userDetail(u))
}

// pathUser is the route's {user_id} user: 404 "404 User Not Found" for
// none.
func (c *call) pathUser() (*user, *fakekit.Answer) {
	id, valid := c.pathInt("user_id")
	if u := c.st.users[id]; valid && u != nil {
		return u, nil
	}
	return nil, errAnswer(notFound("User"))
}
