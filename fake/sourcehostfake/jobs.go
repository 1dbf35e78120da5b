package sourcehostfake

import (
	"cmp"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apitwin/apitwin/internal/fakekit"
	"github.com/apitwin/apitwin/sourcehost"
)

// ciJob is one job of a pipeline. Its status follows its pipeline's on
// the clock (pending, running, then the pipeline's end), unless it was
// canceled or retried on its own.
type ciJob struct {
	id         int64
	name       string
	stage      string
	pipeline   *pipeline
	status     string
	user       *user
	retried    bool // a newer job of the same name replaced it
	createdAt  time.Time
	startedAt  *time.Time
	finishedAt *time.Time
	trace      strings.Builder
}

// ciKeywords are the top-level keys of a CI definition that are not jobs.
var ciKeywords = []string{"stages", "variables", "default", "include", "workflow", "image", "services",
	"before_script", "after_script", "cache", "spec"}

var (
	ciTopKeyRE = regexp.MustCompile(`^["']?([A-Za-z0-9_.][^:#"']*?)["']?\s*:`)
	ciStageRE  = regexp.MustCompile(`^\s+stage:\s*["']?([^"'\s#]+)`)
)

type ciJobSpec struct{ name, stage string }

// parseCIJobs reads the jobs of a CI definition: its top-level keys that
// are neither keywords nor hidden (".name"), each with its "stage:"
// (default "test"). It reads YAML's block style line by line; it is no
// YAML parser.
func parseCIJobs(data []byte) []ciJobSpec {
	var out []ciJobSpec
	jobs := 0
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimRight(line, "\r")
		if m := ciTopKeyRE.FindStringSubmatch(line); m != nil {
			name := strings.Trim(m[1], `"' `)
			if name != "" && !strings.HasPrefix(name, ".") && !slices.Contains(ciKeywords, name) && jobs < maxJobsPerPipeline {
				out = append(out, ciJobSpec{name: name, stage: "test"})
				jobs++
			} else {
				out = append(out, ciJobSpec{}) // a keyword's block: its stage lines are not a job's
			}
			continue
		}
		if m := ciStageRE.FindStringSubmatch(line); m != nil && len(out) > 0 && out[len(out)-1].name != "" {
			out[len(out)-1].stage = m[1]
		}
	}
	return slices.DeleteFunc(out, func(j ciJobSpec) bool { return j.name == "" })
}

// maxJobsPerPipeline bounds the jobs a CI definition makes.
const maxJobsPerPipeline = 100

// addJobs gives a new pipeline the jobs of its CI definition. s.mu must be
// held.
func (s *Server) addJobs(pl *pipeline, head *commit) {
	b := head.files[s.cfg.ciFile]
	if b == nil {
		return
	}
	for _, spec := range parseCIJobs(b.data) {
		s.newJob(pl, spec.name, spec.stage)
	}
}

func (s *Server) newJob(pl *pipeline, name, stage string) *ciJob {
	j := &ciJob{id: s.st.next("job"), name: name, stage: stage, pipeline: pl, status: "pending", user: pl.user, createdAt: s.cfg.clock.Now()}
	pl.jobs = append(pl.jobs, j)
	return j
}

// moveJobs carries a pipeline's new status to its jobs that are not
// finished, writing their logs, and returns their "Job Hook" deliveries.
// s.mu must be held.
func (s *Server) moveJobs(base string, pl *pipeline, status string) []event {
	now := s.cfg.clock.Now()
	var events []event
	for _, j := range pl.jobs {
		if j.retried || finished(j.status) {
			continue
		}
		switch {
		case status == "running" && j.status != "running":
			j.status, j.startedAt = "running", &now
			j.trace.WriteString("Running with apitwin-fake runner\nPreparing environment\nExecuting \"step_script\" stage of the job script\n$ run " + j.name + "\n")
		case finished(status):
			j.finish(status, now)
		default:
			continue
		}
		events = append(events, jobEvents(base, j)...)
	}
	return events
}

// finish ends a job with status at now.
func (j *ciJob) finish(status string, now time.Time) {
	if j.startedAt == nil && status != "canceled" && status != "skipped" {
		j.startedAt = &now
	}
	j.status, j.finishedAt = status, &now
	switch status {
	case "success":
		j.trace.WriteString("Job succeeded\n")
	case "failed":
		j.trace.WriteString("ERROR: Job failed: exit code 1\n")
	case "canceled":
		j.trace.WriteString("ERROR: Job was canceled\n")
	}
}

func (j *ciJob) duration() *float64 {
	if j.startedAt == nil || j.finishedAt == nil {
		return nil
	}
	d := j.finishedAt.Sub(*j.startedAt).Seconds()
	return &d
}

type jobPipelineJSON struct {
	ID        int64  `json:"id"`
	IID       int64  `json:"iid"`
	ProjectID int64  `json:"project_id"`
	Ref       string `json:"ref"`
	SHA       string `json:"sha"`
	Status    string `json:"status"`
}

type jobJSON struct {
	ID                int64           `json:"id"`
	Status            string          `json:"status"`
	Stage             string          `json:"stage"`
	Name              string          `json:"name"`
	Ref               string          `json:"ref"`
	Tag               bool            `json:"tag"`
	Coverage          *float64        `json:"coverage"`
	AllowFailure      bool            `json:"allow_failure"`
	CreatedAt         stamp           `json:"created_at"`
	StartedAt         *stamp          `json:"started_at"`
	FinishedAt        *stamp          `json:"finished_at"`
	ErasedAt          *stamp          `json:"erased_at"`
	Duration          *float64        `json:"duration"`
	QueuedDuration    *float64        `json:"queued_duration"`
	User              written         `json:"user"`
	Commit            *commitJSON     `json:"commit"`
	Pipeline          jobPipelineJSON `json:"pipeline"`
	WebURL            string          `json:"web_url"`
	Artifacts         []struct{}      `json:"artifacts"`
	ArtifactsExpireAt *stamp          `json:"artifacts_expire_at"`
	TagList           []string        `json:"tag_list"`
	Runner            *struct{}       `json:"runner"`
	Retried           bool            `json:"retried"`
	FailureReason     string          `json:"failure_reason,omitempty"`
}

func (c *call) renderJob(j *ciJob) jobJSON {
	pl, pr := j.pipeline, j.pipeline.project
	out := jobJSON{ID: j.id, Status: j.status, Stage: j.stage, Name: j.name, Ref: pl.ref, Tag: pl.tag, CreatedAt: stamp(j.createdAt),
		StartedAt: stampPtr(j.startedAt), FinishedAt: stampPtr(j.finishedAt), Duration: j.duration(), User: c.userRef(j.user),
		Pipeline:  jobPipelineJSON{ID: pl.id, IID: pl.iid, ProjectID: pr.id, Ref: pl.ref, SHA: pl.sha, Status: pl.status},
		WebURL:    c.base + "/" + pr.fullPath() + "/-/jobs/" + strconv.FormatInt(j.id, 10),
		Artifacts: []struct{}{}, TagList: []string{}, Retried: j.retried}
	if cm := pr.repo.commits[pl.sha]; cm != nil {
		out.Commit = c.renderCommit(pr, cm)
	}
	if j.startedAt != nil {
		q := j.startedAt.Sub(j.createdAt).Seconds()
		out.QueuedDuration = &q
	}
	if j.status == "failed" {
		out.FailureReason = "script_failure"
	}
	return out
}

// readScope reads the scope[] filter of job lists.
func readScope(p *params) []string {
	scope, _ := p.list("scope")
	for _, s := range scope {
		if !slices.Contains(jobStatuses, s) {
			p.fail("scope", "does not have a valid value")
			return nil
		}
	}
	return scope
}

var jobStatuses = []string{"created", "pending", "running", "failed", "success", "canceled", "skipped", "waiting_for_resource", "manual"}

func (c *call) listPipelineJobs() fakekit.Answer {
	pr, fail := c.repoProject()
	if fail != nil {
		return *fail
	}
	pl, fail := c.findPipeline(pr)
	if fail != nil {
		return *fail
	}
	scope := readScope(c.p)
	retried, _ := c.p.boolean("include_retried")
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	items := keep(pl.jobs, func(j *ciJob) bool {
		return (retried || !j.retried) && (len(scope) == 0 || slices.Contains(scope, j.status))
	})
	slices.Reverse(items) // newest first, as the real service lists them
	page, fail := paginate(c, items)
	if fail != nil {
		return *fail
	}
	return ok(renderAll(page, c.renderJob))
}

func (c *call) listProjectJobs() fakekit.Answer {
	pr, fail := c.repoProject()
	if fail != nil {
		return *fail
	}
	scope := readScope(c.p)
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	keyset, _, fail := c.keysetOrder("desc")
	if fail != nil {
		return *fail
	}
	var items []*ciJob
	for i := len(pr.pipelines) - 1; i >= 0; i-- {
		jobs := pr.pipelines[i].jobs
		for k := len(jobs) - 1; k >= 0; k-- {
			if len(scope) == 0 || slices.Contains(scope, jobs[k].status) {
				items = append(items, jobs[k])
			}
		}
	}
	var page []*ciJob
	if keyset {
		// Newest first by id: a retried job is newer than the later
		// pipelines' jobs made before it.
		sortStable(items, func(a, b *ciJob) int { return cmp.Compare(b.id, a.id) })
		page, fail = keyedPage(c, items, idCursor(items, func(j *ciJob) int64 { return j.id }, true))
	} else {
		page, fail = paginate(c, items)
	}
	if fail != nil {
		return *fail
	}
	return ok(renderAll(page, c.renderJob))
}

func (c *call) findJob(pr *project) (*ciJob, *fakekit.Answer) {
	id, valid := c.pathInt("job_id")
	if valid {
		for _, pl := range pr.pipelines {
			for _, j := range pl.jobs {
				if j.id == id {
					return j, nil
				}
			}
		}
	}
	return nil, errAnswer(message(http.StatusNotFound, "404 Not found"))
}

func (c *call) getJob() fakekit.Answer {
	pr, fail := c.repoProject()
	if fail != nil {
		return *fail
	}
	j, fail := c.findJob(pr)
	if fail != nil {
		return *fail
	}
	return ok(c.renderJob(j))
}

func (c *call) jobTrace() fakekit.Answer {
	pr, fail := c.repoProject()
	if fail != nil {
		return *fail
	}
	j, fail := c.findJob(pr)
	if fail != nil {
		return *fail
	}
	return fakekit.Answer{Status: http.StatusOK, Raw: []byte(j.trace.String()), ContentType: "text/plain"}
}

func (c *call) cancelJob() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	if fail := c.atLeast(pr, Developer); fail != nil {
		return *fail
	}
	j, fail := c.findJob(pr)
	if fail != nil {
		return *fail
	}
	if !finished(j.status) {
		j.finish("canceled", c.st.clock.Now())
		c.events = append(c.events, jobEvents(c.base, j)...)
		c.settlePipeline(j.pipeline)
	}
	return created(c.renderJob(j))
}

// settlePipeline ends a pipeline whose jobs have all finished (by cancels):
// canceled if any was, else the worst status. s.mu must be held.
func (c *call) settlePipeline(pl *pipeline) {
	status := "success"
	for _, j := range pl.jobs {
		switch {
		case j.retried:
		case !finished(j.status):
			return
		case j.status == "canceled":
			status = "canceled"
		case j.status == "failed" && status != "canceled":
			status = "failed"
		}
	}
	if !finished(pl.status) {
		c.events = append(c.events, c.s.setPipelineStatus(c.base, pl, status)...)
	}
}

func (c *call) retryJob() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	if fail := c.atLeast(pr, Developer); fail != nil {
		return *fail
	}
	old, fail := c.findJob(pr)
	if fail != nil {
		return *fail
	}
	if !finished(old.status) || old.retried {
		return message(http.StatusForbidden, "403 Forbidden - Job is not retryable")
	}
	pl := old.pipeline
	old.retried = true
	j := c.s.newJob(pl, old.name, old.stage)
	j.user = c.user
	c.events = append(c.events, jobEvents(c.base, j)...)
	// The pipeline runs again: running at once, done after the run time.
	pl.finishedAt = nil
	c.events = append(c.events, c.s.setPipelineStatus(c.base, pl, "running")...)
	return created(c.renderJob(j))
}

// --- the "Job Hook" ---

type jobHookCommitJSON struct {
	ID          int64  `json:"id"`
	SHA         string `json:"sha"`
	Message     string `json:"message"`
	AuthorName  string `json:"author_name"`
	AuthorEmail string `json:"author_email"`
	Status      string `json:"status"`
	Duration    *int   `json:"duration"`
	StartedAt   *stamp `json:"started_at"`
	FinishedAt  *stamp `json:"finished_at"`
}

type jobHookRepositoryJSON struct {
	Name            string `json:"name"`
	Description     string `json:"description"`
	Homepage        string `json:"homepage"`
	GitHTTPURL      string `json:"git_http_url"`
	VisibilityLevel int    `json:"visibility_level"`
}

type jobHookJSON struct {
	ObjectKind          string                `json:"object_kind"`
	Ref                 string                `json:"ref"`
	Tag                 bool                  `json:"tag"`
	BeforeSHA           string                `json:"before_sha"`
	SHA                 string                `json:"sha"`
	BuildID             int64                 `json:"build_id"`
	BuildName           string                `json:"build_name"`
	BuildStage          string                `json:"build_stage"`
	BuildStatus         string                `json:"build_status"`
	BuildCreatedAt      stamp                 `json:"build_created_at"`
	BuildStartedAt      *stamp                `json:"build_started_at"`
	BuildFinishedAt     *stamp                `json:"build_finished_at"`
	BuildDuration       *float64              `json:"build_duration"`
	BuildAllowFailure   bool                  `json:"build_allow_failure"`
	BuildFailureReason  string                `json:"build_failure_reason"`
	PipelineID          int64                 `json:"pipeline_id"`
	ProjectID           int64                 `json:"project_id"`
	ProjectName         string                `json:"project_name"`
	User                hookUserJSON          `json:"user"`
	Commit              jobHookCommitJSON     `json:"commit"`
	Repository          jobHookRepositoryJSON `json:"repository"`
	Project             hookProjectJSON       `json:"project"`
	Environment         *struct{}             `json:"environment"`
	BuildQueuedDuration *float64              `json:"build_queued_duration"`
}

var visibilityLevels = map[string]int{"private": 0, "internal": 10, "public": 20}

// jobEvents builds the "Job Hook" deliveries of a job's status. s.mu must
// be held.
func jobEvents(base string, j *ciJob) []event {
	pl, pr := j.pipeline, j.pipeline.project
	web := base + "/" + pr.fullPath()
	payload := jobHookJSON{ObjectKind: "build", Ref: pl.ref, Tag: pl.tag, BeforeSHA: zeroSHA, SHA: pl.sha, BuildID: j.id, BuildName: j.name,
		BuildStage: j.stage, BuildStatus: j.status, BuildCreatedAt: stamp(j.createdAt), BuildStartedAt: stampPtr(j.startedAt),
		BuildFinishedAt: stampPtr(j.finishedAt), BuildDuration: j.duration(), BuildFailureReason: "unknown_failure",
		PipelineID: pl.id, ProjectID: pr.id, ProjectName: pr.fullName(), User: hookUser(j.user),
		Commit: jobHookCommitJSON{ID: pl.id, SHA: pl.sha, Status: pl.status, Duration: pl.duration(),
			StartedAt: stampPtr(pl.startedAt), FinishedAt: stampPtr(pl.finishedAt)},
		Repository: jobHookRepositoryJSON{Name: pr.name, Description: pr.description, Homepage: web, GitHTTPURL: web + ".git",
			VisibilityLevel: visibilityLevels[pr.visibility]},
		Project: hookProject(base, pr)}
	if j.status == "failed" {
		payload.BuildFailureReason = "script_failure"
	}
	if cm := pr.repo.commits[pl.sha]; cm != nil {
		payload.Commit.Message, payload.Commit.AuthorName, payload.Commit.AuthorEmail = cm.message, cm.authorName, cm.authorEmail
	}
	if j.startedAt != nil {
		q := j.startedAt.Sub(j.createdAt).Seconds()
		payload.BuildQueuedDuration = &q
	}
	return hookEvents(pr, "job_events", sourcehost.JobHookEvent, payload, "")
}

// SetJobStatus moves a job to a status now, as a runner would (running,
// success, failed, canceled, …), writing its log and queuing its "Job
// Hook". A pipeline whose jobs have all finished ends with them; one that
// goes on still succeeds on the clock only if none of its jobs failed (a
// failed job fails it, a canceled one cancels it).
func (s *Server) SetJobStatus(projectID, jobID int64, status string) error {
	if !slices.Contains(jobStatuses, status) {
		return fmt.Errorf("sourcehostfake: unknown job status %q", status)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.st.projByID[projectID]
	if p == nil {
		return fmt.Errorf("sourcehostfake: no project %d", projectID)
	}
	var j *ciJob
	for _, pl := range p.pipelines {
		for _, x := range pl.jobs {
			if x.id == jobID {
				j = x
			}
		}
	}
	if j == nil {
		return fmt.Errorf("sourcehostfake: no job %d in project %d", jobID, projectID)
	}
	c := s.internalCall(s.root)
	now := s.cfg.clock.Now()
	switch {
	case finished(status):
		j.finish(status, now)
	case status == "running":
		j.status, j.startedAt = status, &now
	default:
		j.status = status
	}
	c.events = append(c.events, jobEvents(c.base, j)...)
	c.settlePipeline(j.pipeline)
	s.hooks.enqueue(&trigger{}, c.events)
	return nil
}
