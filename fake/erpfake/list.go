package erpfake

import (
	"cmp"
	"net/http"
	"slices"
	"strconv"
	"strings"
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

// listAnswer answers a list request over items (in id order) with the
// ERP's parameters: sqlfilters, sortfield (columns, comma-separated),
// sortorder, limit (0: no limit; default 100), page (0-based) and
// pagination_data. keep applies the collection's own parameters.
func listAnswer[T interface{ recID() int64 }](c *call, items []T, coll *collection[T], keep func(T) bool) answer {
	q := c.r.URL.Query()
	limit, fail := queryInt(q.Get("limit"), "limit", 100)
	if fail != nil {
		return *fail
	}
	page, fail := queryInt(q.Get("page"), "page", 0)
	if fail != nil {
		return *fail
	}
	limit, page = max(limit, 0), max(page, 0)

	tree, err := parseFilter(q.Get("sqlfilters"))
	if err != nil {
		return badRequest("Error when validating parameter sqlfilters -> " + err.Error())
	}
	match, err := compileFilter(tree, coll.fields)
	if err != nil {
		return badRequest("Error when validating parameter sqlfilters -> " + err.Error())
	}

	sortField := q.Get("sortfield")
	if sortField == "" {
		sortField = coll.defaultSort
	}
	var sorts []fieldDef[T]
	for name := range strings.SplitSeq(sortField, ",") {
		f, ok := lookupField(coll.fields, strings.TrimSpace(name))
		if !ok {
			return badRequest("Error when validating parameter sortfield -> unknown field " + strings.TrimSpace(name))
		}
		sorts = append(sorts, f)
	}
	desc := strings.EqualFold(strings.TrimSpace(q.Get("sortorder")), "desc")

	// Each kept record's sort values are read once, not at every
	// comparison.
	var kept []sortRow[T]
	for _, it := range items {
		if (keep == nil || keep(it)) && match(it) {
			keys := make([]value, len(sorts))
			for i, f := range sorts {
				keys[i] = f.get(it)
			}
			kept = append(kept, sortRow[T]{it, keys})
		}
	}
	slices.SortStableFunc(kept, func(a, b sortRow[T]) int {
		r := 0
		for i := range sorts {
			if r = compareValues(a.keys[i], b.keys[i]); r != 0 {
				break
			}
		}
		if r == 0 {
			r = cmp.Compare(a.rec.recID(), b.rec.recID())
		}
		if desc {
			return -r
		}
		return r
	})

	total := len(kept)
	start, end := 0, total
	if limit > 0 {
		start = total
		if page <= total/limit { // guards limit*page against overflow
			start = min(limit*page, total)
		}
		end = start + min(limit, total-start)
	}
	out := make([]any, 0, end-start)
	for _, row := range kept[start:end] {
		out = append(out, coll.render(c, row.rec))
	}

	if paginationData, _ := strconv.ParseBool(q.Get("pagination_data")); paginationData {
		pageCount := 1
		if limit > 0 {
			pageCount = max((total+limit-1)/limit, 1)
		}
		return ok(map[string]any{"data": out, "pagination": map[string]any{
			"total": total, "page": page, "page_count": pageCount, "limit": limit,
		}})
	}
	if len(out) == 0 && c.s.cfg.emptyListNotFound {
		return notFound("No " + coll.noun + " found")
	}
	return ok(out)
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

// queryInt reads an integer query parameter the way Restler checks one.
func queryInt(v, name string, def int) (int, *answer) {
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		a := apiError(http.StatusBadRequest, "Invalid value specified for `"+name+"`. Expecting integer value")
		return 0, &a
	}
	return n, nil
}

// idsParam reads a comma-separated list of ids ("thirdparty_ids").
func idsParam(v, name string) (map[int64]bool, *answer) {
	if strings.TrimSpace(v) == "" {
		return nil, nil
	}
	ids := map[int64]bool{}
	for part := range strings.SplitSeq(v, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(part), 10, 64)
		if err != nil {
			a := badRequest("Error when validating parameter " + name + " -> " + strconv.Quote(part) + " is not an id")
			return nil, &a
		}
		ids[n] = true
	}
	return ids, nil
}

// findByPath finds the record the route's {id} names in list (in id order),
// or answers 404 "<noun> not found".
func findByPath[T interface{ recID() int64 }](c *call, list []T, noun string) (T, *answer) {
	v, found := byID(list, pathID(c.r))
	if !found {
		a := notFound(noun + " not found")
		return v, &a
	}
	return v, nil
}

// pathID reads the {id} of a route; a malformed one finds nothing, as an
// unknown id.
func pathID(r *http.Request) int64 {
	n, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		return -1
	}
	return n
}
