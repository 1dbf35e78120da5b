package benchfloor_test

import (
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/apitwin/apitwin/internal/benchfloor"
)

func TestHandlerWritesTheSameDocument(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{
		`[{"id":1,"name":"a","tags":["x"],"owner":{"id":7,"web":"u"},"score":1.5,"ok":true,"gone":null},` +
			`{"id":2,"name":"b","tags":[],"owner":null,"score":2,"ok":false,"extra":"only here","gone":null}]`,
		`{"executions":[{"execution":{"workflowId":"w","runId":"r"},"status":"RUNNING","memo":{}}],"nextPageToken":""}`,
		`[]`,
		`[{"mixed":1},{"mixed":"one"}]`,
	} {
		h, err := benchfloor.Handler([]byte(doc), nil)
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
		var want, got any
		json.Unmarshal([]byte(doc), &want)
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
			t.Fatalf("%s: %v", rec.Body, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("floor wrote\n%s\nwant\n%s", rec.Body, doc)
		}
		if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type %q", ct)
		}
	}
}

func TestValueUsesPlainStructs(t *testing.T) {
	t.Parallel()
	v, err := benchfloor.Value([]byte(`[{"id":1,"name":"a","owner":{"id":2}}]`))
	if err != nil {
		t.Fatal(err)
	}
	typ := reflect.TypeOf(v)
	if typ.Kind() != reflect.Slice || typ.Elem().Kind() != reflect.Struct {
		t.Fatalf("type %v, want a slice of structs", typ)
	}
	if f := typ.Elem().Field(0); f.Type.Kind() != reflect.Int64 || f.Tag.Get("json") != "id" {
		t.Errorf("first field %v %q", f.Type, f.Tag)
	}
	if f := typ.Elem().Field(2); f.Type.Kind() != reflect.Struct {
		t.Errorf("nested object typed %v, want a struct", f.Type)
	}
}

func TestValueRefusesWhatAStructCannotName(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{`[{"a\"b":1}]`, `{} {}`, `[`} {
		if _, err := benchfloor.Value([]byte(doc)); err == nil {
			t.Errorf("%s: no error", doc)
		}
	}
}

func TestHandlerSetsTheGivenHeaders(t *testing.T) {
	t.Parallel()
	h, err := benchfloor.Handler([]byte(`[1]`), map[string][]string{
		"Content-Type": {"application/json"}, "X-Total": {"200"}, "Date": {"yesterday"},
	})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	if rec.Header().Get("X-Total") != "200" || rec.Header().Get("Date") != "" {
		t.Errorf("headers %v", rec.Header())
	}
}
