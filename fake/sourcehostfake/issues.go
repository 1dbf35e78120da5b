package sourcehostfake

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// issueFilter is the filters list endpoints share.
type issueFilter struct {
	state    string
	labels   []string
	assignee string // an id, "None" or "Any"
	authorID int64
	search   string
	orderBy  string
	desc     bool
}

func readIssueFilter(p *params) issueFilter {
	f := issueFilter{state: "all"}
	if s, ok := p.oneOf("state", "opened", "closed", "all"); ok {
		f.state = s
	}
	f.labels, _ = p.list("labels")
	if a, ok := p.str("assignee_id"); ok {
		if _, err := strconv.ParseInt(a, 10, 64); err != nil && !strings.EqualFold(a, "None") && !strings.EqualFold(a, "Any") {
			p.fail("assignee_id", "is invalid")
		}
		f.assignee = a
	}
	f.authorID, _ = p.int("author_id")
	f.search, _ = p.str("search")
	f.orderBy, f.desc = sortOrder(p, "created_at", "updated_at")
	return f
}

func (f issueFilter) match(is *issue) bool {
	if f.state != "all" && is.state != f.state {
		return false
	}
	for _, l := range f.labels {
		switch {
		case strings.EqualFold(l, "None"):
			if len(is.labels) > 0 {
				return false
			}
		case strings.EqualFold(l, "Any"):
			if len(is.labels) == 0 {
				return false
			}
		case !slices.ContainsFunc(is.labels, func(x string) bool { return strings.EqualFold(x, l) }):
			return false
		}
	}
	switch {
	case f.assignee == "":
	case strings.EqualFold(f.assignee, "None"):
		if len(is.assignees) > 0 {
			return false
		}
	case strings.EqualFold(f.assignee, "Any"):
		if len(is.assignees) == 0 {
			return false
		}
	default:
		id, _ := strconv.ParseInt(f.assignee, 10, 64)
		if !slices.ContainsFunc(is.assignees, func(u *user) bool { return u.id == id }) {
			return false
		}
	}
	if f.authorID != 0 && is.author.id != f.authorID {
		return false
	}
	return f.search == "" || containsFold(is.title, f.search) || containsFold(is.description, f.search)
}

func (f issueFilter) sort(items []*issue) {
	slices.SortStableFunc(items, func(a, b *issue) int {
		r := a.createdAt.Compare(b.createdAt)
		if f.orderBy == "updated_at" {
			r = a.updatedAt.Compare(b.updatedAt)
		}
		return ordered(r, a.id, b.id, f.desc)
	})
}

// canSeeIssue: confidential issues show only to reporters and above, their
// author and their assignees.
func (c *call) canSeeIssue(is *issue) bool {
	if !is.confidential {
		return true
	}
	if c.user == nil {
		return false
	}
	return c.st.access(c.user, is.project) >= Reporter || is.author == c.user || slices.Contains(is.assignees, c.user)
}

func (c *call) listIssues() answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	f := readIssueFilter(c.p)
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	items := keep(pr.issues, func(is *issue) bool { return f.match(is) && c.canSeeIssue(is) })
	f.sort(items)
	page, fail := paginate(c, items)
	if fail != nil {
		return *fail
	}
	return ok(renderAll(page, c.renderIssue))
}

func (c *call) listAllIssues() answer {
	f := readIssueFilter(c.p)
	scope, hasScope := c.p.oneOf("scope", "created_by_me", "assigned_to_me", "all")
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	if !hasScope {
		scope = "created_by_me"
	}
	if c.user == nil && scope != "all" {
		return message(http.StatusUnauthorized, "401 Unauthorized")
	}
	var items []*issue
	for _, pr := range c.st.projects {
		if !c.st.canSee(c.user, pr) {
			continue
		}
		for _, is := range pr.issues {
			switch {
			case !f.match(is) || !c.canSeeIssue(is),
				scope == "created_by_me" && is.author != c.user,
				scope == "assigned_to_me" && !slices.Contains(is.assignees, c.user):
				continue
			}
			items = append(items, is)
		}
	}
	f.sort(items)
	page, fail := paginate(c, items)
	if fail != nil {
		return *fail
	}
	return ok(renderAll(page, c.renderIssue))
}

func (c *call) findIssue(pr *project) (*issue, *answer) {
	iid, valid := c.pathInt("iid")
	for _, is := range pr.issues {
		if valid && is.iid == iid && c.canSeeIssue(is) {
			return is, nil
		}
	}
	a := notFound("Issue")
	return nil, &a
}

func (c *call) getIssue() answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	is, fail := c.findIssue(pr)
	if fail != nil {
		return *fail
	}
	return ok(c.renderIssue(is))
}

// assignees turns the assignee_id and assignee_ids parameters into users,
// skipping ids that name no user, as the real API does.
func (c *call) assignees() ([]*user, bool) {
	var ids []int64
	given := false
	if id, ok := c.p.int("assignee_id"); ok {
		ids, given = append(ids, id), true
	}
	if list, ok := c.p.intList("assignee_ids"); ok {
		ids, given = append(ids, list...), true
	}
	var out []*user
	for _, id := range ids {
		if u := c.st.userByID(id); u != nil && !slices.Contains(out, u) {
			out = append(out, u)
		}
	}
	return out, given
}

func (c *call) createIssue() answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	p := c.p
	title := p.required("title")
	description, _ := p.str("description")
	labels, _ := p.list("labels")
	confidential, _ := p.boolean("confidential")
	assignees, _ := c.assignees()
	if msg := p.problem(); msg != "" {
		return badRequest(msg)
	}
	if len(title) > 255 {
		return invalid(http.StatusBadRequest, map[string][]string{"title": {"is too long (maximum is 255 characters)"}})
	}
	now := c.st.clock.Now()
	is := &issue{id: c.st.next("issue"), iid: nextIID(pr.issues, func(i *issue) int64 { return i.iid }), project: pr,
		title: title, description: description, state: "opened", labels: labels, author: c.user, assignees: assignees,
		confidential: confidential, createdAt: now, updatedAt: now}
	pr.issues = append(pr.issues, is)
	pr.lastActivity = now
	c.queueIssueEvent(is, "open")
	return created(c.renderIssue(is))
}

// nextIID is one more than the highest iid so far.
func nextIID[T any](items []T, iid func(T) int64) int64 {
	var top int64
	for _, it := range items {
		top = max(top, iid(it))
	}
	return top + 1
}

func (c *call) updateIssue() answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	is, fail := c.findIssue(pr)
	if fail != nil {
		return *fail
	}
	if is.author != c.user {
		if fail := c.atLeast(pr, Reporter); fail != nil {
			return *fail
		}
	}
	p := c.p
	title, hasTitle := p.str("title")
	description, hasDesc := p.str("description")
	labels, hasLabels := p.list("labels")
	assignees, hasAssignees := c.assignees()
	stateEvent, _ := p.oneOf("state_event", "close", "reopen")
	if hasTitle && strings.TrimSpace(title) == "" {
		p.fail("title", "is empty")
	}
	if msg := p.problem(); msg != "" {
		return badRequest(msg)
	}
	if !hasTitle && !hasDesc && !hasLabels && !hasAssignees && stateEvent == "" && !p.has("confidential") {
		return badRequest("title, description, labels, assignee_id, assignee_ids, state_event, confidential are missing, at least one parameter must be provided")
	}
	now := c.st.clock.Now()
	if hasTitle {
		is.title = title
	}
	if hasDesc {
		is.description = description
	}
	if hasLabels {
		is.labels = labels
	}
	if hasAssignees {
		is.assignees = assignees
	}
	if v, ok := p.boolean("confidential"); ok {
		is.confidential = v
	}
	action := "update"
	switch {
	case stateEvent == "close" && is.state == "opened":
		is.state, is.closedAt, is.closedBy, action = "closed", &now, c.user, "close"
	case stateEvent == "reopen" && is.state == "closed":
		is.state, is.closedAt, is.closedBy, action = "opened", nil, nil, "reopen"
	}
	is.updatedAt = now
	pr.lastActivity = now
	c.queueIssueEvent(is, action)
	return ok(c.renderIssue(is))
}
