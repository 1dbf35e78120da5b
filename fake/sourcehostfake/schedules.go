package sourcehostfake

import (
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/internal/cron"
	"github.com/apitwin/apitwin/internal/fakekit"
)

// pipelineSchedule is a project's pipeline schedule. The fake runs it
// when it is played (POST .../play), and by its cron on the fake clock
// while it is active (arm).
type pipelineSchedule struct {
	id          int64
	description string
	ref         string
	cron        string
	timezone    string
	active      bool
	owner       *user
	createdAt   time.Time
	updatedAt   time.Time
	last        *pipeline // the last pipeline it ran
	// nextRun is when it runs next on the clock (zero: never, inactive,
	// or a cron line the fake cannot follow); timer fires then.
	nextRun time.Time
	timer   *clock.Timer
}

// scheduleWorkerCron is when the real service's pipeline schedule worker
// runs by default (pipeline_schedule_worker_cron, in UTC): a schedule runs
// at a run of the worker, not at its own cron's minute.
const scheduleWorkerCron = "3-59/10 * * * *"

var scheduleWorker = sync.OnceValue(func() *cron.Schedule {
	w, err := cron.Parse(scheduleWorkerCron)
	if err != nil {
		panic(err)
	}
	return w
})

// nextRunAfter is when a schedule runs next after now, as the real service
// sets next_run_at: its cron's next time in its time zone (ideal), if the
// worker's next run is that very time, else the worker's first run after
// it. A line with seconds (6 fields) is followed to the minute, its
// seconds left out; one the shared cron parser does not read (names such
// as MON) never runs on the clock.
func (s *pipelineSchedule) nextRunAfter(now time.Time) time.Time {
	spec := s.cron
	if f := strings.Fields(spec); len(f) == 6 {
		spec = strings.Join(f[1:], " ")
	}
	sch, err := cron.Parse(spec)
	if err != nil {
		return time.Time{}
	}
	loc, err := time.LoadLocation(s.timezone)
	if err != nil {
		return time.Time{}
	}
	ideal := sch.NextIn(now, loc)
	if ideal.IsZero() {
		return ideal
	}
	if w := scheduleWorker().Next(now); w.Equal(ideal) {
		return ideal
	}
	return scheduleWorker().Next(ideal)
}

// arm sets when s runs next, from now, and its clock timer; an inactive
// schedule is disarmed. At its time the schedule runs as its owner, with
// source "schedule", if the owner is still a developer and its ref holds
// the CI definition (else no pipeline, as play refuses), and is armed
// again. s.mu must be held.
func (srv *Server) arm(pr *project, s *pipelineSchedule) {
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	now := srv.cfg.clock.Now()
	s.nextRun = time.Time{}
	if !s.active {
		return
	}
	if s.nextRun = s.nextRunAfter(now); s.nextRun.IsZero() {
		return
	}
	st := srv.st
	s.timer = srv.cfg.clock.AfterFunc(s.nextRun.Sub(now), func() {
		srv.mu.Lock()
		defer srv.mu.Unlock()
		if srv.st != st || !slices.Contains(pr.schedules, s) || st.projByID[pr.id] != pr {
			return
		}
		srv.runSchedule(pr, s)
		srv.arm(pr, s)
	})
}

// runSchedule runs s on the clock, as its owner. s.mu must be held.
func (srv *Server) runSchedule(pr *project, s *pipelineSchedule) {
	if !s.active || s.owner == nil || srv.st.access(s.owner, pr) < Developer {
		return
	}
	ref := scheduleRef(s)
	head, fail := pipelineHead(srv, pr, ref)
	if fail != nil || srv.roomFor(srv.pipelineNeeds(head.files[srv.cfg.ciFile])) != nil {
		return
	}
	pl, events := srv.newPipeline(srv.external, pr, ref, head, "schedule", s.owner, nil)
	s.last = pl
	srv.hooks.enqueue(&trigger{}, events)
}

// cronFieldRE is one field of a cron line: numbers, names, *, ranges,
// steps and lists.
var cronFieldRE = regexp.MustCompile(`^[0-9A-Za-z*/,-]+$`)

// validCron reports whether a cron line has 5 (or 6, with seconds)
// fields of cron's characters, or is one of the @ shorthands.
func validCron(s string) bool {
	switch s {
	case "@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly":
		return true
	}
	f := strings.Fields(s)
	if len(f) != 5 && len(f) != 6 {
		return false
	}
	for _, x := range f {
		if !cronFieldRE.MatchString(x) {
			return false
		}
	}
	return true
}

// validTimezone reports whether tz names a time zone the fake knows (the
// real service takes IANA names and Rails' names; the fake the IANA ones).
func validTimezone(tz string) bool {
	if tz == "" || len(tz) > 64 {
		return false
	}
	_, err := time.LoadLocation(tz)
	return err == nil
}

// scheduleJSON is a schedule as the API answers it.
type scheduleJSON struct {
	ID           int64         `json:"id"`
	Description  string        `json:"description"`
	Ref          string        `json:"ref"`
	Cron         string        `json:"cron"`
	CronTimezone string        `json:"cron_timezone"`
	NextRunAt    *stamp        `json:"next_run_at"`
	Active       bool          `json:"active"`
	CreatedAt    stamp         `json:"created_at"`
	UpdatedAt    stamp         `json:"updated_at"`
	Owner        written       `json:"owner"`
	LastPipeline *pipelineJSON `json:"last_pipeline,omitempty"`
}

func (c *call) renderSchedule(s *pipelineSchedule, detail bool) scheduleJSON {
	out := scheduleJSON{ID: s.id, Description: s.description, Ref: s.ref, Cron: s.cron, CronTimezone: s.timezone, Active: s.active,
		CreatedAt: stamp(s.createdAt), UpdatedAt: stamp(s.updatedAt), Owner: c.userRef(s.owner)}
	if !s.nextRun.IsZero() {
		next := stamp(s.nextRun)
		out.NextRunAt = &next
	}
	if detail && s.last != nil && slices.Contains(s.last.project.pipelines, s.last) {
		v := c.pipelineView(s.last)
		out.LastPipeline = &v
	}
	return out
}

func (c *call) listSchedules() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	if fail := c.atLeast(pr, Developer); fail != nil {
		return *fail
	}
	scope, _ := c.p.oneOf("scope", "active", "inactive")
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	items := keep(pr.schedules, func(s *pipelineSchedule) bool {
		return scope == "" || (scope == "active") == s.active
	})
	page, fail := paginate(c, items)
	if fail != nil {
		return *fail
	}
	return ok(renderAll(page, func(s *pipelineSchedule) scheduleJSON { return c.renderSchedule(s, false) }))
}

func (c *call) findSchedule(pr *project) (*pipelineSchedule, *fakekit.Answer) {
	if fail := c.atLeast(pr, Developer); fail != nil {
		return nil, fail
	}
	id, valid := c.pathInt("pipeline_schedule_id")
	for _, s := range pr.schedules {
		if valid && s.id == id {
			return s, nil
		}
	}
	return nil, errAnswer(notFound("Pipeline Schedule"))
}

func (c *call) getSchedule() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	s, fail := c.findSchedule(pr)
	if fail != nil {
		return *fail
	}
	return ok(c.renderSchedule(s, true))
}

// readSchedule sets into s what the request gives; it returns the
// validation errors by field.
func (c *call) readSchedule(s *pipelineSchedule, creating bool) map[string][]string {
	p := c.p
	if creating {
		s.description, s.ref, s.cron = p.required("description"), p.required("ref"), p.required("cron")
	} else {
		for _, f := range []struct {
			name string
			dst  *string
		}{{"description", &s.description}, {"ref", &s.ref}, {"cron", &s.cron}} {
			if v, ok := p.str(f.name); ok {
				*f.dst = v
			}
		}
	}
	if v, ok := p.str("cron_timezone"); ok {
		s.timezone = v
	}
	if b, ok := p.boolean("active"); ok {
		s.active = b
	}
	bad := map[string][]string{}
	if !validCron(s.cron) {
		bad["cron"] = []string{"is invalid syntax"}
	}
	if !validTimezone(s.timezone) {
		bad["cron_timezone"] = []string{"is invalid syntax"}
	}
	if len(s.description) > 255 {
		bad["description"] = []string{"is too long (maximum is 255 characters)"}
	}
	if len(s.ref) > 255 {
		bad["ref"] = []string{"is too long (maximum is 255 characters)"}
	}
	return bad
}

func (c *call) createSchedule() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	if fail := c.atLeast(pr, Developer); fail != nil {
		return *fail
	}
	s := &pipelineSchedule{timezone: "UTC", active: true, owner: c.user}
	bad := c.readSchedule(s, true)
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	if len(bad) > 0 {
		return invalid(http.StatusBadRequest, bad)
	}
	s.id = c.st.next("schedule")
	s.createdAt = c.st.clock.Now()
	s.updatedAt = s.createdAt
	pr.schedules = append(pr.schedules, s)
	c.s.arm(pr, s)
	return created(c.renderSchedule(s, true))
}

// mayManageSchedule: a schedule's owner, or a maintainer, changes it, as
// the real service allows.
func (c *call) mayManageSchedule(pr *project, s *pipelineSchedule) *fakekit.Answer {
	if s.owner == c.user || c.st.access(c.user, pr) >= Maintainer {
		return nil
	}
	return errAnswer(forbidden())
}

func (c *call) updateSchedule() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	old, fail := c.findSchedule(pr)
	if fail != nil {
		return *fail
	}
	if fail := c.mayManageSchedule(pr, old); fail != nil {
		return *fail
	}
	s := *old
	bad := c.readSchedule(&s, false)
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	if len(bad) > 0 {
		return invalid(http.StatusBadRequest, bad)
	}
	s.updatedAt = c.st.clock.Now()
	*old = s
	c.s.arm(pr, old)
	return ok(c.renderSchedule(old, true))
}

func (c *call) deleteSchedule() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	s, fail := c.findSchedule(pr)
	if fail != nil {
		return *fail
	}
	if fail := c.mayManageSchedule(pr, s); fail != nil {
		return *fail
	}
	pr.schedules = slices.DeleteFunc(pr.schedules, func(x *pipelineSchedule) bool { return x == s })
	if s.timer != nil {
		s.timer.Stop()
	}
	c.s.removed("schedule", 1)
	return fakekit.Answer{Status: http.StatusNoContent}
}

// playSchedule runs a schedule now, as its owner, with source
// "schedule", and answers 201 {"message":"201 Created"} as the real
// service does. Where the real service would fail the pipeline in the
// background (a ref gone, no CI definition), the fake refuses the play
// with the pipeline's 400.
func (c *call) playSchedule() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	s, fail := c.findSchedule(pr)
	if fail != nil {
		return *fail
	}
	ref := scheduleRef(s)
	head, fail := pipelineHead(c.s, pr, ref)
	if fail != nil {
		return *fail
	}
	owner := s.owner
	if owner == nil || c.st.access(owner, pr) < Developer {
		owner = c.user
	}
	pl, events := c.s.newPipeline(c.base, pr, ref, head, "schedule", owner, nil)
	c.events = append(c.events, events...)
	s.last = pl
	return message(http.StatusCreated, "201 Created")
}

// scheduleRef is the branch or tag a schedule runs on: its ref, which may
// be written in full (refs/heads/main).
func scheduleRef(s *pipelineSchedule) string {
	return strings.TrimPrefix(strings.TrimPrefix(s.ref, "refs/heads/"), "refs/tags/")
}
