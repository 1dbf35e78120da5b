package sourcehostfake

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/apitwin/apitwin/internal/fakekit"
	"github.com/apitwin/apitwin/internal/jsonw"
)

func (c *call) listMergeRequests() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	p := c.p
	state, _ := p.oneOf("state", "opened", "closed", "merged", "locked", "all")
	source, _ := p.str("source_branch")
	target, _ := p.str("target_branch")
	labels, _ := p.list("labels")
	search, _ := p.str("search")
	ms := milestoneFilter(p)
	orderBy, desc := sortOrder(p, "created_at", "updated_at", "title")
	if msg := p.problem(); msg != "" {
		return badRequest(msg)
	}
	accepted := func(mr *mergeRequest) bool {
		if state != "" && state != "all" && mr.state != state || source != "" && mr.sourceBranch != source ||
			target != "" && mr.targetBranch != target || !milestoneMatches(ms, mr.milestone) {
			return false
		}
		for _, l := range labels {
			if !slices.ContainsFunc(mr.labels, func(x string) bool { return strings.EqualFold(x, l) }) {
				return false
			}
		}
		return search == "" || containsFold(mr.title, search) || containsFold(mr.description, search)
	}
	page, fail := sortedPage(c, pr.mrs, accepted, func(a, b *mergeRequest) int {
		var r int
		switch orderBy {
		case "updated_at":
			r = a.updatedAt.Compare(b.updatedAt)
		case "title":
			r = cmp.Compare(strings.ToLower(a.title), strings.ToLower(b.title))
		default:
			r = a.createdAt.Compare(b.createdAt)
		}
		return ordered(r, a.id, b.id, desc)
	}, "")
	if fail != nil {
		return *fail
	}
	return c.doc(http.StatusOK, jsonw.AppendArray(c.buf(), page, c.appendMR))
}

func (c *call) findMR(pr *project) (*mergeRequest, *fakekit.Answer) {
	iid, valid := c.pathInt("iid")
	for _, mr := range pr.mrs {
		if valid && mr.iid == iid {
			return mr, nil
		}
	}
	a := notFound("Merge Request")
	return nil, &a
}

func (c *call) getMergeRequest() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	mr, fail := c.findMR(pr)
	if fail != nil {
		return *fail
	}
	withRebase, _ := c.p.boolean("include_rebase_in_progress")
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	v := mrDetailJSON{mergeRequestJSON: c.mrView(mr)}
	if mr.mergeError != "" {
		e := mr.mergeError // a copy: the answer is encoded after the state is unlocked
		v.MergeError = &e
	}
	if withRebase {
		v.RebaseInProgress = new(bool) // the fake's rebases are over when they are answered
	}
	return ok(v)
}

func (c *call) createMergeRequest() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	if fail := c.atLeast(pr, Developer); fail != nil {
		return *fail
	}
	p := c.p
	source := p.required("source_branch")
	target := p.required("target_branch")
	title := p.required("title")
	description, _ := p.str("description")
	labels, _ := p.list("labels")
	removeSource, _ := p.boolean("remove_source_branch")
	assignees, _ := c.assignees()
	ms, _ := c.milestoneParam(pr)
	if msg := p.problem(); msg != "" {
		return badRequest(msg)
	}
	if fail := checkTexts(title, description); fail != nil {
		return *fail
	}
	mr, fail := c.openMR(pr, source, target, title, description, labels, assignees, removeSource)
	if fail != nil {
		return *fail
	}
	mr.milestone = ms
	return c.doc(http.StatusCreated, c.appendMR(c.buf(), mr))
}

// openMR opens a merge request in pr, by c.user, and queues its "open"
// event; the branches must exist, and no other open merge request may join
// them. s.mu must be held.
func (c *call) openMR(pr *project, source, target, title, description string, labels []string, assignees []*user, removeSource bool) (*mergeRequest, *fakekit.Answer) {
	switch {
	case source == target:
		return nil, errAnswer(messages(http.StatusUnprocessableEntity, "You can't use same project/branch for source and target"))
	case pr.repo.branches[source] == nil:
		return nil, errAnswer(messages(http.StatusUnprocessableEntity, fmt.Sprintf("Source branch %q does not exist", source)))
	case pr.repo.branches[target] == nil:
		return nil, errAnswer(messages(http.StatusUnprocessableEntity, fmt.Sprintf("Target branch %q does not exist", target)))
	}
	for _, other := range pr.mrs {
		if other.state == "opened" && other.sourceBranch == source && other.targetBranch == target {
			return nil, errAnswer(messages(http.StatusConflict, fmt.Sprintf("Another open merge request already exists for this source branch: !%d", other.iid)))
		}
	}
	now := c.st.clock.Now()
	mr := &mergeRequest{id: c.st.next("merge_request"), iid: nextIID(pr.mrs, func(m *mergeRequest) int64 { return m.iid }),
		project: pr, title: title, description: description, state: "opened", sourceBranch: source, targetBranch: target,
		labels: c.st.ensureLabels(pr, labels), author: c.user, assignees: assignees, removeSourceBranch: removeSource, createdAt: now, updatedAt: now}
	pr.mrs = append(pr.mrs, mr)
	pr.lastActivity = now
	c.queueMREvent(mr, "open")
	return mr, nil
}

func (c *call) updateMergeRequest() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	mr, fail := c.findMR(pr)
	if fail != nil {
		return *fail
	}
	if mr.author != c.user {
		if fail := c.atLeast(pr, Developer); fail != nil {
			return *fail
		}
	}
	p := c.p
	title, hasTitle := p.str("title")
	description, hasDesc := p.str("description")
	target, hasTarget := p.str("target_branch")
	labels, hasLabels := p.list("labels")
	assignees, hasAssignees := c.assignees()
	stateEvent, _ := p.oneOf("state_event", "close", "reopen")
	ms, hasMilestone := c.milestoneParam(pr)
	if msg := p.problem(); msg != "" {
		return badRequest(msg)
	}
	if fail := checkTexts(title, description); fail != nil {
		return *fail
	}
	if !hasTitle && !hasDesc && !hasTarget && !hasLabels && !hasAssignees && stateEvent == "" && !p.has("milestone_id") {
		return badRequest("title, description, target_branch, labels, assignee_id, assignee_ids, state_event are missing, at least one parameter must be provided")
	}
	if hasTarget && pr.repo.branches[target] == nil {
		return messages(http.StatusUnprocessableEntity, fmt.Sprintf("Target branch %q does not exist", target))
	}
	now := c.st.clock.Now()
	if hasTitle {
		mr.title = title
	}
	if hasDesc {
		mr.description = description
	}
	if hasTarget {
		mr.targetBranch = target
	}
	if hasLabels {
		mr.labels = c.st.ensureLabels(pr, labels)
	}
	if hasMilestone {
		mr.milestone = ms
	}
	if hasAssignees {
		mr.assignees = assignees
	}
	action := "update"
	switch {
	case stateEvent == "close" && mr.state == "opened":
		mr.state, mr.closedAt, mr.closedBy, action = "closed", &now, c.user, "close"
		c.systemNoteOnMR(mr, "closed")
	case stateEvent == "reopen" && mr.state == "closed":
		mr.state, mr.closedAt, mr.closedBy, action = "opened", nil, nil, "reopen"
		c.systemNoteOnMR(mr, "reopened")
	}
	mr.updatedAt = now
	c.queueMREvent(mr, action)
	return c.doc(http.StatusOK, c.appendMR(c.buf(), mr))
}

func (c *call) acceptMergeRequest() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	mr, fail := c.findMR(pr)
	if fail != nil {
		return *fail
	}
	if fail := c.mayMerge(pr, mr.targetBranch); fail != nil {
		return *fail
	}
	sha, _ := c.p.str("sha")
	msg, _ := c.p.str("merge_commit_message")
	removeSource, hasRemove := c.p.boolean("should_remove_source_branch")
	if problem := c.p.problem(); problem != "" {
		return badRequest(problem)
	}
	if !hasRemove {
		removeSource = mr.removeSourceBranch
	}
	if fail := c.merge(pr, mr, sha, msg, removeSource); fail != nil {
		return *fail
	}
	return c.doc(http.StatusOK, c.appendMR(c.buf(), mr))
}

// merge merges an open merge request (its source head must be sha, when
// given) with a merge commit, and queues its events. s.mu must be held.
func (c *call) merge(pr *project, mr *mergeRequest, sha, msg string, removeSource bool) *fakekit.Answer {
	if mr.state != "opened" {
		return errAnswer(message(http.StatusMethodNotAllowed, "405 Method Not Allowed"))
	}
	src, tgt := pr.repo.branches[mr.sourceBranch], pr.repo.branches[mr.targetBranch]
	if src == nil || tgt == nil {
		return errAnswer(message(http.StatusUnprocessableEntity, "Branch cannot be merged"))
	}
	if sha != "" && sha != src.sha {
		return errAnswer(message(http.StatusConflict, "SHA does not match HEAD of source branch: "+src.sha))
	}
	changes, conflict := mergeChanges(mergeBase(src, tgt), src, tgt)
	if conflict {
		return errAnswer(message(http.StatusUnprocessableEntity, "Branch cannot be merged"))
	}
	if msg == "" {
		msg = fmt.Sprintf("Merge branch '%s' into '%s'\n\n%s\n\nSee merge request %s!%d", mr.sourceBranch, mr.targetBranch, mr.title, pr.fullPath(), mr.iid)
	}
	mr.commits = history(src, tgt)
	merged := c.st.commit(pr, mr.targetBranch, []*commit{tgt, src}, changes, msg, c.user.name, c.user.email)
	now := c.st.clock.Now()
	mr.state, mr.mergedAt, mr.mergedBy, mr.mergeCommitSHA, mr.updatedAt = "merged", &now, c.user, merged.sha, now
	c.systemNoteOnMR(mr, "merged")
	if removeSource && mr.sourceBranch != pr.defaultBranch {
		delete(pr.repo.branches, mr.sourceBranch)
		c.s.removed("branch", 1)
	}
	c.queueMREvent(mr, "merge")
	c.queuePush(pr, mr.targetBranch, tgt, merged)
	return nil
}

// mergeChanges is what merging src into tgt changes in tgt: every file src
// changed since base. A file both sides changed differently is a conflict.
func mergeChanges(base, src, tgt *commit) ([]fileChange, bool) {
	var baseFiles map[string]*blob
	if base != nil {
		baseFiles = base.files
	}
	paths := map[string]bool{}
	for p := range src.files {
		paths[p] = true
	}
	for p := range baseFiles {
		paths[p] = true
	}
	var changes []fileChange
	for _, p := range slices.Sorted(maps.Keys(paths)) {
		s, b, t := blobSHA(src.files[p]), blobSHA(baseFiles[p]), blobSHA(tgt.files[p])
		if s == b {
			continue // src did not touch it
		}
		if t != b && t != s {
			return nil, true
		}
		changes = append(changes, fileChange{path: p, blob: src.files[p]})
	}
	return changes, false
}

func blobSHA(b *blob) string {
	if b == nil {
		return ""
	}
	return b.sha
}

// MergeRequestSeed is a merge request to add (AddMergeRequest,
// ProjectSeed.MergeRequests).
type MergeRequestSeed struct {
	// Title and SourceBranch are required.
	Title        string `json:"title" yaml:"title"`
	Description  string `json:"description,omitempty" yaml:"description,omitempty"`
	SourceBranch string `json:"source_branch" yaml:"source_branch"`
	// TargetBranch empty means the default branch.
	TargetBranch string   `json:"target_branch,omitempty" yaml:"target_branch,omitempty"`
	Labels       []string `json:"labels,omitempty" yaml:"labels,omitempty"`
	// Author is a username; empty means root.
	Author string `json:"author,omitempty" yaml:"author,omitempty"`
	// Assignees are usernames.
	Assignees          []string `json:"assignees,omitempty" yaml:"assignees,omitempty"`
	RemoveSourceBranch bool     `json:"remove_source_branch,omitempty" yaml:"remove_source_branch,omitempty"`
	// State is opened (the default), closed, or merged: merged as the API
	// merges, with a merge commit (a conflict refuses the seed).
	State string `json:"state,omitempty" yaml:"state,omitempty"`
	// Milestone is the title of a milestone of the project.
	Milestone string `json:"milestone,omitempty" yaml:"milestone,omitempty"`
}

// AddMergeRequest adds a merge request to a project and returns its iid.
// It fires merge request (and, for a merged one, push) webhooks as the API
// would.
func (s *Server) AddMergeRequest(projectID int64, seed MergeRequestSeed) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.st.projectByID(projectID)
	if err != nil {
		return 0, err
	}
	if err := s.seedRoom(recordNeed{"merge_request", 1}, recordNeed{"label", len(seed.Labels)}, recordNeed{"note", 1}); err != nil {
		return 0, err
	}
	c, err := s.seedMR(p, seed)
	if err != nil {
		return 0, err
	}
	s.hooks.enqueue(c.via, c.events)
	return p.mrs[len(p.mrs)-1].iid, nil
}

// seedMR adds a merge request as its author; the returned call holds its
// events. Nothing is added when it fails. s.mu must be held.
func (s *Server) seedMR(p *project, seed MergeRequestSeed) (*call, error) {
	switch {
	case strings.TrimSpace(seed.Title) == "":
		return nil, errors.New("sourcehostfake: title is missing")
	case seed.SourceBranch == "":
		return nil, errors.New("sourcehostfake: source_branch is missing")
	case seed.State != "" && seed.State != "opened" && seed.State != "closed" && seed.State != "merged":
		return nil, fmt.Errorf("sourcehostfake: invalid merge request state %q (opened, closed or merged)", seed.State)
	}
	if fail := checkTexts(seed.Title, seed.Description); fail != nil {
		return nil, answerError(fail)
	}
	c, assignees, err := s.seedAuthor(seed.Author, seed.Assignees)
	if err != nil {
		return nil, err
	}
	ms, err := milestoneNamed(p, seed.Milestone)
	if err != nil {
		return nil, err
	}
	target := firstNonEmpty(seed.TargetBranch, p.defaultBranch)
	if seed.State == "merged" { // check first: a refused merge must leave nothing behind
		src, tgt := p.repo.branches[seed.SourceBranch], p.repo.branches[target]
		if src != nil && tgt != nil {
			if _, conflict := mergeChanges(mergeBase(src, tgt), src, tgt); conflict {
				return nil, errors.New("sourcehostfake: Branch cannot be merged")
			}
		}
	}
	mr, fail := c.openMR(p, seed.SourceBranch, target, seed.Title, seed.Description, cleanList(seed.Labels), assignees, seed.RemoveSourceBranch)
	if fail != nil {
		return nil, answerError(fail)
	}
	mr.milestone = ms
	now := c.st.clock.Now()
	switch seed.State {
	case "closed":
		mr.state, mr.closedAt, mr.closedBy = "closed", &now, c.user
		c.systemNoteOnMR(mr, "closed")
		c.queueMREvent(mr, "close")
	case "merged":
		if fail := c.merge(p, mr, "", "", seed.RemoveSourceBranch); fail != nil {
			return nil, answerError(fail) // not reached: checked above
		}
	}
	return c, nil
}

// mrDiffRefs are the two snapshots a merge request's diff is between: the
// merge base of its branches and its source head, or, once merged, what
// its merge commit changed in the target.
func mrDiffRefs(pr *project, mr *mergeRequest) (from, to *commit) {
	if mc := pr.repo.commits[mr.mergeCommitSHA]; mc != nil && len(mc.parents) > 0 {
		return mc.parents[0], mc
	}
	src, tgt := pr.repo.branches[mr.sourceBranch], pr.repo.branches[mr.targetBranch]
	if src == nil {
		return nil, nil
	}
	if tgt == nil {
		return src, src // nothing to compare with: no changes
	}
	return mergeBase(src, tgt), src
}

// mrChangesJSON is a merge request with its changes (GET .../changes).
type mrChangesJSON struct {
	mergeRequestJSON
	Changes      []diffJSON `json:"changes"`
	Overflow     bool       `json:"overflow"`
	ChangesCount string     `json:"changes_count"`
}

func (c *call) mergeRequestChanges() fakekit.Answer {
	pr, fail := c.repoProject()
	if fail != nil {
		return *fail
	}
	mr, fail := c.findMR(pr)
	if fail != nil {
		return *fail
	}
	changes, overflow := diffTrees(mrDiffRefs(pr, mr))
	count := strconv.Itoa(len(changes))
	if overflow {
		count += "+"
	}
	return ok(mrChangesJSON{mergeRequestJSON: c.mrView(mr), Changes: changes, Overflow: overflow, ChangesCount: count})
}

func (c *call) listMergeRequestDiffs() fakekit.Answer {
	pr, fail := c.repoProject()
	if fail != nil {
		return *fail
	}
	mr, fail := c.findMR(pr)
	if fail != nil {
		return *fail
	}
	changes, _ := diffTrees(mrDiffRefs(pr, mr))
	page, fail := paginate(c, changes)
	if fail != nil {
		return *fail
	}
	return ok(page)
}
