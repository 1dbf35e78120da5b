package erp

import (
	"bytes"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/apitwin/apitwin/internal/jsonscan"
)

// Extra holds the fields of a record that this package does not model, as
// the server sent them: the ERP's objects carry dozens of fields, more with
// each version and with every module's extra fields, and a program may need
// one the typed record leaves out.
//
//	var entity string
//	ok, err := inv.Extra.Decode("multicurrency_code", &entity)
type Extra map[string]json.RawMessage

// Decode reads field name into v; it reports false when the field is absent.
func (e Extra) Decode(name string, v any) (bool, error) {
	raw, ok := e[name]
	if !ok {
		return false, nil
	}
	return true, json.Unmarshal(raw, v)
}

// jsonKeys returns the JSON names of a struct type's fields.
func jsonKeys(t reflect.Type) map[string]bool {
	keys := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		keys[name] = true
	}
	return keys
}

// keySet is the set of JSON names a record type decodes itself, built once.
type keySet map[string]bool

func keysOf[T any](also ...string) keySet {
	k := jsonKeys(reflect.TypeFor[T]())
	for _, a := range also {
		k[a] = true
	}
	return k
}

// decodeRecord decodes data into into (a record's method-less twin, or a
// wrapper around it) and collects the top-level fields known does not name
// into *extra (nil when there are none). onKnown, when set, sees the known
// fields' raw values.
func decodeRecord(data []byte, into any, known keySet, extra *Extra, onKnown func(key, value []byte)) error {
	*extra = nil
	if err := json.Unmarshal(data, into); err != nil {
		return err
	}
	var out Extra
	forEachMember(data, func(key, value []byte) {
		if known[string(key)] {
			if onKnown != nil {
				onKnown(key, value)
			}
			return
		}
		if out == nil {
			out = Extra{}
		}
		out[string(key)] = slices.Clone(value)
	})
	*extra = out
	return nil
}

// forEachMember calls fn with each member of a JSON object (keys unquoted
// and decoded, values raw). data must be valid JSON (decodeRecord has just
// decoded it); a value that is not an object yields nothing.
func forEachMember(data []byte, fn func(key, value []byte)) {
	jsonscan.Members(data, func(key, value []byte) bool {
		if bytes.IndexByte(key, '\\') >= 0 || !utf8.Valid(key) {
			var s string
			if json.Unmarshal(append(append([]byte{'"'}, key...), '"'), &s) != nil {
				return false
			}
			key = []byte(s)
		}
		fn(key, value)
		return true
	})
}

// forEachElement calls fn with each element of a JSON array (raw). data
// must be valid JSON; a value that is not an array yields nothing.
func forEachElement(data []byte, fn func(i int, value []byte)) {
	jsonscan.Elements(data, func(i int, value []byte) bool {
		fn(i, value)
		return true
	})
}

// marshalRecord writes a record's known fields (from plain, its method-less
// twin) and then its extra fields, those the record does not already hold.
func marshalRecord(plain any, extra Extra) ([]byte, error) {
	b, err := json.Marshal(plain)
	if err != nil || len(extra) == 0 {
		return b, err
	}
	known := map[string]bool{}
	forEachMember(b, func(k, _ []byte) { known[string(k)] = true })
	var buf bytes.Buffer
	buf.Write(b[:len(b)-1]) // without the closing brace
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		if known[k] {
			continue
		}
		v := extra[k]
		if !json.Valid(v) {
			continue
		}
		if buf.Len() > 1 {
			buf.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// withExtra merges a request's extra fields into its JSON body; the
// request's own fields win. It is how a caller sends a field this package
// does not model (an extra field of a module, "array_options", …).
func withExtra(plain any, extra map[string]any) ([]byte, error) {
	if len(extra) == 0 {
		return json.Marshal(plain)
	}
	raw := make(Extra, len(extra))
	for k, v := range extra {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		raw[k] = b
	}
	return marshalRecord(plain, raw)
}
