package sourcehostfake

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/apitwin/apitwin/internal/fakekit"
	"github.com/apitwin/apitwin/internal/jsonw"
)

// issueFilter is the filters list endpoints share.
type issueFilter struct {
	state     string
	labels    []string
	assignee  string // an id, "None" or "Any"
	authorID  int64
	search    string
	milestone string // a title, "None" or "Any"
	orderBy   string
	desc      bool
}

func readIssueFilter(p *params) issueFilter {
	f := issueFilter{state: "all"}
	if s, ok := p.oneOf("state", "opened", "closed", "all"); ok {
		f.state = s
	}
	f.labels, _ = p.list("labels")
	if a, ok := p.str("assignee_id"); ok {
		if _, ok := parseInt(a); !ok && !strings.EqualFold(a, "None") && !strings.EqualFold(a, "Any") {
			p.fail("assignee_id", "is invalid")
		}
		f.assignee = a
	}
	f.authorID, _ = p.int("author_id")
	f.search, _ = p.str("search")
	f.milestone = milestoneFilter(p)
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
		id, _ := parseInt(f.assignee)
		if !slices.ContainsFunc(is.assignees, func(u *user) bool { return u.id == id }) {
			return false
		}
	}
	if f.authorID != 0 && is.author.id != f.authorID || !milestoneMatches(f.milestone, is.milestone) {
		return false
	}
	return f.search == "" || containsFold(is.title, f.search) || containsFold(is.description, f.search)
}

func (f issueFilter) sort(items []*issue) { sortStable(items, f.compare) }

// compare orders issues as the filter asks.
func (f issueFilter) compare(a, b *issue) int {
	r := a.createdAt.Compare(b.createdAt)
	if f.orderBy == "updated_at" {
		r = a.updatedAt.Compare(b.updatedAt)
	}
	return ordered(r, a.id, b.id, f.desc)
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

func (c *call) listIssues() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	f := readIssueFilter(c.p)
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	page, fail := sortedPage(c, pr.issues, func(is *issue) bool { return f.match(is) && c.canSeeIssue(is) }, f.compare, "")
	if fail != nil {
		return *fail
	}
	return c.doc(http.StatusOK, jsonw.AppendArray(c.buf(), page, c.appendIssue))
}

func (c *call) listAllIssues() fakekit.Answer {
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
	return c.doc(http.StatusOK, jsonw.AppendArray(c.buf(), page, c.appendIssue))
}

func (c *call) findIssue(pr *project) (*issue, *fakekit.Answer) {
	iid, valid := c.pathInt("iid")
	for _, is := range pr.issues {
		if valid && is.iid == iid && c.canSeeIssue(is) {
			return is, nil
		}
	}
	a := notFound("Issue")
	return nil, &a
}

func (c *call) getIssue() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	is, fail := c.findIssue(pr)
	if fail != nil {
		return *fail
	}
	return c.doc(http.StatusOK, c.appendIssue(c.buf(), is))
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

func (c *call) createIssue() fakekit.Answer {
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
	ms, _ := c.milestoneParam(pr)
	if msg := p.problem(); msg != "" {
		return badRequest(msg)
	}
	if fail := checkTexts(title, description); fail != nil {
		return *fail
	}
	is := c.openIssue(pr, title, description, labels, assignees, confidential, ms)
	return c.doc(http.StatusCreated, c.appendIssue(c.buf(), is))
}

// The lengths the real service allows.
const (
	maxTitle       = 255
	maxDescription = 1_048_576
)

// checkTexts checks a title and a description against the real service's
// lengths (in characters).
func checkTexts(title, description string) *fakekit.Answer {
	fields := map[string][]string{}
	if utf8.RuneCountInString(title) > maxTitle {
		fields["title"] = []string{"is too long (maximum is 255 characters)"}
	}
	if len(description) > maxDescription && utf8.RuneCountInString(description) > maxDescription {
		fields["description"] = []string{"is too long (maximum is 1048576 characters)"}
	}
	if len(fields) > 0 {
		return errAnswer(invalid(http.StatusBadRequest, fields))
	}
	return nil
}

// openIssue adds an issue to pr, by c.user, and queues its "open" event.
// s.mu must be held.
func (c *call) openIssue(pr *project, title, description string, labels []string, assignees []*user, confidential bool, ms *milestone) *issue {
	now := c.st.clock.Now()
	is := &issue{id: c.st.next("issue"), iid: nextIID(pr.issues, func(i *issue) int64 { return i.iid }), project: pr,
		title: title, description: description, state: "opened", labels: c.st.ensureLabels(pr, labels), author: c.user,
		assignees: assignees, confidential: confidential, milestone: ms, createdAt: now, updatedAt: now}
	pr.issues = append(pr.issues, is)
	pr.lastActivity = now
	c.queueIssueEvent(is, "open")
	return is
}

// changeIssueState closes or reopens an issue (stateEvent "close" or
// "reopen") and returns the hook action: "close", "reopen", or "update"
// when nothing changed. s.mu must be held.
func (c *call) changeIssueState(is *issue, stateEvent string, now time.Time) string {
	switch {
	case stateEvent == "close" && is.state == "opened":
		is.state, is.closedAt, is.closedBy = "closed", &now, c.user
		c.systemNoteOnIssue(is, "closed")
		return "close"
	case stateEvent == "reopen" && is.state == "closed":
		is.state, is.closedAt, is.closedBy = "opened", nil, nil
		c.systemNoteOnIssue(is, "reopened")
		return "reopen"
	}
	return "update"
}

// nextIID is one more than the highest iid so far.
func nextIID[T any](items []T, iid func(T) int64) int64 {
	var top int64
	for _, it := range items {
		top = max(top, iid(it))
	}
	return top + 1
}

func (c *call) updateIssue() fakekit.Answer {
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
	ms, hasMilestone := c.milestoneParam(pr)
	if hasTitle && strings.TrimSpace(title) == "" {
		p.fail("title", "is empty")
	}
	if msg := p.problem(); msg != "" {
		return badRequest(msg)
	}
	if fail := checkTexts(title, description); fail != nil {
		return *fail
	}
	if !hasTitle && !hasDesc && !hasLabels && !hasAssignees && stateEvent == "" && !p.has("confidential") && !p.has("milestone_id") {
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
		is.labels = c.st.ensureLabels(pr, labels)
	}
	if hasMilestone {
		is.milestone = ms
	}
	if hasAssignees {
		is.assignees = assignees
	}
	if v, ok := p.boolean("confidential"); ok {
		is.confidential = v
	}
	action := c.changeIssueState(is, stateEvent, now)
	is.updatedAt = now
	pr.lastActivity = now
	c.queueIssueEvent(is, action)
	return c.doc(http.StatusOK, c.appendIssue(c.buf(), is))
}

// IssueSeed is an issue to add (AddIssue, ProjectSeed.Issues).
type IssueSeed struct {
	// Title is required.
	Title       string   `json:"title" yaml:"title"`
	Description string   `json:"description,omitempty" yaml:"description,omitempty"`
	Labels      []string `json:"labels,omitempty" yaml:"labels,omitempty"`
	// Author is a username; empty means root.
	Author string `json:"author,omitempty" yaml:"author,omitempty"`
	// Assignees are usernames.
	Assignees []string `json:"assignees,omitempty" yaml:"assignees,omitempty"`
	// State is opened (the default) or closed.
	State        string `json:"state,omitempty" yaml:"state,omitempty"`
	Confidential bool   `json:"confidential,omitempty" yaml:"confidential,omitempty"`
	// Milestone is the title of a milestone of the project.
	Milestone string `json:"milestone,omitempty" yaml:"milestone,omitempty"`
}

// AddIssue adds an issue to a project and returns its iid. It fires issue
// webhooks as the API would ("open", then "close" for a closed one).
func (s *Server) AddIssue(projectID int64, seed IssueSeed) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.st.projectByID(projectID)
	if err != nil {
		return 0, err
	}
	if err := s.seedRoom(recordNeed{"issue", 1}, recordNeed{"label", len(seed.Labels)}, recordNeed{"note", 1}); err != nil {
		return 0, err
	}
	c, err := s.seedIssue(p, seed)
	if err != nil {
		return 0, err
	}
	s.hooks.enqueue(c.via, c.events)
	return p.issues[len(p.issues)-1].iid, nil
}

// seedIssue adds an issue as its author; the returned call holds its
// events. s.mu must be held.
func (s *Server) seedIssue(p *project, seed IssueSeed) (*call, error) {
	if strings.TrimSpace(seed.Title) == "" {
		return nil, errors.New("sourcehostfake: title is missing")
	}
	if fail := checkTexts(seed.Title, seed.Description); fail != nil {
		return nil, answerError(fail)
	}
	if seed.State != "" && seed.State != "opened" && seed.State != "closed" {
		return nil, fmt.Errorf("sourcehostfake: invalid issue state %q (opened or closed)", seed.State)
	}
	c, assignees, err := s.seedAuthor(seed.Author, seed.Assignees)
	if err != nil {
		return nil, err
	}
	ms, err := milestoneNamed(p, seed.Milestone)
	if err != nil {
		return nil, err
	}
	is := c.openIssue(p, seed.Title, seed.Description, cleanList(seed.Labels), assignees, seed.Confidential, ms)
	if seed.State == "closed" {
		c.queueIssueEvent(is, c.changeIssueState(is, "close", c.st.clock.Now()))
	}
	return c, nil
}

// seedAuthor is an internal call as a seed's author (root by default),
// and the users a seed assigns. s.mu must be held.
func (s *Server) seedAuthor(author string, assignees []string) (*call, []*user, error) {
	u := s.root
	if author != "" {
		var err error
		if u, err = s.st.userNamed(author); err != nil {
			return nil, nil, err
		}
	}
	var out []*user
	for _, name := range assignees {
		a, err := s.st.userNamed(name)
		if err != nil {
			return nil, nil, err
		}
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return s.internalCall(u), out, nil
}
