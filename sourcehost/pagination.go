package sourcehost

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/apitwin/apitwin/internal/rest"
)

// ListOptions selects one page of a collection. Page counts from 1; PerPage
// defaults to 20 on the server and is capped at 100.
//
// Pagination "keyset" asks for keyset pagination where the collection has
// it (projects, ordered by id; a project's jobs, newest first; users, by
// id; a repository's tree): each page links to the next (NextLink), pages
// past an offset of 50,000 are reachable, and the AllX iterators and
// FollowNext follow the links. Page is then ignored, and the page's Page,
// NextPage and totals are unknown.
type ListOptions struct {
	Page       int    `url:"page,omitempty"`
	PerPage    int    `url:"per_page,omitempty"`
	Pagination string `url:"pagination,omitempty"`
}

// Keyset is ListOptions.Pagination's value for keyset pagination.
const Keyset = "keyset"

// PageInfo is where a page sits in its collection, from the X-Page,
// X-Per-Page, X-Next-Page, X-Prev-Page, X-Total and X-Total-Pages headers
// (and the Link header when X-Next-Page is missing).
type PageInfo struct {
	Page     int
	PerPage  int
	NextPage int // 0 on the last page
	PrevPage int // 0 on the first page
	// Total and TotalPages are -1 when the server did not count them (it
	// does not for collections over 10,000 items).
	Total      int
	TotalPages int
	// NextLink is the URL of the next page from the Link header, "" on the
	// last page: the only way on under keyset pagination.
	NextLink string
	// RateLimit is what this page's answer said of the rate limit.
	RateLimit RateLimit
}

// Page is one page of a collection.
type Page[T any] struct {
	Items []*T
	PageInfo
}

func parsePageInfo(h http.Header) PageInfo {
	p := PageInfo{
		Page:       headerInt(h, "X-Page", 0),
		PerPage:    headerInt(h, "X-Per-Page", 0),
		NextPage:   headerInt(h, "X-Next-Page", 0),
		PrevPage:   headerInt(h, "X-Prev-Page", 0),
		Total:      headerInt(h, "X-Total", -1),
		TotalPages: headerInt(h, "X-Total-Pages", -1),
	}
	if link := h.Get("Link"); link != "" {
		if next, ok := rest.ParseLink(link)["next"]; ok {
			p.NextLink = next
			if u, err := url.Parse(next); err == nil && p.NextPage == 0 && len(h["X-Next-Page"]) == 0 {
				p.NextPage, _ = strconv.Atoi(u.Query().Get("page"))
			}
		}
	}
	return p
}

func headerInt(h http.Header, key string, missing int) int {
	v := h[key]
	if len(v) == 0 || v[0] == "" {
		return missing
	}
	n, err := strconv.Atoi(v[0])
	if err != nil || n < 0 {
		return missing
	}
	return n
}

// FollowNext fetches the page after p by its Link header (NextLink), under
// either pagination; it returns nil and no error after the last page. A
// link to another server than the client's, or outside its API root, is
// refused: the token goes only where the client was pointed.
func FollowNext[T any](ctx context.Context, c *Client, p *Page[T]) (*Page[T], error) {
	if p == nil || p.NextLink == "" {
		return nil, nil
	}
	path, q, err := c.linkTarget(p.NextLink)
	if err != nil {
		return nil, err
	}
	var items []*T
	resp, err := c.send(ctx, &rest.Request{Method: http.MethodGet, Path: path, Query: q}, &items)
	if err != nil {
		return nil, err
	}
	return &Page[T]{Items: items, PageInfo: pageInfo(resp)}, nil
}

// linkTarget reads a Link URL as a path under the API root and a query.
func (c *Client) linkTarget(link string) (string, url.Values, error) {
	u, err := url.Parse(link)
	if err != nil {
		return "", nil, fmt.Errorf("sourcehost: next page link: %w", err)
	}
	base, err := url.Parse(c.rest.BaseURL())
	if err != nil {
		return "", nil, err
	}
	if u.Scheme != base.Scheme || u.Host != base.Host || !strings.HasPrefix(u.Path, base.Path+"/") {
		return "", nil, fmt.Errorf("sourcehost: next page link %q leaves the API at %s", link, c.rest.BaseURL())
	}
	return strings.TrimPrefix(u.EscapedPath(), base.EscapedPath()), u.Query(), nil
}

// pageInfo reads a page's position and its rate limit from its answer.
func pageInfo(resp rest.Response) PageInfo {
	p := parsePageInfo(resp.Header)
	p.RateLimit = resp.RateLimit
	return p
}
