package sourcehostfake

import (
	"bytes"
	"crypto/rand"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"slices"
	"time"

	"github.com/apitwin/apitwin/sourcehost"
)

// hookFlags are the event flags a hook takes, by form field name.
var hookFlags = []string{
	"push_events", "tag_push_events", "issues_events", "confidential_issues_events", "merge_requests_events",
	"note_events", "confidential_note_events", "job_events", "pipeline_events", "wiki_page_events",
	"deployment_events", "releases_events",
}

func (c *call) listHooks() answer {
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
func (c *call) findHook() (*project, *hook, *answer) {
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

func (c *call) getHook() answer {
	_, h, fail := c.findHook()
	if fail != nil {
		return *fail
	}
	return ok(renderHook(h))
}

func (c *call) deleteHook() answer {
	pr, h, fail := c.findHook()
	if fail != nil {
		return *fail
	}
	pr.hooks = slices.DeleteFunc(pr.hooks, func(x *hook) bool { return x == h })
	return answer{status: http.StatusNoContent}
}

func (c *call) addHook() answer {
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
	for _, flag := range hookFlags {
		if v, ok := p.boolean(flag); ok {
			h.events[flag] = v
		}
	}
	if v, ok := p.boolean("enable_ssl_verification"); ok {
		h.sslVerify = v
	}
	h.token, _ = p.str("token")
	h.pushBranchFilter, _ = p.str("push_events_branch_filter")
	if msg := p.problem(); msg != "" {
		return badRequest(msg)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return invalid(http.StatusUnprocessableEntity, map[string][]string{"url": {"is blocked: URI is invalid"}})
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return invalid(http.StatusUnprocessableEntity, map[string][]string{"url": {"is blocked: Only allowed schemes are http, https"}})
	}
	h.id = c.st.next("hook")
	pr.hooks = append(pr.hooks, h)
	return created(renderHook(h))
}

// event is one webhook delivery to make.
type event struct {
	hookID    int64
	projectID int64
	url       string
	token     string
	sslVerify bool
	name      string
	payload   []byte
}

// hookEvents builds the deliveries of an event to every hook of p that
// takes it (ref, when set, is checked against push branch filters).
// s.mu must be held.
func hookEvents(p *project, flag, name string, payload any, branch string) []event {
	var body []byte
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
		if body == nil {
			var err error
			if body, err = json.Marshal(payload); err != nil {
				return nil
			}
		}
		out = append(out, event{hookID: h.id, projectID: p.id, url: h.url, token: h.token, sslVerify: h.sslVerify, name: name, payload: body})
	}
	return out
}

// Delivery is one webhook delivery the fake made.
type Delivery struct {
	HookID    int64
	ProjectID int64
	URL       string
	Event     string // "Issue Hook", "Push Hook", …
	UUID      string
	Payload   []byte
	Time      time.Time // on the fake clock
	// Status is the receiver's answer; 0 when it could not be reached.
	Status int
	// Error says why the delivery failed; "" when the receiver answered 2xx.
	Error string
}

// OK reports whether the receiver accepted the delivery.
func (d Delivery) OK() bool { return d.Error == "" }

// Deliveries returns the webhook deliveries made so far, oldest first.
// Deliveries caused by an API call are made before its answer is sent.
func (s *Server) Deliveries() []Delivery {
	s.delivMu.Lock()
	defer s.delivMu.Unlock()
	return slices.Clone(s.deliveries)
}

// deliver POSTs each event to its hook and logs the outcome. It runs with
// the state unlocked: a receiver may call the fake back.
func (s *Server) deliver(events []event) {
	for _, e := range events {
		d := Delivery{HookID: e.hookID, ProjectID: e.projectID, URL: e.url, Event: e.name, UUID: newUUID(), Payload: e.payload, Time: s.cfg.clock.Now()}
		req, err := http.NewRequest(http.MethodPost, e.url, bytes.NewReader(e.payload))
		if err == nil {
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("User-Agent", "Sourcehost/apitwin-fake")
			req.Header.Set(sourcehost.HookEventHeader, e.name)
			req.Header.Set(sourcehost.HookUUIDHeader, d.UUID)
			if e.token != "" {
				req.Header.Set(sourcehost.HookTokenHeader, e.token)
			}
			var resp *http.Response
			if resp, err = s.hookClientFor(e.sslVerify).Do(req); err == nil {
				d.Status = resp.StatusCode
				_ = resp.Body.Close()
				if resp.StatusCode < 200 || resp.StatusCode > 299 {
					d.Error = fmt.Sprintf("receiver answered %s", resp.Status)
				}
			}
		}
		if err != nil {
			d.Error = err.Error()
		}
		s.delivMu.Lock()
		s.deliveries = append(s.deliveries, d)
		s.delivMu.Unlock()
	}
}

// hookClientFor is the client for a hook: the configured one, or for hooks
// with SSL verification off, one copy of it that skips verification, built
// once so its connections are reused.
func (s *Server) hookClientFor(sslVerify bool) *http.Client {
	if sslVerify {
		return s.cfg.hookClient
	}
	s.insecureOnce.Do(func() {
		hc := *s.cfg.hookClient
		tr, ok := hc.Transport.(*http.Transport)
		if !ok || tr == nil {
			tr = http.DefaultTransport.(*http.Transport)
		}
		tr = tr.Clone()
		tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // the hook asked for no verification
		hc.Transport = tr
		s.insecureHooks = &hc
	})
	return s.insecureHooks
}

func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
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
		"id": pl.id, "iid": pl.iid, "ref": pl.ref, "tag": false, "sha": pl.sha, "before_sha": zeroSHA, "source": pl.source,
		"status": pl.status, "detailed_status": pl.status, "created_at": stamp(pl.createdAt),
		"finished_at": stampPtr(pl.finishedAt), "duration": pl.duration(),
		"url": base + "/" + pl.project.fullPath() + "/-/pipelines/" + fmt.Sprint(pl.id),
	}
	payload := map[string]any{
		"object_kind": "pipeline", "object_attributes": attrs, "user": hookUser(pl.user), "project": hookProject(base, pl.project),
	}
	return hookEvents(pl.project, "pipeline_events", sourcehost.PipelineHookEvent, payload, "")
}
