package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRefusesWhatItCannotWrite: a field type or tag option the generator
// does not write as encoding/json would is an error at generation, naming
// the field, and nothing is written.
func TestRefusesWhatItCannotWrite(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, decl, want string }{
		{"float", "type r struct{ F float64 `json:\"f\"` }", "r.F: type float64 is not supported"},
		{"bytes", "type r struct{ B []byte `json:\"b\"` }", "r.B: []byte (base64) is not supported"},
		{"interface", "type r struct{ A any `json:\"a\"` }", "r.A: type any is not supported"},
		{"string option", "type r struct{ N int `json:\"n,string\"` }", `r.N: tag option "string" is not supported`},
		{"omitzero", "type r struct{ N int `json:\"n,omitzero\"` }", `r.N: tag option "omitzero" is not supported`},
		{"int keys", "type r struct{ M map[int]string `json:\"m\"` }", "r.M: only maps with string keys are supported"},
		{"twice", "type r struct{ A int `json:\"a\"`; B int `json:\"a\"` }", `r: key "a" twice`},
		{"key to escape", "type r struct{ A int `json:\"<a>\"` }", `key "<a>" needs escaping`},
		{"marshaler only", "type t int\nfunc (t) MarshalJSON() ([]byte, error) { return nil, nil }\ntype r struct{ T t `json:\"t\"` }",
			"type t has MarshalJSON but no appendJSON"},
		{"pointer MarshalJSON", "type t int\nfunc (*t) MarshalJSON() ([]byte, error) { return nil, nil }\nfunc (t) appendJSON(b []byte) []byte { return b }\ntype r struct{ T t `json:\"t\"` }",
			"type t needs MarshalJSON, on the value receiver"},
		{"embedded pointer", "type e struct{ A int `json:\"a\"` }\ntype r struct{ *e }", "only untagged embedded struct types"},
		{"not a struct", "type r int", "not a (non-generic) struct type"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "r.go"), []byte("package p\n\n"+c.decl+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			err := runGo(dir, []string{"r"}, "json_gen.go")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want one saying %q", err, c.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "json_gen.go")); !os.IsNotExist(err) {
				t.Fatalf("json_gen.go written (%v)", err)
			}
		})
	}
}

// TestSampleIsCurrent: the committed output of the sample package is what
// the generator writes now, so a change to the generator is seen in its
// output (CI checks every package's the same way, with go generate).
func TestSampleIsCurrent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sample := filepath.Join("internal", "sample")
	for _, f := range []string{"sample.go"} {
		b, err := os.ReadFile(filepath.Join(sample, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := runGo(dir, []string{"record", "allOptional", "lateSure", "member"}, "json_gen.go"); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"json_gen.go", "json_gen_test.go"} {
		got, _ := os.ReadFile(filepath.Join(dir, f))
		want, err := os.ReadFile(filepath.Join(sample, f))
		if err != nil {
			t.Fatal(err)
		}
		// The first line names the command that wrote it.
		_, g, _ := strings.Cut(string(got), "\n")
		_, w, _ := strings.Cut(string(want), "\n")
		if g != w {
			t.Errorf("%s is not what the generator writes now: go generate ./internal/cmd/jsongen/...", f)
		}
	}
}
