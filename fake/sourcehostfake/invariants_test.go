package sourcehostfake

import (
	"fmt"
	"slices"
	"strings"
)

// CheckInvariants is checkInvariants for the external tests (the fuzz
// target's Check).
var CheckInvariants = (*Server).checkInvariants

// checkInvariants reports the first broken invariant of the state: what no
// sequence of requests may ever break.
func (s *Server) checkInvariants() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.st
	if s.root == nil || st.users[s.root.id] != s.root || st.tokens[s.rootT] == nil || st.tokens[s.rootT].user != s.root {
		return fmt.Errorf("root or its token is gone")
	}
	for id, u := range st.users {
		if u.id != id || st.userByName[strings.ToLower(u.username)] != u || u.ns == nil || st.nss[u.ns.id] != u.ns {
			return fmt.Errorf("user %d %q is not indexed as it should be", id, u.username)
		}
	}
	for secret, t := range st.tokens {
		if t.secret != secret || st.users[t.user.id] != t.user {
			return fmt.Errorf("token %d belongs to no user", t.id)
		}
	}
	// The counts of records, kept as records are made and removed, agree
	// with the state counted afresh.
	kept := s.records()
	fresh := map[string]int{}
	st.countRecords(func(kind string, n int) { fresh[kind] += n })
	for kind := range recordKinds {
		if kept.Count(kind) != fresh[kind] {
			return fmt.Errorf("%d %s counted, %d in the state", kept.Count(kind), kind, fresh[kind])
		}
	}
	if kept.Count(repoBytes) != fresh[repoBytes] {
		return fmt.Errorf("%d repository bytes counted, %d in the state", kept.Count(repoBytes), fresh[repoBytes])
	}
	if len(st.projByID) != len(st.projects) || len(st.projByPath) != len(st.projects) {
		return fmt.Errorf("%d projects, %d by id, %d by path", len(st.projects), len(st.projByID), len(st.projByPath))
	}
	issueIDs, mrIDs, hookIDs, pipelineIDs := map[int64]bool{}, map[int64]bool{}, map[int64]bool{}, map[int64]bool{}
	var lastProject int64
	for _, p := range st.projects {
		if p.id <= lastProject {
			return fmt.Errorf("project ids out of order: %d after %d", p.id, lastProject)
		}
		lastProject = p.id
		if st.projByID[p.id] != p || st.projByPath[strings.ToLower(p.fullPath())] != p || st.nss[p.ns.id] != p.ns {
			return fmt.Errorf("project %d %s is not indexed as it should be", p.id, p.fullPath())
		}
		if err := checkRepo(p); err != nil {
			return fmt.Errorf("project %d: %v", p.id, err)
		}
		var lastIID int64
		for _, is := range p.issues {
			switch {
			case is.project != p:
				return fmt.Errorf("issue %d of project %d belongs to another", is.id, p.id)
			case is.iid <= lastIID:
				return fmt.Errorf("project %d: issue iid %d after %d", p.id, is.iid, lastIID)
			case issueIDs[is.id]:
				return fmt.Errorf("issue id %d twice", is.id)
			case st.users[is.author.id] != is.author:
				return fmt.Errorf("issue %d has no author", is.id)
			case is.state != "opened" && is.state != "closed":
				return fmt.Errorf("issue %d is %q", is.id, is.state)
			}
			lastIID, issueIDs[is.id] = is.iid, true
		}
		lastIID = 0
		for _, mr := range p.mrs {
			switch {
			case mr.project != p:
				return fmt.Errorf("merge request %d of project %d belongs to another", mr.id, p.id)
			case mr.iid <= lastIID:
				return fmt.Errorf("project %d: merge request iid %d after %d", p.id, mr.iid, lastIID)
			case mrIDs[mr.id]:
				return fmt.Errorf("merge request id %d twice", mr.id)
			case mr.state == "merged" && p.repo.commits[mr.mergeCommitSHA] == nil:
				return fmt.Errorf("merge request %d was merged by no commit", mr.id)
			case mr.state != "opened" && mr.state != "closed" && mr.state != "merged":
				return fmt.Errorf("merge request %d is %q", mr.id, mr.state)
			}
			lastIID, mrIDs[mr.id] = mr.iid, true
		}
		if len(p.hooks) > maxProjectHooks {
			return fmt.Errorf("project %d has %d hooks", p.id, len(p.hooks))
		}
		for _, h := range p.hooks {
			if hookIDs[h.id] || h.project != p {
				return fmt.Errorf("hook id %d twice, or in the wrong project", h.id)
			}
			hookIDs[h.id] = true
		}
		lastIID = 0
		for _, pl := range p.pipelines {
			switch {
			case pl.iid <= lastIID || pipelineIDs[pl.id]:
				return fmt.Errorf("pipeline %d (iid %d) out of order or twice", pl.id, pl.iid)
			case p.repo.commits[pl.sha] == nil:
				return fmt.Errorf("pipeline %d runs on no commit", pl.id)
			case !slices.Contains(pipelineStatuses, pl.status):
				return fmt.Errorf("pipeline %d is %q", pl.id, pl.status)
			}
			lastIID, pipelineIDs[pl.id] = pl.iid, true
		}
		if err := checkIssue19(p); err != nil {
			return fmt.Errorf("project %d: %v", p.id, err)
		}
	}
	return nil
}

// checkIssue19 checks what issue 19 added: notes on their own issue or
// merge request, labels unique in any case and named on issues only when
// the project has them, milestones of the project, tags on known commits,
// releases of existing tags, protection rules unique, jobs in their
// pipeline with known statuses.
func checkIssue19(p *project) error {
	names := map[string]bool{}
	for _, l := range p.labels {
		if names[strings.ToLower(l.name)] || labelNameProblem(l.name) != "" {
			return fmt.Errorf("label %q twice or invalid", l.name)
		}
		names[strings.ToLower(l.name)] = true
	}
	checkNotes := func(notes []*note, kind string, id int64) error {
		for _, n := range notes {
			if n.noteableType != kind || n.noteableID != id || n.project != p {
				return fmt.Errorf("note %d is not on %s %d", n.id, kind, id)
			}
		}
		return nil
	}
	hasMilestone := func(m *milestone) bool { return m == nil || slices.Contains(p.milestones, m) && m.project == p }
	for _, is := range p.issues {
		if err := checkNotes(is.notes, "Issue", is.id); err != nil {
			return err
		}
		if !hasMilestone(is.milestone) {
			return fmt.Errorf("issue %d has a milestone of no project", is.iid)
		}
		for _, l := range is.labels {
			if !names[strings.ToLower(l)] {
				return fmt.Errorf("issue %d carries label %q the project lacks", is.iid, l)
			}
		}
	}
	for _, mr := range p.mrs {
		if err := checkNotes(mr.notes, "MergeRequest", mr.id); err != nil {
			return err
		}
		if !hasMilestone(mr.milestone) {
			return fmt.Errorf("merge request %d has a milestone of no project", mr.iid)
		}
	}
	for name, t := range p.repo.tags {
		if t.name != name || p.repo.commits[t.commit.sha] != t.commit {
			return fmt.Errorf("tag %q points at no known commit", name)
		}
	}
	for _, r := range p.releases {
		if p.repo.tags[r.tagName] == nil {
			return fmt.Errorf("release %q has no tag", r.tagName)
		}
		for _, m := range r.milestones {
			if !hasMilestone(m) {
				return fmt.Errorf("release %q has a milestone of no project", r.tagName)
			}
		}
	}
	rules := map[string]bool{}
	for _, pb := range p.protected {
		if rules[pb.name] {
			return fmt.Errorf("branch rule %q twice", pb.name)
		}
		rules[pb.name] = true
	}
	for _, pl := range p.pipelines {
		for _, j := range pl.jobs {
			if j.pipeline != pl || !slices.Contains(jobStatuses, j.status) {
				return fmt.Errorf("job %d of pipeline %d is %q or elsewhere", j.id, pl.id, j.status)
			}
		}
	}
	return nil
}

// checkRepo: every branch head and every parent is a known commit, and a
// commit's id is the hash of what it holds.
func checkRepo(p *project) error {
	for name, head := range p.repo.branches {
		if p.repo.commits[head.sha] != head {
			return fmt.Errorf("branch %q points at no known commit", name)
		}
	}
	for sha, c := range p.repo.commits {
		if c.sha != sha || commitSHA(c) != sha {
			return fmt.Errorf("commit %s does not hash to its id", sha)
		}
		for _, parent := range c.parents {
			if p.repo.commits[parent.sha] != parent {
				return fmt.Errorf("commit %s has an unknown parent", sha)
			}
		}
	}
	return nil
}
