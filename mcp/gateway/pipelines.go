package gateway

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"unicode/utf8"

	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/sourcehost"
)

// variableName is what CI variable names may look like upstream.
var variableName = regexp.MustCompile(`^[A-Za-z0-9_]{1,255}$`)

func pipeline(p *sourcehost.Pipeline) mcp.Pipeline {
	return mcp.Pipeline{
		ID: p.ID, IID: p.IID, ProjectID: p.ProjectID, Status: string(p.Status), Source: p.Source,
		Ref: p.Ref, SHA: p.SHA, WebURL: p.WebURL, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt,
	}
}

var listPipelinesTool = define(tool{
	name:        "list_pipelines",
	title:       "List pipelines",
	description: "List a project's CI pipelines, newest first, filtered by status and ref.",
	params: []param{
		projectParam,
		{name: "status", kind: kindString, enum: []string{"pending", "running", "success", "failed", "canceled", "skipped"}, description: "Only pipelines in this status."},
		{name: "ref", kind: kindString, description: "Only pipelines of this branch or tag."},
		pageParam, perPageParam,
	},
}, calls[mcp.ListPipelinesParams, *mcp.Paged[mcp.Pipeline]]{
	cache: func(p *mcp.ListPipelinesParams) *mcp.CacheOptions { return &p.CacheOptions },
	tags:  func(p *mcp.ListPipelinesParams) []string { return projectTags(p.ProjectID) },
	run: func(ctx context.Context, up *sourcehost.Client, p *mcp.ListPipelinesParams) (*mcp.Paged[mcp.Pipeline], error) {
		page, err := up.ListPipelines(ctx, sourcehost.ProjectID(p.ProjectID), &sourcehost.ListPipelinesOptions{
			ListOptions: listOptions(p.Page, p.PerPage), Status: sourcehost.PipelineStatus(p.Status), Ref: p.Ref,
		})
		if err != nil {
			return nil, err
		}
		return paged(page, pipeline), nil
	},
})

var triggerPipelineTool = define(tool{
	name:        "trigger_pipeline",
	title:       "Run a pipeline",
	effects:     &effects{openWorld: true}, // its jobs run the project's code, which may reach anywhere
	description: "Run the project's CI definition on a branch or tag, with optional variables.",
	params: []param{
		projectParam,
		{name: "ref", kind: kindString, required: true, description: "Branch or tag to run on."},
		{name: "variables", kind: kindStringMap, description: "CI variables for this run, name to value."},
	},
}, calls[mcp.TriggerPipelineParams, *mcp.Pipeline]{
	tags: func(p *mcp.TriggerPipelineParams) []string { return projectTags(p.ProjectID) },
	check: func(p *mcp.TriggerPipelineParams) *mcp.Error {
		for k := range p.Variables {
			if !variableName.MatchString(k) {
				return paramError("variables", "variable name "+strconv.Quote(k)+" may hold only letters, digits and _ (at most 255)")
			}
		}
		return nil
	},
	run: func(ctx context.Context, up *sourcehost.Client, p *mcp.TriggerPipelineParams) (*mcp.Pipeline, error) {
		pl, err := up.TriggerPipeline(ctx, sourcehost.ProjectID(p.ProjectID), &sourcehost.TriggerPipelineRequest{Ref: p.Ref, Variables: p.Variables})
		if err != nil {
			return nil, err
		}
		out := pipeline(pl)
		return &out, nil
	},
})

// jobStatuses are the statuses list_pipeline_jobs filters by.
var jobStatuses = []string{"created", "pending", "running", "failed", "success", "canceled", "skipped", "manual"}

func job(j *sourcehost.Job) mcp.Job {
	return mcp.Job{
		ID: j.ID, PipelineID: j.Pipeline.ID, Name: j.Name, Stage: j.Stage, Status: string(j.Status), Ref: j.Ref,
		AllowFailure: j.AllowFailure, FailureReason: j.FailureReason, CreatedAt: j.CreatedAt,
		StartedAt: j.StartedAt, FinishedAt: j.FinishedAt, Duration: j.Duration, WebURL: j.WebURL,
	}
}

var listPipelineJobsTool = define(tool{
	name:        "list_pipeline_jobs",
	title:       "List a pipeline's jobs",
	description: "List the jobs of a CI pipeline with their stage, status and failure reason.",
	params: []param{
		projectParam,
		{name: "pipeline_id", kind: kindInteger, required: true, min: 1, max: 1 << 62, description: "ID of the pipeline (from list_pipelines)."},
		{name: "status", kind: kindString, enum: jobStatuses, description: "Only jobs in this status."},
		pageParam, perPageParam,
	},
}, calls[mcp.ListPipelineJobsParams, *mcp.Paged[mcp.Job]]{
	cache: func(p *mcp.ListPipelineJobsParams) *mcp.CacheOptions { return &p.CacheOptions },
	tags:  func(p *mcp.ListPipelineJobsParams) []string { return projectTags(p.ProjectID) },
	run: func(ctx context.Context, up *sourcehost.Client, p *mcp.ListPipelineJobsParams) (*mcp.Paged[mcp.Job], error) {
		opts := &sourcehost.ListJobsOptions{ListOptions: listOptions(p.Page, p.PerPage)}
		if p.Status != "" {
			opts.Scope = []sourcehost.PipelineStatus{sourcehost.PipelineStatus(p.Status)}
		}
		page, err := up.ListPipelineJobs(ctx, sourcehost.ProjectID(p.ProjectID), p.PipelineID, opts)
		if err != nil {
			return nil, err
		}
		return paged(page, job), nil
	},
})

var getJobLogTool = define(tool{
	name:        "get_job_log",
	title:       "Get a job's log",
	description: "Get a CI job's log as far as it has run: all of it up to 64 KiB, else its last 64 KiB (truncated is then true; size is the whole log's).",
	params: []param{
		projectParam,
		{name: "job_id", kind: kindInteger, required: true, min: 1, max: 1 << 62, description: "ID of the job (from list_pipeline_jobs)."},
	},
}, calls[mcp.GetJobLogParams, *mcp.JobLog]{
	cache: func(p *mcp.GetJobLogParams) *mcp.CacheOptions { return &p.CacheOptions },
	tags:  func(p *mcp.GetJobLogParams) []string { return projectTags(p.ProjectID) },
	run: func(ctx context.Context, up *sourcehost.Client, p *mcp.GetJobLogParams) (*mcp.JobLog, error) {
		// The log streams through a window of its last MaxJobLog bytes:
		// a log of any length costs the gateway that much memory.
		tail := &tailWriter{max: mcp.MaxJobLog}
		if err := up.WriteJobTrace(ctx, sourcehost.ProjectID(p.ProjectID), p.JobID, tail); err != nil {
			return nil, err
		}
		content, truncated := tail.text()
		return &mcp.JobLog{JobID: p.JobID, Content: content, Size: tail.total, Truncated: truncated}, nil
	},
})

// tailWriter keeps the last max bytes written to it, and counts them all.
// Once it holds max bytes it is a ring: each write costs what it writes,
// never a shift of what is kept.
type tailWriter struct {
	max   int
	buf   []byte // the bytes kept: filled up to max, then a ring
	next  int    // where the ring's next byte goes, once buf is full
	total int64
}

func (w *tailWriter) Write(p []byte) (int, error) {
	n := len(p)
	w.total += int64(n)
	if len(p) > w.max { // only its last max bytes can stay
		p = p[len(p)-w.max:]
	}
	if room := w.max - len(w.buf); room > 0 {
		k := min(room, len(p))
		w.buf, p = append(w.buf, p[:k]...), p[k:]
	}
	for len(p) > 0 {
		k := copy(w.buf[w.next:], p)
		p, w.next = p[k:], (w.next+k)%w.max
	}
	return n, nil
}

// kept is the bytes kept, oldest first.
func (w *tailWriter) kept() []byte {
	if w.next == 0 {
		return w.buf
	}
	return append(append(make([]byte, 0, len(w.buf)), w.buf[w.next:]...), w.buf[:w.next]...)
}

// text is what was kept, and whether it is not all that was written. Cut
// short, it starts at the first whole line kept (when one starts in the
// window's first quarter) or at least on a whole UTF-8 character.
func (w *tailWriter) text() (string, bool) {
	b := w.kept()
	truncated := w.total > int64(len(b))
	if truncated {
		if i := bytes.IndexByte(b, '\n'); i >= 0 && i < w.max/4 {
			b = b[i+1:]
		} else {
			for len(b) > 0 && !utf8.RuneStart(b[0]) {
				b = b[1:]
			}
		}
	}
	return string(b), truncated
}
