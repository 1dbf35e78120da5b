package sourcehostfake

import (
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// pipelineTrigger is a project's pipeline trigger token: whoever holds it
// runs pipelines (POST /projects/:id/trigger/pipeline) as its owner.
type pipelineTrigger struct {
	id          int64
	token       string
	description string
	owner       *user
	createdAt   time.Time
	updatedAt   time.Time
	lastUsed    *time.Time
}

// triggerJSON is a trigger as the API answers it. Its token is whole for
// its owner only; others see its first 4 characters after the prefix, as
// the real service shows them.
type triggerJSON struct {
	ID          int64   `json:"id"`
	Token       string  `json:"token"`
	Description string  `json:"description"`
	CreatedAt   stamp   `json:"created_at"`
	UpdatedAt   stamp   `json:"updated_at"`
	LastUsed    *stamp  `json:"last_used"`
	Owner       written `json:"owner"`
}

func (c *call) renderTrigger(t *pipelineTrigger) triggerJSON {
	tok := t.token
	if c.user != t.owner {
		tok = strings.TrimPrefix(tok, triggerTokenPrefix)[:4]
	}
	return triggerJSON{ID: t.id, Token: tok, Description: t.description, CreatedAt: stamp(t.createdAt), UpdatedAt: stamp(t.updatedAt),
		LastUsed: stampPtr(t.lastUsed), Owner: c.userRef(t.owner)}
}

// triggersProject is the route's project, if the caller may manage its
// triggers: maintainers and above.
func (c *call) triggersProject() (*project, *fakekit.Answer) {
	pr, fail := c.project()
	if fail != nil {
		return nil, fail
	}
	if fail := c.atLeast(pr, Maintainer); fail != nil {
		return nil, fail
	}
	return pr, nil
}

func (c *call) findTrigger(pr *project) (*pipelineTrigger, *fakekit.Answer) {
	id, valid := c.pathInt("trigger_id")
	for _, t := range pr.triggers {
		if valid && t.id == id {
			return t, nil
		}
	}
	return nil, errAnswer(notFound("Trigger"))
}

func (c *call) listTriggers() fakekit.Answer {
	pr, fail := c.triggersProject()
	if fail != nil {
		return *fail
	}
	page, fail := paginate(c, pr.triggers)
	if fail != nil {
		return *fail
	}
	return ok(renderAll(page, c.renderTrigger))
}

func (c *call) getTrigger() fakekit.Answer {
	pr, fail := c.triggersProject()
	if fail != nil {
		return *fail
	}
	t, fail := c.findTrigger(pr)
	if fail != nil {
		return *fail
	}
	return ok(c.renderTrigger(t))
}

// maxTriggerDescription bounds a trigger's description.
const maxTriggerDescription = 255

func (c *call) readTriggerDescription(required bool) (string, bool) {
	var d string
	var given bool
	if required {
		d, given = c.p.required("description"), true
	} else {
		d, given = c.p.str("description")
	}
	if len(d) > maxTriggerDescription {
		c.p.fail("description", "is too long (maximum is 255 characters)")
	}
	return d, given
}

func (c *call) createTrigger() fakekit.Answer {
	pr, fail := c.triggersProject()
	if fail != nil {
		return *fail
	}
	d, _ := c.readTriggerDescription(true)
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	now := c.st.clock.Now()
	t := &pipelineTrigger{id: c.st.next("trigger"), token: randomSecret(triggerTokenPrefix, 20), description: d, owner: c.user, createdAt: now, updatedAt: now}
	pr.triggers = append(pr.triggers, t)
	return created(c.renderTrigger(t))
}

// updateTrigger changes a trigger's description: its owner only, as the
// real service's admin_trigger.
func (c *call) updateTrigger() fakekit.Answer {
	pr, fail := c.triggersProject()
	if fail != nil {
		return *fail
	}
	t, fail := c.findTrigger(pr)
	if fail != nil {
		return *fail
	}
	d, given := c.readTriggerDescription(false)
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	if t.owner != c.user {
		return forbidden()
	}
	if given {
		t.description, t.updatedAt = d, c.st.clock.Now()
	}
	return ok(c.renderTrigger(t))
}

func (c *call) deleteTrigger() fakekit.Answer {
	pr, fail := c.triggersProject()
	if fail != nil {
		return *fail
	}
	t, fail := c.findTrigger(pr)
	if fail != nil {
		return *fail
	}
	pr.triggers = slices.DeleteFunc(pr.triggers, func(x *pipelineTrigger) bool { return x == t })
	c.s.removed("trigger", 1)
	return fakekit.Answer{Status: http.StatusNoContent}
}

// triggerPipeline runs a pipeline with a trigger token (token, ref,
// variables), with or without the caller's own credentials: the token
// authorizes it, and the pipeline is its owner's, with source "trigger".
// A project or token unknown is 404, as the real service answers; an
// owner who can no longer run pipelines, 403.
func (c *call) triggerPipeline() fakekit.Answer {
	tok := c.p.required("token")
	ref := c.p.required("ref")
	vars := c.p.variables("variables")
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	pr := c.st.project(c.r.PathValue("id"))
	if pr == nil {
		return notFound("Project")
	}
	i := slices.IndexFunc(pr.triggers, func(t *pipelineTrigger) bool { return t.token == tok })
	if i < 0 {
		return c.triggerPipelineAsJob(pr, tok, ref, vars)
	}
	t := pr.triggers[i]
	if c.st.access(t.owner, pr) < Developer {
		return forbidden()
	}
	head, fail := pipelineHead(c.s, pr, ref)
	if fail != nil {
		return *fail
	}
	now := c.st.clock.Now()
	t.lastUsed = &now
	pl, events := c.s.newPipeline(c.base, pr, ref, head, "trigger", t.owner, vars)
	c.events = append(c.events, events...)
	return c.doc(http.StatusCreated, c.appendPipelineDetail(c.buf(), pl))
}

// triggerPipelineAsJob runs a pipeline with a CI/CD job token in token,
// as the real service's trigger API takes one (a multi-project or child
// pipeline started from a job): as the job's user, with source
// "pipeline". A token of no job is 404; of a job that is not running 401
// "Job is not running"; a project the job token does not reach (another
// than the job's own: the fake keeps no allowlist) 404, as the real
// service hides a project its job token may not read.
func (c *call) triggerPipelineAsJob(pr *project, tok, ref string, vars map[string]string) fakekit.Answer {
	j := c.st.jobTokens[tok]
	switch {
	case j == nil || j.user == nil:
		return message(http.StatusNotFound, "404 Not Found")
	case j.status != "running":
		return message(http.StatusUnauthorized, "Job is not running")
	case j.pipeline.project != pr || !c.st.canSee(j.user, pr):
		return message(http.StatusNotFound, "404 Not Found")
	}
	c.user = j.user
	fakekit.ExchangeFrom(c.r.Context()).SetCaller(j.user.username)
	if c.st.access(j.user, pr) < Developer {
		return forbidden()
	}
	head, fail := pipelineHead(c.s, pr, ref)
	if fail != nil {
		return *fail
	}
	pl, events := c.s.newPipeline(c.base, pr, ref, head, "pipeline", j.user, vars)
	c.events = append(c.events, events...)
	return c.doc(http.StatusCreated, c.appendPipelineDetail(c.buf(), pl))
}
