package sourcehostfake

import (
	"cmp"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/apitwin/apitwin/internal/fakekit"
	"github.com/apitwin/apitwin/internal/jsonw"
)

// member is one row of a project's members: a user, its level, and
// whether the membership is the project's own (not inherited).
type member struct {
	u      *user
	level  int
	since  time.Time
	direct bool
}

// projectMembers lists a project's members by user id: the owner of a
// personal project's namespace (an Owner the project cannot lose), its
// direct members and, with inherited, the members of its group with the
// higher of the two levels. s.mu must be held.
func (st *state) projectMembers(p *project, inherited bool) []member {
	var out []member
	add := func(u *user, level int, since time.Time, direct bool) {
		if u == nil {
			return
		}
		if i := slices.IndexFunc(out, func(m member) bool { return m.u == u }); i >= 0 {
			if level > out[i].level {
				out[i].level = level
			}
			out[i].direct = out[i].direct || direct
			return
		}
		out = append(out, member{u: u, level: level, since: since, direct: direct})
	}
	if p.ns.kind == "user" {
		add(p.ns.owner, Owner, p.createdAt, true)
	}
	for id, level := range p.members {
		since, ok := p.memberSince[id]
		if !ok {
			since = p.createdAt
		}
		add(st.users[id], level, since, true)
	}
	for ns := p.ns; inherited && ns != nil && ns.kind == "group"; ns = ns.parent { // its group's and their parents'
		for id, level := range ns.members {
			add(st.users[id], level, p.createdAt, false)
		}
	}
	slices.SortFunc(out, func(a, b member) int { return cmp.Compare(a.u.id, b.u.id) })
	return out
}

func (c *call) listMembers(inherited bool) fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	query, _ := c.p.str("query")
	ids, _ := c.p.intList("user_ids")
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	items := keep(c.st.projectMembers(pr, inherited), func(m member) bool {
		return (query == "" || containsFold(m.u.username, query) || containsFold(m.u.name, query)) &&
			(len(ids) == 0 || slices.Contains(ids, m.u.id))
	})
	page, fail := paginate(c, items)
	if fail != nil {
		return *fail
	}
	return c.doc(http.StatusOK, jsonw.AppendArray(c.buf(), page, func(b []byte, m member) []byte { return c.appendMember(b, pr, m) }))
}

func (c *call) listProjectMembers() fakekit.Answer    { return c.listMembers(false) }
func (c *call) listAllProjectMembers() fakekit.Answer { return c.listMembers(true) }

// findMember finds the route's {user_id} among the direct members of the
// {id} project (with all, among every member).
func (c *call) findMember(all bool) (*project, member, *fakekit.Answer) {
	pr, fail := c.project()
	if fail != nil {
		return nil, member{}, fail
	}
	id, valid := c.pathInt("user_id")
	for _, m := range c.st.projectMembers(pr, all) {
		if valid && m.u.id == id && (all || m.direct) {
			return pr, m, nil
		}
	}
	return nil, member{}, errAnswer(notFound("Member"))
}

func (c *call) getProjectMember() fakekit.Answer {
	pr, m, fail := c.findMember(false)
	if fail != nil {
		return *fail
	}
	return c.doc(http.StatusOK, c.appendMember(c.buf(), pr, m))
}

func (c *call) getInheritedProjectMember() fakekit.Answer {
	pr, m, fail := c.findMember(true)
	if fail != nil {
		return *fail
	}
	return c.doc(http.StatusOK, c.appendMember(c.buf(), pr, m))
}

var accessLevelValues = []int64{Guest, Reporter, Developer, Maintainer, Owner}

// readMembership reads access_level (required when need) and expires_at.
func (c *call) readMembership(need bool) (level int64, expires string, hasExpires bool) {
	level, has := c.p.int("access_level")
	switch {
	case !has && need:
		c.p.fail("access_level", "is missing")
	case has && !slices.Contains(accessLevelValues, level):
		c.p.fail("access_level", "does not have a valid value")
	}
	expires, hasExpires = c.p.str("expires_at")
	if hasExpires && expires != "" {
		if _, err := time.Parse(time.DateOnly, expires); err != nil {
			c.p.fail("expires_at", "is invalid")
		}
	}
	return level, expires, hasExpires
}

// mayGrant checks that the caller may manage members of pr, and give (or
// take) level: a maintainer, and an owner for Owner.
func (c *call) mayGrant(pr *project, level int) *fakekit.Answer {
	if fail := c.atLeast(pr, Maintainer); fail != nil {
		return fail
	}
	if level >= Owner {
		return c.atLeast(pr, Owner)
	}
	return nil
}

func (c *call) addProjectMember() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	uid, hasUser := c.p.int("user_id")
	if !hasUser && !c.p.has("username") {
		c.p.fail("user_id", "is missing")
	}
	level, expires, _ := c.readMembership(true)
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	if fail := c.mayGrant(pr, int(level)); fail != nil {
		return *fail
	}
	u := c.st.users[uid]
	if !hasUser {
		name, _ := c.p.str("username")
		u = c.st.userByName[strings.ToLower(name)]
	}
	if u == nil {
		return notFound("User")
	}
	for _, m := range c.st.projectMembers(pr, false) {
		if m.u == u {
			return message(http.StatusConflict, "Member already exists")
		}
	}
	pr.members[u.id] = int(level)
	c.st.made("member", 1)
	pr.memberSince[u.id] = c.st.clock.Now()
	if expires != "" {
		pr.memberExpires[u.id] = expires
	}
	m := member{u: u, level: int(level), since: pr.memberSince[u.id], direct: true}
	return c.doc(http.StatusCreated, c.appendMember(c.buf(), pr, m))
}

func (c *call) editProjectMember() fakekit.Answer {
	pr, m, fail := c.findMember(false)
	if fail != nil {
		return *fail
	}
	level, expires, hasExpires := c.readMembership(true)
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	if fail := c.mayGrant(pr, max(int(level), m.level)); fail != nil {
		return *fail
	}
	if pr.ns.kind == "user" && pr.ns.owner == m.u {
		return forbidden() // the namespace's owner stays Owner
	}
	pr.members[m.u.id] = int(level)
	m.level = int(level)
	switch {
	case hasExpires && expires == "":
		delete(pr.memberExpires, m.u.id)
	case hasExpires:
		pr.memberExpires[m.u.id] = expires
	}
	return c.doc(http.StatusOK, c.appendMember(c.buf(), pr, m))
}

func (c *call) removeProjectMember() fakekit.Answer {
	pr, m, fail := c.findMember(false)
	if fail != nil {
		return *fail
	}
	if m.u != c.user { // leaving a project takes no level
		if fail := c.mayGrant(pr, m.level); fail != nil {
			return *fail
		}
	}
	if pr.ns.kind == "user" && pr.ns.owner == m.u {
		return forbidden()
	}
	delete(pr.members, m.u.id)
	delete(pr.memberSince, m.u.id)
	delete(pr.memberExpires, m.u.id)
	c.s.removed("member", 1)
	return fakekit.Answer{Status: http.StatusNoContent}
}
