package erpfake

import (
	"cmp"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// collection is what the list endpoint of a resource needs.
type collection[T interface{ recID() int64 }] struct {
	// noun names a record in the "No … found" answer of older versions.
	noun string
	// fields are the names filters and sorts accept: the ERP's columns
	// ("rowid", "ref", "fk_soc"), and the JSON names where they differ.
	fields      map[string]fieldDef[T]
	defaultSort string
	render      func(c *call, v T) any
}

// listQuery is a list request's parameters, read before the state lock:
// sqlfilters (parsed and compiled), sortfield (columns, comma-separated),
// sortorder, limit (0 or less: no limit; default 100), page (0-based; less
// than 0 is 0) and pagination_data.
type listQuery[T interface{ recID() int64 }] struct {
	coll           *collection[T]
	limit, page    int64
	match          func(T) bool
	sorts          []fieldDef[T]
	desc           bool
	paginationData bool
}

// parseList reads a list request's parameters for coll.
func parseList[T interface{ recID() int64 }](q url.Values, coll *collection[T]) (*listQuery[T], *fakekit.Answer) {
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
	if err == nil {
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
	for name := range strings.SplitSeq(sortField, ",") {
		f, ok := lookupField(coll.fields, strings.TrimSpace(name))
		if !ok {
			a := badRequest("Error when validating parameter sortfield -> unknown field " + strings.TrimSpace(name))
			return nil, &a
		}
		lq.sorts = append(lq.sorts, f)
	}
	lq.desc = strings.EqualFold(strings.TrimSpace(q.Get("sortorder")), "desc")
	lq.paginationData, _ = strconv.ParseBool(q.Get("pagination_data"))
	return lq, nil
}

// answer answers the list over items (in id order); keep applies the
// collection's own parameters.
func (lq *listQuery[T]) answer(c *call, items []T, keep func(T) bool) fakekit.Answer {
	// Each kept record's sort values are read once, not at every
	// comparison.
	var kept []sortRow[T]
	for _, it := range items {
		if (keep == nil || keep(it)) && lq.match(it) {
			keys := make([]value, len(lq.sorts))
			for i, f := range lq.sorts {
				keys[i] = f.get(it)
			}
			kept = append(kept, sortRow[T]{it, keys})
		}
	}
	slices.SortStableFunc(kept, func(a, b sortRow[T]) int {
		r := 0
		for i := range lq.sorts {
			if r = compareValues(a.keys[i], b.keys[i]); r != 0 {
				break
			}
		}
		if r == 0 {
			r = cmp.Compare(a.rec.recID(), b.rec.recID())
		}
		if lq.desc {
			return -r
		}
		return r
	})

	// limit and page are INTs: their product fits an int64.
	total := int64(len(kept))
	start, end := int64(0), total
	if lq.limit > 0 {
		start = min(lq.limit*lq.page, total)
		end = start + min(lq.limit, total-start)
	}
	out := make([]any, 0, end-start)
	for _, row := range kept[start:end] {
		out = append(out, lq.coll.render(c, row.rec))
	}

	if lq.paginationData {
		pageCount := int64(1)
		if lq.limit > 0 {
			pageCount = max((total+lq.limit-1)/lq.limit, 1)
		}
		return ok(map[string]any{"data": out, "pagination": map[string]any{
			"total": total, "page": lq.page, "page_count": pageCount, "limit": lq.limit,
		}})
	}
	if len(out) == 0 && c.s.cfg.emptyListNotFound {
		return notFound("No " + lq.coll.noun + " found")
	}
	return ok(out)
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

// sortRow is a record kept by a list, with its values of the sort fields.
type sortRow[T any] struct {
	rec  T
	keys []value
}

// compareValues orders nulls first, then numbers by value and text by its
// lower case.
func compareValues(a, b value) int {
	switch {
	case a.null || b.null:
		return cmp.Compare(boolInt(!a.null), boolInt(!b.null))
	case a.num != nil && b.num != nil:
		return a.num.Cmp(b.num)
	}
	return strings.Compare(strings.ToLower(a.str()), strings.ToLower(b.str()))
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
