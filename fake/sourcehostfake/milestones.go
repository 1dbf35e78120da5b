package sourcehostfake

import (
	"cmp"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/apitwin/apitwin/internal/fakekit"
	"github.com/apitwin/apitwin/internal/jsonw"
)

// today is the fake clock's date (UTC, YYYY-MM-DD), read once per call.
func (c *call) today() string {
	if c.date == "" {
		c.date = c.st.clock.Now().UTC().Format(time.DateOnly)
	}
	return c.date
}

// milestoneFilter reads the milestone filter of issue and merge request
// lists: a title, "None" or "Any" ("" for no filter).
func milestoneFilter(p *params) string {
	m, _ := p.str("milestone")
	return m
}

func milestoneMatches(filter string, m *milestone) bool {
	switch {
	case filter == "":
		return true
	case strings.EqualFold(filter, "None"):
		return m == nil
	case strings.EqualFold(filter, "Any"):
		return m != nil
	}
	return m != nil && m.title == filter
}

// milestoneParam reads milestone_id for an issue or a merge request: the
// milestone, or nil with given true to remove it (0 or null). An id that
// names no milestone of pr is ignored, as the real service ignores it.
func (c *call) milestoneParam(pr *project) (m *milestone, given bool) {
	if !c.p.has("milestone_id") {
		return nil, false
	}
	id, ok := c.p.int("milestone_id")
	if !ok || id == 0 {
		return nil, true
	}
	for _, x := range pr.milestones {
		if x.id == id {
			return x, true
		}
	}
	return nil, false
}

func (c *call) listMilestones() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	state, _ := c.p.oneOf("state", "active", "closed")
	title, hasTitle := c.p.str("title")
	search, _ := c.p.str("search")
	iids, _ := c.p.intList("iids")
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	items := keep(pr.milestones, func(m *milestone) bool {
		return (state == "" || m.state == state) && (!hasTitle || m.title == title) &&
			(search == "" || containsFold(m.title, search) || containsFold(m.description, search)) &&
			(len(iids) == 0 || slices.Contains(iids, m.iid))
	})
	// Due date first (none last), then title, as the real service orders them.
	slices.SortStableFunc(items, func(a, b *milestone) int {
		if (a.dueDate == "") != (b.dueDate == "") {
			if a.dueDate == "" {
				return 1
			}
			return -1
		}
		return cmp.Or(cmp.Compare(a.dueDate, b.dueDate), cmp.Compare(a.title, b.title), cmp.Compare(a.id, b.id))
	})
	page, fail := paginate(c, items)
	if fail != nil {
		return *fail
	}
	return c.doc(http.StatusOK, jsonw.AppendArray(c.buf(), page, c.appendMilestone))
}

func (c *call) findMilestone() (*project, *milestone, *fakekit.Answer) {
	pr, fail := c.project()
	if fail != nil {
		return nil, nil, fail
	}
	id, valid := c.pathInt("milestone_id")
	for _, m := range pr.milestones {
		if valid && m.id == id {
			return pr, m, nil
		}
	}
	return nil, nil, errAnswer(notFound("Milestone"))
}

func (c *call) getMilestone() fakekit.Answer {
	_, m, fail := c.findMilestone()
	if fail != nil {
		return *fail
	}
	return c.doc(http.StatusOK, c.appendMilestone(c.buf(), m))
}

// milestoneDates reads due_date and start_date (YYYY-MM-DD; "" or null
// clears them).
func (c *call) milestoneDates() (due string, hasDue bool, start string, hasStart bool) {
	read := func(name string) (string, bool) {
		if !c.p.has(name) {
			return "", false
		}
		s, _ := c.p.str(name)
		if s != "" {
			if _, err := time.Parse(time.DateOnly, s); err != nil {
				c.p.fail(name, "is invalid")
			}
		}
		return s, true
	}
	due, hasDue = read("due_date")
	start, hasStart = read("start_date")
	return due, hasDue, start, hasStart
}

// checkMilestone checks a milestone's title and dates as the real service
// does. s.mu must be held.
func checkMilestone(pr *project, self *milestone, title, description, start, due string) *fakekit.Answer {
	fields := map[string][]string{}
	switch {
	case utf8.RuneCountInString(title) > 255:
		fields["title"] = append(fields["title"], "is too long (maximum is 255 characters)")
	case slices.ContainsFunc(pr.milestones, func(m *milestone) bool { return m != self && m.title == title }):
		fields["title"] = append(fields["title"], "already being used for another group or project milestone.")
	}
	if len(description) > maxDescription && utf8.RuneCountInString(description) > maxDescription {
		fields["description"] = append(fields["description"], "is too long (maximum is 1048576 characters)")
	}
	if start != "" && due != "" && due < start {
		fields["due_date"] = append(fields["due_date"], "must be greater than start date")
	}
	if len(fields) > 0 {
		return errAnswer(invalid(http.StatusBadRequest, fields))
	}
	return nil
}

func (c *call) createMilestone() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	if fail := c.atLeast(pr, Reporter); fail != nil {
		return *fail
	}
	title := strings.TrimSpace(c.p.required("title"))
	description, _ := c.p.str("description")
	due, _, start, _ := c.milestoneDates()
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	if fail := checkMilestone(pr, nil, title, description, start, due); fail != nil {
		return *fail
	}
	now := c.st.clock.Now()
	m := &milestone{id: c.st.next("milestone"), iid: nextIID(pr.milestones, func(m *milestone) int64 { return m.iid }),
		project: pr, title: title, description: description, state: "active", dueDate: due, startDate: start,
		createdAt: now, updatedAt: now}
	pr.milestones = append(pr.milestones, m)
	return c.doc(http.StatusCreated, c.appendMilestone(c.buf(), m))
}

func (c *call) updateMilestone() fakekit.Answer {
	pr, m, fail := c.findMilestone()
	if fail != nil {
		return *fail
	}
	if fail := c.atLeast(pr, Reporter); fail != nil {
		return *fail
	}
	title, hasTitle := c.p.str("title")
	description, hasDesc := c.p.str("description")
	due, hasDue, start, hasStart := c.milestoneDates()
	stateEvent, hasEvent := c.p.oneOf("state_event", "close", "activate")
	if hasTitle && strings.TrimSpace(title) == "" {
		c.p.fail("title", "is empty")
	}
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	if !hasTitle && !hasDesc && !hasDue && !hasStart && !hasEvent {
		return badRequest("title, description, due_date, start_date, state_event are missing, at least one parameter must be provided")
	}
	newTitle, newDesc, newDue, newStart := m.title, m.description, m.dueDate, m.startDate
	if hasTitle {
		newTitle = strings.TrimSpace(title)
	}
	if hasDesc {
		newDesc = description
	}
	if hasDue {
		newDue = due
	}
	if hasStart {
		newStart = start
	}
	if fail := checkMilestone(pr, m, newTitle, newDesc, newStart, newDue); fail != nil {
		return *fail
	}
	m.title, m.description, m.dueDate, m.startDate = newTitle, newDesc, newDue, newStart
	switch stateEvent {
	case "close":
		m.state = "closed"
	case "activate":
		m.state = "active"
	}
	m.updatedAt = c.st.clock.Now()
	return c.doc(http.StatusOK, c.appendMilestone(c.buf(), m))
}

func (c *call) deleteMilestone() fakekit.Answer {
	pr, m, fail := c.findMilestone()
	if fail != nil {
		return *fail
	}
	if fail := c.atLeast(pr, Reporter); fail != nil {
		return *fail
	}
	pr.milestones = slices.DeleteFunc(pr.milestones, func(x *milestone) bool { return x == m })
	c.s.removed("milestone", 1)
	for _, is := range pr.issues {
		if is.milestone == m {
			is.milestone = nil
		}
	}
	for _, mr := range pr.mrs {
		if mr.milestone == m {
			mr.milestone = nil
		}
	}
	for _, rel := range pr.releases {
		rel.milestones = slices.DeleteFunc(rel.milestones, func(x *milestone) bool { return x == m })
	}
	return fakekit.Answer{Status: http.StatusNoContent}
}

func (c *call) milestoneIssues() fakekit.Answer {
	_, m, fail := c.findMilestone()
	if fail != nil {
		return *fail
	}
	items := keep(m.project.issues, func(is *issue) bool { return is.milestone == m && c.canSeeIssue(is) })
	page, fail := paginate(c, items)
	if fail != nil {
		return *fail
	}
	return c.doc(http.StatusOK, jsonw.AppendArray(c.buf(), page, c.appendIssue))
}

func (c *call) milestoneMergeRequests() fakekit.Answer {
	_, m, fail := c.findMilestone()
	if fail != nil {
		return *fail
	}
	items := keep(m.project.mrs, func(mr *mergeRequest) bool { return mr.milestone == m })
	page, fail := paginate(c, items)
	if fail != nil {
		return *fail
	}
	return c.doc(http.StatusOK, jsonw.AppendArray(c.buf(), page, c.appendMR))
}
