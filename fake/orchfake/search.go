package orchfake

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/apitwin/apitwin/fake/orchfake/internal/visibility"
	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch/orchpb"
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

// parseQuery parses a visibility query as INVALID_ARGUMENT with the
// position on failure.
func parseQuery(q string, ns *namespace) (*visibility.Query, error) {
	parsed, err := visibility.Parse(q, ns.schema)
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
	execs, tok, err := s.search(req.GetNamespace(), req.GetQuery(), req.GetPageSize(), req.GetNextPageToken(), false)
	if err != nil {
		return nil, err
	}
	return &orchpb.ListWorkflowExecutionsResponse{Executions: execs, NextPageToken: tok}, nil
}

func (s *Server) scanWorkflows(ctx context.Context, req *orchpb.ScanWorkflowExecutionsRequest) (*orchpb.ScanWorkflowExecutionsResponse, error) {
	execs, tok, err := s.search(req.GetNamespace(), req.GetQuery(), req.GetPageSize(), req.GetNextPageToken(), true)
	if err != nil {
		return nil, err
	}
	return &orchpb.ScanWorkflowExecutionsResponse{Executions: execs, NextPageToken: tok}, nil
}

// search answers List and Scan: the executions matching the query in its
// order, one page after the token's key. A scan refuses ORDER BY and
// pages in the default order.
func (s *Server) search(nsName, query string, size32 int32, tok []byte, scan bool) ([]*orchpb.WorkflowExecutionInfo, []byte, error) {
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
	type hit struct {
		e   *execution
		key visibility.SortKey
	}
	var hits []hit
	for _, e := range ns.runs {
		if s.expired(e) || !q.Match(e) {
			continue
		}
		k := q.SortKey(e)
		if after != nil && q.CompareKeys(k, *after) <= 0 {
			continue
		}
		hits = append(hits, hit{e, k})
	}
	slices.SortFunc(hits, func(a, b hit) int { return q.CompareKeys(a.key, b.key) })
	var next []byte
	if len(hits) > size {
		hits = hits[:size]
		raw, _ := hits[size-1].key.MarshalBinary()
		next = listToken(raw)
	}
	out := make([]*orchpb.WorkflowExecutionInfo, len(hits))
	for i, h := range hits {
		out[i] = h.e.info()
	}
	return out, next, nil
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
