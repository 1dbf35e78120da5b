package erpfake

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/apitwin/apitwin/internal/fakekit"
	"github.com/apitwin/apitwin/internal/jsonw"
)

// collection is what the list endpoint of a resource needs.
type collection[T interface{ recID() int64 }] struct {
	// noun names a record in the "No … found" answer of older versions.
	noun string
	// fields are the names filters and sorts accept: the ERP's columns
	// ("rowid", "ref", "fk_soc"), and the JSON names where they differ.
	fields      map[string]fieldDef[T]
	defaultSort string
	// write appends a record as the API shows it.
	write func(*call, []byte, T) []byte
}

// listQuery is a list request's parameters, read before the state lock:
// sqlfilters (parsed and compiled), sortfield (columns, comma-separated),
// sortorder, limit (0 or less: no limit; default 100), page (0-based; less
// than 0 is 0) and pagination_data.
type listQuery[T interface{ recID() int64 }] struct {
	coll           *collection[T]
	limit, page    int64
	match          func(T) bool // nil: no filter
	sorts          []fieldDef[T]
	desc           bool
	paginationData bool
	// sortBuf holds the sort fields of the usual request, one or two.
	sortBuf [2]fieldDef[T]
}

// parseList reads a list request's parameters for coll.
func parseList[T interface{ recID() int64 }](q phpQuery, coll *collection[T]) (*listQuery[T], *fakekit.Answer) {
	lq := &listQuery[T]{coll: coll}
	var fail *fakekit.Answer
	if lq.limit, fail = queryInt(q.Get("limit"), "limit", 100); fail != nil {
		return nil, fail
	}
	if lq.page, fail = queryInt(q.Get("page"), "page", 0); fail != nil {
		return nil, fail
	}
	lq.limit, lq.page = max(lq.limit, 0), max(lq.page, 0)

	filter := q.Get("sqlfilters")
	if !utf8.ValidString(filter) {
		// A raw % followed by two hex digits ('%acme%' starts with %ac)
		// decodes to a byte that is not text: refused rather than applied
		// to something other than what the caller wrote.
		a := badRequest("Error when validating parameter sqlfilters -> the filter is not valid UTF-8 once URL-decoded; a literal % must be sent as %25")
		return nil, &a
	}
	tree, err := parseFilter(filter)
	if err == nil && tree != nil {
		lq.match, err = compileFilter(tree, coll.fields)
	}
	if err != nil {
		a := badRequest("Error when validating parameter sqlfilters -> " + err.Error())
		return nil, &a
	}

	sortField := q.Get("sortfield")
	if sortField == "" {
		sortField = coll.defaultSort
	}
	lq.sorts = lq.sortBuf[:0]
	for more := true; more; {
		var name string
		name, sortField, more = strings.Cut(sortField, ",")
		f, ok := lookupField(coll.fields, strings.TrimSpace(name))
		if !ok {
			a := badRequest("Error when validating parameter sortfield -> unknown field " + strings.TrimSpace(name))
			return nil, &a
		}
		lq.sorts = append(lq.sorts, f)
	}
	lq.desc = strings.EqualFold(strings.TrimSpace(q.Get("sortorder")), "desc")
	if v := q.Get("pagination_data"); v != "" {
		lq.paginationData, _ = strconv.ParseBool(v)
	}
	return lq, nil
}

// answer answers the list over items (in id order); keep applies the
// collection's own parameters. The page is written straight from the
// records into one buffer: the records a list keeps are not copied, and a
// list sorted by id, the default, is not sorted at all.
func (lq *listQuery[T]) answer(c *call, items []T, keep func(T) bool) fakekit.Answer {
	var total, n int64
	page := func(yield func(T) bool) {
		total = lq.eachOfPage(items, keep, func(it T) {
			n++
			yield(it)
		})
	}
	b := jsonw.AppendSeq(c.buffer(), page, func(b []byte, it T) []byte { return lq.coll.write(c, b, it) })
	if lq.paginationData {
		v := pageJSON{Data: b}
		v.Pagination.Limit, v.Pagination.Page, v.Pagination.Total = lq.limit, lq.page, total
		v.Pagination.PageCount = 1
		if lq.limit > 0 {
			v.Pagination.PageCount = max((total+lq.limit-1)/lq.limit, 1)
		}
		a := c.written(v.appendJSON(c.buffer())) // the page is copied into the answer
		fakekit.ReleaseAnswerBuffer(b)
		return a
	}
	if n == 0 && c.s.cfg.emptyListNotFound {
		fakekit.ReleaseAnswerBuffer(b)
		return notFound("No " + lq.coll.noun + " found")
	}
	return c.written(b)
}

// eachOfPage calls fn with each record of the page asked for, in order, and
// returns how many records the list holds in all (of every page).
func (lq *listQuery[T]) eachOfPage(items []T, keep func(T) bool, fn func(T)) int64 {
	kept := func(it T) bool { return (keep == nil || keep(it)) && (lq.match == nil || lq.match(it)) }
	// limit and page are INTs: their product fits an int64.
	start, end := int64(0), int64(math.MaxInt64)
	if lq.limit > 0 {
		start = lq.limit * lq.page
		end = start + lq.limit
	}
	if lq.sorts[0].id {
		// Sorted by id first: the order items are kept in (ids are
		// unique, so no later key counts), or its reverse.
		total := int64(0)
		for i := range items {
			it := items[i]
			if lq.desc {
				it = items[len(items)-1-i]
			}
			if kept(it) {
				if total >= start && total < end {
					fn(it)
				}
				total++
			}
		}
		return total
	}

	// Each kept record's sort keys are read once, not at every comparison,
	// into one slice for all of them (by the record's place in items);
	// what is sorted is the places, small and without pointers. items
	// are in id order, so the place breaks ties as the id would.
	nk := len(lq.sorts)
	sc := getSortScratch(len(items)*nk, len(items))
	defer sc.put()
	keys, order := sc.keys, sc.order
	for i, it := range items {
		if kept(it) {
			for j, f := range lq.sorts {
				keys[i*nk+j] = f.sortKey(it)
			}
			order = append(order, i)
		}
	}
	slices.SortFunc(order, func(a, b int) int {
		ka, kb := keys[a*nk:a*nk+nk], keys[b*nk:b*nk+nk]
		r := 0
		for j := range ka {
			if r = compareKeys(ka[j], kb[j]); r != 0 {
				break
			}
		}
		if r == 0 {
			r = cmp.Compare(a, b)
		}
		if lq.desc {
			return -r
		}
		return r
	})
	total := int64(len(order))
	for _, i := range order[min(start, total):min(end, total)] {
		fn(items[i])
	}
	return total
}

// sortScratch is what a sort needs besides the records: their keys and
// their order. It is kept from one list to the next.
type sortScratch struct {
	keys  []sortKey
	order []int
}

var sortScratches sync.Pool

// maxPooledSortKeys bounds the keys kept for the next sort.
const maxPooledSortKeys = 1 << 14

// getSortScratch returns n places and nkeys keys, zero.
func getSortScratch(nkeys, n int) *sortScratch {
	sc, _ := sortScratches.Get().(*sortScratch)
	if sc == nil {
		sc = &sortScratch{}
	}
	if cap(sc.keys) < nkeys {
		sc.keys = make([]sortKey, nkeys)
	}
	if cap(sc.order) < n {
		sc.order = make([]int, 0, n)
	}
	sc.keys, sc.order = sc.keys[:nkeys], sc.order[:0]
	return sc
}

// put clears the keys (they point into records) and keeps the scratch.
func (sc *sortScratch) put() {
	clear(sc.keys)
	if cap(sc.keys) <= maxPooledSortKeys {
		sortScratches.Put(sc)
	}
}

// listOp is the operation of a list without parameters of its own.
func listOp[T interface{ recID() int64 }](coll *collection[T], items func(*state) []T) operation {
	return func(in *input) step {
		lq, fail := parseList(query(in.r), coll)
		if fail != nil {
			return fails(*fail)
		}
		return func(c *call) fakekit.Answer { return lq.answer(c, items(c.st), nil) }
	}
}

// compareKeys orders nulls first, then integers and numbers by value and
// text by its lower case.
func compareKeys(a, b sortKey) int {
	switch {
	case a.null || b.null:
		return cmp.Compare(boolInt(!a.null), boolInt(!b.null))
	case a.how != b.how: // not two values of one field: never so
		return cmp.Compare(a.how, b.how)
	case a.how == keyInt:
		return cmp.Compare(a.n, b.n)
	case a.how == keyNumber:
		return a.num.Cmp(b.num)
	}
	return compareLower(a.text, b.text)
}

// compareLower is strings.Compare(strings.ToLower(a), strings.ToLower(b))
// without making the lower-case copies while the text is ASCII.
func compareLower(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		ca, cb := a[i], b[i]
		if ca >= utf8.RuneSelf || cb >= utf8.RuneSelf {
			// What came before is ASCII, equal once lowered.
			return strings.Compare(strings.ToLower(a[i:]), strings.ToLower(b[i:]))
		}
		if 'A' <= ca && ca <= 'Z' {
			ca += 'a' - 'A'
		}
		if 'A' <= cb && cb <= 'Z' {
			cb += 'a' - 'A'
		}
		if ca != cb {
			return cmp.Compare(ca, cb)
		}
	}
	return cmp.Compare(len(a), len(b))
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// queryInt reads an integer query parameter the way Restler checks one,
// within the ERP's INT range.
func queryInt(v, name string, def int64) (int64, *fakekit.Answer) {
	if v == "" {
		return def, nil
	}
	v = strings.TrimSpace(v)
	n, err := strconv.ParseInt(v, 10, 64)
	switch {
	case err != nil && !isDigits(strings.TrimPrefix(strings.TrimPrefix(v, "-"), "+")), v == "", v == "-", v == "+":
		a := badRequest("Invalid value specified for `" + name + "`. Expecting integer value")
		return 0, &a
	case err != nil || n < minInt || n > maxInt:
		a := badRequest("Invalid value specified for `" + name + "`. Expecting integer value from " + intRange)
		return 0, &a
	}
	return n, nil
}

// listOfThirdparties answers a list of records that belong to third
// parties (contacts, orders, proposals), kept to the request's
// thirdparty_ids when it names some: records reads them from the state,
// soc is a record's third party (nil: none).
func listOfThirdparties[T interface{ recID() int64 }](in *input, coll *collection[T], records func(*state) []T, soc func(T) *thirdparty) step {
	q := query(in.r)
	lq, fail := parseList(q, coll)
	if fail != nil {
		return fails(*fail)
	}
	socs, fail := idsParam(q.Get("thirdparty_ids"), "thirdparty_ids")
	if fail != nil {
		return fails(*fail)
	}
	return func(c *call) fakekit.Answer {
		return lq.answer(c, records(c.st), func(r T) bool {
			s := soc(r)
			return socs == nil || s != nil && socs[s.id]
		})
	}
}

// idsParam reads a comma-separated list of ids ("thirdparty_ids").
func idsParam(v, name string) (map[int64]bool, *fakekit.Answer) {
	if strings.TrimSpace(v) == "" {
		return nil, nil
	}
	ids := map[int64]bool{}
	for part := range strings.SplitSeq(v, ",") {
		p := strings.TrimSpace(part)
		n, err := strconv.ParseInt(p, 10, 64)
		switch {
		case err != nil && (!isDigits(strings.TrimPrefix(p, "-")) || p == "" || p == "-"):
			a := badRequest("Error when validating parameter " + name + " -> " + strconv.Quote(excerpt(part)) + " is not an id")
			return nil, &a
		case err != nil || n < minInt || n > maxInt:
			a := badRequest("Error when validating parameter " + name + " -> " + excerpt(p) + " is out of range: ids are INTs, " + intRange)
			return nil, &a
		}
		ids[n] = true
	}
	return ids, nil
}
