package sourcehostfake

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// What owners and maintainers do to a project itself (change, archive,
// transfer, fork, delete it), and unstarring it.

func (c *call) updateProject() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	if fail := c.atLeast(pr, Maintainer); fail != nil {
		return *fail
	}
	p := c.p
	name, hasName := p.str("name")
	path, hasPath := p.str("path")
	description, hasDesc := p.str("description")
	visibility, hasVis := p.oneOf("visibility", "public", "internal", "private")
	branch, hasBranch := p.str("default_branch")
	topics, hasTopics := p.list("topics")
	if !hasTopics {
		topics, hasTopics = p.list("tag_list") // the older name, which the real service still takes
	}
	if !hasName && !hasPath && !hasDesc && !hasVis && !hasBranch && !hasTopics {
		// The real service lists every setting it takes; these are the
		// ones the fake keeps.
		p.errs = append([]string{"name, path, description, visibility, default_branch, topics are missing, at least one parameter must be provided"}, p.errs...)
	}
	if msg := p.problem(); msg != "" {
		return badRequest(msg)
	}
	if !hasName {
		name = pr.name
	}
	if !hasPath {
		path = pr.path
	}
	if !hasDesc {
		description = pr.description
	}
	name, path = strings.TrimSpace(name), strings.TrimSpace(path)
	fields := c.st.projectProblems(pr.ns, name, path, description, pr)
	if why := visibilityAboveGroup(visibility, pr.ns); hasVis && why != "" {
		fields["visibility_level"] = append(fields["visibility_level"], why)
	}
	if len(fields) > 0 {
		return invalid(http.StatusBadRequest, fields)
	}
	if hasBranch && branch != pr.defaultBranch && pr.repo.branches[branch] == nil {
		return message(http.StatusBadRequest, "Could not set the default branch")
	}
	if path != pr.path {
		delete(c.st.projByPath, strings.ToLower(pr.fullPath()))
		pr.path = path
		c.st.projByPath[strings.ToLower(pr.fullPath())] = pr
	}
	pr.name, pr.description = name, description
	if hasVis {
		pr.visibility = visibility
	}
	if hasBranch {
		pr.defaultBranch = branch
	}
	if hasTopics {
		pr.topics = topics
	}
	pr.lastActivity = c.st.clock.Now()
	return c.doc(http.StatusOK, c.appendProject(c.buf(), pr, false))
}

// dropProject removes p and all it holds, its records counted out and
// its stars taken back. s.mu must be held.
func (s *Server) dropProject(p *project) {
	st := s.st
	p.countRecords(func(kind string, n int) { s.removed(kind, n) })
	s.removed("project", 1)
	for _, u := range st.users {
		if u.starred[p.id] {
			delete(u.starred, p.id)
			s.removed("star", 1)
		}
	}
	s.releaseProject(p)
	st.projects = slices.DeleteFunc(st.projects, func(x *project) bool { return x == p })
}

// releaseProject lets go of what a project being removed holds outside
// its own record: its pipelines' timers stop, its hooks' waiting
// deliveries are dropped, its jobs' tokens go, its source counts one
// fork less, and its path and id find nothing. Its forks are left pointing at it, forks of
// nothing (forkSource), so that removing many projects does not walk all
// projects for each. Whoever removes it takes it out of st.projects and
// takes its stars back. s.mu must be held.
func (s *Server) releaseProject(p *project) {
	for _, pl := range p.pipelines {
		if pl.timer != nil {
			pl.timer.Stop()
			pl.timer = nil
		}
	}
	for _, sc := range p.schedules {
		if sc.timer != nil {
			sc.timer.Stop()
		}
	}
	for _, h := range p.hooks {
		s.hooks.dropHook(h.id)
	}
	if from := s.st.forkSource(p); from != nil {
		from.forks--
	}
	maps.DeleteFunc(s.st.jobTokens, func(_ string, j *ciJob) bool { return j.pipeline.project == p }) // its jobs' tokens (auth.go)
	delete(s.st.projByID, p.id)
	delete(s.st.projByPath, strings.ToLower(p.fullPath()))
}

// forkSource is the project p was forked from, while that one exists.
func (st *state) forkSource(p *project) *project {
	if from := p.forkedFrom; from != nil && st.projByID[from.id] == from {
		return from
	}
	return nil
}

func (c *call) unstarProject() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	if !c.user.starred[pr.id] {
		return fakekit.Answer{Status: http.StatusNotModified}
	}
	delete(c.user.starred, pr.id)
	c.s.removed("star", 1)
	pr.starCount--
	return c.doc(http.StatusCreated, c.appendProject(c.buf(), pr, false))
}

func (c *call) archiveProject() fakekit.Answer   { return c.setArchived(true) }
func (c *call) unarchiveProject() fakekit.Answer { return c.setArchived(false) }

// setArchived archives or unarchives the project, for its owners; doing
// it twice answers the project as it is, as the real service does.
func (c *call) setArchived(archived bool) fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	if fail := c.atLeast(pr, Owner); fail != nil {
		return *fail
	}
	pr.archived = archived
	return c.doc(http.StatusCreated, c.appendProject(c.buf(), pr, false))
}

// servesArchived are the writes to a project's resources that an archived
// project still takes, as the real service lets them through: its
// settings, members and hooks, stars, forks, moving it, unarchiving it.
// Every other write under /projects/:id/ is 403 on an archived project
// (refuseArchived), whatever the caller's level: its issues, merge
// requests, notes, labels, milestones, repository, pipelines, jobs and
// releases are read-only.
var servesArchived = map[string]bool{
	"archiveProject": true, "unarchiveProject": true, "transferProject": true, "forkProject": true,
	"starProject": true, "unstarProject": true,
	"addProjectMember": true, "editProjectMember": true, "removeProjectMember": true,
	"addHook": true, "editHook": true, "deleteHook": true,
	"protectBranch": true, "unprotectBranch": true,
	"restoreProject": true, // a project marked for deletion is archived (deletion.go)
}

// refuseArchived wraps the handler of a write to a project's resources:
// 403 on an archived project the caller can see (one it cannot see is
// the handler's 404).
func refuseArchived(fn func(c *call) fakekit.Answer) func(c *call) fakekit.Answer {
	return func(c *call) fakekit.Answer {
		if pr := c.st.project(c.r.PathValue("id")); pr != nil && pr.archived && c.st.canSee(c.user, pr) {
			return forbidden()
		}
		return fn(c)
	}
}

// namespaceRef finds a namespace by id or full path, or nil.
func (st *state) namespaceRef(ref string) *namespace {
	if id, err := strconv.ParseInt(ref, 10, 64); err == nil {
		return st.nss[id]
	}
	return st.nsByPath[strings.ToLower(strings.Trim(ref, "/"))]
}

// transferProject moves the project to another namespace, for its owners
// who may make projects there. Refusals are the real service's: 404 for
// a namespace that does not exist, else 400 "Failed to transfer project"
// with the reason, in the words and (Ruby's) shape it writes them.
func (c *call) transferProject() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	if fail := c.atLeast(pr, Owner); fail != nil {
		return *fail
	}
	ref := c.p.required("namespace")
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	ns := c.st.namespaceRef(ref)
	if ns == nil {
		return notFound("Namespace")
	}
	refused := func(why string) fakekit.Answer {
		return message(http.StatusBadRequest, fmt.Sprintf("Failed to transfer project {:new_namespace=>[%q]}", why))
	}
	switch {
	case ns == pr.ns:
		return refused("Project is already in this namespace.")
	case !c.mayCreateIn(ns):
		return refused("You don't have permission to transfer this project.")
	}
	for _, other := range c.st.projects {
		if other.ns == ns && (strings.EqualFold(other.path, pr.path) || strings.EqualFold(other.name, pr.name)) {
			return refused("Project with same name or path in target namespace already exists")
		}
	}
	// The owner of a personal project is its member as Owner on the real
	// service, and stays so when it moves; the fake's owner is its
	// namespace's, so it is made a member here.
	if old := pr.ns; old.kind == "user" && old.owner != nil {
		if _, had := pr.members[old.owner.id]; !had {
			pr.memberSince[old.owner.id] = c.st.clock.Now()
		}
		c.st.addMembers(pr.members, map[int64]int{old.owner.id: Owner})
	}
	delete(c.st.projByPath, strings.ToLower(pr.fullPath()))
	pr.ns = ns
	c.st.projByPath[strings.ToLower(pr.fullPath())] = pr
	if visibilityAboveGroup(pr.visibility, ns) != "" {
		pr.visibility = ns.visibility // lowered to the group's, as the real service's transfer does
	}
	pr.lastActivity = c.st.clock.Now()
	return c.doc(http.StatusOK, c.appendProject(c.buf(), pr, false))
}

// visibilityRank orders visibilities from the narrowest.
var visibilityRank = map[string]int{"private": 0, "internal": 1, "public": 2}

// forkProject makes a fork: a new project in the caller's namespace (or
// the one named) with a copy of the repository's branches, tags and
// commits, at most as visible as its source.
func (c *call) forkProject() fakekit.Answer {
	src, fail := c.project()
	if fail != nil {
		return *fail
	}
	p := c.p
	nsID, hasNSID := p.int("namespace_id")
	nsPath, hasNSPath := p.str("namespace_path")
	nsRef, hasNSRef := p.str("namespace") // the older parameter: an id or a path
	name, hasName := p.str("name")
	path, hasPath := p.str("path")
	description, hasDesc := p.str("description")
	visibility, hasVis := p.oneOf("visibility", "public", "internal", "private")
	if msg := p.problem(); msg != "" {
		return badRequest(msg)
	}
	if !c.st.canReadCode(c.user, src) {
		return message(http.StatusNotFound, "404 Not Found")
	}
	ns := c.user.ns
	switch {
	case hasNSID:
		ns = c.st.nss[nsID]
	case hasNSPath && nsPath != "":
		ns = c.st.namespaceRef(nsPath)
	case hasNSRef && nsRef != "":
		ns = c.st.namespaceRef(nsRef)
	}
	if ns == nil {
		return notFound("Namespace")
	}
	if !c.mayCreateIn(ns) {
		return notFound("Target Namespace")
	}
	if !hasName {
		name = src.name
	}
	if !hasPath {
		path = src.path
	}
	if !hasDesc {
		description = src.description
	}
	if !hasVis || visibilityRank[visibility] > visibilityRank[src.visibility] {
		visibility = src.visibility
	}
	if visibilityAboveGroup(visibility, ns) != "" {
		visibility = ns.visibility // and at most as visible as the group it goes in
	}
	name, path = strings.TrimSpace(name), strings.TrimSpace(path)
	if fields := c.st.projectProblems(ns, name, path, description, nil); len(fields) > 0 {
		return invalid(http.StatusConflict, fields)
	}
	fork := c.st.addProject(ns, c.user, name, path, description, visibility, src.defaultBranch)
	fork.topics = slices.Clone(src.topics)
	fork.forkedFrom = src
	src.forks++
	c.st.copyRepo(fork, src)
	return c.doc(http.StatusCreated, c.appendProject(c.buf(), fork, false))
}

// copyRepo gives dst a copy of src's repository (commits are immutable,
// so the copy shares them), counting its records. s.mu must be held.
func (st *state) copyRepo(dst, src *project) {
	dst.repo.branches = maps.Clone(src.repo.branches)
	dst.repo.commits = maps.Clone(src.repo.commits)
	dst.repo.tags = make(map[string]*tag, len(src.repo.tags))
	for name, t := range src.repo.tags {
		cp := *t
		dst.repo.tags[name] = &cp
	}
	var bytes int64
	for _, cm := range dst.repo.commits {
		bytes += commitCost(cm)
	}
	st.made("branch", int64(len(dst.repo.branches)))
	st.made("tag", int64(len(dst.repo.tags)))
	st.made("commit", int64(len(dst.repo.commits)))
	st.made(repoBytes, bytes)
}

// forkNeeds are the records a fork of the request's project adds: the
// project, its rule protecting the default branch, a member, and a copy
// of the repository.
func (c *call) forkNeeds() []recordNeed {
	needs := []recordNeed{{"project", 1}, {"protected_branch", 1}, {"member", 1}}
	src := c.st.project(c.r.PathValue("id"))
	if src == nil {
		return needs
	}
	var bytes int
	for _, cm := range src.repo.commits {
		bytes += int(commitCost(cm))
	}
	return append(needs, recordNeed{"branch", len(src.repo.branches)}, recordNeed{"tag", len(src.repo.tags)},
		recordNeed{"commit", len(src.repo.commits)}, recordNeed{repoBytes, bytes})
}

// listProjectForks lists the forks of the project that the caller can
// see, as GET /projects filters, orders and pages them.
func (c *call) listProjectForks() fakekit.Answer {
	src, fail := c.project()
	if fail != nil {
		return *fail
	}
	return c.projectList(func(pr *project) bool { return pr.forkedFrom == src })
}
