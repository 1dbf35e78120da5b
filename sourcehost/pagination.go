package sourcehost

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/apitwin/apitwin/internal/rest"
)

// ListOptions selects one page of a collection. Page counts from 1; PerPage
// defaults to 20 on the server and is capped at 100.
type ListOptions struct {
	Page    int `url:"page,omitempty"`
	PerPage int `url:"per_page,omitempty"`
}

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
	if p.NextPage == 0 && len(h["X-Next-Page"]) == 0 {
		if link := h.Get("Link"); link != "" {
			if next, ok := rest.ParseLink(link)["next"]; ok {
				if u, err := url.Parse(next); err == nil {
					p.NextPage, _ = strconv.Atoi(u.Query().Get("page"))
				}
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
