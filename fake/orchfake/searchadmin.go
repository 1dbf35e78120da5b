package orchfake

import (
	"context"

	"slices"
	"strings"

	"github.com/apitwin/apitwin/fake/orchfake/internal/visibility"
	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// The search attribute types of the contract and of the query language.
var (
	indexedToType = map[orchpb.IndexedValueType]visibility.Type{
		orchpb.IndexedValueType_KEYWORD: visibility.TypeKeyword, orchpb.IndexedValueType_TEXT: visibility.TypeText,
		orchpb.IndexedValueType_INT: visibility.TypeInt, orchpb.IndexedValueType_DOUBLE: visibility.TypeDouble,
		orchpb.IndexedValueType_BOOL: visibility.TypeBool, orchpb.IndexedValueType_DATETIME: visibility.TypeDatetime,
		orchpb.IndexedValueType_KEYWORD_LIST: visibility.TypeKeywordList,
	}
	typeToIndexed = func() map[visibility.Type]orchpb.IndexedValueType {
		m := map[visibility.Type]orchpb.IndexedValueType{}
		for k, v := range indexedToType {
			m[v] = k
		}
		return m
	}()
)

// maxCustomAttributes bounds a namespace's custom search attributes.
const maxCustomAttributes = 100

func (s *Server) addSearchAttributes(ctx context.Context, req *orchpb.AddSearchAttributesRequest) (*orchpb.AddSearchAttributesResponse, error) {
	var v violations
	if len(req.GetSearchAttributes()) == 0 {
		v.add("search_attributes", "required: name to type")
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range req.GetSearchAttributes() {
			if !yield(n) {
				return
			}
		}
	})
	for _, name := range names {
		field := "search_attributes[" + name + "]"
		t, ok := indexedToType[req.GetSearchAttributes()[name]]
		if !ok {
			v.add(field, "unknown type %s (want TEXT, KEYWORD, INT, DOUBLE, BOOL, DATETIME or KEYWORD_LIST)", req.GetSearchAttributes()[name])
			continue
		}
		if err := visibility.NewSchema().Register(name, t); err != nil { // the name's own rules
			v.add(field, "%s", strings.TrimPrefix(err.Error(), "visibility: "))
		}
	}
	if err := v.err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ns, err := s.st.namespace(req.GetNamespace())
	if err != nil {
		return nil, err
	}
	custom := ns.schema.Custom()
	added := 0
	for _, name := range names { // all or nothing: check every one first
		want := indexedToType[req.GetSearchAttributes()[name]]
		old, ok := custom[name]
		switch {
		case ok && old != want:
			return nil, &apiError{code: orchwire.AlreadyExists, msg: "search attribute " + name + " already exists as " + typeToIndexed[old].String(),
				details: []*orchpb.ErrorDetail{{Type: "FieldViolation", Field: "search_attributes[" + name + "]", Description: "registered as " + typeToIndexed[old].String()}}}
		case !ok:
			added++
		}
	}
	if len(custom)+added > maxCustomAttributes {
		return nil, errorf(orchwire.ResourceExhausted, "at most %d custom search attributes per namespace", maxCustomAttributes)
	}
	for _, name := range names {
		if err := ns.schema.Register(name, indexedToType[req.GetSearchAttributes()[name]]); err != nil {
			return nil, errorf(orchwire.Internal, "%v", err) // checked above
		}
	}
	return &orchpb.AddSearchAttributesResponse{}, nil
}

func (s *Server) removeSearchAttributes(ctx context.Context, req *orchpb.RemoveSearchAttributesRequest) (*orchpb.RemoveSearchAttributesResponse, error) {
	var v violations
	if len(req.GetSearchAttributes()) == 0 {
		v.add("search_attributes", "required: the names to remove")
	}
	for i, name := range req.GetSearchAttributes() {
		if visibility.IsSystem(name) {
			v.add("search_attributes", "entry %d: %s is a system search attribute and cannot be removed", i, name)
		}
	}
	if err := v.err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ns, err := s.st.namespace(req.GetNamespace())
	if err != nil {
		return nil, err
	}
	custom := ns.schema.Custom()
	for _, name := range req.GetSearchAttributes() {
		if _, ok := custom[name]; !ok {
			return nil, errorf(orchwire.NotFound, "search attribute %s does not exist in namespace %q", name, ns.info.Name)
		}
	}
	for _, name := range req.GetSearchAttributes() {
		ns.schema.Remove(name)
	}
	return &orchpb.RemoveSearchAttributesResponse{}, nil
}

func (s *Server) listSearchAttributes(ctx context.Context, req *orchpb.ListSearchAttributesRequest) (*orchpb.ListSearchAttributesResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ns, err := s.st.namespace(req.GetNamespace())
	if err != nil {
		return nil, err
	}
	resp := &orchpb.ListSearchAttributesResponse{CustomAttributes: map[string]orchpb.IndexedValueType{}, SystemAttributes: map[string]orchpb.IndexedValueType{}}
	for name, t := range ns.schema.Custom() {
		resp.CustomAttributes[name] = typeToIndexed[t]
	}
	for name, t := range visibility.SystemAttributes() {
		resp.SystemAttributes[name] = typeToIndexed[t]
	}
	return resp, nil
}
