package mcp

import "time"

// DefaultPath is where a gateway answers unless configured otherwise: New
// appends it to a base URL without a path.
const DefaultPath = "/mcp"

// CacheOptions ask the gateway to answer a read from its cache, and to keep
// the answer there. Every read method (list_*, search_*, get_*) accepts them.
// A cached answer is the caller's own: the key is the token, the method and
// the other params.
type CacheOptions struct {
	Cache    *bool `json:"cache,omitempty"`     // use the cache; implied by CacheTTL unless false
	CacheTTL int   `json:"cache_ttl,omitempty"` // seconds an answer stays fresh (at most a day); default 60
}

// DefaultCacheTTL is how long a cached answer stays fresh when cache_ttl is
// not given.
const DefaultCacheTTL = 60 * time.Second

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

// User is a user as results show one.
type User struct {
	ID       int64  `json:"id"`
	Name     string `json:"name"`
	Username string `json:"username"`
}

// Ptr returns a pointer to v, for the optional params (Ptr(true)).
func Ptr[T any](v T) *T { return &v }
