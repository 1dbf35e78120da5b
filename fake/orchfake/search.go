package orchfake

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/apitwin/apitwin/fake/orchfake/internal/visibility"
	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/protobuf/proto"
)

// SearchAttributeType is the type of a custom search attribute.
type SearchAttributeType string

// The types a custom search attribute can have.
const (
	Keyword     SearchAttributeType = "Keyword"
	Text        SearchAttributeType = "Text"
	Int         SearchAttributeType = "Int"
	Double      SearchAttributeType = "Double"
	Bool        SearchAttributeType = "Bool"
	Datetime    SearchAttributeType = "Datetime"
	KeywordList SearchAttributeType = "KeywordList"
)

// RegisterSearchAttribute registers a custom search attribute in a
// namespace, so that starts may set it and queries may use it. A payload
// of it carries its value as JSON: a string (Keyword, Text; a Datetime in
// RFC 3339), a number (Int, Double), a boolean, or an array of strings
// (KeywordList).
func (s *Server) RegisterSearchAttribute(namespace, name string, typ SearchAttributeType) error {
	t, err := visibility.ParseType(string(typ))
	if err != nil {
		return fmt.Errorf("orchfake: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ns := s.st.namespaces[namespace]
	if ns == nil {
		return fmt.Errorf("orchfake: namespace %q not found", namespace)
	}
	if err := ns.schema.Register(name, t); err != nil {
		return fmt.Errorf("orchfake: %w", err)
	}
	return nil
}

// mergeSearch sets fields in e's search attributes, with their values
// for visibility. The attributes are copied first (copy on write: the old
// ones may be held by an answer or a snapshot being written).
func (e *execution) mergeSearch(fields map[string]*orchpb.Payload, vals map[string]visibility.Value) {
	e.infoEdits++
	if e.search == nil {
		e.search = &orchpb.SearchAttributes{}
	} else {
		e.search = proto.Clone(e.search).(*orchpb.SearchAttributes)
	}
	if e.search.IndexedFields == nil {
		e.search.IndexedFields = map[string]*orchpb.Payload{}
	}
	if e.searchVals == nil {
		e.searchVals = map[string]visibility.Value{}
	}
	for k, p := range fields {
		e.search.IndexedFields[k] = p
		e.searchVals[k] = vals[k]
	}
}

// serviceSetAttributes are the system search attributes the service sets
// on a run itself (a scheduled run's), which callers may not.
var serviceSetAttributes = []string{AttrScheduledByID, AttrScheduledStartTime}

// runSearchValues are the values of a run's stored search attributes, as
// a restore or a reset rebuilds them: the ones callers set, read as
// searchValues reads them (one no longer registered is left out), and the
// ones the service set itself (serviceSetAttributes), which searchValues
// refuses from callers.
func runSearchValues(ns *namespace, sa *orchpb.SearchAttributes) map[string]visibility.Value {
	var v violations
	vals := searchValues(&v, ns, sa)
	system := visibility.SystemAttributes()
	for _, name := range serviceSetAttributes {
		p := sa.GetIndexedFields()[name]
		if p == nil {
			continue
		}
		if val, err := decodeSearchValue(system[name], p.GetData()); err == nil {
			if vals == nil {
				vals = map[string]visibility.Value{}
			}
			vals[name] = val
		}
	}
	return vals
}

// searchValues reads a request's search attributes against the namespace's
// registered ones.
func searchValues(v *violations, ns *namespace, sa *orchpb.SearchAttributes) map[string]visibility.Value {
	if len(sa.GetIndexedFields()) == 0 {
		return nil
	}
	vals := make(map[string]visibility.Value, len(sa.GetIndexedFields()))
	for name, p := range sa.GetIndexedFields() {
		field := "search_attributes.indexed_fields[" + name + "]"
		if visibility.IsSystem(name) {
			v.add(field, "%s is a system search attribute and cannot be set", name)
			continue
		}
		t, ok := ns.schema.Lookup(name)
		if !ok {
			v.add(field, "search attribute %q is not registered in namespace %q", name, ns.info.Name)
			continue
		}
		val, err := decodeSearchValue(t, p.GetData())
		if err != nil {
			v.add(field, "%v", err)
			continue
		}
		vals[name] = val
	}
	return vals
}

func decodeSearchValue(t visibility.Type, data []byte) (visibility.Value, error) {
	var raw any
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return visibility.Value{}, fmt.Errorf("data is not JSON: %v", err)
	}
	bad := fmt.Errorf("data %s is not a %s value", data, t)
	switch t {
	case visibility.TypeKeyword, visibility.TypeText:
		if str, ok := raw.(string); ok {
			return visibility.StringValue(str), nil
		}
	case visibility.TypeInt:
		if n, ok := raw.(json.Number); ok {
			if i, err := n.Int64(); err == nil {
				return visibility.IntValue(i), nil
			}
		}
	case visibility.TypeDouble:
		if n, ok := raw.(json.Number); ok {
			if f, err := n.Float64(); err == nil {
				return visibility.FloatValue(f), nil
			}
		}
	case visibility.TypeBool:
		if b, ok := raw.(bool); ok {
			return visibility.BoolValue(b), nil
		}
	case visibility.TypeDatetime:
		if str, ok := raw.(string); ok {
			if tm, err := time.Parse(time.RFC3339Nano, str); err == nil {
				return visibility.TimeValue(tm), nil
			}
		}
	case visibility.TypeKeywordList:
		switch x := raw.(type) {
		case string:
			return visibility.ListValue(x), nil
		case []any:
			ss := make([]string, 0, len(x))
			for _, el := range x {
				str, ok := el.(string)
				if !ok {
					return visibility.Value{}, bad
				}
				ss = append(ss, str)
			}
			return visibility.ListValue(ss...), nil
		}
	}
	return visibility.Value{}, bad
}

// maxParsedQueries bounds each namespace's cache of parsed queries.
const maxParsedQueries = 64

// parsedQueries keeps a namespace's queries parsed (a Query is immutable),
// for the schema version they were parsed at.
type parsedQueries struct {
	version uint64
	byText  map[string]*visibility.Query
}

// parseQuery parses a visibility query as INVALID_ARGUMENT with the
// position on failure. A query parsed before against the same schema is
// not parsed again. s.mu must be held.
func parseQuery(q string, ns *namespace) (*visibility.Query, error) {
	c := &ns.parsed
	if v := ns.schema.Version(); c.byText == nil || c.version != v || len(c.byText) >= maxParsedQueries {
		c.version, c.byText = v, map[string]*visibility.Query{}
	}
	if parsed, ok := c.byText[q]; ok {
		return parsed, nil
	}
	parsed, err := visibility.Parse(q, ns.schema)
	if err == nil {
		c.byText[q] = parsed
	}
	if err != nil {
		var se *visibility.SyntaxError
		if errors.As(err, &se) {
			return nil, &apiError{code: orchwire.InvalidArgument, msg: se.Error(),
				details: []*orchpb.ErrorDetail{{Type: "FieldViolation", Field: "query", Description: fmt.Sprintf("%s at position %d", se.Msg, se.Pos)}}}
		}
		return nil, badField("query", "%v", err)
	}
	return parsed, nil
}

// List page sizes.
const (
	defaultListPage = 100
	maxListPage     = 1000
)

func (s *Server) listWorkflows(ctx context.Context, req *orchpb.ListWorkflowExecutionsRequest) (*orchpb.ListWorkflowExecutionsResponse, error) {
	hc, _ := ctx.Value(httpCallKey{}).(*httpCall)
	execs, tok, err := s.search(req.GetNamespace(), req.GetQuery(), req.GetPageSize(), req.GetNextPageToken(), false, hc.listed())
	if err != nil {
		return nil, err
	}
	return &orchpb.ListWorkflowExecutionsResponse{Executions: execs, NextPageToken: tok}, nil
}

func (s *Server) scanWorkflows(ctx context.Context, req *orchpb.ScanWorkflowExecutionsRequest) (*orchpb.ScanWorkflowExecutionsResponse, error) {
	hc, _ := ctx.Value(httpCallKey{}).(*httpCall)
	execs, tok, err := s.search(req.GetNamespace(), req.GetQuery(), req.GetPageSize(), req.GetNextPageToken(), true, hc.listed())
	if err != nil {
		return nil, err
	}
	return &orchpb.ScanWorkflowExecutionsResponse{Executions: execs, NextPageToken: tok}, nil
}

// search answers List and Scan: the executions matching the query in its
// order, one page after the token's key. A scan refuses ORDER BY and
// pages in the default order. With json, an HTTP call's, it also keeps
// there each listed run's JSON (see listedJSON).
func (s *Server) search(nsName, query string, size32 int32, tok []byte, scan bool, json *listedJSON) ([]*orchpb.WorkflowExecutionInfo, []byte, error) {
	size, err := pageSize(size32, defaultListPage, maxListPage, "page_size")
	if err != nil {
		return nil, nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ns, err := s.st.namespace(nsName)
	if err != nil {
		return nil, nil, err
	}
	q, err := parseQuery(query, ns)
	if err != nil {
		return nil, nil, err
	}
	if scan && q.HasOrderBy() {
		return nil, nil, badField("query", "ORDER BY is not allowed in a scan")
	}
	var after *visibility.SortKey
	if len(tok) > 0 {
		raw, err := parseListToken(tok)
		if err != nil {
			return nil, nil, err
		}
		k, err := q.ParseSortKey(raw)
		if err != nil {
			return nil, nil, badField("next_page_token", "the token belongs to another query")
		}
		after = &k
	}
	// A closed run is gone once its close time plus the retention is not
	// after now (Server.expired): once it closed at or before cutoff.
	cutoff := s.clk.Now().Add(-ns.retention())
	live := func(e *execution) bool {
		return (e.open() || e.closeTime.IsZero() || e.closeTime.After(cutoff)) && q.Match(e)
	}
	var page []*execution
	if q.DefaultOrder() {
		page = ns.pageByStart(q, after, size+1, live)
	}
	if page == nil {
		page = sortedPage(ns, q, after, size+1, live)
	}
	var next []byte
	if len(page) > size {
		page = page[:size]
		raw, _ := q.SortKey(page[size-1]).MarshalBinary()
		next = listToken(raw)
	}
	out := make([]*orchpb.WorkflowExecutionInfo, len(page))
	for i, e := range page {
		out[i] = e.listInfo()
	}
	if json != nil && listJSONFast {
		json.infos, json.pieces = out, make([][]byte, len(page))
		for i, e := range page {
			json.pieces[i] = e.listJSON()
		}
	}
	return out, next, nil
}

// sortedPage is the first n runs of ns that keep matches, in q's order,
// after the key after (nil: from the first): every match keyed and sorted.
func sortedPage(ns *namespace, q *visibility.Query, after *visibility.SortKey, n int, keep func(*execution) bool) []*execution {
	var runs []*execution
	for _, e := range ns.runs {
		if keep(e) {
			runs = append(runs, e)
		}
	}
	type hit struct {
		e   *execution
		key visibility.SortKey
	}
	kl := q.KeyLen()
	vals := make([]visibility.Value, len(runs)*kl) // one allocation for every key
	hits := make([]hit, 0, len(runs))
	for i, e := range runs {
		k := q.SortKeyIn(e, vals[i*kl:])
		if after != nil && q.CompareKeys(k, *after) <= 0 {
			continue
		}
		hits = append(hits, hit{e, k})
	}
	slices.SortFunc(hits, func(a, b hit) int { return q.CompareKeys(a.key, b.key) })
	page := make([]*execution, min(n, len(hits)))
	for i := range page {
		page[i] = hits[i].e
	}
	return page
}

// startEntry is a run in a namespace's byStart index, with the start time
// it is filed under.
type startEntry struct {
	start time.Time
	e     *execution
}

// compareStart is the byStart index's order: the reverse of the default
// order of queries (StartTime DESC, then RunId ASC), so that new runs,
// which usually start last, are appended.
func compareStart(a, b startEntry) int {
	if c := a.start.Compare(b.start); c != 0 {
		return c
	}
	return strings.Compare(b.e.runID, a.e.runID)
}

// pageByStart is sortedPage for a query in the default order, read off
// the namespace's byStart index without keying or sorting: it visits runs
// from the page's first until it has n. It returns nil when the index no
// longer matches the runs (a start time changed since it was filed), and
// rebuilds it for the next call; sortedPage answers then.
func (ns *namespace) pageByStart(q *visibility.Query, after *visibility.SortKey, n int, keep func(*execution) bool) []*execution {
	idx := ns.startIndex()
	end := len(idx) // the page starts at idx[end-1] and goes down
	if after != nil {
		end = sort.Search(len(idx), func(i int) bool { return q.CompareKey(idx[i].e, *after) <= 0 })
	}
	page := make([]*execution, 0, min(n, end))
	for i := end - 1; i >= 0 && len(page) < n; i-- {
		en := idx[i]
		if en.start != en.e.start {
			ns.byStart, ns.unfiled = nil, slices.Collect(maps.Values(ns.runs))
			return nil
		}
		if keep(en.e) {
			page = append(page, en.e)
		}
	}
	return page
}

// startIndex files the runs started since the last call in ns.byStart and
// returns it. s.mu must be held.
func (ns *namespace) startIndex() []startEntry {
	if len(ns.unfiled) == 0 {
		return ns.byStart
	}
	add := make([]startEntry, len(ns.unfiled))
	for i, e := range ns.unfiled {
		add[i] = startEntry{e.start, e}
	}
	clear(ns.unfiled)
	ns.unfiled = ns.unfiled[:0]
	slices.SortFunc(add, compareStart)
	idx := ns.byStart
	if len(idx) == 0 || compareStart(idx[len(idx)-1], add[0]) < 0 {
		ns.byStart = append(idx, add...) // the usual case: all started after the rest
		return ns.byStart
	}
	merged := make([]startEntry, 0, len(idx)+len(add))
	i, j := 0, 0
	for i < len(idx) && j < len(add) {
		if compareStart(idx[i], add[j]) < 0 {
			merged = append(merged, idx[i])
			i++
		} else {
			merged = append(merged, add[j])
			j++
		}
	}
	merged = append(append(merged, idx[i:]...), add[j:]...)
	ns.byStart = merged
	return merged
}

func (s *Server) countWorkflows(ctx context.Context, req *orchpb.CountWorkflowExecutionsRequest) (*orchpb.CountWorkflowExecutionsResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ns, err := s.st.namespace(req.GetNamespace())
	if err != nil {
		return nil, err
	}
	q, err := parseQuery(req.GetQuery(), ns)
	if err != nil {
		return nil, err
	}
	n := int64(0)
	for _, e := range ns.runs {
		if !s.expired(e) && q.Match(e) {
			n++
		}
	}
	return &orchpb.CountWorkflowExecutionsResponse{Count: n}, nil
}
