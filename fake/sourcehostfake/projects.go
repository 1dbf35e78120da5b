package sourcehostfake

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/apitwin/apitwin/internal/fakekit"
	"github.com/apitwin/apitwin/internal/jsonw"
)

func (c *call) listProjects() fakekit.Answer { return c.projectList(nil) }

// projectList answers a list of the projects the caller can see, those
// of also when it is not nil, filtered, ordered and paged as the request
// asks.
func (c *call) projectList(of func(*project) bool) fakekit.Answer {
	p := c.p
	visibility, _ := p.oneOf("visibility", "public", "internal", "private")
	archived, hasArchived := p.boolean("archived")
	owned, _ := p.boolean("owned")
	starred, _ := p.boolean("starred")
	membership, _ := p.boolean("membership")
	search, _ := p.str("search")
	stats, _ := p.boolean("statistics")
	orderBy, desc := sortOrder(p, "created_at", "id", "name", "path", "updated_at", "last_activity_at")
	mode, _ := p.oneOf("pagination", "offset", "keyset")
	if msg := p.problem(); msg != "" {
		return badRequest(msg)
	}
	keyset := mode == "keyset"
	if keyset {
		if by, given := p.str("order_by"); given && by != "id" {
			return *keysetRefused() // the real service walks projects by id alone
		}
		orderBy = "id"
	}
	if (owned || starred || membership) && c.user == nil {
		return message(http.StatusUnauthorized, "401 Unauthorized")
	}
	visible := func(pr *project) bool {
		switch {
		case of != nil && !of(pr),
			!c.st.canSee(c.user, pr),
			hasArchived && pr.archived != archived,
			visibility != "" && pr.visibility != visibility,
			owned && !(pr.ns.kind == "user" && pr.ns.owner == c.user),
			starred && !c.user.starred[pr.id],
			membership && c.st.access(c.user, pr) < Guest,
			search != "" && !containsFold(pr.name, search) && !containsFold(pr.path, search) && !containsFold(pr.fullPath(), search):
			return false
		}
		return true
	}
	order := projectOrder(orderBy, desc)
	var page []*project
	var fail *fakekit.Answer
	if keyset {
		items := keep(c.st.projects, visible)
		sortStable(items, order)
		page, fail = keyedPage(c, items, idBound(c, items, desc))
	} else {
		page, fail = sortedPage(c, c.st.projects, visible, order, "Project")
	}
	if fail != nil {
		return *fail
	}
	return c.doc(http.StatusOK, jsonw.AppendArray(c.buf(), page, func(b []byte, pr *project) []byte {
		return c.appendProject(b, pr, stats && c.st.access(c.user, pr) >= Reporter)
	}))
}

func (c *call) getProject() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	stats, _ := c.p.boolean("statistics")
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	return c.doc(http.StatusOK, c.appendProject(c.buf(), pr, stats && c.st.access(c.user, pr) >= Reporter))
}

func (c *call) createProject() fakekit.Answer {
	p := c.p
	name, hasName := p.str("name")
	path, hasPath := p.str("path")
	description, _ := p.str("description")
	visibility, hasVis := p.oneOf("visibility", "public", "internal", "private")
	defaultBranch, _ := p.str("default_branch")
	nsID, hasNS := p.int("namespace_id")
	topics, _ := p.list("topics")
	readme, _ := p.boolean("initialize_with_readme")
	if !hasName && !hasPath || strings.TrimSpace(name) == "" && strings.TrimSpace(path) == "" {
		p.errs = append([]string{"name, path are missing, at least one parameter must be provided"}, p.errs...)
	}
	if msg := p.problem(); msg != "" {
		return badRequest(msg)
	}
	if !hasVis {
		visibility = "private"
	}
	if defaultBranch == "" {
		defaultBranch = "main"
	}
	name, path = strings.TrimSpace(name), strings.TrimSpace(path)
	if name == "" {
		name = path
	}
	if path == "" {
		path = pathFromName(name)
	}

	ns := c.user.ns
	if hasNS {
		ns = c.st.nss[nsID]
		if ns == nil {
			return notFound("Namespace")
		}
		if !c.mayCreateIn(ns) {
			return invalid(http.StatusBadRequest, map[string][]string{"namespace": []string{"is not valid"}})
		}
	}
	fields := c.st.projectProblems(ns, name, path, description, nil)
	if why := visibilityAboveGroup(visibility, ns); why != "" {
		fields["visibility_level"] = append(fields["visibility_level"], why)
	}
	if len(fields) > 0 {
		return invalid(http.StatusBadRequest, fields)
	}
	pr := c.st.addProject(ns, c.user, name, path, description, visibility, defaultBranch)
	pr.topics = topics
	if readme {
		content := "# " + name + "\n\n" + description + "\n"
		cm, err := c.st.commitFiles(pr, defaultBranch, "", []fileChange{{path: "README.md", blob: newBlob([]byte(content))}}, "Initial commit", c.user.name, c.user.email)
		if err == nil {
			c.queuePush(pr, defaultBranch, nil, cm)
		}
	}
	return c.doc(http.StatusCreated, c.appendProject(c.buf(), pr, false))
}

func (c *call) starProject() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	if c.user.starred[pr.id] {
		return fakekit.Answer{Status: http.StatusNotModified}
	}
	c.user.starred[pr.id] = true
	c.st.made("star", 1)
	pr.starCount++
	return c.doc(http.StatusCreated, c.appendProject(c.buf(), pr, false))
}

// mayCreateIn reports whether the caller may make projects in ns: their
// own namespace, a group they maintain, anywhere for an administrator.
func (c *call) mayCreateIn(ns *namespace) bool {
	switch {
	case c.user == nil:
		return false
	case c.user.admin:
		return true
	case ns.kind == "user":
		return ns.owner == c.user
	}
	return c.st.groupAccess(c.user, ns) >= Maintainer
}

// projectProblems are what is wrong with a project of name, path and
// description in ns, by field, as the real service words it; self is the
// project being changed (nil for a new one), which takes nothing from
// itself.
func (st *state) projectProblems(ns *namespace, name, path, description string, self *project) map[string][]string {
	fields := map[string][]string{}
	if len(name) > 255 {
		fields["name"] = append(fields["name"], "is too long (maximum is 255 characters)")
	} else if !projectNameRE.MatchString(name) {
		fields["name"] = append(fields["name"], "can contain only letters, digits, emojis, '_', '.', '+', dashes, or spaces. It must start with a letter, digit, emoji, or '_'.")
	}
	if len(path) > 255 {
		fields["path"] = append(fields["path"], "is too long (maximum is 255 characters)")
	} else if !projectPathRE.MatchString(path) || strings.HasSuffix(path, ".git") || strings.HasSuffix(path, ".atom") {
		fields["path"] = append(fields["path"], "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'")
	}
	if utf8.RuneCountInString(description) > maxProjectDescription {
		fields["description"] = append(fields["description"], "is too long (maximum is 2000 characters)")
	}
	for _, other := range st.projects {
		if other.ns != ns || other == self {
			continue
		}
		if strings.EqualFold(other.name, name) {
			fields["name"] = append(fields["name"], "has already been taken")
		}
		if strings.EqualFold(other.path, path) {
			fields["path"] = append(fields["path"], "has already been taken")
		}
	}
	return fields
}

// ProjectSeed is a project to add (AddProject, Seed.Projects), with what
// it holds.
type ProjectSeed struct {
	// Name is required.
	Name string `json:"name" yaml:"name"`
	// Path empty is derived from Name, as the real service does.
	Path string `json:"path,omitempty" yaml:"path,omitempty"`
	// Owner is the owning user's username; empty means root. It is
	// ignored when Group is set.
	Owner string `json:"owner,omitempty" yaml:"owner,omitempty"`
	// Group is a group's path, to put the project in that group.
	Group       string `json:"group,omitempty" yaml:"group,omitempty"`
	Description string `json:"description,omitempty" yaml:"description,omitempty"`
	// Visibility is private (the default), internal or public.
	Visibility string `json:"visibility,omitempty" yaml:"visibility,omitempty"`
	// DefaultBranch empty means "main".
	DefaultBranch string   `json:"default_branch,omitempty" yaml:"default_branch,omitempty"`
	Topics        []string `json:"topics,omitempty" yaml:"topics,omitempty"`
	// Members are users given access to the project itself.
	Members []MemberSeed `json:"members,omitempty" yaml:"members,omitempty"`
	// Files (path → content) are committed to the default branch, as root.
	// A CI definition file among them starts a pipeline.
	Files map[string]string `json:"files,omitempty" yaml:"files,omitempty"`
	// Branches are made after Files, in order.
	Branches []BranchSeed `json:"branches,omitempty" yaml:"branches,omitempty"`
	// Labels, Milestones, Tags and Releases are added after Branches, in
	// that order, before Issues and MergeRequests (which may name them).
	Labels        []LabelSeed        `json:"labels,omitempty" yaml:"labels,omitempty"`
	Milestones    []MilestoneSeed    `json:"milestones,omitempty" yaml:"milestones,omitempty"`
	Tags          []TagSeed          `json:"tags,omitempty" yaml:"tags,omitempty"`
	Releases      []ReleaseSeed      `json:"releases,omitempty" yaml:"releases,omitempty"`
	Issues        []IssueSeed        `json:"issues,omitempty" yaml:"issues,omitempty"`
	MergeRequests []MergeRequestSeed `json:"merge_requests,omitempty" yaml:"merge_requests,omitempty"`
	// Hooks are added last, so the project's seeded records deliver
	// nothing.
	Hooks []HookSeed `json:"hooks,omitempty" yaml:"hooks,omitempty"`
}

// AddProject adds a project with what its seed holds, in the order of the
// seed's fields, and returns its id. It adds all of it or, at the first
// refusal, nothing; the error names the entry ("issues[0]: …").
func (s *Server) AddProject(seed ProjectSeed) (int64, error) {
	if seed.Name == "" || !projectNameRE.MatchString(seed.Name) || len(seed.Name) > 255 {
		return 0, fmt.Errorf("sourcehostfake: invalid project name %q", seed.Name)
	}
	if seed.Path == "" {
		seed.Path = pathFromName(seed.Name)
	}
	if !projectPathRE.MatchString(seed.Path) || len(seed.Path) > 255 {
		return 0, fmt.Errorf("sourcehostfake: invalid project path %q", seed.Path)
	}
	switch seed.Visibility {
	case "":
		seed.Visibility = "private"
	case "private", "internal", "public":
	default:
		return 0, fmt.Errorf("sourcehostfake: invalid visibility %q", seed.Visibility)
	}
	if seed.DefaultBranch == "" {
		seed.DefaultBranch = "main"
	}
	if !validBranchName(seed.DefaultBranch) {
		return 0, fmt.Errorf("sourcehostfake: invalid default branch %q", seed.DefaultBranch)
	}
	if utf8.RuneCountInString(seed.Description) > maxProjectDescription {
		return 0, errors.New("sourcehostfake: description is too long (maximum is 2000 characters)")
	}
	// Hash every file before the state is locked.
	files, err := seedFiles(seed.Files)
	if err != nil {
		return 0, at("files", err)
	}
	branchFiles := make([][]fileChange, len(seed.Branches))
	for i, b := range seed.Branches {
		if branchFiles[i], err = seedFiles(b.Files); err != nil {
			return 0, at(fmt.Sprintf("branches[%d].files", i), err)
		}
	}

	// Hook hosts are resolved, when their check needs it, before the
	// state is locked too.
	hookAddrs := make([][]netip.Addr, len(seed.Hooks))
	for i, h := range seed.Hooks {
		hookAddrs[i] = s.lookupHookHost(h.URL)
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	seq := maps.Clone(s.st.seq)
	var events []event
	p, err := s.seedProject(seed, files, branchFiles, hookAddrs, &events)
	if err == nil {
		err = s.overBound() // the project is added whole, or not at all
	}
	if err != nil {
		if p != nil {
			s.st.removeProject(p, seq)
		}
		return 0, err
	}
	s.hooks.enqueue(&trigger{}, events)
	return p.id, nil
}

// maxProjectDescription is the real service's limit, in characters.
const maxProjectDescription = 2000

// seedProject adds a project and what its seed holds, gathering the
// webhook deliveries made on the way. On an error it returns the project
// as far as it got, for removeProject. s.mu must be held.
func (s *Server) seedProject(seed ProjectSeed, files []fileChange, branchFiles [][]fileChange, hookAddrs [][]netip.Addr, events *[]event) (*project, error) {
	st := s.st
	owner := s.root
	if seed.Owner != "" {
		var err error
		if owner, err = st.userNamed(seed.Owner); err != nil {
			return nil, at("owner", err)
		}
	}
	ns := owner.ns
	if seed.Group != "" {
		if ns = st.nsByPath[strings.ToLower(seed.Group)]; ns == nil || ns.kind != "group" {
			return nil, at("group", fmt.Errorf("sourcehostfake: no group %q", seed.Group))
		}
		if why := visibilityAboveGroup(seed.Visibility, ns); why != "" {
			return nil, at("visibility", errors.New("sourcehostfake: "+why))
		}
	}
	if st.projByPath[strings.ToLower(ns.fullPath+"/"+seed.Path)] != nil {
		return nil, fmt.Errorf("sourcehostfake: project %s/%s exists", ns.fullPath, seed.Path)
	}
	members, err := st.seedMembers(seed.Members)
	if err != nil {
		return nil, err
	}
	p := st.addProject(ns, owner, seed.Name, seed.Path, seed.Description, seed.Visibility, seed.DefaultBranch)
	p.topics = slices.Clone(seed.Topics)
	st.addMembers(p.members, members)
	gather := func(c *call) { *events = append(*events, c.events...) }

	if len(files) > 0 {
		c := s.internalCall(s.root)
		if _, err := s.pushFiles(c, p, p.defaultBranch, "", files, "Seed files"); err != nil {
			return p, at("files", err)
		}
		gather(c)
	}
	for i, b := range seed.Branches {
		c := s.internalCall(s.root)
		if _, err := s.seedBranch(c, p, b, branchFiles[i]); err != nil {
			return p, at(fmt.Sprintf("branches[%d]", i), err)
		}
		gather(c)
	}
	{
		c := s.internalCall(s.root)
		if err := s.seedRepoRecords(c, p, seed); err != nil {
			return p, err
		}
		gather(c)
	}
	for i, is := range seed.Issues {
		c, err := s.seedIssue(p, is)
		if err != nil {
			return p, at(fmt.Sprintf("issues[%d]", i), err)
		}
		gather(c)
	}
	for i, mr := range seed.MergeRequests {
		c, err := s.seedMR(p, mr)
		if err != nil {
			return p, at(fmt.Sprintf("merge_requests[%d]", i), err)
		}
		gather(c)
	}
	for i, h := range seed.Hooks {
		if _, err := s.seedHook(p, h, hookAddrs[i]); err != nil {
			return p, at(fmt.Sprintf("hooks[%d]", i), err)
		}
	}
	return p, nil
}

// removeProject takes back a project that was being seeded, the last one
// added, and the ids given since seq. s.mu must be held.
func (st *state) removeProject(p *project, seq map[string]int64) {
	for _, pl := range p.pipelines {
		if pl.timer != nil {
			pl.timer.Stop()
		}
	}
	st.projects = slices.DeleteFunc(st.projects, func(x *project) bool { return x == p })
	delete(st.projByID, p.id)
	delete(st.projByPath, strings.ToLower(p.fullPath()))
	st.seq = seq
}

// AddProjectMember gives a user an access level (Guest … Owner) in a project.
func (s *Server) AddProjectMember(projectID int64, username string, level int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.st.projByID[projectID]
	if p == nil {
		return fmt.Errorf("sourcehostfake: no project %d", projectID)
	}
	members, err := s.st.seedMembers([]MemberSeed{{Username: username, AccessLevel: level}})
	if err != nil {
		return unwrapEntry(err)
	}
	if err := s.seedRoom(recordNeed{"member", 1}); err != nil {
		return err
	}
	s.st.addMembers(p.members, members)
	return nil
}

// StarProject stars a project for a user.
func (s *Server) StarProject(username string, projectID int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.st.userByName[strings.ToLower(username)]
	p := s.st.projByID[projectID]
	if u == nil || p == nil {
		return fmt.Errorf("sourcehostfake: no user %q or project %d", username, projectID)
	}
	if !u.starred[projectID] {
		if err := s.seedRoom(recordNeed{"star", 1}); err != nil {
			return err
		}
		u.starred[projectID] = true
		s.st.made("star", 1)
		p.starCount++
	}
	return nil
}

// projectByID finds a project for a seeding method. s.mu must be held.
func (st *state) projectByID(id int64) (*project, error) {
	p := st.projByID[id]
	if p == nil {
		return nil, fmt.Errorf("sourcehostfake: no project %d", id)
	}
	return p, nil
}

// projectOrder compares projects as a list of them is ordered by orderBy
// (GitLab's order_by; id otherwise), ties broken by id.
func projectOrder(orderBy string, desc bool) func(a, b *project) int {
	return func(a, b *project) int {
		var r int
		switch orderBy {
		case "name":
			r = cmp.Compare(strings.ToLower(a.name), strings.ToLower(b.name))
		case "path":
			r = cmp.Compare(a.fullPath(), b.fullPath())
		case "updated_at", "last_activity_at":
			r = a.lastActivity.Compare(b.lastActivity)
		case "created_at":
			r = a.createdAt.Compare(b.createdAt)
		}
		return ordered(r, a.id, b.id, desc)
	}
}
