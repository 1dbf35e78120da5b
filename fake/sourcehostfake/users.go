package sourcehostfake

import (
	"cmp"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

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
// email) and active or blocked (the fake's users are all active); under
// keyset pagination in order_by's order, sort's way (userKeysetPage).
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
	by, _ := p.oneOf("order_by", userOrders...)
	dir, _ := p.oneOf("sort", "asc", "desc")
	mode, _ := p.oneOf("pagination", "offset", "keyset")
	if msg := p.problem(); msg != "" {
		return badRequest(msg)
	}
	var page []int64
	var fail *fakekit.Answer
	if mode == "keyset" {
		page, fail = c.userKeysetPage(items, by, dir == "asc")
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

// userOrders are the orders GET /users takes (order_by), each walked
// either way (sort, desc the default) under keyset pagination, as the
// real service walks them; id is the default.
var userOrders = []string{"id", "name", "username", "created_at", "updated_at"}

// cursorTime is how a keyset cursor writes a time: fixed width, so that
// two compare as their strings do.
const cursorTime = "2006-01-02T15:04:05.000000000Z"

// userKey is u's value in order by, as compared: names and usernames
// case-insensitively, times in cursorTime; "" for id (the id alone). The
// fake never edits a user, so its updated_at is its created_at.
func userKey(u *user, by string) string {
	switch by {
	case "name":
		return strings.ToLower(u.name)
	case "username":
		return strings.ToLower(u.username)
	case "created_at", "updated_at":
		return u.createdAt.UTC().Format(cursorTime)
	}
	return ""
}

// userKeysetPage is GET /users under keyset pagination: the users of ids
// ordered by by (id when empty), ties broken by id in the same direction,
// descending unless asc, a page after the request's cursor, whose Link
// carries the cursor of the page's last user: {"<by>":…,"id":…,"_kd":"n"}
// (the id alone when by is id), as the real service writes it.
func (c *call) userKeysetPage(ids []int64, by string, asc bool) ([]int64, *fakekit.Answer) {
	if by == "" {
		by = "id"
	}
	// compare orders (key, id) pairs in the walk's direction.
	compare := func(ka string, ia int64, kb string, ib int64) int {
		r := cmp.Or(strings.Compare(ka, kb), cmp.Compare(ia, ib))
		if !asc {
			r = -r
		}
		return r
	}
	// Each user's key is made once, not at each comparison (a name
	// lowered, a time formatted).
	keyed := make([]keyedUser, len(ids))
	for i, id := range ids {
		keyed[i] = keyedUser{id, userKey(c.st.users[id], by)}
	}
	slices.SortFunc(keyed, func(a, b keyedUser) int { return compare(a.key, a.id, b.key, b.id) })
	key := func(k keyedUser) cursor {
		u := c.st.users[k.id]
		cur := cursor{ID: strconv.FormatInt(k.id, 10)}
		switch by {
		case "name":
			cur.Name = u.name
		case "username":
			cur.Username = u.username
		case "created_at":
			cur.CreatedAt = userKey(u, by)
		case "updated_at":
			cur.UpdatedAt = userKey(u, by)
		}
		return cur
	}
	page, fail := keyedPage(c, keyed, keyCursor(keyed, key, func(cur cursor) (func(keyedUser) bool, bool) {
		after, err := strconv.ParseInt(cur.ID, 10, 64)
		if err != nil || after <= 0 {
			return nil, false
		}
		var k string
		switch by {
		case "name":
			k = strings.ToLower(cur.Name)
		case "username":
			k = strings.ToLower(cur.Username)
		case "created_at", "updated_at":
			k = cur.CreatedAt
			if by == "updated_at" {
				k = cur.UpdatedAt
			}
			if _, err := time.Parse(cursorTime, k); err != nil {
				return nil, false
			}
		}
		return func(u keyedUser) bool { return compare(u.key, u.id, k, after) > 0 }, true
	}))
	if fail != nil {
		return nil, fail
	}
	out := make([]int64, len(page))
	for i, u := range page {
		out[i] = u.id
	}
	return out, nil
}

// keyedUser is a user's id with its key in a keyset order (userKey).
type keyedUser struct {
	id  int64
	key string
}
