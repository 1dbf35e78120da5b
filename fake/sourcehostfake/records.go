package sourcehostfake

import (
	"maps"
	"net/http"
	"slices"
	"strconv"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// The fake keeps at most WithMaxRecords records of each kind, and at most
// WithMaxRepositoryBytes of repositories. A request that could add records
// past a bound is refused before it runs, as the real service refuses a
// record past one of its plan limits (400 {"message":{"base":["Maximum
// number of issues (100000) exceeded"]}}), and changes nothing.
//
// Each record made takes a number in state.seq, under its kind (ids for
// the kinds that have them; a count for the others: commits, branches,
// tags, members, stars, and the repository bytes a commit adds): so the
// counts follow what is made from those numbers, and only removals are
// counted where they happen (removed). The counts of a state are derived
// from it the first time they are needed, so a state restored or reset
// needs nothing of them.

// recordKinds name the kinds bounded (their keys in state.seq) in the
// refusal, as the real service names its limits.
var recordKinds = map[string]string{
	"user": "users", "namespace": "namespaces", "token": "personal access tokens", "project": "projects",
	"member": "members", "star": "stars", "issue": "issues", "merge_request": "merge requests", "note": "notes",
	"label": "labels", "milestone": "milestones", "hook": "project hooks", "pipeline": "pipelines", "job": "jobs",
	"release": "releases", "protected_branch": "protected branches", "branch": "branches", "tag": "tags",
	"commit": "commits", "variable": "CI/CD variables", "approval": "merge request approvals",
	"trigger": "pipeline triggers", "schedule": "pipeline schedules",
	"oauth_application": "OAuth applications",
}

// repoBytes is the seq key of the bytes repositories hold: each commit
// counts commitCost.
const repoBytes = "repository bytes"

// DefaultMaxRecords is the default bound of each kind of record.
const DefaultMaxRecords = fakekit.DefaultMaxRecords

// DefaultMaxRepositoryBytes is the default bound of what repositories hold
// in all: file contents, and each commit's snapshot of its files.
const DefaultMaxRepositoryBytes = 256 << 20

// commitCost is what a commit holds, as the bound counts it: itself, an
// entry per file of its snapshot, and the contents it adds or changes.
func commitCost(c *commit) int64 {
	n := int64(256 + 64*len(c.files))
	for _, paths := range [][]string{c.added, c.modified} {
		for _, p := range paths {
			if b := c.files[p]; b != nil {
				n += int64(len(b.data))
			}
		}
	}
	return n
}

// made counts n records of kind made, in seq.
func (st *state) made(kind string, n int64) { st.seq[kind] += n }

// addMembers sets members' levels in dst, counting the new members.
func (st *state) addMembers(dst, levels map[int64]int) {
	for id, level := range levels {
		if _, had := dst[id]; !had {
			st.made("member", 1)
		}
		dst[id] = level
	}
}

// stateRecords are the counts of one state, and seq as they last saw it.
type stateRecords struct {
	st   *state
	recs *fakekit.Records
	seen map[string]int64
}

// records is the count of s.st's records, brought up to date with what was
// made since it last looked. s.mu must be held.
func (s *Server) records() *fakekit.Records {
	st := s.st
	if s.recs.st != st {
		s.recs = stateRecords{st: st, recs: fakekit.NewRecords(s.cfg.maxRecords, st.countRecords), seen: maps.Clone(st.seq)}
	}
	r := s.recs
	for k, v := range st.seq {
		if d := v - r.seen[k]; d != 0 {
			r.recs.Add(k, int(d))
			r.seen[k] = v
		}
	}
	for k, v := range r.seen { // a number taken back whole (a seed rolled back)
		if _, ok := st.seq[k]; !ok {
			r.recs.Add(k, -int(v))
			delete(r.seen, k)
		}
	}
	return r.recs
}

// removed counts n records of kind removed. s.mu must be held.
func (s *Server) removed(kind string, n int) { s.records().Add(kind, -n) }

// countRecords counts the state's records by kind.
func (st *state) countRecords(add func(string, int)) {
	add("user", len(st.users))
	add("namespace", len(st.nss))
	add("token", len(st.tokens))
	add("oauth_application", len(st.oauth.apps))
	add("project", len(st.projects))
	for _, ns := range st.nss {
		add("member", len(ns.members))
	}
	for _, u := range st.users {
		add("star", len(u.starred))
	}
	for _, p := range st.projects {
		p.countRecords(add)
	}
}

// countRecords counts the records p holds by kind (not p itself, nor its
// stars, which users hold).
func (p *project) countRecords(add func(string, int)) {
	add("member", len(p.members))
	add("issue", len(p.issues))
	add("merge_request", len(p.mrs))
	for _, is := range p.issues {
		add("note", len(is.notes))
	}
	for _, mr := range p.mrs {
		add("note", len(mr.notes))
		add("approval", len(mr.approvals))
	}
	add("label", len(p.labels))
	add("milestone", len(p.milestones))
	add("hook", len(p.hooks))
	add("pipeline", len(p.pipelines))
	for _, pl := range p.pipelines {
		add("job", len(pl.jobs))
	}
	add("variable", len(p.variables))
	add("trigger", len(p.triggers))
	add("schedule", len(p.schedules))
	add("release", len(p.releases))
	add("protected_branch", len(p.protected))
	add("branch", len(p.repo.branches))
	add("tag", len(p.repo.tags))
	add("commit", len(p.repo.commits))
	var bytes int64
	for _, c := range p.repo.commits {
		bytes += commitCost(c)
	}
	add(repoBytes, int(bytes))
}

// recordNeed is records of a kind a request may add.
type recordNeed struct {
	kind string
	n    int
}

// pushNeeds are what a commit onto head of a change to path (b its new
// content, nil to delete it) may add: the commit and its bytes, a branch,
// and the pipeline with its jobs that the new head's CI definition starts.
func (s *Server) pushNeeds(head *commit, path string, b *blob) []recordNeed {
	cost := 256 + 64
	var ci *blob
	if head != nil {
		cost += 64 * len(head.files)
		ci = head.files[s.cfg.ciFile]
	}
	if path == s.cfg.ciFile {
		ci = b
	}
	if b != nil {
		cost += len(b.data)
	}
	return append([]recordNeed{{"commit", 1}, {"branch", 1}, {repoBytes, cost}}, s.pipelineNeeds(ci)...)
}

// pushesNeeds is pushNeeds of several changes at once (a seed's push).
func (s *Server) pushesNeeds(head *commit, changes []fileChange) []recordNeed {
	cost := 256 + 64*len(changes)
	var ci *blob
	if head != nil {
		cost += 64 * len(head.files)
		ci = head.files[s.cfg.ciFile]
	}
	for _, ch := range changes {
		if ch.path == s.cfg.ciFile {
			ci = ch.blob
		}
		if ch.blob != nil {
			cost += len(ch.blob.data)
		}
	}
	return append([]recordNeed{{"commit", 1}, {"branch", 1}, {repoBytes, cost}}, s.pipelineNeeds(ci)...)
}

// pipelineNeeds are the pipeline and jobs a CI definition starts (nil:
// none).
func (s *Server) pipelineNeeds(ci *blob) []recordNeed {
	if ci == nil {
		return nil
	}
	return []recordNeed{{"pipeline", 1}, {"job", len(parseCIJobs(ci.data))}}
}

// listed is how many names a list parameter holds.
func (c *call) listed(name string) int {
	q := *c.p
	q.errs = nil
	l, _ := q.list(name)
	return len(l)
}

// param is a string parameter, without piling up a problem.
func (c *call) param(name string) string {
	q := *c.p
	q.errs = nil
	v, _ := q.str(name)
	return v
}

// branchHead is the head of the request's project's branch (the default
// branch when it has none of that name), or nil.
func (c *call) branchHead(branch string) *commit {
	pr := c.st.project(c.r.PathValue("id"))
	if pr == nil {
		return nil
	}
	if head := pr.repo.resolve(branch); head != nil && branch != "" {
		return head
	}
	return pr.repo.branches[pr.defaultBranch]
}

// fileNeeds are pushNeeds of the files API's commit of {file_path}.
func (c *call) fileNeeds(deleting bool) []recordNeed {
	head := c.branchHead(c.param("branch"))
	if head == nil {
		head = c.branchHead(c.param("start_branch"))
	}
	b := c.p.blob
	if deleting {
		b = nil
	}
	return c.s.pushNeeds(head, c.r.PathValue("file_path"), b)
}

// recordNeeds are the records each write may add, by route: checked before
// it runs, so that a request that could pass a bound is refused whole.
// Counts that depend on the request are read from it (the labels named,
// the file committed, the CI definition a push starts a pipeline of); the
// others are the most the route can add.
var recordNeeds = map[string]func(c *call) []recordNeed{
	"POST /api/v4/projects": func(c *call) []recordNeed {
		return []recordNeed{{"project", 1}, {"protected_branch", 1}, {"member", 1}, {"commit", 1}, {"branch", 1}, {repoBytes, 1 << 10}}
	},
	"POST /api/v4/projects/{id}/star":                     func(*call) []recordNeed { return []recordNeed{{"star", 1}} },
	"POST /api/v4/projects/{id}/fork":                     (*call).forkNeeds,
	"PUT /api/v4/projects/{id}/transfer":                  func(*call) []recordNeed { return []recordNeed{{"member", 1}} },
	"POST /api/v4/users/{user_id}/personal_access_tokens": func(*call) []recordNeed { return []recordNeed{{"token", 1}} },
	"POST /api/v4/groups":                                 func(*call) []recordNeed { return []recordNeed{{"namespace", 1}, {"member", 1}} },
	"POST /api/v4/projects/{id}/members":                  func(*call) []recordNeed { return []recordNeed{{"member", 1}} },
	"POST /api/v4/projects/{id}/issues": func(c *call) []recordNeed {
		return []recordNeed{{"issue", 1}, {"label", c.listed("labels")}}
	},
	"PUT /api/v4/projects/{id}/issues/{iid}": func(c *call) []recordNeed {
		return []recordNeed{{"label", c.listed("labels") + c.listed("add_labels")}, {"note", 1}}
	},
	"POST /api/v4/projects/{id}/merge_requests": func(c *call) []recordNeed {
		return []recordNeed{{"merge_request", 1}, {"label", c.listed("labels")}}
	},
	"PUT /api/v4/projects/{id}/merge_requests/{iid}": func(c *call) []recordNeed {
		return []recordNeed{{"label", c.listed("labels") + c.listed("add_labels")}, {"note", 1}}
	},
	"PUT /api/v4/projects/{id}/merge_requests/{iid}/merge": func(c *call) []recordNeed {
		pr := c.st.project(c.r.PathValue("id"))
		iid, _ := c.pathInt("iid")
		var src, tgt *commit
		if pr != nil {
			for _, mr := range pr.mrs {
				if mr.iid == iid {
					src, tgt = pr.repo.branches[mr.sourceBranch], pr.repo.branches[mr.targetBranch]
				}
			}
		}
		if src == nil || tgt == nil {
			return nil // refused as it is
		}
		needs := []recordNeed{{"commit", 1}, {"note", 1}, {repoBytes, 256 + 64*(len(src.files)+len(tgt.files))}}
		ci := tgt.files[c.s.cfg.ciFile]
		if b := src.files[c.s.cfg.ciFile]; b != nil {
			ci = b
		}
		return append(needs, c.s.pipelineNeeds(ci)...)
	},
	"POST /api/v4/projects/{id}/issues/{iid}/notes":                                     func(*call) []recordNeed { return []recordNeed{{"note", 1}} },
	"POST /api/v4/projects/{id}/merge_requests/{iid}/notes":                             func(*call) []recordNeed { return []recordNeed{{"note", 1}} },
	"POST /api/v4/projects/{id}/labels":                                                 func(*call) []recordNeed { return []recordNeed{{"label", 1}} },
	"POST /api/v4/projects/{id}/milestones":                                             func(*call) []recordNeed { return []recordNeed{{"milestone", 1}} },
	"POST /api/v4/projects/{id}/hooks":                                                  func(*call) []recordNeed { return []recordNeed{{"hook", 1}} },
	"POST /api/v4/projects/{id}/variables":                                              func(*call) []recordNeed { return []recordNeed{{"variable", 1}} },
	"POST /api/v4/projects/{id}/merge_requests/{iid}/discussions":                       func(*call) []recordNeed { return []recordNeed{{"note", 1}} },
	"POST /api/v4/projects/{id}/merge_requests/{iid}/discussions/{discussion_id}/notes": func(*call) []recordNeed { return []recordNeed{{"note", 1}} },
	"POST /api/v4/projects/{id}/merge_requests/{iid}/approve":                           func(*call) []recordNeed { return []recordNeed{{"approval", 1}} },
	"POST /api/v4/projects/{id}/triggers":                                               func(*call) []recordNeed { return []recordNeed{{"trigger", 1}} },
	"POST /api/v4/projects/{id}/pipeline_schedules":                                     func(*call) []recordNeed { return []recordNeed{{"schedule", 1}} },
	"POST /api/v4/projects/{id}/pipeline_schedules/{pipeline_schedule_id}/play": func(c *call) []recordNeed {
		if pr := c.st.project(c.r.PathValue("id")); pr != nil {
			id, _ := c.pathInt("pipeline_schedule_id")
			for _, s := range pr.schedules {
				if head := pr.repo.resolve(scheduleRef(s)); s.id == id && head != nil {
					return c.s.pipelineNeeds(head.files[c.s.cfg.ciFile])
				}
			}
		}
		return nil
	},
	"POST /api/v4/projects/{id}/trigger/pipeline": func(c *call) []recordNeed {
		if head := c.branchHead(c.param("ref")); head != nil {
			return c.s.pipelineNeeds(head.files[c.s.cfg.ciFile])
		}
		return nil
	},
	"POST /api/v4/projects/{id}/pipeline": func(c *call) []recordNeed {
		if head := c.branchHead(c.param("ref")); head != nil {
			return c.s.pipelineNeeds(head.files[c.s.cfg.ciFile])
		}
		return nil
	},
	"POST /api/v4/projects/{id}/jobs/{job_id}/retry": func(*call) []recordNeed { return []recordNeed{{"job", 1}} },
	"POST /api/v4/projects/{id}/pipelines/{pipeline_id}/retry": func(c *call) []recordNeed {
		if pr := c.st.project(c.r.PathValue("id")); pr != nil {
			if pl, fail := c.findPipeline(pr); fail == nil {
				return []recordNeed{{"job", len(retryableJobs(pl))}}
			}
		}
		return nil
	},
	"POST /api/v4/projects/{id}/repository/files/{file_path}":   func(c *call) []recordNeed { return c.fileNeeds(false) },
	"PUT /api/v4/projects/{id}/repository/files/{file_path}":    func(c *call) []recordNeed { return c.fileNeeds(false) },
	"DELETE /api/v4/projects/{id}/repository/files/{file_path}": func(c *call) []recordNeed { return c.fileNeeds(true) },
	"POST /api/v4/projects/{id}/repository/branches": func(c *call) []recordNeed {
		needs := []recordNeed{{"branch", 1}}
		if head := c.branchHead(c.param("ref")); head != nil {
			needs = append(needs, c.s.pipelineNeeds(head.files[c.s.cfg.ciFile])...)
		}
		return needs
	},
	"POST /api/v4/projects/{id}/repository/tags":    func(*call) []recordNeed { return []recordNeed{{"tag", 1}} },
	"POST /api/v4/projects/{id}/releases":           func(*call) []recordNeed { return []recordNeed{{"release", 1}, {"tag", 1}} },
	"POST /api/v4/projects/{id}/protected_branches": func(*call) []recordNeed { return []recordNeed{{"protected_branch", 1}} },
}

// roomFor answers the refusal of a request that needs records past a
// bound, or nil. s.mu must be held.
func (s *Server) roomFor(needs []recordNeed) *fakekit.Answer {
	recs := s.records()
	for _, nd := range needs {
		switch {
		case nd.n <= 0:
		case nd.kind == repoBytes:
			if int64(recs.Count(repoBytes))+int64(nd.n) > s.maxRepoBytes() {
				return errAnswer(s.repoFull())
			}
		case !recs.Room(nd.kind, nd.n):
			return errAnswer(kindFull(nd.kind, recs.Max()))
		}
	}
	return nil
}

// kindFull is the real service's refusal of a record past its limit.
func kindFull(kind string, max int) fakekit.Answer {
	return invalid(http.StatusBadRequest, map[string][]string{"base": {
		"Maximum number of " + recordKinds[kind] + " (" + strconv.Itoa(max) + ") exceeded"}})
}

// repoFull is the refusal of a commit past the repository bytes, in the
// words the real service refuses a commit past a repository's size limit.
func (s *Server) repoFull() fakekit.Answer {
	return invalid(http.StatusBadRequest, map[string][]string{"base": {
		"Your changes could not be committed, because the repositories have exceeded their size limit of " + size(s.maxRepoBytes())}})
}

// size writes n bytes as the real service writes a size limit: "256 MiB".
func size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " B"
}

// maxRepoBytes is the bound of the repository bytes.
func (s *Server) maxRepoBytes() int64 {
	if s.cfg.maxRepoBytes > 0 {
		return s.cfg.maxRepoBytes
	}
	return DefaultMaxRepositoryBytes
}

// seedRoom is roomFor for a seeding method: the refusal as an error.
func (s *Server) seedRoom(needs ...recordNeed) error {
	if fail := s.roomFor(needs); fail != nil {
		return answerError(fail)
	}
	return nil
}

// overBound is the refusal of the first bound a seed added whole
// (AddProject) passed, or nil; the caller takes the seed back.
func (s *Server) overBound() error {
	recs := s.records()
	for _, kind := range slices.Sorted(maps.Keys(recordKinds)) {
		if recs.Count(kind) > recs.Max() {
			a := kindFull(kind, recs.Max())
			return answerError(&a)
		}
	}
	if int64(recs.Count(repoBytes)) > s.maxRepoBytes() {
		a := s.repoFull()
		return answerError(&a)
	}
	return nil
}
