// Package jsonwtest holds the encoders internal/cmd/jsongen generates to
// encoding/json: Check fills a type with random values, strings that JSON
// must escape among them, and compares the generated appendJSON's bytes
// with json.Marshal's. jsongen writes a test calling it for every type it
// generates (json_gen_test.go), so no generated encoder goes untested.
package jsonwtest

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand"
	"reflect"
	"testing"
	"testing/quick"
)

// Rounds is how many random values Check tries per type.
const Rounds = 300

// Check compares enc (a generated appendJSON, as a method expression
// (*T).appendJSON) with json.Marshal over Rounds random values of T. A
// named type that writes itself may implement quick.Generator (in a test
// file) to be given values of its own; other types' exported fields are
// filled by kind, unexported ones left zero.
func Check[T any](t *testing.T, enc func(*T, []byte) []byte) {
	t.Helper()
	rng := rand.New(rand.NewSource(1))
	for round := range Rounds {
		var v T
		fill(rng, reflect.ValueOf(&v).Elem(), 0)
		want, err := json.Marshal(&v)
		if err != nil {
			t.Fatalf("round %d: encoding/json: %v", round, err)
		}
		got := enc(&v, []byte("prefix:"))
		if !bytes.HasPrefix(got, []byte("prefix:")) {
			t.Fatalf("round %d: what the buffer held is gone: %.40q", round, got)
		}
		if got = got[len("prefix:"):]; !bytes.Equal(got, want) {
			t.Fatalf("round %d: the generated encoder wrote\n%s\nencoding/json writes\n%s", round, got, want)
		}
	}
}

// Strings are the pieces random strings are made of: what JSON escapes
// (quotes, backslashes, control characters, HTML's <, > and &, U+2028 and
// U+2029), invalid UTF-8, and plain text.
var Strings = []string{
	"", "plain", "x", `"`, `\`, "\x00", "\x01", "\x1f", "\x7f", "\b\f\n\r\t", "<b>", "&amp;", "é", "日本",
	"🎉", "\u2028", "\u2029", "\xff", "\xe2\x80", "a\xc3", " ", "/",
}

// String is a random string made of Strings.
func String(rng *rand.Rand) string {
	s := ""
	for range rng.Intn(4) {
		s += Strings[rng.Intn(len(Strings))]
	}
	return s
}

var (
	generator = reflect.TypeFor[quick.Generator]()
	rawType   = reflect.TypeFor[json.RawMessage]()
	raws      = []string{`null`, `1`, `"a\u003cb"`, `{"k":[true,false]}`, `[]`, `{}`}
)

// fill sets v, settable, to a random value.
func fill(rng *rand.Rand, v reflect.Value, depth int) {
	if v.Kind() != reflect.Pointer && reflect.PointerTo(v.Type()).Implements(generator) {
		g := reflect.New(v.Type()).Interface().(quick.Generator)
		v.Set(g.Generate(rng, 10))
		return
	}
	if v.Type() == rawType {
		if rng.Intn(3) > 0 {
			v.SetBytes([]byte(raws[rng.Intn(len(raws))]))
		}
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(String(rng))
	case reflect.Bool:
		v.SetBool(rng.Intn(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		bits := v.Type().Bits()
		switch rng.Intn(4) {
		case 0:
		case 1:
			v.SetInt(int64(rng.Intn(200)) - 100)
		case 2:
			v.SetInt(math.MinInt64 >> (64 - bits))
		default:
			v.SetInt(rng.Int63() >> (64 - bits))
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		bits := v.Type().Bits()
		if rng.Intn(3) > 0 {
			v.SetUint(rng.Uint64() >> (64 - bits))
		}
	case reflect.Float32, reflect.Float64:
		v.SetFloat(rng.NormFloat64() * 1e3)
	case reflect.Pointer:
		if depth > 3 || rng.Intn(4) == 0 {
			return
		}
		p := reflect.New(v.Type().Elem())
		fill(rng, p.Elem(), depth+1)
		v.Set(p)
	case reflect.Slice:
		switch n := rng.Intn(5); {
		case n == 0 || depth > 3:
		case n == 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		default:
			s := reflect.MakeSlice(v.Type(), n-1, n-1)
			for i := range n - 1 {
				fill(rng, s.Index(i), depth+1)
			}
			v.Set(s)
		}
	case reflect.Map:
		switch n := rng.Intn(5); {
		case n == 0 || depth > 3:
		default:
			m := reflect.MakeMapWithSize(v.Type(), n-1)
			for range n - 1 {
				k := reflect.New(v.Type().Key()).Elem()
				fill(rng, k, depth+1)
				e := reflect.New(v.Type().Elem()).Elem()
				fill(rng, e, depth+1)
				m.SetMapIndex(k, e)
			}
			v.Set(m)
		}
	case reflect.Array:
		for i := range v.Len() {
			fill(rng, v.Index(i), depth+1)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			// An embedded struct's exported fields are encoded (and
			// settable) even when its type is unexported.
			if f := v.Type().Field(i); f.IsExported() || f.Anonymous && f.Type.Kind() == reflect.Struct {
				fill(rng, v.Field(i), depth)
			}
		}
	}
}
