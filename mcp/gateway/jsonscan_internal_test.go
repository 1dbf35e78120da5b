package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/apitwin/apitwin/internal/mcpwire"
	"github.com/apitwin/apitwin/mcp"
)

// decodeMessageMap is decodeMessage as it was, through a map of the
// members: the reference the walk without a map must match.
func decodeMessageMap(raw json.RawMessage) message {
	invalid := func(id json.RawMessage) message {
		return message{id: id, invalid: true, err: newError(mcp.CodeInvalidRequest, nil)}
	}
	var obj map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &obj) != nil {
		return invalid(nil)
	}
	m := message{raw: raw}
	if id, ok := obj["id"]; ok {
		if !validID(id) {
			return invalid(nil)
		}
		m.id = id
	}
	var version string
	if v, ok := obj["jsonrpc"]; !ok || json.Unmarshal(v, &version) != nil || version != mcpwire.Version {
		return invalid(m.id)
	}
	method, ok := obj["method"]
	if !ok || len(method) == 0 || method[0] != '"' || json.Unmarshal(method, &m.method) != nil {
		return invalid(m.id)
	}
	if p, ok := obj["params"]; ok {
		switch p[0] {
		case '{':
			m.params = p
		case '[':
			m.err = paramError("params", "must be an object: params are taken by name, not by position")
		default:
			return invalid(m.id)
		}
	}
	return m
}

var messageSeeds = []string{
	`{"jsonrpc":"2.0","method":"list_projects","id":1}`,
	` { "jsonrpc" : "2.0" , "method" : "get_project" , "params" : { "project_id" : 1 , "cache" : true } , "id" : "a" } `,
	`{"jsonrpc":"2.0","method":"x","params":[1],"id":null}`,
	`{"jsonrpc":"2.0","method":"x","params":3,"id":1}`,
	`{"jsonrpc":"2.0","method":"x","params":null,"id":1}`,
	`{"jsonrpc":"2.0","method":"x","id":{"a":1}}`,
	`{"jsonrpc":"2.0","method":"x","id":true}`,
	`{"jsonrpc":"2.0","method":"x","id":-1.5e3}`,
	`{"jsonrpc":"2.0","method":"x","id":1,"id":2}`,
	`{"jsonrpc":"2.0","method":"x","\u0069d":7}`,
	`{"jsonrpc":"2.0","method":"x","id":1,"\u0069d":"b"}`,
	`{"jsonrpc":"2\u002e0","method":"x","id":1}`,
	`{"jsonrpc":"2.0 ","method":"x","id":1}`,
	`{"jsonrpc":2.0,"method":"x","id":1}`,
	`{"method":"x","id":1}`,
	`{"jsonrpc":"2.0","id":1}`,
	`{"jsonrpc":"2.0","method":1,"id":1}`,
	`{"jsonrpc":"2.0","method":null,"id":1}`,
	`{"jsonrpc":"2.0","method":"li\u0073t_projects","id":1}`,
	`{"jsonrpc":"2.0","method":"caf\u00e9","id":1}`,
	"{\"jsonrpc\":\"2.0\",\"method\":\"caf\xc3\xa9\",\"id\":1}",
	"{\"jsonrpc\":\"2.0\",\"method\":\"bad\xff\",\"id\":1}",
	"{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"id\":\"bad\xff\"}",
	`{"jsonrpc":"2.0","method":"x\"y","id":"q\"}{"}`,
	`{"Jsonrpc":"2.0","METHOD":"x","Id":1}`,
	`{"jsonrpc":"2.0","method":"x","params":{"a":[1,{"b":"]}"}],"c":"\\"},"id":1}`,
	`{}`, `[]`, `1`, `"x"`, `null`, `{"":1}`,
	"{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"id\":1}\n\t ",
}

// The walk without a map answers every element as the map did.
func TestDecodeMessageFast(t *testing.T) {
	for _, s := range messageSeeds {
		checkDecodeMessage(t, []byte(s))
	}
}

func FuzzDecodeMessage(f *testing.F) {
	for _, s := range messageSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkDecodeMessage(t, b) })
}

func checkDecodeMessage(t *testing.T, b []byte) {
	t.Helper()
	raw := bytes.TrimLeft(b, " \t\r\n")
	if !json.Valid(raw) { // decodeBody refuses it before
		return
	}
	got, want := decodeMessage(raw), decodeMessageMap(raw)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got %+v\nwant %+v", b, got, want)
	}
}

var paramsSeeds = []string{
	`{"project_id":1}`, `{"project_id":1,"cache":true,"cache_ttl":60}`, `{}`, `{"project_id":null}`,
	`{"project_id":"1"}`, `{"project_id":1.5}`, `{"project_id":0}`, `{"projectid":1}`,
	`{"project_id":1,"project_id":"x"}`, `{"project_id":"x","project_id":1}`,
	`{"\u0070roject_id":1}`, `{"project_id":1,"\u0070roject_id":"x"}`, "{\"caf\xc3\xa9\":1}", "{\"bad\xff\":1}",
	`{"title":"","project_id":1}`, `{"title":" x ","project_id":1,"labels":["a","b"]}`, `{"labels":"a"}`,
	`{"state":"opened","project_id":1}`, `{"state":"nope","project_id":1}`, `{"events":["push","wiki"],"url":"http://x","project_id":2}`,
	`{"events":["nope"]}`, `{"variables":{"a":"b"},"ref":"main","project_id":1}`, `{"variables":{"a":1}}`,
	`{"page":1,"per_page":101}`, `{"cache":"yes"}`, `{ "project_id" : 7 , "cache" : null }`, `[1]`, `null`, `1`, `"x"`,
}

// checkParams without a map answers as it did with one.
func TestCheckParamsFast(t *testing.T) {
	for _, s := range paramsSeeds {
		checkCheckParams(t, []byte(s))
	}
}

func FuzzCheckParams(f *testing.F) {
	for _, s := range paramsSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkCheckParams(t, b) })
}

func checkCheckParams(t *testing.T, raw []byte) {
	t.Helper()
	if !json.Valid(raw) {
		return
	}
	for _, tl := range toolList() {
		got := checkParams(raw, tl.params)
		// With several bad params the map answers one of them at random:
		// the answer must be one it gives.
		var wants []*mcp.Error
		for range 500 {
			w := checkParamsMap(raw, tl.params)
			if got == nil && w == nil || got != nil && w != nil && reflect.DeepEqual(*got, *w) {
				wants = nil
				break
			}
			wants = append(wants, w)
		}
		if wants != nil {
			t.Errorf("%s, %s: got %+v, the map answers %+v", tl.name, raw, got, wants[0])
		}
	}
}

// readAll reads what io.ReadAll reads, whatever the size it is told, and
// fails as it fails past a MaxBytesReader's bound.
func TestReadAll(t *testing.T) {
	for _, n := range []int{0, 1, 511, 512, 513, 4096, 70 << 10} {
		data := bytes.Repeat([]byte("0123456789abcdef"), n/16+1)[:n]
		for _, size := range []int64{-1, 0, 1, int64(n) - 1, int64(n), int64(n) + 1, 1 << 30} {
			got, err := readAll(iotest.OneByteReader(bytes.NewReader(data)), size)
			if err != nil || !bytes.Equal(got, data) {
				t.Errorf("%d bytes, told %d: %d bytes, %v", n, size, len(got), err)
			}
			got, err = readAll(bytes.NewReader(data), size)
			if err != nil || !bytes.Equal(got, data) {
				t.Errorf("%d bytes, told %d, whole reads: %d bytes, %v", n, size, len(got), err)
			}
		}
	}
	rec := httptest.NewRecorder()
	_, err := readAll(http.MaxBytesReader(rec, io.NopCloser(strings.NewReader(strings.Repeat("x", 100))), 99), 100)
	if tooBig := (*http.MaxBytesError)(nil); !errors.As(err, &tooBig) {
		t.Errorf("past the bound: %v, want a *http.MaxBytesError", err)
	}
}
