package sourcehostfake

import (
	"net/http"
	"slices"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// rebaseError is the real service's merge_error for a rebase that stopped
// on a conflict (MergeRequests::RebaseService).
const rebaseError = "Rebase failed: Rebase locally, resolve all conflicts, then push the branch."

// maxRebaseCommits bounds the commits a rebase replays, as a comparison's
// (maxCompareCommits); past it the rebase fails with rebaseError.
const maxRebaseCommits = maxCompareCommits

// rebaseJSON is the answer of PUT .../rebase.
type rebaseJSON struct {
	RebaseInProgress bool `json:"rebase_in_progress"`
}

// mrDetailJSON is one merge request as GET .../merge_requests/:iid
// answers it: the list's fields, merge_error, and rebase_in_progress when
// include_rebase_in_progress asks for it.
type mrDetailJSON struct {
	mergeRequestJSON
	MergeError       *string `json:"merge_error"`
	RebaseInProgress *bool   `json:"rebase_in_progress,omitempty"`
}

// rebaseMergeRequest is PUT /projects/:id/merge_requests/:iid/rebase. The
// real service rebases in a background worker and answers 202 at once;
// the fake's rebase is over by the time it answers (rebase_in_progress
// true, as the real service's answer says, then false). It replays the
// source branch's commits that the target lacks, oldest first, merges
// left out (as git rebase does), onto the target's head, each with its
// message and author; one whose change is already there is dropped. A
// file a replayed commit changes that the target changed otherwise is a
// conflict: the branch stays as it was and merge_error is rebaseError. A
// rebase pushes the source branch (its push hook, and its pipeline unless
// skip_ci).
func (c *call) rebaseMergeRequest() fakekit.Answer {
	skipCI, _ := c.p.boolean("skip_ci")
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	pr, fail := c.repoProject()
	if fail != nil {
		return *fail
	}
	mr, fail := c.findMR(pr)
	if fail != nil {
		return *fail
	}
	if fail := c.mayPush(pr, mr.sourceBranch); fail != nil {
		return *fail
	}
	if mr.state != "opened" {
		return message(http.StatusConflict, "409 Conflict")
	}
	src, tgt := pr.repo.branches[mr.sourceBranch], pr.repo.branches[mr.targetBranch]
	switch {
	case src == nil:
		mr.mergeError = "Source branch does not exist"
	case tgt == nil:
		mr.mergeError = "Target branch does not exist"
	case mergeBase(src, tgt) == tgt: // already on the target's head
		mr.mergeError = ""
	default:
		plan, ok := replayPlan(src, tgt)
		if !ok {
			mr.mergeError = rebaseError
			break
		}
		needs := []recordNeed{{"commit", len(plan)}, {repoBytes, rebaseBytes(plan)}}
		if !skipCI && len(plan) > 0 {
			needs = append(needs, c.s.pipelineNeeds(plan[len(plan)-1].files[c.s.cfg.ciFile])...)
		}
		if fail := c.s.roomFor(needs); fail != nil {
			return *fail
		}
		head := tgt
		for _, step := range plan {
			head = c.st.commit(pr, mr.sourceBranch, []*commit{head}, step.changes, step.from.message, step.from.authorName, step.from.authorEmail)
		}
		if head == tgt { // every commit was already there: the branch is the target's head
			pr.repo.branches[mr.sourceBranch] = tgt
		}
		mr.mergeError, mr.updatedAt = "", c.st.clock.Now()
		if skipCI {
			c.events = append(c.events, c.s.pushEvents(c.base, c.user, pr, mr.sourceBranch, src, head)...)
		} else {
			c.queuePush(pr, mr.sourceBranch, src, head)
		}
	}
	return fakekit.Answer{Status: http.StatusAccepted, Body: rebaseJSON{RebaseInProgress: true}}
}

// replayStep is one commit a rebase makes: from's changes, as they apply.
type replayStep struct {
	from    *commit
	changes []fileChange
	files   map[string]*blob // the tree after it
}

// replayPlan is what rebasing src onto tgt commits, or false for a
// conflict (or more than maxRebaseCommits to replay). Nothing is
// committed: the plan is applied only whole.
func replayPlan(src, tgt *commit) ([]replayStep, bool) {
	todo := history(src, tgt) // newest first
	todo = slices.DeleteFunc(todo, func(c *commit) bool { return len(c.parents) != 1 })
	if len(todo) > maxRebaseCommits {
		return nil, false
	}
	slices.Reverse(todo)
	files := tgt.files
	var plan []replayStep
	for _, cm := range todo {
		parent := cm.parents[0]
		var changes []fileChange
		for _, list := range [][]string{cm.added, cm.modified, cm.removed} {
			for _, p := range list {
				was, now, here := blobSHA(parent.files[p]), blobSHA(cm.files[p]), blobSHA(files[p])
				switch {
				case here == now: // already so
				case here != was:
					return nil, false
				default:
					changes = append(changes, fileChange{path: p, blob: cm.files[p]})
				}
			}
		}
		if len(changes) == 0 {
			continue // git rebase drops a commit whose change is already there
		}
		next := make(map[string]*blob, len(files)+len(changes))
		for p, b := range files {
			next[p] = b
		}
		for _, ch := range changes {
			if ch.blob == nil {
				delete(next, ch.path)
			} else {
				next[ch.path] = ch.blob
			}
		}
		files = next
		plan = append(plan, replayStep{from: cm, changes: changes, files: files})
	}
	return plan, true
}

// rebaseBytes is what a plan's commits add to the repositories, as
// commitCost counts it.
func rebaseBytes(plan []replayStep) int {
	n := 0
	for _, step := range plan {
		n += 256 + 64*len(step.files)
		for _, ch := range step.changes {
			if ch.blob != nil {
				n += len(ch.blob.data)
			}
		}
	}
	return n
}
