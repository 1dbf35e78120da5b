package mcp

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"github.com/apitwin/apitwin/sourcehost"
)

// A tool is one of the gateway's methods: its params table (and the JSON
// Schema made from it), the typed params it decodes into, and what it runs
// against the source-hosting API with the caller's token. The resource files
// (projects.go, issues.go, …) define them; this file holds the machinery.
type tool struct {
	name        string
	description string
	params      []param
	read        bool // accepts cache and cache_ttl; writes drop cached reads instead
	schema      json.RawMessage
	newParams   func() callParams
	run         func(ctx context.Context, up *sourcehost.Client, p callParams) (any, error)
}

// callParams is what every typed params struct offers the gateway.
type callParams interface {
	// tags name what the call reads or writes ("project:5", "projects",
	// "issues"). A read is cached under its tags; a write drops every cached
	// read that shares one of them.
	tags() []string
	// caching is the call's cache options, nil for a write.
	caching() *CacheOptions
}

// define completes a tool: the cache params for a read, the schema, and the
// typed adapters around run.
func define[P any, PP interface {
	*P
	callParams
}, R any](t tool, run func(context.Context, *sourcehost.Client, PP) (R, error)) *tool {
	if t.read {
		t.params = append(t.params[:len(t.params):len(t.params)], cacheParams...)
	}
	t.schema = schema(t.params)
	t.newParams = func() callParams { return PP(new(P)) }
	t.run = func(ctx context.Context, up *sourcehost.Client, p callParams) (any, error) {
		return run(ctx, up, p.(PP))
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
	}
})

var toolsByName = sync.OnceValue(func() map[string]*tool {
	m := make(map[string]*tool)
	for _, t := range toolList() {
		m[t.name] = t
	}
	return m
})

// CacheOptions ask the gateway to answer a read from its cache, and to keep
// the answer there. Every read method (list_*, search_*, get_*) accepts them.
// A cached answer is the caller's own: the key is the token, the method and
// the other params.
type CacheOptions struct {
	Cache    *bool `json:"cache,omitempty"`     // use the cache; implied by CacheTTL unless false
	CacheTTL int   `json:"cache_ttl,omitempty"` // seconds an answer stays fresh; default 60
}

func (c *CacheOptions) caching() *CacheOptions { return c }

// DefaultCacheTTL is how long a cached answer stays fresh when cache_ttl is
// not given.
const DefaultCacheTTL = 60 * time.Second

// ttl reports whether the call asked for caching, and for how long.
func (c *CacheOptions) ttl() (time.Duration, bool) {
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
	return DefaultCacheTTL, true
}

// writeCall is embedded in the params of writes, which take no cache options.
type writeCall struct{}

func (writeCall) caching() *CacheOptions { return nil }

func projectTag(id int64) string { return "project:" + strconv.FormatInt(id, 10) }

// The tags of reads that span projects.
const (
	tagProjects = "projects" // list_projects, search_projects
	tagIssues   = "issues"   // search_issues across projects
)

// Pagination is the page info of a {data, pagination} result.
type Pagination struct {
	Page       int  `json:"page"`
	PerPage    int  `json:"per_page"`
	Total      int  `json:"total"`       // -1 when the upstream did not count (it stops above 10,000)
	TotalPages int  `json:"total_pages"` // -1 likewise
	HasNext    bool `json:"has_next"`
	HasPrev    bool `json:"has_prev"`
}

// Paged is the result of the list methods other than list_projects and
// list_issues.
type Paged[T any] struct {
	Data       []T        `json:"data"`
	Pagination Pagination `json:"pagination"`
}

func pagination(pi sourcehost.PageInfo) Pagination {
	return Pagination{
		Page: pi.Page, PerPage: pi.PerPage, Total: pi.Total, TotalPages: pi.TotalPages,
		HasNext: pi.NextPage > 0, HasPrev: pi.PrevPage > 0,
	}
}

// paged converts one upstream page with conv.
func paged[S, T any](p *sourcehost.Page[S], conv func(*S) T) *Paged[T] {
	out := &Paged[T]{Data: make([]T, 0, len(p.Items)), Pagination: pagination(p.PageInfo)}
	for _, it := range p.Items {
		out.Data = append(out.Data, conv(it))
	}
	return out
}

// User is a user as results show one.
type User struct {
	ID       int64  `json:"id"`
	Name     string `json:"name"`
	Username string `json:"username"`
}

func user(u *sourcehost.User) *User {
	if u == nil {
		return nil
	}
	return &User{ID: u.ID, Name: u.Name, Username: u.Username}
}

func listOptions(page, perPage int) sourcehost.ListOptions {
	return sourcehost.ListOptions{Page: page, PerPage: perPage}
}

func optInt64(v int64) *int64 {
	if v == 0 {
		return nil
	}
	return &v
}

// Ptr returns a pointer to v, for the optional params (Ptr(true)).
func Ptr[T any](v T) *T { return &v }
