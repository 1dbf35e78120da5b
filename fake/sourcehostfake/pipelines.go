package sourcehostfake

import (
	"cmp"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"time"

	"github.com/apitwin/apitwin/internal/fakekit"
	"github.com/apitwin/apitwin/internal/jsonw"
)

var pipelineStatuses = []string{"created", "waiting_for_resource", "preparing", "pending", "running", "success", "failed",
	"canceled", "skipped", "manual", "scheduled"}

func finished(status string) bool {
	return status == "success" || status == "failed" || status == "canceled" || status == "skipped"
}

func (c *call) listPipelines() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	if !c.st.canReadCode(c.user, pr) {
		return forbidden()
	}
	p := c.p
	status, _ := p.oneOf("status", pipelineStatuses...)
	ref, _ := p.str("ref")
	sha, _ := p.str("sha")
	source, _ := p.str("source")
	orderBy, desc := sortOrder(p, "id", "status", "ref", "updated_at", "user_id")
	if msg := p.problem(); msg != "" {
		return badRequest(msg)
	}
	var accepted func(pl *pipeline) bool // nil: no filter
	if status != "" || ref != "" || sha != "" || source != "" {
		accepted = func(pl *pipeline) bool {
			return (status == "" || pl.status == status) && (ref == "" || pl.ref == ref) && (sha == "" || pl.sha == sha) &&
				(source == "" || pl.source == source)
		}
	}
	var page []*pipeline
	if accepted == nil && orderBy == "id" { // the default: the list is in id order already
		page, fail = orderedPage(c, pr.pipelines, desc, "")
	} else {
		page, fail = sortedPage(c, pr.pipelines, accepted, pipelineOrder(orderBy, desc), "")
	}
	if fail != nil {
		return *fail
	}
	return c.doc(http.StatusOK, jsonw.AppendArray(c.buf(), page, c.appendPipelineSummary))
}

// pipelineOrder compares pipelines by orderBy, then id, reversed when desc.
func pipelineOrder(orderBy string, desc bool) func(a, b *pipeline) int {
	return func(a, b *pipeline) int {
		var r int
		switch orderBy {
		case "status":
			r = cmp.Compare(a.status, b.status)
		case "ref":
			r = cmp.Compare(a.ref, b.ref)
		case "updated_at":
			r = a.updatedAt.Compare(b.updatedAt)
		case "user_id":
			r = cmp.Compare(userID(a.user), userID(b.user))
		}
		return ordered(r, a.id, b.id, desc)
	}
}

func userID(u *user) int64 {
	if u == nil {
		return 0
	}
	return u.id
}

func (c *call) findPipeline(pr *project) (*pipeline, *fakekit.Answer) {
	id, valid := c.pathInt("pipeline_id")
	for _, pl := range pr.pipelines {
		if valid && pl.id == id {
			return pl, nil
		}
	}
	return nil, errAnswer(message(http.StatusNotFound, "404 Not found"))
}

func (c *call) getPipeline() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	if !c.st.canReadCode(c.user, pr) {
		return forbidden()
	}
	pl, fail := c.findPipeline(pr)
	if fail != nil {
		return *fail
	}
	return c.doc(http.StatusOK, c.appendPipelineDetail(c.buf(), pl))
}

func (c *call) createPipeline() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	if fail := c.atLeast(pr, Developer); fail != nil {
		return *fail
	}
	ref := c.p.required("ref")
	vars := c.p.variables("variables")
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	head, fail := pipelineHead(c.s, pr, ref)
	if fail != nil {
		return *fail
	}
	pl, events := c.s.newPipeline(c.base, pr, ref, head, "api", c.user, vars)
	c.events = append(c.events, events...)
	return c.doc(http.StatusCreated, c.appendPipelineDetail(c.buf(), pl))
}

// pipelineHead is the commit a pipeline on ref runs: a branch or a tag,
// as the real service runs pipelines on either, checking in its order:
// found, then not both, then holding the CI definition.
func pipelineHead(s *Server, pr *project, ref string) (*commit, *fakekit.Answer) {
	head, tag := pr.repo.branches[ref], pr.repo.tags[ref]
	switch {
	case head == nil && tag == nil:
		return nil, errAnswer(invalid(http.StatusBadRequest, map[string][]string{"base": {"Reference not found"}}))
	case head != nil && tag != nil:
		return nil, errAnswer(invalid(http.StatusBadRequest, map[string][]string{"base": {"Ref is ambiguous"}}))
	case tag != nil:
		head = tag.commit
	}
	if _, ok := head.files[s.cfg.ciFile]; !ok {
		return nil, errAnswer(invalid(http.StatusBadRequest, map[string][]string{"base": {"Missing CI config file"}}))
	}
	return head, nil
}

func (c *call) cancelPipeline() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	if fail := c.atLeast(pr, Developer); fail != nil {
		return *fail
	}
	pl, fail := c.findPipeline(pr)
	if fail != nil {
		return *fail
	}
	if !finished(pl.status) {
		c.events = append(c.events, c.s.setPipelineStatus(c.base, pl, "canceled")...)
	}
	return c.doc(http.StatusOK, c.appendPipelineDetail(c.buf(), pl))
}

// newPipeline creates a pending pipeline whose status then moves on the
// clock: running after the pending time, success after the running time.
// s.mu must be held.
func (s *Server) newPipeline(base string, p *project, ref string, head *commit, source string, u *user, vars map[string]string) (*pipeline, []event) {
	now := s.cfg.clock.Now()
	iid := int64(1) // after the newest's: a deleted pipeline's iid is not given again, unless it was the newest
	if n := len(p.pipelines); n > 0 {
		iid = p.pipelines[n-1].iid + 1
	}
	pl := &pipeline{id: s.st.next("pipeline"), iid: iid, project: p, ref: ref, sha: head.sha,
		status: "pending", source: source, user: u, variables: vars, createdAt: now, updatedAt: now,
		tag: p.repo.branches[ref] == nil && p.repo.tags[ref] != nil} // a branch when both: pushes run on branches
	p.pipelines = append(p.pipelines, pl)
	s.addJobs(pl, head)
	s.schedulePipeline(pl, s.cfg.pipelineQueue, "running")
	events := pipelineEvents(base, pl)
	for _, j := range pl.jobs {
		events = append(events, jobEvents(base, j)...)
	}
	return pl, events
}

// schedulePipeline moves pl to status after d on the clock, unless its
// status is changed another way first or the fake is reset. Its webhook
// deliveries start chains of their own. s.mu must be held.
func (s *Server) schedulePipeline(pl *pipeline, d time.Duration, status string) {
	from, st := pl.status, s.st
	pl.timer = s.cfg.clock.AfterFunc(d, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.st != st || pl.status != from {
			return
		}
		s.hooks.enqueue(&trigger{}, s.setPipelineStatus(s.external, pl, status))
	})
}

// stopTimers stops every pipeline's clock timer (Close, Reset). Each
// pipeline keeps its stopped timer: a snapshot taken after Close still
// sees which pipelines were moving. s.mu must be held.
func (st *state) stopTimers() {
	for _, p := range st.projects {
		for _, pl := range p.pipelines {
			if pl.timer != nil {
				pl.timer.Stop()
			}
		}
		for _, s := range p.schedules {
			if s.timer != nil {
				s.timer.Stop()
			}
		}
	}
}

// setPipelineStatus moves pl to status, keeps its times, schedules what
// follows and returns the deliveries to make. s.mu must be held.
func (s *Server) setPipelineStatus(base string, pl *pipeline, status string) []event {
	if pl.timer != nil {
		pl.timer.Stop()
		pl.timer = nil
	}
	now := s.cfg.clock.Now()
	jobs := s.moveJobs(base, pl, status)
	if status == "success" {
		// A pipeline succeeds only if its jobs did: one failed fails it,
		// one canceled cancels it.
		for _, j := range pl.jobs {
			switch {
			case j.retried:
			case j.status == "failed":
				status = "failed"
			case j.status == "canceled" && status == "success":
				status = "canceled"
			}
		}
	}
	pl.status, pl.updatedAt = status, now
	if status == "running" && pl.startedAt == nil {
		pl.startedAt = &now
	}
	if finished(status) {
		if pl.startedAt == nil {
			pl.startedAt = &now
		}
		pl.finishedAt = &now
	}
	if status == "running" {
		s.schedulePipeline(pl, s.cfg.pipelineRun, "success")
	}
	return append(jobs, pipelineEvents(base, pl)...)
}

// SetPipelineStatus moves a pipeline to a status now, as a runner would,
// queuing its webhook deliveries; its unfinished jobs follow, and success
// becomes failed (or canceled) when one of its jobs failed (or was
// canceled). A pipeline set to a status by hand keeps
// moving on the clock only from running (to success).
func (s *Server) SetPipelineStatus(projectID, pipelineID int64, status string) error {
	if !slices.Contains(pipelineStatuses, status) {
		return fmt.Errorf("sourcehostfake: unknown pipeline status %q", status)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.st.projByID[projectID]
	if p == nil {
		return fmt.Errorf("sourcehostfake: no project %d", projectID)
	}
	i := slices.IndexFunc(p.pipelines, func(pl *pipeline) bool { return pl.id == pipelineID })
	if i < 0 {
		return fmt.Errorf("sourcehostfake: no pipeline %d in project %d", pipelineID, projectID)
	}
	s.hooks.enqueue(&trigger{}, s.setPipelineStatus(s.external, p.pipelines[i], status))
	return nil
}

// retryPipeline retries a pipeline's failed and canceled jobs, as the real
// service's "retry" button: each gets a new job of its name, and the
// pipeline runs again from running. A pipeline with nothing to retry is
// answered as it is.
func (c *call) retryPipeline() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	if fail := c.atLeast(pr, Developer); fail != nil {
		return *fail
	}
	pl, fail := c.findPipeline(pr)
	if fail != nil {
		return *fail
	}
	retryable := retryableJobs(pl)
	for _, old := range retryable {
		old.retried = true
		j := c.s.newJob(pl, old.name, old.stage)
		j.user = c.user
		c.events = append(c.events, jobEvents(c.base, j)...)
	}
	if len(retryable) > 0 {
		pl.finishedAt = nil
		c.events = append(c.events, c.s.setPipelineStatus(c.base, pl, "running")...)
	}
	return c.doc(http.StatusCreated, c.appendPipelineDetail(c.buf(), pl))
}

// retryableJobs are a pipeline's latest jobs that failed or were
// canceled.
func retryableJobs(pl *pipeline) []*ciJob {
	var out []*ciJob
	for _, j := range pl.jobs {
		if !j.retried && (j.status == "failed" || j.status == "canceled") {
			out = append(out, j)
		}
	}
	return out
}

// deletePipeline deletes a pipeline with its jobs; as on the real
// service, only a project's owners (and administrators) may. A running
// pipeline is stopped first: its timer never fires.
func (c *call) deletePipeline() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	if fail := c.atLeast(pr, Owner); fail != nil {
		return *fail
	}
	pl, fail := c.findPipeline(pr)
	if fail != nil {
		return *fail
	}
	if pl.timer != nil {
		pl.timer.Stop()
		pl.timer = nil
	}
	pr.pipelines = slices.DeleteFunc(pr.pipelines, func(x *pipeline) bool { return x == pl })
	for _, s := range pr.schedules {
		if s.last == pl {
			s.last = nil
		}
	}
	c.s.removed("pipeline", 1)
	c.s.removed("job", len(pl.jobs))
	return fakekit.Answer{Status: http.StatusNoContent}
}

// pipelineVariableJSON is a variable a pipeline was started with.
type pipelineVariableJSON struct {
	VariableType string `json:"variable_type"`
	Key          string `json:"key"`
	Value        string `json:"value"`
	Raw          bool   `json:"raw"`
}

// listPipelineVariables answers the variables a pipeline was started
// with, by key. The real service shows them to the user who started the
// pipeline (a developer or above) and to maintainers.
func (c *call) listPipelineVariables() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	pl, fail := c.findPipeline(pr)
	if fail != nil {
		return *fail
	}
	level := c.st.access(c.user, pr)
	if level < Maintainer && (level < Developer || pl.user == nil || pl.user != c.user) {
		return forbidden()
	}
	out := make([]pipelineVariableJSON, 0, len(pl.variables))
	for _, k := range slices.Sorted(maps.Keys(pl.variables)) {
		out = append(out, pipelineVariableJSON{VariableType: "env_var", Key: k, Value: pl.variables[k]})
	}
	return ok(out)
}
