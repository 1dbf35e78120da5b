package erp

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/apitwin/apitwin/internal/jsonscan"
)

// DefaultLimit is the page size the ERP uses when none is asked for, and the
// one AllX methods ask for when the options leave it at 0.
const DefaultLimit = 100

// Sort orders.
const (
	Asc  = "ASC"
	Desc = "DESC"
)

// ListOptions selects one page of a collection, the ERP's way.
type ListOptions struct {
	// Limit is the page size; 0 leaves it to the server (100).
	Limit int
	// Page counts from 0.
	Page int
	// SortField is a column of the ERP's table, with its alias: "t.rowid"
	// (the default for most collections), "t.ref", "t.datec", …
	SortField string
	// SortOrder is Asc (the default) or Desc.
	SortOrder string
	// Filter narrows the list; build it with Field (see Filter).
	Filter Filter
	// WithTotal asks the server for the total count of matching records
	// (pagination_data), which the page then reports. Servers that do not
	// know the parameter ignore it and Total stays -1.
	WithTotal bool
}

func (o *ListOptions) limit() int {
	if o == nil || o.Limit <= 0 {
		return DefaultLimit
	}
	return o.Limit
}

func (o *ListOptions) page() int {
	if o == nil {
		return 0
	}
	return max(o.Page, 0)
}

// values encodes the options, with a collection's own parameters in extra.
func (o *ListOptions) values(extra url.Values) (url.Values, error) {
	q := url.Values{}
	for k, v := range extra {
		q[k] = v
	}
	if o == nil {
		return q, nil
	}
	if o.Limit < 0 || o.Page < 0 {
		return nil, fmt.Errorf("erp: negative limit or page in %+v", *o)
	}
	if o.Limit > 0 {
		q.Set("limit", strconv.Itoa(o.Limit))
	}
	if o.Page > 0 {
		q.Set("page", strconv.Itoa(o.Page))
	}
	if o.SortField != "" {
		if !validField(o.SortField) {
			return nil, fmt.Errorf("erp: invalid sort field %q", o.SortField)
		}
		q.Set("sortfield", o.SortField)
	}
	switch strings.ToUpper(o.SortOrder) {
	case "":
	case Asc, Desc:
		q.Set("sortorder", strings.ToUpper(o.SortOrder))
	default:
		return nil, fmt.Errorf("erp: sort order %q is neither ASC nor DESC", o.SortOrder)
	}
	if !o.Filter.IsZero() {
		f, err := o.Filter.Build()
		if err != nil {
			return nil, err
		}
		q.Set("sqlfilters", f)
	}
	if o.WithTotal {
		q.Set("pagination_data", "true")
	}
	return q, nil
}

// modeQuery is the mode parameter of the collections that take one
// (products, third parties); mode 0 sends none.
func modeQuery(mode int) url.Values {
	if mode == 0 {
		return nil
	}
	return url.Values{"mode": {strconv.Itoa(mode)}}
}

// thirdpartyQuery is the thirdparty_ids parameter of the collections of
// documents and contacts that take one; no ids send none.
func thirdpartyQuery(ids []ID) url.Values {
	q := url.Values{}
	if len(ids) > 0 {
		q.Set("thirdparty_ids", idList(ids))
	}
	return q
}

// Page is one page of a collection.
type Page[T any] struct {
	Items []*T
	Page  int // 0-based
	Limit int // the page size asked for
	// More is true when the page is full, so another may follow; the ERP
	// gives no other sign. The page after a full last page is empty.
	More bool
	// Total and PageCount are set when WithTotal was asked for and the
	// server knows pagination_data; otherwise they are -1.
	Total     int
	PageCount int
	// RateLimit is what this page's answer said of the rate limit.
	RateLimit RateLimit
}

// paginated is the answer to pagination_data=true: {"data": [...],
// "pagination": {...}}, or a bare array from servers that do not know it.
type paginated[T any] struct {
	Data       []*T
	Pagination struct {
		Total     int
		PageCount int
	}
}

func (p *paginated[T]) UnmarshalJSON(b []byte) error {
	p.Pagination.Total, p.Pagination.PageCount = -1, -1
	i := jsonscan.SkipSpace(b, 0)
	if i < len(b) && b[i] == '[' {
		return json.Unmarshal(b, &p.Data)
	}
	var shape struct {
		Data       []*T `json:"data"`
		Pagination struct {
			Total     *ID `json:"total"`
			PageCount *ID `json:"page_count"`
		} `json:"pagination"`
	}
	if err := json.Unmarshal(b, &shape); err != nil {
		return err
	}
	p.Data = shape.Data
	if shape.Pagination.Total != nil {
		p.Pagination.Total = int(*shape.Pagination.Total)
	}
	if shape.Pagination.PageCount != nil {
		p.Pagination.PageCount = int(*shape.Pagination.PageCount)
	}
	return nil
}
