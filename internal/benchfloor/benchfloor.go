// Package benchfloor builds the floor a fake's list handler is measured
// against: a plain http.Handler that holds a page as ordinary Go structs and
// encodes it with encoding/json on every request, the handler anyone would
// write by hand for that page.
//
// The structs are made from the fake's own answer with reflect.StructOf, one
// field per JSON key in the answer's order, typed by the values seen (string,
// int64, float64, bool, nested structs and slices), so the floor writes the
// same bytes as the fake without the cost of custom MarshalJSON methods,
// maps or interfaces that a client's types may carry. A benchmark then reads
// the fake's ratio to this floor in one run:
//
//	floor, err := benchfloor.Handler(fakeAnswer)
package benchfloor

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"unicode"
)

// Handler returns a handler that answers every request with body, a JSON
// document, re-encoded from plain structs with json.NewEncoder. It sets
// each of headers (typically the fake's own answer's: pagination counts,
// Link) with Header().Set and a freshly made value, as a hand-written
// handler formatting them per request would; Date and Content-Length are
// left to the server. With no headers it sets Content-Type:
// application/json.
func Handler(body []byte, headers http.Header) (http.Handler, error) {
	v, err := Value(body)
	if err != nil {
		return nil, err
	}
	type header struct{ key, value string }
	var set []header
	for k, vs := range headers {
		if k == "Date" || k == "Content-Length" || len(vs) == 0 {
			continue
		}
		set = append(set, header{k, vs[0]})
	}
	if len(set) == 0 {
		set = []header{{"Content-Type", "application/json"}}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		h := w.Header()
		for _, kv := range set {
			h.Set(kv.key, strings.Clone(kv.value))
		}
		if err := json.NewEncoder(w).Encode(v); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	}), nil
}

// Value decodes body into a value of plain struct types built to mirror it
// (see the package doc). Encoding the value with encoding/json gives body
// back, up to whitespace and the spelling of numbers.
func Value(body []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	root, err := readNode(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("benchfloor: more than one JSON value")
	}
	var s shape
	s.add(root)
	if k, ok := s.badKey(); !ok {
		return nil, fmt.Errorf("benchfloor: key %q cannot be a struct tag", k)
	}
	ptr := reflect.New(s.goType())
	if err := json.Unmarshal(body, ptr.Interface()); err != nil {
		return nil, fmt.Errorf("benchfloor: decoding into the plain type: %w", err)
	}
	return ptr.Elem().Interface(), nil
}

// node is a decoded JSON value with its object keys in document order.
type node struct {
	kind  byte // 'o' object, 'a' array, 's' string, 'i' integer, 'f' number, 'b' bool, 'n' null
	keys  []string
	vals  []node
	items []node
}

func readNode(dec *json.Decoder) (node, error) {
	tok, err := dec.Token()
	if err != nil {
		return node{}, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			n := node{kind: 'o'}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return node{}, err
				}
				v, err := readNode(dec)
				if err != nil {
					return node{}, err
				}
				n.keys = append(n.keys, k.(string))
				n.vals = append(n.vals, v)
			}
			_, err := dec.Token()
			return n, err
		}
		n := node{kind: 'a'}
		for dec.More() {
			v, err := readNode(dec)
			if err != nil {
				return node{}, err
			}
			n.items = append(n.items, v)
		}
		_, err := dec.Token()
		return n, err
	case string:
		return node{kind: 's'}, nil
	case json.Number:
		if _, err := strconv.ParseInt(string(t), 10, 64); err == nil {
			return node{kind: 'i'}, nil
		}
		return node{kind: 'f'}, nil
	case bool:
		return node{kind: 'b'}, nil
	default:
		return node{kind: 'n'}, nil
	}
}

// shape is what every value seen at one place in the document has in
// common: the kinds seen, and for objects the union of their keys.
type shape struct {
	kinds    map[byte]bool
	seen     int // values seen here, nulls included
	keys     []string
	fields   map[string]*shape
	fieldHas map[string]int // how many of the objects here had the key
	objects  int
	item     *shape
}

func (s *shape) add(n node) {
	if s.kinds == nil {
		s.kinds = map[byte]bool{}
	}
	s.seen++
	s.kinds[n.kind] = true
	switch n.kind {
	case 'o':
		s.objects++
		if s.fields == nil {
			s.fields, s.fieldHas = map[string]*shape{}, map[string]int{}
		}
		for i, k := range n.keys {
			f := s.fields[k]
			if f == nil {
				f = &shape{}
				s.fields[k] = f
				s.keys = append(s.keys, k)
			}
			s.fieldHas[k]++
			f.add(n.vals[i])
		}
	case 'a':
		if s.item == nil {
			s.item = &shape{}
		}
		for _, it := range n.items {
			s.item.add(it)
		}
	}
}

var anyType = reflect.TypeFor[any]()

// goType is the plain type for the values seen: a struct, a slice or a
// scalar, behind a pointer when null was among them, and an interface only
// where the kinds disagree (as a hand-written struct would have to).
func (s *shape) goType() reflect.Type {
	nullable := s.kinds['n']
	kinds := 0
	var kind byte
	for k := range s.kinds {
		if k != 'n' {
			kinds++
			kind = k
		}
	}
	if kinds == 2 && s.kinds['i'] && s.kinds['f'] {
		kinds, kind = 1, 'f'
	}
	var t reflect.Type
	switch {
	case kinds == 0:
		return anyType // only nulls: any encodes nil as null
	case kinds > 1:
		return anyType
	case kind == 'o':
		t = s.structType()
	case kind == 'a':
		if s.item == nil || s.item.seen == 0 {
			t = reflect.TypeFor[[]any]()
		} else {
			t = reflect.SliceOf(s.item.goType())
		}
		return t // a nil slice encodes as null already
	case kind == 's':
		t = reflect.TypeFor[string]()
	case kind == 'i':
		t = reflect.TypeFor[int64]()
	case kind == 'f':
		t = reflect.TypeFor[float64]()
	case kind == 'b':
		t = reflect.TypeFor[bool]()
	}
	if nullable {
		return reflect.PointerTo(t)
	}
	return t
}

func (s *shape) structType() reflect.Type {
	fields := make([]reflect.StructField, 0, len(s.keys))
	for i, k := range s.keys {
		f := s.fields[k]
		ft := f.goType()
		tag := strconv.Quote(k)
		if s.fieldHas[k] < s.objects {
			// Absent from some objects: a pointer left nil is left out.
			if ft.Kind() != reflect.Pointer && ft.Kind() != reflect.Slice && ft != anyType {
				ft = reflect.PointerTo(ft)
			}
			tag = strconv.Quote(k + ",omitempty")
		}
		fields = append(fields, reflect.StructField{
			Name: fmt.Sprintf("F%d", i),
			Type: ft,
			Tag:  reflect.StructTag("json:" + tag),
		})
	}
	return reflect.StructOf(fields)
}

// badKey finds an object key that no struct tag can name.
func (s *shape) badKey() (string, bool) {
	for _, k := range s.keys {
		if !validTagName(k) {
			return k, false
		}
		if k, ok := s.fields[k].badKey(); !ok {
			return k, false
		}
	}
	if s.item != nil {
		return s.item.badKey()
	}
	return "", true
}

// validTagName mirrors encoding/json's rule for names a tag may give.
func validTagName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}
