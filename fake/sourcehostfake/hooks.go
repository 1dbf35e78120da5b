package sourcehostfake

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/netip"
	"path"
	"slices"

	"github.com/apitwin/apitwin/internal/fakekit"
	"github.com/apitwin/apitwin/sourcehost"
)

// hookFlags are the event flags a hook takes, by form field name.
var hookFlags = []string{
	"push_events", "tag_push_events", "issues_events", "confidential_issues_events", "merge_requests_events",
	"note_events", "confidential_note_events", "job_events", "pipeline_events", "wiki_page_events",
	"deployment_events", "releases_events",
}

func (c *call) listHooks() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	if fail := c.atLeast(pr, Maintainer); fail != nil {
		return *fail
	}
	page, fail := paginate(c, pr.hooks)
	if fail != nil {
		return *fail
	}
	return ok(renderAll(page, renderHook))
}

// findHook finds the route's {hook_id} hook of the {id} project, for a
// maintainer.
func (c *call) findHook() (*project, *hook, *fakekit.Answer) {
	pr, fail := c.project()
	if fail != nil {
		return nil, nil, fail
	}
	if fail := c.atLeast(pr, Maintainer); fail != nil {
		return nil, nil, fail
	}
	id, valid := c.pathInt("hook_id")
	for _, h := range pr.hooks {
		if valid && h.id == id {
			return pr, h, nil
		}
	}
	a := notFound("Hook")
	return nil, nil, &a
}

func (c *call) getHook() fakekit.Answer {
	_, h, fail := c.findHook()
	if fail != nil {
		return *fail
	}
	return ok(renderHook(h))
}

func (c *call) deleteHook() fakekit.Answer {
	pr, h, fail := c.findHook()
	if fail != nil {
		return *fail
	}
	pr.hooks = slices.DeleteFunc(pr.hooks, func(x *hook) bool { return x == h })
	c.s.removed("hook", 1)
	c.s.hooks.dropHook(h.id)
	return fakekit.Answer{Status: http.StatusNoContent}
}

// prepareHookURL resolves the host of the url parameter, when the check
// of the hook needs it, before the state is locked.
func (s *Server) prepareHookURL(p *params) {
	q := *p
	q.errs = nil
	if raw, ok := q.str("url"); ok {
		p.hookAddrs = s.lookupHookHost(raw)
	}
}

func (c *call) addHook() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	if fail := c.atLeast(pr, Maintainer); fail != nil {
		return *fail
	}
	p := c.p
	raw := p.required("url")
	h := &hook{project: pr, url: raw, events: map[string]bool{"push_events": true}, sslVerify: true, createdAt: c.st.clock.Now()}
	if fail := c.readHook(h); fail != nil {
		return *fail
	}
	if fail := c.st.attachHook(pr, h, p.hookAddrs, c.s.localHooks.Load()); fail != nil {
		return *fail
	}
	return created(renderHook(h))
}

// readHook sets what the request gives of a hook (but its URL) into h.
func (c *call) readHook(h *hook) *fakekit.Answer {
	p := c.p
	for _, flag := range hookFlags {
		if v, ok := p.boolean(flag); ok {
			h.events[flag] = v
		}
	}
	if v, ok := p.boolean("enable_ssl_verification"); ok {
		h.sslVerify = v
	}
	if v, ok := p.str("token"); ok {
		h.token = v
	}
	if v, ok := p.str("push_events_branch_filter"); ok {
		h.pushBranchFilter = v
	}
	if msg := p.problem(); msg != "" {
		return errAnswer(badRequest(msg))
	}
	return nil
}

// editHook is PUT /projects/:id/hooks/:hook_id: what the request gives is
// changed, and the URL checked as a new hook's (it is checked whenever a
// hook is saved, as the real service validates it). A refusal changes
// nothing.
func (c *call) editHook() fakekit.Answer {
	_, h, fail := c.findHook()
	if fail != nil {
		return *fail
	}
	if len(c.p.json) == 0 && len(c.p.form) == 0 && len(c.p.query) == 0 {
		return message(http.StatusBadRequest, "No parameters provided")
	}
	next := *h
	next.events = maps.Clone(h.events)
	if raw, ok := c.p.str("url"); ok {
		next.url = raw
	}
	if fail := c.readHook(&next); fail != nil {
		return *fail
	}
	if why := hookURLProblem(next.url, c.p.hookAddrs, c.s.localHooks.Load()); why != "" {
		return urlRefused()
	}
	*h = next
	return ok(renderHook(h))
}

// urlRefused is the real service's answer to a hook whose URL it refuses,
// whatever the reason: its API keeps the reason to itself.
func urlRefused() fakekit.Answer {
	return message(http.StatusUnprocessableEntity, "Invalid url given")
}

// maxProjectHooks is the real service's default limit of hooks per project
// (the project_hooks plan limit).
const maxProjectHooks = 100

// errHookURL is a hook URL refused, for seeding errors: the reason the API
// keeps to itself.
type errHookURL struct{ why string }

func (e *errHookURL) Error() string { return "sourcehostfake: url is blocked: " + e.why }

// attachHook checks a new hook's URL (addrs are what its host resolved to
// before the state was locked, if it was looked up) and the project's hook
// limit, and adds it. s.mu must be held.
func (st *state) attachHook(pr *project, h *hook, addrs []netip.Addr, allowLocal bool) *fakekit.Answer {
	if why := hookURLProblem(h.url, addrs, allowLocal); why != "" {
		return errAnswer(urlRefused())
	}
	if len(pr.hooks) >= maxProjectHooks {
		return errAnswer(invalid(http.StatusUnprocessableEntity, map[string][]string{"base": {
			fmt.Sprintf("Maximum number of project hooks (%d) exceeded", maxProjectHooks)}}))
	}
	h.id = st.next("hook")
	h.project = pr
	pr.hooks = append(pr.hooks, h)
	return nil
}

// hookEvents builds the deliveries of an event to every hook of p that
// takes it (branch, for push events, is checked against push branch
// filters). The payload is encoded once, for all of them. s.mu must be
// held.
func hookEvents(p *project, flag, name string, body any, branch string) []event {
	var pl *payload
	var out []event
	for _, h := range p.hooks {
		if !h.events[flag] {
			continue
		}
		if flag == "push_events" && h.pushBranchFilter != "" {
			if matched, _ := path.Match(h.pushBranchFilter, branch); !matched && h.pushBranchFilter != branch {
				continue
			}
		}
		if pl == nil {
			data, err := json.Marshal(body)
			if err != nil {
				return nil
			}
			pl = &payload{data: data}
		}
		out = append(out, event{hookID: h.id, projectID: p.id, url: h.url, token: h.token, sslVerify: h.sslVerify, name: name, payload: pl})
	}
	return out
}

// --- payloads ---

type hookProjectJSON struct {
	ID                int64  `json:"id"`
	Name              string `json:"name"`
	Description       string `json:"description"`
	WebURL            string `json:"web_url"`
	Namespace         string `json:"namespace"`
	PathWithNamespace string `json:"path_with_namespace"`
	DefaultBranch     string `json:"default_branch"`
	Visibility        string `json:"visibility"`
	HTTPURL           string `json:"http_url"`
}

func hookProject(base string, p *project) hookProjectJSON {
	web := base + "/" + p.fullPath()
	return hookProjectJSON{ID: p.id, Name: p.name, Description: p.description, WebURL: web, Namespace: p.ns.name,
		PathWithNamespace: p.fullPath(), DefaultBranch: p.defaultBranch, Visibility: p.visibility, HTTPURL: web + ".git"}
}

type hookUserJSON struct {
	ID       int64  `json:"id"`
	Name     string `json:"name"`
	Username string `json:"username"`
	Email    string `json:"email"`
}

func hookUser(u *user) hookUserJSON {
	if u == nil {
		return hookUserJSON{}
	}
	return hookUserJSON{ID: u.id, Name: u.name, Username: u.username, Email: u.email}
}

type hookLabelJSON struct {
	ID    int64  `json:"id"`
	Title string `json:"title"`
}

func hookLabels(labels []string) []hookLabelJSON {
	out := make([]hookLabelJSON, 0, len(labels))
	for i, l := range labels {
		out = append(out, hookLabelJSON{ID: int64(i + 1), Title: l})
	}
	return out
}

// queueIssueEvent queues an "Issue Hook" for an issue action.
func (c *call) queueIssueEvent(is *issue, action string) {
	ids := make([]int64, 0, len(is.assignees))
	assignees := make([]hookUserJSON, 0, len(is.assignees))
	for _, u := range is.assignees {
		ids = append(ids, u.id)
		assignees = append(assignees, hookUser(u))
	}
	attrs := map[string]any{
		"id": is.id, "iid": is.iid, "project_id": is.project.id, "title": is.title, "description": is.description,
		"state": is.state, "action": action, "author_id": is.author.id, "assignee_ids": ids,
		"labels": hookLabels(is.labels), "created_at": stamp(is.createdAt), "updated_at": stamp(is.updatedAt),
		"closed_at": stampPtr(is.closedAt), "confidential": is.confidential,
		"url": c.base + "/" + is.project.fullPath() + "/-/issues/" + fmt.Sprint(is.iid),
	}
	payload := map[string]any{
		"object_kind": "issue", "event_type": "issue", "user": hookUser(c.user), "project": hookProject(c.base, is.project),
		"object_attributes": attrs, "assignees": assignees, "labels": hookLabels(is.labels),
	}
	flag := "issues_events"
	if is.confidential {
		flag = "confidential_issues_events"
		payload["event_type"] = "confidential_issue"
	}
	c.events = append(c.events, hookEvents(is.project, flag, sourcehost.IssueHookEvent, payload, "")...)
}

// queueMREvent queues a "Merge Request Hook" for a merge request action.
func (c *call) queueMREvent(mr *mergeRequest, action string) {
	attrs := map[string]any{
		"id": mr.id, "iid": mr.iid, "target_branch": mr.targetBranch, "source_branch": mr.sourceBranch,
		"source_project_id": mr.project.id, "target_project_id": mr.project.id, "title": mr.title,
		"description": mr.description, "state": mr.state, "action": action, "merge_status": "can_be_merged",
		"author_id": mr.author.id, "created_at": stamp(mr.createdAt), "updated_at": stamp(mr.updatedAt),
		"url": c.base + "/" + mr.project.fullPath() + "/-/merge_requests/" + fmt.Sprint(mr.iid),
	}
	payload := map[string]any{
		"object_kind": "merge_request", "event_type": "merge_request", "user": hookUser(c.user),
		"project": hookProject(c.base, mr.project), "object_attributes": attrs, "labels": hookLabels(mr.labels),
	}
	c.events = append(c.events, hookEvents(mr.project, "merge_requests_events", sourcehost.MergeRequestHookEvent, payload, "")...)
}

const zeroSHA = "0000000000000000000000000000000000000000"

// queuePush queues a "Push Hook" for a branch moving from before (nil: a
// new branch) to after, and starts a pipeline if the new head holds the
// CI definition.
func (c *call) queuePush(p *project, branch string, before, after *commit) {
	c.events = append(c.events, c.s.pushEvents(c.base, c.user, p, branch, before, after)...)
	if _, hasCI := after.files[c.s.cfg.ciFile]; hasCI {
		_, events := c.s.newPipeline(c.base, p, branch, after, "push", c.user, nil)
		c.events = append(c.events, events...)
	}
}

// pushEvents builds the "Push Hook" deliveries of a push. s.mu must be held.
func (s *Server) pushEvents(base string, u *user, p *project, branch string, before, after *commit) []event {
	// The commits pushed: after and its ancestors not reachable from before.
	var old map[string]bool
	beforeSHA := zeroSHA
	if before != nil {
		old = ancestors(before)
		beforeSHA = before.sha
	}
	var pushed []*commit
	seen := map[string]bool{}
	stack := []*commit{after}
	for len(stack) > 0 && len(pushed) < 20 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[c.sha] || old[c.sha] {
			continue
		}
		seen[c.sha] = true
		pushed = append(pushed, c)
		stack = append(stack, c.parents...)
	}
	commits := make([]map[string]any, 0, len(pushed))
	for _, c := range pushed {
		commits = append(commits, map[string]any{
			"id": c.sha, "message": c.message, "title": firstLine(c.message), "timestamp": stamp(c.at),
			"url":    base + "/" + p.fullPath() + "/-/commit/" + c.sha,
			"author": map[string]string{"name": c.authorName, "email": c.authorEmail},
			"added":  nonNil(c.added), "modified": nonNil(c.modified), "removed": nonNil(c.removed),
		})
	}
	payload := map[string]any{
		"object_kind": "push", "event_name": "push", "before": beforeSHA, "after": after.sha,
		"ref": "refs/heads/" + branch, "checkout_sha": after.sha, "project_id": p.id, "project": hookProject(base, p),
		"commits": commits, "total_commits_count": len(commits),
	}
	if u != nil {
		payload["user_id"], payload["user_name"], payload["user_username"], payload["user_email"] = u.id, u.name, u.username, u.email
	}
	return hookEvents(p, "push_events", sourcehost.PushHookEvent, payload, branch)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// pipelineEvents builds the "Pipeline Hook" deliveries of a pipeline's
// status. s.mu must be held.
func pipelineEvents(base string, pl *pipeline) []event {
	attrs := map[string]any{
		"id": pl.id, "iid": pl.iid, "ref": pl.ref, "tag": pl.tag, "sha": pl.sha, "before_sha": zeroSHA, "source": pl.source,
		"status": pl.status, "detailed_status": pl.status, "created_at": stamp(pl.createdAt),
		"finished_at": stampPtr(pl.finishedAt), "duration": pl.duration(),
		"url": base + "/" + pl.project.fullPath() + "/-/pipelines/" + fmt.Sprint(pl.id),
	}
	payload := map[string]any{
		"object_kind": "pipeline", "object_attributes": attrs, "user": hookUser(pl.user), "project": hookProject(base, pl.project),
	}
	return hookEvents(pl.project, "pipeline_events", sourcehost.PipelineHookEvent, payload, "")
}

// HookSeed is a webhook to add (AddHook, ProjectSeed.Hooks). The event
// flags are the API's form fields.
type HookSeed struct {
	// URL is where deliveries go (http or https).
	URL string `json:"url" yaml:"url"`
	// Token is sent in X-Sourcehost-Token with every delivery.
	Token string `json:"token,omitempty" yaml:"token,omitempty"`
	// PushEvents nil means true, as the API's default.
	PushEvents               *bool  `json:"push_events,omitempty" yaml:"push_events,omitempty"`
	PushEventsBranchFilter   string `json:"push_events_branch_filter,omitempty" yaml:"push_events_branch_filter,omitempty"`
	TagPushEvents            bool   `json:"tag_push_events,omitempty" yaml:"tag_push_events,omitempty"`
	IssuesEvents             bool   `json:"issues_events,omitempty" yaml:"issues_events,omitempty"`
	ConfidentialIssuesEvents bool   `json:"confidential_issues_events,omitempty" yaml:"confidential_issues_events,omitempty"`
	MergeRequestsEvents      bool   `json:"merge_requests_events,omitempty" yaml:"merge_requests_events,omitempty"`
	NoteEvents               bool   `json:"note_events,omitempty" yaml:"note_events,omitempty"`
	ConfidentialNoteEvents   bool   `json:"confidential_note_events,omitempty" yaml:"confidential_note_events,omitempty"`
	JobEvents                bool   `json:"job_events,omitempty" yaml:"job_events,omitempty"`
	PipelineEvents           bool   `json:"pipeline_events,omitempty" yaml:"pipeline_events,omitempty"`
	WikiPageEvents           bool   `json:"wiki_page_events,omitempty" yaml:"wiki_page_events,omitempty"`
	DeploymentEvents         bool   `json:"deployment_events,omitempty" yaml:"deployment_events,omitempty"`
	ReleasesEvents           bool   `json:"releases_events,omitempty" yaml:"releases_events,omitempty"`
	// EnableSSLVerification nil means true.
	EnableSSLVerification *bool `json:"enable_ssl_verification,omitempty" yaml:"enable_ssl_verification,omitempty"`
}

// AddHook adds a webhook to a project and returns its id. Its URL is
// checked as the API checks it (see SetAllowLocalRequests).
func (s *Server) AddHook(projectID int64, seed HookSeed) (int64, error) {
	addrs := s.lookupHookHost(seed.URL)
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.st.projectByID(projectID)
	if err != nil {
		return 0, err
	}
	if err := s.seedRoom(recordNeed{"hook", 1}); err != nil {
		return 0, err
	}
	h, err := s.seedHook(p, seed, addrs)
	if err != nil {
		return 0, err
	}
	return h.id, nil
}

// seedHook checks and adds a hook; addrs are what its host resolved to
// before the state was locked (lookupHookHost). s.mu must be held.
func (s *Server) seedHook(p *project, seed HookSeed, addrs []netip.Addr) (*hook, error) {
	st := s.st
	h := &hook{url: seed.URL, token: seed.Token, pushBranchFilter: seed.PushEventsBranchFilter, sslVerify: true,
		createdAt: st.clock.Now(), events: map[string]bool{
			"push_events": true, "tag_push_events": seed.TagPushEvents, "issues_events": seed.IssuesEvents,
			"confidential_issues_events": seed.ConfidentialIssuesEvents, "merge_requests_events": seed.MergeRequestsEvents,
			"note_events": seed.NoteEvents, "confidential_note_events": seed.ConfidentialNoteEvents,
			"job_events": seed.JobEvents, "pipeline_events": seed.PipelineEvents, "wiki_page_events": seed.WikiPageEvents,
			"deployment_events": seed.DeploymentEvents, "releases_events": seed.ReleasesEvents,
		}}
	if seed.PushEvents != nil {
		h.events["push_events"] = *seed.PushEvents
	}
	if seed.EnableSSLVerification != nil {
		h.sslVerify = *seed.EnableSSLVerification
	}
	if seed.URL == "" {
		return nil, errors.New("sourcehostfake: url is missing")
	}
	allowLocal := s.localHooks.Load()
	if why := hookURLProblem(seed.URL, addrs, allowLocal); why != "" {
		return nil, &errHookURL{why}
	}
	if fail := st.attachHook(p, h, addrs, allowLocal); fail != nil {
		return nil, answerError(fail)
	}
	return h, nil
}

// tagPushJSON is the payload of a "Tag Push Hook".
type tagPushJSON struct {
	ObjectKind        string          `json:"object_kind"`
	EventName         string          `json:"event_name"`
	Before            string          `json:"before"`
	After             string          `json:"after"`
	Ref               string          `json:"ref"`
	RefProtected      bool            `json:"ref_protected"`
	CheckoutSHA       *string         `json:"checkout_sha"`
	Message           *string         `json:"message"`
	UserID            int64           `json:"user_id"`
	UserName          string          `json:"user_name"`
	UserUsername      string          `json:"user_username"`
	UserEmail         string          `json:"user_email"`
	ProjectID         int64           `json:"project_id"`
	Project           hookProjectJSON `json:"project"`
	Commits           []struct{}      `json:"commits"`
	TotalCommitsCount int             `json:"total_commits_count"`
}

// queueTagPush queues a "Tag Push Hook" for a tag made (before nil) or
// deleted (after nil). s.mu must be held.
func (c *call) queueTagPush(p *project, name string, before, after *tag) {
	payload := tagPushJSON{ObjectKind: "tag_push", EventName: "tag_push", Before: zeroSHA, After: zeroSHA,
		Ref: "refs/tags/" + name, ProjectID: p.id, Project: hookProject(c.base, p), Commits: []struct{}{}}
	if before != nil {
		payload.Before = before.sha
	}
	if after != nil {
		payload.After = after.sha
		sha := after.commit.sha
		payload.CheckoutSHA = &sha
		if after.message != "" {
			m := after.message
			payload.Message = &m
		}
	}
	if u := c.user; u != nil {
		payload.UserID, payload.UserName, payload.UserUsername, payload.UserEmail = u.id, u.name, u.username, u.email
	}
	c.events = append(c.events, hookEvents(p, "tag_push_events", sourcehost.TagPushHookEvent, payload, "")...)
}

type hookCommitAuthorJSON struct {
	Name  string `json:"name"`
	Email string `json:"email"`
}

type hookReleaseCommitJSON struct {
	ID        string               `json:"id"`
	Message   string               `json:"message"`
	Title     string               `json:"title"`
	Timestamp stamp                `json:"timestamp"`
	URL       string               `json:"url"`
	Author    hookCommitAuthorJSON `json:"author"`
}

// releaseEventJSON is the payload of a "Release Hook".
type releaseEventJSON struct {
	ID          int64                  `json:"id"`
	ObjectKind  string                 `json:"object_kind"`
	Action      string                 `json:"action"` // create, update or delete
	Name        string                 `json:"name"`
	Tag         string                 `json:"tag"`
	Description string                 `json:"description"`
	CreatedAt   stamp                  `json:"created_at"`
	ReleasedAt  stamp                  `json:"released_at"`
	URL         string                 `json:"url"`
	Project     hookProjectJSON        `json:"project"`
	Assets      releaseAssetsJSON      `json:"assets"`
	Commit      *hookReleaseCommitJSON `json:"commit"`
}

// queueReleaseEvent queues a "Release Hook" for a release action. s.mu
// must be held.
func (c *call) queueReleaseEvent(p *project, rel *release, action string) {
	r := c.renderRelease(p, rel)
	payload := releaseEventJSON{ID: rel.id, ObjectKind: "release", Action: action, Name: rel.name, Tag: rel.tagName,
		Description: rel.description, CreatedAt: stamp(rel.createdAt), ReleasedAt: stamp(rel.releasedAt),
		URL: r.Links.Self, Project: hookProject(c.base, p), Assets: r.Assets}
	if cm := p.repo.commits[rel.sha]; cm != nil {
		payload.Commit = &hookReleaseCommitJSON{ID: cm.sha, Message: cm.message, Title: firstLine(cm.message), Timestamp: stamp(cm.at),
			URL: c.base + "/" + p.fullPath() + "/-/commit/" + cm.sha, Author: hookCommitAuthorJSON{Name: cm.authorName, Email: cm.authorEmail}}
	}
	c.events = append(c.events, hookEvents(p, "releases_events", sourcehost.ReleaseHookEvent, payload, "")...)
}

type noteAttrsJSON struct {
	ID           int64  `json:"id"`
	Note         string `json:"note"`
	NoteableType string `json:"noteable_type"`
	NoteableID   int64  `json:"noteable_id"`
	AuthorID     int64  `json:"author_id"`
	ProjectID    int64  `json:"project_id"`
	System       bool   `json:"system"`
	Internal     bool   `json:"internal"`
	Action       string `json:"action"` // create or update
	CreatedAt    stamp  `json:"created_at"`
	UpdatedAt    stamp  `json:"updated_at"`
	URL          string `json:"url"`
}

type noteIssueJSON struct {
	ID           int64           `json:"id"`
	IID          int64           `json:"iid"`
	ProjectID    int64           `json:"project_id"`
	Title        string          `json:"title"`
	Description  string          `json:"description"`
	State        string          `json:"state"`
	AuthorID     int64           `json:"author_id"`
	Confidential bool            `json:"confidential"`
	Labels       []hookLabelJSON `json:"labels"`
	CreatedAt    stamp           `json:"created_at"`
	UpdatedAt    stamp           `json:"updated_at"`
}

type noteMRJSON struct {
	ID           int64           `json:"id"`
	IID          int64           `json:"iid"`
	ProjectID    int64           `json:"target_project_id"`
	Title        string          `json:"title"`
	Description  string          `json:"description"`
	State        string          `json:"state"`
	SourceBranch string          `json:"source_branch"`
	TargetBranch string          `json:"target_branch"`
	AuthorID     int64           `json:"author_id"`
	Labels       []hookLabelJSON `json:"labels"`
	CreatedAt    stamp           `json:"created_at"`
	UpdatedAt    stamp           `json:"updated_at"`
}

// noteEventJSON is the payload of a "Note Hook".
type noteEventJSON struct {
	ObjectKind       string          `json:"object_kind"`
	EventType        string          `json:"event_type"` // note, or confidential_note
	User             hookUserJSON    `json:"user"`
	ProjectID        int64           `json:"project_id"`
	Project          hookProjectJSON `json:"project"`
	ObjectAttributes noteAttrsJSON   `json:"object_attributes"`
	Issue            *noteIssueJSON  `json:"issue,omitempty"`
	MergeRequest     *noteMRJSON     `json:"merge_request,omitempty"`
}

// queueNoteEvent queues a "Note Hook" for a note made or changed by
// c.user: to hooks with note_events, or confidential_note_events for an
// internal note or a note on a confidential issue. s.mu must be held.
func (c *call) queueNoteEvent(nb *noteable, n *note, action string) {
	web := c.base + "/" + nb.pr.fullPath()
	attrs := noteAttrsJSON{ID: n.id, Note: n.body, NoteableType: n.noteableType, NoteableID: n.noteableID, AuthorID: n.author.id,
		ProjectID: nb.pr.id, System: n.system, Internal: n.internal, Action: action, CreatedAt: stamp(n.createdAt),
		UpdatedAt: stamp(n.updatedAt)}
	payload := noteEventJSON{ObjectKind: "note", EventType: "note", User: hookUser(c.user), ProjectID: nb.pr.id,
		Project: hookProject(c.base, nb.pr)}
	confidential := n.internal
	if is := nb.issue; is != nil {
		attrs.URL = web + "/-/issues/" + fmt.Sprint(is.iid) + "#note_" + fmt.Sprint(n.id)
		payload.Issue = &noteIssueJSON{ID: is.id, IID: is.iid, ProjectID: nb.pr.id, Title: is.title, Description: is.description,
			State: is.state, AuthorID: is.author.id, Confidential: is.confidential, Labels: hookLabels(is.labels),
			CreatedAt: stamp(is.createdAt), UpdatedAt: stamp(is.updatedAt)}
		confidential = confidential || is.confidential
	}
	if mr := nb.mr; mr != nil {
		attrs.URL = web + "/-/merge_requests/" + fmt.Sprint(mr.iid) + "#note_" + fmt.Sprint(n.id)
		payload.MergeRequest = &noteMRJSON{ID: mr.id, IID: mr.iid, ProjectID: nb.pr.id, Title: mr.title, Description: mr.description,
			State: mr.state, SourceBranch: mr.sourceBranch, TargetBranch: mr.targetBranch, AuthorID: mr.author.id,
			Labels: hookLabels(mr.labels), CreatedAt: stamp(mr.createdAt), UpdatedAt: stamp(mr.updatedAt)}
	}
	payload.ObjectAttributes = attrs
	flag := "note_events"
	if confidential {
		flag, payload.EventType = "confidential_note_events", "confidential_note"
	}
	c.events = append(c.events, hookEvents(nb.pr, flag, sourcehost.NoteHookEvent, payload, "")...)
}
