package gateway

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/sourcehost"
)

// A tool is one of the gateway's methods: its params table (and the JSON
// Schema made from it), the typed params of package mcp it decodes into,
// and what it runs against the source-hosting API with the caller's token.
// The resource files (projects.go, issues.go, …) define them; this file
// holds the machinery.
type tool struct {
	name        string
	title       string // for people, in tools/list
	description string
	params      []param
	schema      json.RawMessage
	// effects is what a write does to the source-hosting server (nil for
	// a read, which changes nothing): tools/list's annotations.
	effects *effects
	// output is the JSON Schema of the tool's structuredContent: its
	// result, or the {"error": …} of a failure (see outputSchema). It is
	// made at the first use, the MCP side's start: inferring it costs
	// about a millisecond a tool, which a program that never speaks MCP
	// should not pay when it starts.
	output func() json.RawMessage

	// The typed half (see calls), over a params value that newParams made.
	newParams func() any
	cache     func(p any) *mcp.CacheOptions // nil for a write
	tags      func(p any) []string
	check     func(p any) *mcp.Error // nil when the params table says it all
	hookURL   func(p any) string     // nil unless the call has the upstream send requests
	run       func(ctx context.Context, up *sourcehost.Client, p any) (any, error)
}

// read reports whether the tool only reads: it accepts cache and cache_ttl,
// where a write drops cached reads instead.
func (t *tool) read() bool { return t.cache != nil }

// calls is what a tool does with its params P (a params type of package
// mcp) and its result R.
type calls[P, R any] struct {
	// cache is a read's cache options, which every read's params embed;
	// nil for a write.
	cache func(*P) *mcp.CacheOptions
	// tags name what the call reads or writes ("project:5", "projects",
	// "issues"). A read is cached under its tags; a write drops every
	// cached read that shares one of them.
	tags func(*P) []string
	// check refuses params the table cannot (nil when it says it all).
	check func(*P) *mcp.Error
	// hookURL is where the call has the source-hosting API send requests
	// of its own, which the gateway's hookGuard checks before it runs.
	hookURL func(*P) string
	run     func(context.Context, *sourcehost.Client, *P) (R, error)
}

// effects are a write's annotations in the Model Context Protocol's
// terms, decided per tool from what its upstream call does. A read
// (every tool with cache params) is readOnlyHint true, idempotentHint
// true and openWorldHint false.
type effects struct {
	// destructive: it changes or removes what exists (closing, merging,
	// deleting, editing), where false means it only adds.
	destructive bool
	// idempotent: the same call again changes nothing more.
	idempotent bool
	// openWorld: what it sets off reaches beyond the source-hosting
	// server's own data (a hook's requests to any URL, a pipeline's jobs
	// running arbitrary code). The gateway's tools otherwise work in a
	// closed world, the one server's projects, which is openWorldHint
	// false as the specification means it (a web search is open, a
	// memory tool closed).
	openWorld bool
}

// define completes a tool: the cache params for a read, the schemas, and
// the untyped adapters around c. It panics (at start, where every tool is
// defined) on a tool that does not say what it is: no title, or a write
// without effects.
func define[P, R any](t tool, c calls[P, R]) *tool {
	if t.title == "" || (c.cache == nil) != (t.effects != nil) {
		panic("gateway: tool " + t.name + " needs a title, and effects exactly when it writes")
	}
	t.output = sync.OnceValue(outputSchema[R])
	if c.cache != nil {
		t.params = append(t.params[:len(t.params):len(t.params)], cacheParams...)
		t.cache = func(p any) *mcp.CacheOptions { return c.cache(p.(*P)) }
	}
	t.schema = schema(t.params)
	t.newParams = func() any { return new(P) }
	t.tags = func(p any) []string { return c.tags(p.(*P)) }
	if c.check != nil {
		t.check = func(p any) *mcp.Error { return c.check(p.(*P)) }
	}
	if c.hookURL != nil {
		t.hookURL = func(p any) string { return c.hookURL(p.(*P)) }
	}
	t.run = func(ctx context.Context, up *sourcehost.Client, p any) (any, error) {
		return c.run(ctx, up, p.(*P))
	}
	return &t
}

// toolList is every tool in the order tools/list shows them.
var toolList = sync.OnceValue(func() []*tool {
	return []*tool{
		listProjectsTool, getProjectTool, searchProjectsTool,
		listIssuesTool, createIssueTool, searchIssuesTool,
		listMergeRequestsTool, createMergeRequestTool,
		listPipelinesTool, triggerPipelineTool,
		getFileContentTool, listRepositoryFilesTool,
		configureWebhookTool,
		// Beyond the specification's thirteen.
		listHooksTool, deleteHookTool,
		getIssueTool, updateIssueTool, closeIssueTool, reopenIssueTool,
		listIssueNotesTool, createIssueNoteTool,
		getMergeRequestTool, getMergeRequestChangesTool, mergeMergeRequestTool,
		listMergeRequestNotesTool, createMergeRequestNoteTool,
		listPipelineJobsTool, getJobLogTool,
		searchTool,
	}
})

var toolsByName = sync.OnceValue(func() map[string]*tool {
	m := make(map[string]*tool)
	for _, t := range toolList() {
		m[t.name] = t
	}
	return m
})

// cacheTTL reports whether a call's cache options (nil for a write) ask for
// caching, and for how long.
func cacheTTL(c *mcp.CacheOptions) (time.Duration, bool) {
	if c == nil {
		return 0, false
	}
	on := c.CacheTTL > 0
	if c.Cache != nil {
		on = *c.Cache
	}
	if !on {
		return 0, false
	}
	if c.CacheTTL > 0 {
		return time.Duration(c.CacheTTL) * time.Second, true
	}
	return mcp.DefaultCacheTTL, true
}

func projectTag(id int64) string { return "project:" + strconv.FormatInt(id, 10) }

// projectTags is the tags of a call on one project.
func projectTags(id int64) []string { return []string{projectTag(id)} }

// The tags of reads that span projects.
const (
	tagProjects = "projects" // list_projects, search_projects
	tagIssues   = "issues"   // search_issues across projects
)

func pagination(pi sourcehost.PageInfo) mcp.Pagination {
	return mcp.Pagination{
		Page: pi.Page, PerPage: pi.PerPage, Total: pi.Total, TotalPages: pi.TotalPages,
		HasNext: pi.NextPage > 0, HasPrev: pi.PrevPage > 0,
	}
}

// paged converts one upstream page with conv.
func paged[S, T any](p *sourcehost.Page[S], conv func(*S) T) *mcp.Paged[T] {
	out := &mcp.Paged[T]{Data: make([]T, 0, len(p.Items)), Pagination: pagination(p.PageInfo)}
	for _, it := range p.Items {
		out.Data = append(out.Data, conv(it))
	}
	return out
}

func user(u *sourcehost.User) *mcp.User {
	if u == nil {
		return nil
	}
	return &mcp.User{ID: u.ID, Name: u.Name, Username: u.Username}
}

// listOptions are a list's page and size, the size capped at maxPerPage
// as the source-hosting API caps it.
func listOptions(page, perPage int) sourcehost.ListOptions {
	return sourcehost.ListOptions{Page: page, PerPage: min(perPage, maxPerPage)}
}

func optInt64(v int64) *int64 {
	if v == 0 {
		return nil
	}
	return &v
}
