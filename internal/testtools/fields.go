package testtools

import (
	"reflect"
	"slices"
)

// UnsetFields walks v (through pointers, structs, slices, arrays and
// maps, each pointer once) and returns the fields of the struct types
// defined in package pkg (a package path) that are the zero value in every
// instance met, as "type.field", sorted; fields named in skip ("type.field")
// are left out.
//
// A snapshot's round-trip test uses it to show that its fixture sets every
// field of the state it compares: a field added to the state later, and
// forgotten by the snapshot, then fails the test until the fixture sets it
// and the comparison sees it lost.
func UnsetFields(v any, pkg string, skip ...string) []string {
	w := fieldWalk{pkg: pkg, seen: map[uintptr]bool{}, set: map[string]bool{}, all: map[string]bool{}}
	w.walk(reflect.ValueOf(v))
	var out []string
	for f := range w.all {
		if !w.set[f] && !slices.Contains(skip, f) {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out
}

type fieldWalk struct {
	pkg  string
	seen map[uintptr]bool
	set  map[string]bool // fields non-zero at least once
	all  map[string]bool // fields met
}

func (w *fieldWalk) walk(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || w.seen[v.Pointer()] {
			return
		}
		w.seen[v.Pointer()] = true
		w.walk(v.Elem())
	case reflect.Interface:
		if !v.IsNil() {
			w.walk(v.Elem())
		}
	case reflect.Struct:
		t := v.Type()
		ours := t.PkgPath() == w.pkg
		for i := range t.NumField() {
			f := v.Field(i)
			if ours {
				name := t.Name() + "." + t.Field(i).Name
				w.all[name] = true
				if !f.IsZero() {
					w.set[name] = true
				}
			}
			// Only the package's own types are walked into: the fields of
			// a time.Time or a protobuf message are not the state's.
			if ours || t.Field(i).Anonymous {
				w.walk(f)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			w.walk(v.Index(i))
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			w.walk(it.Key())
			w.walk(it.Value())
		}
	}
}
