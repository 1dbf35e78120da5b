package jsonscan_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/apitwin/apitwin/internal/jsonscan"
)

var seeds = []string{
	`{}`, `[]`, ` { } `, `[ ]`, `{"a":1}`, ` {"a" : 1 , "b":[1,2,{"c":"}"}] } `,
	`{"k\"ey":"v\\","\u00e9":true,"n":null,"f":-1.5e+3}`, `{"a":{"b":{"c":[[],{}]}},"s":"[{\"}"}`,
	`[1,"two",{"three":3},[4],null,true,false]`, `"just a string"`, `12`, `{"a":1,"a":2}`,
	`{"é":"ü"}`, "{\"tab\":\t\"x\"\n}",
	// not JSON: the walk stops without reading out of bounds
	`{"a":`, `{"a"`, `{"a":1,`, `{"a":1 "b":2}`, `[1,`, `[1 2]`, `{`, `[`, `"unterminated`, `{"a":"\`, `{"a":1}}`,
}

// members is what encoding/json reads in an object: keys (decoded) and raw
// values, in order.
func members(t *testing.T, b []byte) (keys []string, values []string) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		keys, values = append(keys, k.(string)), append(values, string(v))
	}
	return keys, values
}

func elements(t *testing.T, b []byte) (values []string) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	for dec.More() {
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		values = append(values, string(v))
	}
	return values
}

// check holds the walk to encoding/json on valid JSON, and to staying in
// bounds on anything else.
func check(t *testing.T, b []byte) {
	// Never out of bounds, whatever b is.
	jsonscan.Members(b, func(key, value []byte) bool { return true })
	jsonscan.Elements(b, func(int, []byte) bool { return true })
	for i := range len(b) + 1 {
		if e := jsonscan.ValueEnd(b, i); e < i || e > len(b) {
			t.Fatalf("ValueEnd(%q, %d) = %d", b, i, e)
		}
	}
	if !json.Valid(b) {
		return
	}
	start := jsonscan.SkipSpace(b, 0)
	if got, want := jsonscan.ValueEnd(b, start), len(bytes.TrimRight(b, " \t\r\n")); got != want {
		t.Fatalf("ValueEnd(%q) = %d, want %d", b, got, want)
	}
	switch b[start] {
	case '{':
		wantKeys, wantValues := members(t, b)
		var keys, values []string
		whole := jsonscan.Members(b, func(key, value []byte) bool {
			var k string
			if err := json.Unmarshal(append(append([]byte{'"'}, key...), '"'), &k); err != nil {
				t.Fatalf("key %q of %q: %v", key, b, err)
			}
			keys, values = append(keys, k), append(values, string(value))
			return true
		})
		if !whole || fmt.Sprint(keys) != fmt.Sprint(wantKeys) || fmt.Sprintf("%q", values) != fmt.Sprintf("%q", wantValues) {
			t.Fatalf("Members(%q) = %v %q %q, want %q %q", b, whole, keys, values, wantKeys, wantValues)
		}
		if len(keys) > 0 && jsonscan.Members(b, func([]byte, []byte) bool { return false }) {
			t.Fatalf("Members(%q) walked on after f said false", b)
		}
	case '[':
		want := elements(t, b)
		var got []string
		whole := jsonscan.Elements(b, func(i int, value []byte) bool {
			if i != len(got) {
				t.Fatalf("Elements(%q): index %d for element %d", b, i, len(got))
			}
			got = append(got, string(value))
			return true
		})
		if !whole || fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
			t.Fatalf("Elements(%q) = %v %q, want %q", b, whole, got, want)
		}
	default:
		if jsonscan.Members(b, func([]byte, []byte) bool { return true }) || jsonscan.Elements(b, func(int, []byte) bool { return true }) {
			t.Fatalf("%q walked as an object or an array", b)
		}
	}
}

func TestWalkReadsWhatEncodingJSONReads(t *testing.T) {
	t.Parallel()
	for _, s := range seeds {
		check(t, []byte(s))
	}
}

func FuzzWalk(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { check(t, b) })
}
