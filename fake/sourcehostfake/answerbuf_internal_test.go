package sourcehostfake

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// The answers doc writes are marked secret-free, so the request log does
// not search them for the secret answer fields: no key of the types they
// are written from, at any depth, may be one of those fields. (The users
// and milestones written once per call, written fields, are userJSON and
// milestoneJSON, in the list.)
func TestAnswerTypesHoldNoSecretField(t *testing.T) {
	t.Parallel()
	seen := map[reflect.Type]bool{}
	var keys func(typ reflect.Type, at string)
	keys = func(typ reflect.Type, at string) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || seen[typ] {
			return
		}
		seen[typ] = true
		for f := range typ.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if f.Anonymous && name == "" {
				keys(f.Type, at)
				continue
			}
			if slices.ContainsFunc(secretAnswerFields, func(s string) bool { return strings.EqualFold(s, name) }) {
				t.Errorf("%s.%s: the key %q is a secret answer field: doc's answers can no longer be secret-free", at, f.Name, name)
			}
			keys(f.Type, at+"."+name)
		}
	}
	for _, v := range []any{projectJSON{}, issueJSON{}, mergeRequestJSON{}, pipelineJSON{}, pipelineDetailJSON{},
		milestoneJSON{}, noteJSON{}, memberJSON{}, currentUserJSON{}, userJSON{}} {
		typ := reflect.TypeOf(v)
		keys(typ, typ.Name())
	}
	if len(seen) < 14 { // the ten and the types inside them
		t.Errorf("only %d types walked", len(seen))
	}
}
