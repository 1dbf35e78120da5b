package sourcehostfake

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// Delayed deletion, as the real service adjourns it
// (WithDeletionAdjournedPeriod): DELETE marks a project, which is
// archived and renamed "<name>-deletion_scheduled-<id>" so that its path
// is free again, until the period has passed on the fake clock or it is
// restored.

// deletionSuffix is what the real service appends to the name and path
// of a project it marks for deletion, before the project's id.
const deletionSuffix = "-deletion_scheduled-"

// deleteProject is DELETE /projects/:id, by an owner: 202 {"message":"202
// Accepted"}. With a deletion adjourned period it marks the project;
// permanently_remove=true with full_path (its path with namespace as it
// is now, marked) deletes a marked one at once, as the real service
// does. Otherwise it deletes the project at once.
func (c *call) deleteProject() fakekit.Answer {
	permanently := c.permanentlyRemove()
	fullPath, _ := c.p.str("full_path")
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	if fail := c.atLeast(pr, Owner); fail != nil {
		return *fail
	}
	switch {
	case permanently && fullPath != pr.fullPath():
		return message(http.StatusBadRequest, "`full_path` is incorrect. You must enter the complete path for the project.")
	case permanently && pr.markedForDeletion == nil:
		return message(http.StatusBadRequest, "Project must be marked for deletion first.")
	case !permanently && c.s.cfg.deletionPeriod > 0:
		if pr.markedForDeletion != nil {
			return message(http.StatusBadRequest, "Project has been already marked for deletion")
		}
		c.markProject(pr)
		return message(http.StatusAccepted, "202 Accepted")
	}
	c.s.dropProject(pr)
	return message(http.StatusAccepted, "202 Accepted")
}

// permanentlyRemove reads permanently_remove, empty being absent: the
// real service's parameter types read "" as not given, and GitLab's Go
// client sends permanently_remove= and full_path= when they are unset.
func (c *call) permanentlyRemove() bool {
	if v, given := c.p.str("permanently_remove"); given && v == "" {
		return false
	}
	b, _ := c.p.boolean("permanently_remove")
	return b
}

// markProject marks pr for deletion: archived, renamed with the suffix,
// found by its new path. s.mu must be held.
func (c *call) markProject(pr *project) {
	now := c.st.clock.Now()
	suffix := deletionSuffix + strconv.FormatInt(pr.id, 10)
	delete(c.st.projByPath, strings.ToLower(pr.fullPath()))
	pr.name, pr.path = pr.name+suffix, pr.path+suffix
	c.st.projByPath[strings.ToLower(pr.fullPath())] = pr
	pr.markedForDeletion, pr.archived, pr.lastActivity = &now, true, now
	c.st.marked, c.st.nextDue = c.st.marked+1, time.Time{}
}

// restoreProject is POST /projects/:id/restore, by an owner: a project
// marked for deletion is unmarked, unarchived and given its name and path
// back (400 "Project has not been marked for deletion" for one that is
// not; 400 {"message":{"path":["has already been taken"]}} when another
// project took its path meanwhile).
func (c *call) restoreProject() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	if fail := c.atLeast(pr, Owner); fail != nil {
		return *fail
	}
	if pr.markedForDeletion == nil {
		return message(http.StatusBadRequest, "Project has not been marked for deletion")
	}
	suffix := deletionSuffix + strconv.FormatInt(pr.id, 10)
	name, path := strings.TrimSuffix(pr.name, suffix), strings.TrimSuffix(pr.path, suffix)
	if other := c.st.projByPath[strings.ToLower(pr.ns.fullPath+"/"+path)]; other != nil && other != pr {
		return invalid(http.StatusBadRequest, map[string][]string{"path": {"has already been taken"}})
	}
	delete(c.st.projByPath, strings.ToLower(pr.fullPath()))
	pr.name, pr.path = name, path
	c.st.projByPath[strings.ToLower(pr.fullPath())] = pr
	pr.markedForDeletion, pr.archived, pr.lastActivity = nil, false, c.st.clock.Now()
	return c.doc(http.StatusOK, c.appendProject(c.buf(), pr, false))
}

// deleteGroup is DELETE /groups/:id, by an owner: 202 {"message":"202
// Accepted"}, as deleteProject for a group: marked (renamed, its
// subgroups and projects moving with it) with a deletion adjourned
// period, deleted at once otherwise or with permanently_remove and
// full_path.
func (c *call) deleteGroup() fakekit.Answer {
	permanently := c.permanentlyRemove()
	fullPath, _ := c.p.str("full_path")
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	g, fail := c.pathGroup()
	if fail != nil {
		return *fail
	}
	if c.st.groupLevel(c.user, g) < Owner {
		return forbidden()
	}
	switch {
	case permanently && fullPath != g.fullPath:
		return message(http.StatusBadRequest, "`full_path` is incorrect. You must enter the complete path for the group.")
	case permanently && g.markedForDeletion == nil:
		return message(http.StatusBadRequest, "Group must be marked for deletion first.")
	case !permanently && c.s.cfg.deletionPeriod > 0:
		if g.markedForDeletion != nil {
			return message(http.StatusBadRequest, "Group has been already marked for deletion")
		}
		now := c.st.clock.Now()
		suffix := deletionSuffix + strconv.FormatInt(g.id, 10)
		g.name, g.path, g.markedForDeletion = g.name+suffix, g.path+suffix, &now
		c.st.reindexPaths()
		c.st.marked, c.st.nextDue = c.st.marked+1, time.Time{}
		return message(http.StatusAccepted, "202 Accepted")
	}
	c.s.dropGroup(g)
	return message(http.StatusAccepted, "202 Accepted")
}

// restoreGroup is POST /groups/:id/restore, by an owner: a group marked
// for deletion is unmarked and given its name and path back (400 "Group
// has not been marked for deletion" for one that is not; 400
// {"message":{"path":["has already been taken"]}} when its path was taken
// meanwhile).
func (c *call) restoreGroup() fakekit.Answer {
	g, fail := c.pathGroup()
	if fail != nil {
		return *fail
	}
	if c.st.groupLevel(c.user, g) < Owner {
		return forbidden()
	}
	if g.markedForDeletion == nil {
		return message(http.StatusBadRequest, "Group has not been marked for deletion")
	}
	suffix := deletionSuffix + strconv.FormatInt(g.id, 10)
	path := strings.TrimSuffix(g.path, suffix)
	if other := c.st.nsByPath[strings.ToLower(groupFullPath(g.parent, path))]; other != nil && other != g {
		return invalid(http.StatusBadRequest, map[string][]string{"path": {"has already been taken"}})
	}
	g.name, g.path, g.markedForDeletion = strings.TrimSuffix(g.name, suffix), path, nil
	c.st.reindexPaths()
	return ok(c.groupDetail(g))
}

// deleteDue deletes the projects and groups whose deletion adjourned period has
// passed on the fake clock. It runs before each request, at the cost of
// one comparison while nothing is marked (st.marked counts them, or more
// after a marked project went another way) and of two until the first
// marked one falls due (st.nextDue). s.mu must be held.
func (s *Server) deleteDue() {
	now, period := s.st.clock.Now(), s.cfg.deletionPeriod
	if s.st.marked == 0 || now.Before(s.st.nextDue) {
		return
	}
	var due []*project
	s.st.marked, s.st.nextDue = 0, time.Time{}
	later := func(at time.Time) { // a mark not yet due
		s.st.marked++
		if s.st.nextDue.IsZero() || at.Before(s.st.nextDue) {
			s.st.nextDue = at
		}
	}
	for _, pr := range s.st.projects {
		switch {
		case pr.markedForDeletion == nil:
		case !now.Before(pr.markedForDeletion.Add(period)):
			due = append(due, pr)
		default:
			later(pr.markedForDeletion.Add(period))
		}
	}
	for _, pr := range due {
		s.dropProject(pr)
	}
	var dueGroups []*namespace
	for _, ns := range s.st.nss {
		switch {
		case ns.markedForDeletion == nil:
		case !now.Before(ns.markedForDeletion.Add(period)):
			dueGroups = append(dueGroups, ns)
		default:
			later(ns.markedForDeletion.Add(period))
		}
	}
	for _, g := range dueGroups {
		if s.st.nss[g.id] == g { // not gone with a parent already
			s.dropGroup(g)
		}
	}
}

// markedOn is the date a project was marked for deletion on, as the API
// writes it, or nil.
func markedOn(t *time.Time) *string {
	if t == nil {
		return nil
	}
	d := t.UTC().Format(time.DateOnly)
	return &d
}
