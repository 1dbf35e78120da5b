package sourcehostfake

import (
	"cmp"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// history lists the commits reachable from head and not from stop (nil:
// none), newest first: by time, and a child before its parents at the
// same time.
func history(head, stop *commit) []*commit {
	var skip map[string]bool
	if stop != nil {
		skip = ancestors(stop)
	}
	gen := map[string]int{}
	var depth func(c *commit) int
	depth = func(c *commit) int {
		if g, ok := gen[c.sha]; ok {
			return g
		}
		g := 0
		for _, p := range c.parents {
			g = max(g, depth(p)+1)
		}
		gen[c.sha] = g
		return g
	}
	var out []*commit
	seen := map[string]bool{}
	stack := []*commit{head}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[c.sha] || skip[c.sha] {
			continue
		}
		seen[c.sha] = true
		out = append(out, c)
		stack = append(stack, c.parents...)
	}
	for _, c := range out {
		depth(c)
	}
	slices.SortFunc(out, func(a, b *commit) int {
		return cmp.Or(b.at.Compare(a.at), cmp.Compare(gen[b.sha], gen[a.sha]), cmp.Compare(a.sha, b.sha))
	})
	return out
}

// touches reports whether c changed path (a file, or anything under a
// directory).
func touches(c *commit, path string) bool {
	path = strings.Trim(path, "/")
	for _, list := range [][]string{c.added, c.modified, c.removed} {
		for _, f := range list {
			if f == path || strings.HasPrefix(f, path+"/") {
				return true
			}
		}
	}
	return false
}

func (c *call) listCommits() fakekit.Answer {
	pr, fail := c.repoProject()
	if fail != nil {
		return *fail
	}
	ref, _ := c.p.str("ref_name")
	path, _ := c.p.str("path")
	since := c.timeParam("since")
	until := c.timeParam("until")
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	if ref == "" {
		ref = pr.defaultBranch
	}
	var items []*commit
	if head := pr.repo.resolve(ref); head != nil {
		items = keep(history(head, nil), func(cm *commit) bool {
			return (path == "" || touches(cm, path)) && (since == nil || !cm.at.Before(*since)) && (until == nil || !cm.at.After(*until))
		})
	}
	page, fail := paginate(c, items)
	if fail != nil {
		return *fail
	}
	return ok(renderAll(page, func(cm *commit) *commitJSON { return c.renderCommit(pr, cm) }))
}

// timeParam reads an ISO 8601 time.
func (c *call) timeParam(name string) *time.Time {
	s, ok := c.p.str(name)
	if !ok || s == "" {
		return nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05Z0700", time.DateOnly} {
		if t, err := time.Parse(layout, s); err == nil {
			return &t
		}
	}
	c.p.fail(name, "is invalid")
	return nil
}

// mrCommits are the commits a merge request brings: those of its source
// branch not on its target (kept from the merge, once merged).
func mrCommits(pr *project, mr *mergeRequest) []*commit {
	if mr.commits != nil {
		return mr.commits
	}
	src, tgt := pr.repo.branches[mr.sourceBranch], pr.repo.branches[mr.targetBranch]
	if src == nil {
		return nil
	}
	return history(src, tgt)
}

func (c *call) listMergeRequestCommits() fakekit.Answer {
	pr, fail := c.repoProject()
	if fail != nil {
		return *fail
	}
	mr, fail := c.findMR(pr)
	if fail != nil {
		return *fail
	}
	page, fail := paginate(c, mrCommits(pr, mr))
	if fail != nil {
		return *fail
	}
	return ok(renderAll(page, func(cm *commit) *commitJSON { return c.renderCommit(pr, cm) }))
}

// fileChanged is the real service's refusal of a stale last_commit_id.
func fileChanged() *fakekit.Answer {
	return errAnswer(message(http.StatusConflict, "You are attempting to update a file that has changed since you started editing it."))
}

// changeFile commits an update (b not nil) or a deletion of the route's
// file on a branch, as the files API's PUT and DELETE do.
func (c *call) changeFile(deleting bool) fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	p := c.p
	branch := p.required("branch")
	content, hasContent := p.str("content")
	if !deleting && !hasContent {
		p.fail("content", "is missing")
	}
	msg := p.required("commit_message")
	encoding, _ := p.oneOf("encoding", "text", "base64")
	authorName, _ := p.str("author_name")
	authorEmail, _ := p.str("author_email")
	start, _ := p.str("start_branch")
	lastCommit, _ := p.str("last_commit_id")
	if problem := p.problem(); problem != "" {
		return badRequest(problem)
	}
	if fail := c.mayPush(pr, branch); fail != nil {
		return *fail
	}
	var b *blob
	if !deleting {
		if b = p.blob; b == nil {
			data, err := fileContent(content, encoding)
			if err != nil {
				return badRequest("content is invalid")
			}
			b = newBlob(data)
		}
	}
	file := strings.Trim(c.r.PathValue("file_path"), "/")
	if file == "" || slices.Contains(strings.Split(file, "/"), "..") {
		return message(http.StatusBadRequest, "Your changes could not be committed, because the file path is invalid")
	}
	before := pr.repo.branches[branch]
	from := before
	if from == nil && start != "" {
		from = pr.repo.resolve(start)
	}
	if from == nil || from.files[file] == nil {
		return message(http.StatusBadRequest, "A file with this name doesn't exist")
	}
	if lastCommit != "" {
		if last := lastCommitFor(from, file); last == nil || last.sha != lastCommit {
			return *fileChanged()
		}
	}
	if authorName == "" {
		authorName, authorEmail = c.user.name, c.user.email
	}
	cm, err := c.st.commitFiles(pr, branch, start, []fileChange{{path: file, blob: b}}, msg, authorName, authorEmail)
	if err != nil {
		return message(http.StatusBadRequest, err.Error())
	}
	c.queuePush(pr, branch, before, cm)
	if deleting {
		return fakekit.Answer{Status: http.StatusNoContent}
	}
	return ok(map[string]string{"file_path": file, "branch": branch})
}

func (c *call) updateFile() fakekit.Answer { return c.changeFile(false) }
func (c *call) deleteFile() fakekit.Answer { return c.changeFile(true) }
