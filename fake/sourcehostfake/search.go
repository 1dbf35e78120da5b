package sourcehostfake

import (
	"cmp"
	"maps"
	"net/http"
	"path"
	"slices"
	"strings"

	"github.com/apitwin/apitwin/internal/fakekit"
	"github.com/apitwin/apitwin/internal/jsonw"
)

// The scopes of the real service's search API in its free edition (no
// advanced search), at each level: the instance (GET /search), a group
// (GET /groups/:id/search) and a project (GET /projects/:id/search). A
// scope of another level is 400 "scope does not have a valid value", as
// the real service's parameter check answers it. The fake holds no
// snippets or wikis: snippet_titles and wiki_blobs find nothing.
var (
	globalSearchScopes  = []string{"projects", "issues", "merge_requests", "milestones", "snippet_titles", "users"}
	groupSearchScopes   = []string{"projects", "issues", "merge_requests", "milestones", "users"}
	projectSearchScopes = []string{"issues", "merge_requests", "milestones", "notes", "wiki_blobs", "commits", "blobs", "users"}
)

// maxSearchChars is the real service's limit on a search term; past it its
// abuse detection finds nothing, and so does the fake.
const maxSearchChars = 4096

// blobSearchContext is the lines shown before and after a blob's first
// matching line.
const blobSearchContext = 2

func (c *call) searchGlobal() fakekit.Answer {
	term, scope, fail := c.searchParams(globalSearchScopes)
	if fail != nil {
		return *fail
	}
	var projects []*project
	for _, pr := range c.st.projects {
		if c.st.canSee(c.user, pr) {
			projects = append(projects, pr)
		}
	}
	return c.search(term, scope, projects, nil)
}

func (c *call) searchGroup() fakekit.Answer {
	g, fail := c.pathGroup()
	if fail != nil {
		return *fail
	}
	term, scope, fail := c.searchParams(groupSearchScopes)
	if fail != nil {
		return *fail
	}
	var projects []*project
	for _, pr := range c.st.projects {
		if (pr.ns == g || pr.ns.within(g)) && c.st.canSee(c.user, pr) {
			projects = append(projects, pr)
		}
	}
	return c.search(term, scope, projects, &searchLevel{group: g})
}

func (c *call) searchProject() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	term, scope, fail := c.searchParams(projectSearchScopes)
	if fail != nil {
		return *fail
	}
	ref, _ := c.p.str("ref")
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	return c.search(term, scope, []*project{pr}, &searchLevel{pr: pr, ref: ref})
}

// searchParams reads search and scope, as the real service checks them:
// both required, the scope one of its level's.
func (c *call) searchParams(scopes []string) (term, scope string, _ *fakekit.Answer) {
	term = c.p.required("search")
	if !c.p.has("scope") {
		c.p.fail("scope", "is missing")
	}
	scope, _ = c.p.oneOf("scope", scopes...)
	if msg := c.p.problem(); msg != "" {
		return "", "", errAnswer(badRequest(msg))
	}
	return term, scope, nil
}

// searchLevel is the group or project searched, nil for the instance: a
// group's or project's users are its members, and a project's search
// has its repository at ref (the default branch when empty).
type searchLevel struct {
	group *namespace
	pr    *project
	ref   string
}

// search answers scope's records in projects matching term, a
// case-insensitive substring, newest first.
func (c *call) search(term, scope string, projects []*project, in *searchLevel) fakekit.Answer {
	if len(term) > maxSearchChars {
		return searchAnswer(c, []int{}, nil)
	}
	match := func(texts ...string) bool {
		for _, t := range texts {
			if containsFold(t, term) {
				return true
			}
		}
		return false
	}
	switch scope {
	case "projects":
		found := keep(projects, func(pr *project) bool { return match(pr.name, pr.path, pr.fullPath(), pr.description) })
		slices.Reverse(found)
		return searchAnswer(c, found, func(b []byte, pr *project) []byte { return c.appendProject(b, pr, false) })
	case "issues":
		var found []*issue
		for _, pr := range projects {
			found = append(found, keep(pr.issues, func(is *issue) bool { return c.canSeeIssue(is) && match(is.title, is.description) })...)
		}
		slices.SortStableFunc(found, func(a, b *issue) int { return cmp.Compare(b.id, a.id) })
		return searchAnswer(c, found, c.appendIssue)
	case "merge_requests":
		var found []*mergeRequest
		for _, pr := range projects {
			found = append(found, keep(pr.mrs, func(mr *mergeRequest) bool { return match(mr.title, mr.description) })...)
		}
		slices.SortStableFunc(found, func(a, b *mergeRequest) int { return cmp.Compare(b.id, a.id) })
		return searchAnswer(c, found, c.appendMR)
	case "milestones":
		var found []*milestone
		for _, pr := range projects {
			found = append(found, keep(pr.milestones, func(m *milestone) bool { return match(m.title, m.description) })...)
		}
		slices.SortStableFunc(found, func(a, b *milestone) int { return cmp.Compare(b.id, a.id) })
		return searchAnswer(c, found, c.appendMilestone)
	case "users":
		return c.searchUsers(term, in)
	case "notes":
		var found []*note
		if in != nil && in.pr != nil {
			for _, is := range in.pr.issues {
				if c.canSeeIssue(is) {
					found = append(found, keep(is.notes, func(n *note) bool { return !n.system && c.canSeeNote(in.pr, n) && match(n.body) })...)
				}
			}
			for _, mr := range in.pr.mrs {
				found = append(found, keep(mr.notes, func(n *note) bool { return !n.system && c.canSeeNote(in.pr, n) && match(n.body) })...)
			}
		}
		slices.SortStableFunc(found, func(a, b *note) int { return cmp.Compare(b.id, a.id) })
		return searchAnswer(c, found, c.appendNote)
	case "commits", "blobs":
		return c.searchRepository(term, scope, in)
	}
	return searchAnswer(c, []int{}, nil) // snippet_titles, wiki_blobs: none held
}

// searchUsers finds active users by username or name: every user for an
// instance's search, the members of the group or project searched.
func (c *call) searchUsers(term string, in *searchLevel) fakekit.Answer {
	var found []*user
	for _, id := range slices.Sorted(maps.Keys(c.st.users)) {
		u := c.st.users[id]
		if u.state != "active" || !containsFold(u.username, term) && !containsFold(u.name, term) {
			continue
		}
		switch {
		case in != nil && in.pr != nil && !c.st.isMember(u, in.pr),
			in != nil && in.group != nil && c.st.groupAccess(u, in.group) == NoAccess:
			continue
		}
		found = append(found, u)
	}
	return searchAnswer(c, found, func(b []byte, u *user) []byte {
		var v userJSON
		c.userView(&v, u)
		return v.appendJSON(b)
	})
}

// isMember reports whether u is a member of pr: directly, of its groups,
// or as the owner of its user namespace (an administrator's access to
// every project makes no member).
func (st *state) isMember(u *user, pr *project) bool {
	return pr.members[u.id] > 0 || st.groupAccess(u, pr.ns) > NoAccess || pr.ns.kind == "user" && pr.ns.owner == u
}

// searchCommitJSON is a commit found by a search, with its project.
type searchCommitJSON struct {
	*commitJSON
	ProjectID int64 `json:"project_id"`
}

// searchBlobJSON is a file found by a search: the lines around its first
// match (or its first lines, when its path matched), as the real
// service's Blob entity.
type searchBlobJSON struct {
	Basename  string  `json:"basename"`
	Data      string  `json:"data"`
	Path      string  `json:"path"`
	Filename  string  `json:"filename"`
	ID        *string `json:"id"`
	Ref       string  `json:"ref"`
	Startline int     `json:"startline"`
	ProjectID int64   `json:"project_id"`
}

// searchRepository finds commits by message, or files by content or path,
// at the project's ref; code a caller may not read finds nothing.
func (c *call) searchRepository(term, scope string, in *searchLevel) fakekit.Answer {
	if in == nil || in.pr == nil || !c.st.canReadCode(c.user, in.pr) {
		return searchAnswer(c, []int{}, nil)
	}
	ref := firstNonEmpty(in.ref, in.pr.defaultBranch)
	head := in.pr.repo.resolve(ref)
	if head == nil {
		return searchAnswer(c, []int{}, nil)
	}
	if scope == "commits" {
		found := keep(history(head, nil), func(cm *commit) bool { return containsFold(cm.message, term) })
		page, fail := searchPage(c, found)
		if fail != nil {
			return *fail
		}
		return ok(renderAll(page, func(cm *commit) searchCommitJSON {
			return searchCommitJSON{commitJSON: c.renderCommit(in.pr, cm), ProjectID: in.pr.id}
		}))
	}
	lower := strings.ToLower(term)
	var found []searchBlobJSON
	for _, file := range slices.Sorted(maps.Keys(head.files)) {
		data := head.files[file].data
		lines := splitLines(data)
		at := -1
		for i, l := range lines {
			if strings.Contains(strings.ToLower(l), lower) {
				at = i
				break
			}
		}
		if at < 0 && !containsFold(file, term) {
			continue
		}
		from, to := max(at-blobSearchContext, 0), min(at+blobSearchContext+1, len(lines))
		if at < 0 {
			from, to = 0, min(2*blobSearchContext+1, len(lines))
		}
		found = append(found, searchBlobJSON{Basename: strings.TrimSuffix(file, path.Ext(file)), Data: strings.Join(lines[from:to], ""),
			Path: file, Filename: file, Ref: ref, Startline: from + 1, ProjectID: in.pr.id})
	}
	page, fail := searchPage(c, found)
	if fail != nil {
		return *fail
	}
	return ok(page)
}

// searchAnswer answers a page of found, each record written by appendOne
// straight from the state.
func searchAnswer[T any](c *call, found []T, appendOne func([]byte, T) []byte) fakekit.Answer {
	page, fail := searchPage(c, found)
	if fail != nil {
		return *fail
	}
	if appendOne == nil {
		return ok([]struct{}{})
	}
	return c.doc(http.StatusOK, jsonw.AppendArray(c.buf(), page, appendOne))
}

// searchPage is a page of found with the real service's limited
// pagination headers for a search: no totals, no link to the last page.
func searchPage[T any](c *call, found []T) ([]T, *fakekit.Answer) {
	page, perPage, fail := c.pageParams()
	if fail != nil {
		return nil, fail
	}
	total := int64(len(found))
	start, end := total, total
	if page-1 < (total+perPage-1)/perPage { // (page-1)*perPage < total, without overflow
		start = (page - 1) * perPage
		end = min(start+perPage, total)
	}
	var next, prev int64
	if end < total {
		next = page + 1
	}
	if page > 1 {
		prev = page - 1
	}
	c.setPageHeaders(page, perPage, next, prev, 0, 0, false)
	return found[start:end], nil
}
