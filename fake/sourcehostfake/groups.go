package sourcehostfake

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apitwin/apitwin/internal/fakekit"
	"github.com/apitwin/apitwin/internal/jsonw"
)

// MemberSeed gives a user an access level in a group or a project.
type MemberSeed struct {
	Username string `json:"username" yaml:"username"`
	// AccessLevel is Guest (10), Reporter (20), Developer (30), Maintainer
	// (40) or Owner (50).
	AccessLevel int `json:"access_level" yaml:"access_level"`
}

// GroupSeed is a group to add (AddGroup, Seed.Groups): a namespace that
// projects can belong to, whose members have access to all its projects.
type GroupSeed struct {
	Path string `json:"path" yaml:"path"`
	// Name empty means the path.
	Name string `json:"name,omitempty" yaml:"name,omitempty"`
	// Parent is the full path of the group this one is a subgroup of
	// ("" for a top-level group); it must have been added before.
	Parent string `json:"parent,omitempty" yaml:"parent,omitempty"`
	// Visibility is public, internal or private (empty means private).
	Visibility  string       `json:"visibility,omitempty" yaml:"visibility,omitempty"`
	Description string       `json:"description,omitempty" yaml:"description,omitempty"`
	Members     []MemberSeed `json:"members,omitempty" yaml:"members,omitempty"`
}

// AddGroup adds a group namespace with its members and returns its id.
func (s *Server) AddGroup(seed GroupSeed) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !projectPathRE.MatchString(seed.Path) || len(seed.Path) > 255 {
		return 0, fmt.Errorf("sourcehostfake: invalid group path %q", seed.Path)
	}
	var parent *namespace
	if seed.Parent != "" {
		if parent = s.st.group(seed.Parent); parent == nil {
			return 0, fmt.Errorf("sourcehostfake: no parent group %q", seed.Parent)
		}
		if parent.depth() >= maxGroupDepth {
			return 0, fmt.Errorf("sourcehostfake: group %q nests deeper than %d levels", seed.Path, maxGroupDepth)
		}
	}
	full := groupFullPath(parent, seed.Path)
	if s.st.nsByPath[strings.ToLower(full)] != nil {
		return 0, fmt.Errorf("sourcehostfake: namespace %q is taken", full)
	}
	visibility := firstNonEmpty(seed.Visibility, "private")
	if !slices.Contains(visibilities, visibility) {
		return 0, fmt.Errorf("sourcehostfake: group visibility %q is not public, internal or private", visibility)
	}
	if parent != nil && visibilityLevel(visibility) > visibilityLevel(parent.visibility) {
		return 0, fmt.Errorf("sourcehostfake: group %q: %s", full, visibilityAboveParent(visibility, parent))
	}
	members, err := s.st.seedMembers(seed.Members)
	if err != nil {
		return 0, err
	}
	if err := s.seedRoom(recordNeed{"namespace", 1}, recordNeed{"member", len(members)}); err != nil {
		return 0, err
	}
	ns := s.st.addGroup(firstNonEmpty(seed.Name, seed.Path), seed.Path, parent, visibility, seed.Description)
	s.st.addMembers(ns.members, members)
	return ns.id, nil
}

// seedMembers checks members and returns their levels by user id, the
// last entry for a user winning. s.mu must be held.
func (st *state) seedMembers(seeds []MemberSeed) (map[int64]int, error) {
	out := map[int64]int{}
	for i, m := range seeds {
		u, err := st.userNamed(m.Username)
		if err == nil && (m.AccessLevel < Guest || m.AccessLevel > Owner) {
			err = fmt.Errorf("sourcehostfake: invalid access level %d", m.AccessLevel)
		}
		if err != nil {
			return nil, at(fmt.Sprintf("members[%d]", i), err)
		}
		out[u.id] = m.AccessLevel
	}
	return out, nil
}

// AddGroupMember gives a user an access level (Guest … Owner) in a group,
// and so in all its projects.
func (s *Server) AddGroupMember(groupPath, username string, level int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ns := s.st.group(groupPath)
	if ns == nil {
		return fmt.Errorf("sourcehostfake: no group %q", groupPath)
	}
	members, err := s.st.seedMembers([]MemberSeed{{Username: username, AccessLevel: level}})
	if err != nil {
		return unwrapEntry(err)
	}
	if err := s.seedRoom(recordNeed{"member", 1}); err != nil {
		return err
	}
	s.st.addMembers(ns.members, members)
	return nil
}

// maxGroupDepth is how deep groups nest, as the real service bounds it: a
// group has at most 20 levels above it and itself.
const maxGroupDepth = 20

// visibilities are the visibility levels, least visible first.
var visibilities = []string{"private", "internal", "public"}

// visibilityLevel orders visibilities: private 0, internal 1, public 2.
func visibilityLevel(v string) int { return slices.Index(visibilities, v) }

// visibilityAboveParent is the real service's refusal of a group more
// visible than its parent.
func visibilityAboveParent(v string, parent *namespace) string {
	return v + " is not allowed since the parent group has a " + parent.visibility + " visibility."
}

// visibilityAboveGroup is the real service's refusal of a project in ns
// more visible than ns, if ns is a group (visibility_level_allowed_by_group),
// or "".
func visibilityAboveGroup(v string, ns *namespace) string {
	if ns.kind != "group" || visibilityLevel(v) <= visibilityLevel(ns.visibility) {
		return ""
	}
	return v + " is not allowed in a " + ns.visibility + " group."
}

// depth is how many groups ns is in, itself included; past
// maxGroupDepth it stops counting (at maxGroupDepth+1), so that a
// snapshot's parents that loop end too.
func (ns *namespace) depth() int {
	n := 0
	for g := ns; g != nil && n <= maxGroupDepth; g = g.parent {
		n++
	}
	return n
}

// groupFullPath is the full path of a group named path under parent.
func groupFullPath(parent *namespace, path string) string {
	if parent == nil {
		return path
	}
	return parent.fullPath + "/" + path
}

// addGroup adds a group namespace under parent (nil: top level). s.mu
// must be held.
func (st *state) addGroup(name, path string, parent *namespace, visibility, description string) *namespace {
	ns := st.addNamespace(name, path, "group", nil)
	delete(st.nsByPath, strings.ToLower(path))
	ns.parent, ns.fullPath, ns.visibility, ns.description, ns.createdAt = parent, groupFullPath(parent, path), visibility, description, st.clock.Now()
	st.nsByPath[strings.ToLower(ns.fullPath)] = ns
	return ns
}

// group finds a group by id or by full path (the {id} of a group's
// route, "group/sub" sent as "group%2Fsub"). s.mu must be held.
func (st *state) group(ref string) *namespace {
	var ns *namespace
	if id, err := strconv.ParseInt(ref, 10, 64); err == nil {
		ns = st.nss[id]
	} else {
		ns = st.nsByPath[strings.ToLower(strings.Trim(ref, "/"))]
	}
	if ns == nil || ns.kind != "group" {
		return nil
	}
	return ns
}

// canSeeGroup reports whether a user may see a group: a public one
// everyone, an internal one every signed-in user, a private one its
// members and its ancestors' (and administrators).
func (st *state) canSeeGroup(u *user, ns *namespace) bool {
	switch ns.visibility {
	case "public":
		return true
	case "internal":
		return u != nil
	}
	return u != nil && (u.admin || st.groupAccess(u, ns) >= Guest)
}

// groupLevel is a user's access level in a group: Owner for an
// administrator.
func (st *state) groupLevel(u *user, ns *namespace) int {
	if u == nil {
		return NoAccess
	}
	if u.admin {
		return Owner
	}
	return st.groupAccess(u, ns)
}

// pathGroup is the route's {id} group, if the caller may see it; 404 "404
// Group Not Found" otherwise.
func (c *call) pathGroup() (*namespace, *fakekit.Answer) {
	ns := c.st.group(c.r.PathValue("id"))
	if ns == nil || !c.st.canSeeGroup(c.user, ns) {
		return nil, errAnswer(notFound("Group"))
	}
	return ns, nil
}

// groupJSON is a group as the API shows one.
type groupJSON struct {
	ID                    int64   `json:"id"`
	WebURL                string  `json:"web_url"`
	Name                  string  `json:"name"`
	Path                  string  `json:"path"`
	Description           string  `json:"description"`
	Visibility            string  `json:"visibility"`
	ShareWithGroupLock    bool    `json:"share_with_group_lock"`
	RequireTwoFactorAuth  bool    `json:"require_two_factor_authentication"`
	ProjectCreationLevel  string  `json:"project_creation_level"`
	SubgroupCreationLevel string  `json:"subgroup_creation_level"`
	LFSEnabled            bool    `json:"lfs_enabled"`
	RequestAccessEnabled  bool    `json:"request_access_enabled"`
	AvatarURL             *string `json:"avatar_url"`
	FullName              string  `json:"full_name"`
	FullPath              string  `json:"full_path"`
	CreatedAt             stamp   `json:"created_at"`
	ParentID              *int64  `json:"parent_id"`
	MarkedForDeletionOn   *string `json:"marked_for_deletion_on"`
}

// groupDetailJSON is a single group (GET /groups/:id, and the answers of
// POST and PUT): the group with the projects directly in it that the
// caller sees, as the real service still sends them by default.
type groupDetailJSON struct {
	groupJSON
	Projects       []json.RawMessage `json:"projects"`
	SharedProjects []json.RawMessage `json:"shared_projects"`
}

// maxGroupDetailProjects bounds the projects a group's answer holds, as
// the real service's (GET /groups/:id/projects pages them all).
const maxGroupDetailProjects = 100

func (c *call) groupView(ns *namespace) groupJSON {
	v := groupJSON{ID: ns.id, WebURL: c.base + "/groups/" + ns.fullPath, Name: ns.name, Path: ns.path, Description: ns.description,
		Visibility: ns.visibility, ProjectCreationLevel: "maintainer", SubgroupCreationLevel: "maintainer", LFSEnabled: true,
		RequestAccessEnabled: true, FullName: ns.fullName(), FullPath: ns.fullPath, CreatedAt: stamp(ns.createdAt)}
	if ns.parent != nil {
		v.ParentID = &ns.parent.id
	}
	v.MarkedForDeletionOn = markedOn(ns.markedForDeletion)
	return v
}

func (c *call) groupDetail(ns *namespace) groupDetailJSON {
	v := groupDetailJSON{groupJSON: c.groupView(ns), Projects: []json.RawMessage{}, SharedProjects: []json.RawMessage{}}
	for _, pr := range c.st.projects {
		if len(v.Projects) == maxGroupDetailProjects {
			break
		}
		if pr.ns == ns && c.st.canSee(c.user, pr) {
			v.Projects = append(v.Projects, c.appendProject(nil, pr, false))
		}
	}
	return v
}

// groupsMatching are the groups the caller sees that the list
// parameters of GET /groups (and of a group's subgroups, under) accept,
// in the order they ask for: search (in name and path), owned,
// min_access_level, top_level_only, all_available (for a signed-in user
// who is no administrator, without it: only groups they are a member of),
// visibility; order_by name (the default), path or id, sort asc (the
// default) or desc.
func (c *call) groupsMatching(under *namespace) ([]*namespace, *fakekit.Answer) {
	p := c.p
	search, _ := p.str("search")
	owned, _ := p.boolean("owned")
	minLevel, _ := p.int("min_access_level")
	topOnly, _ := p.boolean("top_level_only")
	allAvailable, given := p.boolean("all_available")
	visibility, _ := p.oneOf("visibility", visibilities...)
	orderBy, byGiven := p.oneOf("order_by", "name", "path", "id")
	dir, _ := p.oneOf("sort", "asc", "desc")
	if msg := p.problem(); msg != "" {
		return nil, errAnswer(badRequest(msg))
	}
	if !byGiven {
		orderBy = "name"
	}
	if !given {
		allAvailable = c.user == nil || c.user.admin || under != nil
	}
	var out []*namespace
	for _, ns := range c.st.nss {
		level := c.st.groupLevel(c.user, ns)
		switch {
		case ns.kind != "group", under != nil && ns.parent != under, !c.st.canSeeGroup(c.user, ns),
			!allAvailable && c.st.groupAccess(c.user, ns) < Guest,
			owned && level < Owner, minLevel > 0 && int64(level) < minLevel,
			topOnly && ns.parent != nil, visibility != "" && ns.visibility != visibility,
			search != "" && !containsFold(ns.name, search) && !containsFold(ns.path, search):
			continue
		}
		out = append(out, ns)
	}
	slices.SortFunc(out, func(a, b *namespace) int {
		var r int
		switch orderBy {
		case "name":
			r = cmp.Compare(strings.ToLower(a.name), strings.ToLower(b.name))
		case "path":
			r = cmp.Compare(strings.ToLower(a.fullPath), strings.ToLower(b.fullPath))
		}
		return ordered(r, a.id, b.id, dir == "desc")
	})
	return out, nil
}

// listGroups is GET /groups.
func (c *call) listGroups() fakekit.Answer { return c.listGroupsUnder(nil) }

// listSubgroups is GET /groups/:id/subgroups: the groups directly in it.
func (c *call) listSubgroups() fakekit.Answer {
	g, fail := c.pathGroup()
	if fail != nil {
		return *fail
	}
	return c.listGroupsUnder(g)
}

func (c *call) listGroupsUnder(under *namespace) fakekit.Answer {
	items, fail := c.groupsMatching(under)
	if fail != nil {
		return *fail
	}
	// The real service pages GET /groups by keyset for anonymous callers
	// alone (present_groups_with_pagination_strategies); signed in, it
	// pages by offset whatever pagination says.
	if mode, _ := c.p.oneOf("pagination", "offset", "keyset"); mode == "keyset" && under == nil && c.user == nil {
		page, fail := groupKeysetPage(c, items)
		if fail != nil {
			return *fail
		}
		return ok(renderAll(page, c.groupView))
	}
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	page, fail := paginate(c, items)
	if fail != nil {
		return *fail
	}
	return ok(renderAll(page, c.groupView))
}

func (c *call) getGroup() fakekit.Answer {
	g, fail := c.pathGroup()
	if fail != nil {
		return *fail
	}
	return ok(c.groupDetail(g))
}

// groupNameRE is what a group's name may hold, as the real service has it.
var groupNameRE = regexp.MustCompile(`^[\p{L}\p{N}_][\p{L}\p{N}_.()\- ]*$`)

// checkGroupFields checks a group's name and path (those given), and that
// its full path under parent is free (other than for self); it returns
// the problems by field, the real service's validation messages.
func (c *call) checkGroupFields(fields map[string][]string, name, path string, hasName, hasPath bool, parent, self *namespace) {
	if hasName {
		if len(name) > 255 {
			fields["name"] = append(fields["name"], "is too long (maximum is 255 characters)")
		} else if !groupNameRE.MatchString(name) {
			fields["name"] = append(fields["name"], "can contain only letters, digits, emoji, '_', '.', dash, space, parenthesis. It must start with letter, digit, emoji or '_'.")
		}
	}
	if hasPath {
		if len(path) > 255 {
			fields["path"] = append(fields["path"], "is too long (maximum is 255 characters)")
		} else if !projectPathRE.MatchString(path) || strings.HasSuffix(path, ".git") || strings.HasSuffix(path, ".atom") {
			fields["path"] = append(fields["path"], "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'")
		} else if other := c.st.nsByPath[strings.ToLower(groupFullPath(parent, path))]; other != nil && other != self {
			fields["path"] = append(fields["path"], "has already been taken")
		}
	}
}

// createGroup is POST /groups: a top-level group, which any signed-in user
// may make, or a subgroup (parent_id), which takes a maintainer of the
// parent. The caller becomes its owner.
func (c *call) createGroup() fakekit.Answer {
	p := c.p
	name := p.required("name")
	path := p.required("path")
	description, _ := p.str("description")
	visibility, hasVis := p.oneOf("visibility", visibilities...)
	parentID, hasParent := p.int("parent_id")
	if msg := p.problem(); msg != "" {
		return badRequest(msg)
	}
	var parent *namespace
	if hasParent && parentID != 0 {
		parent = c.st.group(strconv.FormatInt(parentID, 10))
		if parent == nil || !c.st.canSeeGroup(c.user, parent) {
			return notFound("Group")
		}
		if c.st.groupLevel(c.user, parent) < Maintainer {
			return forbidden()
		}
	}
	if !hasVis {
		visibility = "private"
		if parent != nil && visibilityLevel(parent.visibility) < visibilityLevel(visibility) {
			visibility = parent.visibility
		}
	}
	fields := map[string][]string{}
	c.checkGroupFields(fields, name, path, true, true, parent, nil)
	if utf8.RuneCountInString(description) > maxProjectDescription {
		fields["description"] = append(fields["description"], "is too long (maximum is 2000 characters)")
	}
	if parent != nil && parent.depth() >= maxGroupDepth {
		fields["parent_id"] = append(fields["parent_id"], "has too deep level of nesting")
	}
	if parent != nil && visibilityLevel(visibility) > visibilityLevel(parent.visibility) {
		fields["visibility_level"] = append(fields["visibility_level"], visibilityAboveParent(visibility, parent))
	}
	if len(fields) > 0 {
		return invalid(http.StatusBadRequest, fields)
	}
	g := c.st.addGroup(name, path, parent, visibility, description)
	c.st.addMembers(g.members, map[int64]int{c.user.id: Owner})
	return created(c.groupDetail(g))
}

// updateGroup is PUT /groups/:id: its name, path, description and
// visibility, by an owner. A group may not be more visible than its
// parent, nor less than its subgroups and projects.
func (c *call) updateGroup() fakekit.Answer {
	g, fail := c.pathGroup()
	if fail != nil {
		return *fail
	}
	p := c.p
	name, hasName := p.str("name")
	path, hasPath := p.str("path")
	description, hasDescription := p.str("description")
	visibility, hasVis := p.oneOf("visibility", visibilities...)
	if msg := p.problem(); msg != "" {
		return badRequest(msg)
	}
	if c.st.groupLevel(c.user, g) < Owner {
		return forbidden()
	}
	fields := map[string][]string{}
	c.checkGroupFields(fields, name, path, hasName, hasPath, g.parent, g)
	if hasDescription && utf8.RuneCountInString(description) > maxProjectDescription {
		fields["description"] = append(fields["description"], "is too long (maximum is 2000 characters)")
	}
	if hasVis {
		if why := c.visibilityRefused(g, visibility); why != "" {
			fields["visibility_level"] = append(fields["visibility_level"], why)
		}
	}
	if len(fields) > 0 {
		return invalid(http.StatusBadRequest, fields)
	}
	if hasName {
		g.name = name
	}
	if hasDescription {
		g.description = description
	}
	if hasVis {
		g.visibility = visibility
	}
	if hasPath && path != g.path {
		g.path = path
		c.st.reindexPaths()
	}
	return ok(c.groupDetail(g))
}

// visibilityRefused says why g may not take visibility v, or "".
func (c *call) visibilityRefused(g *namespace, v string) string {
	level := visibilityLevel(v)
	if g.parent != nil && level > visibilityLevel(g.parent.visibility) {
		return visibilityAboveParent(v, g.parent)
	}
	for _, ns := range c.st.nss {
		if ns.parent == g && visibilityLevel(ns.visibility) > level {
			return v + " is not allowed since there are sub-groups with higher visibility."
		}
	}
	for _, pr := range c.st.projects {
		if pr.ns == g && visibilityLevel(pr.visibility) > level {
			return v + " is not allowed since this group contains projects with higher visibility."
		}
	}
	return ""
}

// reindexPaths sets every group's full path from its parents' and the
// lookups by path again, after a group's path changed. s.mu must be held.
func (st *state) reindexPaths() {
	// Parents before children: by depth.
	byDepth := slices.Collect(maps.Values(st.nss))
	slices.SortFunc(byDepth, func(a, b *namespace) int { return cmp.Compare(a.depth(), b.depth()) })
	clear(st.nsByPath)
	for _, ns := range byDepth {
		if ns.kind == "group" {
			ns.fullPath = groupFullPath(ns.parent, ns.path)
		}
		st.nsByPath[strings.ToLower(ns.fullPath)] = ns
	}
	clear(st.projByPath)
	for _, pr := range st.projects {
		st.projByPath[strings.ToLower(pr.fullPath())] = pr
	}
}

// dropGroup removes g, its subgroups and their projects, each project let
// go as DELETE /projects/:id lets it go (releaseProject). The records are
// counted again from the state. s.mu must be held.
func (s *Server) dropGroup(g *namespace) {
	st := s.st
	gone := map[int64]bool{}
	st.projects = slices.DeleteFunc(st.projects, func(pr *project) bool {
		if !pr.ns.within(g) {
			return false
		}
		gone[pr.id] = true
		s.releaseProject(pr)
		return true
	})
	if len(gone) > 0 {
		for _, u := range st.users {
			maps.DeleteFunc(u.starred, func(id int64, _ bool) bool { return gone[id] })
		}
	}
	for id, ns := range st.nss {
		if ns.within(g) {
			delete(st.nss, id)
			delete(st.nsByPath, strings.ToLower(ns.fullPath))
		}
	}
	s.recs = stateRecords{} // counted again from the state when next needed
}

// listGroupProjects is GET /groups/:id/projects: the projects in the
// group the caller sees (with include_subgroups, those of its subgroups
// too), narrowed by search and visibility, ordered as GET /projects.
func (c *call) listGroupProjects() fakekit.Answer {
	g, fail := c.pathGroup()
	if fail != nil {
		return *fail
	}
	p := c.p
	subgroups, _ := p.boolean("include_subgroups")
	search, _ := p.str("search")
	visibility, _ := p.oneOf("visibility", visibilities...)
	orderBy, desc := sortOrder(p, "created_at", "id", "name", "path", "updated_at", "last_activity_at")
	if msg := p.problem(); msg != "" {
		return badRequest(msg)
	}
	accepted := func(pr *project) bool {
		switch {
		case pr.ns != g && !(subgroups && pr.ns.within(g)), !c.st.canSee(c.user, pr),
			visibility != "" && pr.visibility != visibility,
			search != "" && !containsFold(pr.name, search) && !containsFold(pr.path, search):
			return false
		}
		return true
	}
	order := projectOrder(orderBy, desc)
	page, fail := sortedPage(c, c.st.projects, accepted, order, "")
	if fail != nil {
		return *fail
	}
	return c.doc(http.StatusOK, jsonw.AppendArray(c.buf(), page, func(b []byte, pr *project) []byte {
		return c.appendProject(b, pr, false)
	}))
}

// listGroupMembers is GET /groups/:id/members: its direct members.
func (c *call) listGroupMembers() fakekit.Answer { return c.groupMembers(false) }

// listAllGroupMembers is GET /groups/:id/members/all: its members and its
// ancestors', each with the highest level they have.
func (c *call) listAllGroupMembers() fakekit.Answer { return c.groupMembers(true) }

func (c *call) groupMembers(inherited bool) fakekit.Answer {
	g, fail := c.pathGroup()
	if fail != nil {
		return *fail
	}
	query, _ := c.p.str("query")
	ids, _ := c.p.intList("user_ids")
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	levels := map[int64]int{}
	for ns := g; ns != nil; ns = ns.parent {
		for id, level := range ns.members {
			levels[id] = max(levels[id], level)
		}
		if !inherited {
			break
		}
	}
	var items []member
	for _, id := range slices.Sorted(maps.Keys(levels)) {
		u := c.st.users[id]
		if u == nil || query != "" && !containsFold(u.username, query) && !containsFold(u.name, query) ||
			len(ids) > 0 && !slices.Contains(ids, id) {
			continue
		}
		items = append(items, member{u: u, level: levels[id], since: g.createdAt, direct: g.members[id] != 0})
	}
	page, fail := paginate(c, items)
	if fail != nil {
		return *fail
	}
	return ok(renderAll(page, func(m member) memberJSON {
		v := memberJSON{AccessLevel: m.level, CreatedAt: stamp(m.since), MembershipState: "active"}
		c.userView(&v.userJSON, m.u)
		return v
	}))
}
