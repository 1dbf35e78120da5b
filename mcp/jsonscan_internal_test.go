package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// decodeMessageMap is decodeMessage as it was, through a map of the
// members: the reference the walk without a map must match.
func decodeMessageMap(raw json.RawMessage) message {
	invalid := func(id json.RawMessage) message {
		return message{id: id, invalid: true, err: newError(CodeInvalidRequest, nil)}
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
	if v, ok := obj["jsonrpc"]; !ok || json.Unmarshal(v, &version) != nil || version != jsonrpcVersion {
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
		var wants []*Error
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

var answerSeeds = []string{
	`{"jsonrpc":"2.0","result":{"id":7,"name":"shop","statistics":{"commit_count":3}},"id":12}`,
	`{"jsonrpc":"2.0","result":{"id":7},"id":13}`,
	`{"jsonrpc":"2.0","result":{"id":"7"},"id":12}`,
	`{"jsonrpc":"2.0","result":null,"id":12}`,
	`{"jsonrpc":"2.0","result":[1],"id":12}`,
	`{"jsonrpc":"2.0","error":{"code":-32000,"message":"x","data":{"status":404}},"id":12}`,
	`{"jsonrpc":"2.0","error":null,"result":{"id":1},"id":12}`,
	`{"jsonrpc":"2.0","result":{"id":1},"error":{"code":1,"message":"m"},"id":12}`,
	`{"jsonrpc":"2.0","Result":{"id":1},"id":12}`,
	`{"jsonrpc":"2.0","result":{"id":1},"result":{"id":2},"id":12}`,
	`{"jsonrpc":"2.0","result":{"id":1},"ID":12}`,
	`{"jsonrpc":"2.0","result":{"id":1},"id":12,"extra":true}`,
	`{"jsonrpc":"2.0","result":{"id":1}}`,
	`{"jsonrpc":"2.0","id":12}`,
	`{"jsonrpc":"2.0","r\u0065sult":{"id":1},"id":12}`,
	"{\"jsonrpc\":\"2.0\",\"result\":{\"id\":1},\"id\":12}\n",
	`{"jsonrpc":"2.0","result":{"id":1},"id":12} x`,
	`[{"jsonrpc":"2.0","result":{"id":1},"id":12}]`, ``, `null`, `{`,
}

// decodeAnswer answers as the struct did, and leaves the same result.
func TestDecodeAnswerFast(t *testing.T) {
	for _, s := range answerSeeds {
		checkDecodeAnswer(t, []byte(s))
	}
}

func FuzzDecodeAnswer(f *testing.F) {
	for _, s := range answerSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkDecodeAnswer(t, b) })
}

func checkDecodeAnswer(t *testing.T, b []byte) {
	t.Helper()
	for _, id := range []int64{12, 0} {
		var got, want ProjectDetail
		gerr, werr := decodeAnswer(b, id, &got), decodeAnswerStruct(b, id, &want)
		if fmt.Sprint(gerr) != fmt.Sprint(werr) || !reflect.DeepEqual(got, want) {
			t.Errorf("%s (id %d):\n got %v %+v\nwant %v %+v", b, id, gerr, got, werr, want)
		}
		var graw, wraw json.RawMessage
		gerr, werr = decodeAnswer(b, id, &graw), decodeAnswerStruct(b, id, &wraw)
		if fmt.Sprint(gerr) != fmt.Sprint(werr) || !bytes.Equal(graw, wraw) {
			t.Errorf("%s (id %d), raw:\n got %v %s\nwant %v %s", b, id, gerr, graw, werr, wraw)
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

// encodeRequest writes json.Marshal's bytes of the wireRequest.
func TestEncodeRequest(t *testing.T) {
	id := int64(-42)
	big := int64(1) << 62
	for _, method := range []string{"get_project", "tools/call", "x<y", `q"`, "caf\u00e9", "a\tb", "a&b", "\x7f"} {
		for _, params := range []any{nil, (*GetProjectParams)(nil), &GetProjectParams{ProjectID: 7, CacheOptions: CacheOptions{CacheTTL: 60}},
			map[string]any{"html": "<a href=\"x\">&</a>", "u": "\u2028", "n": nil}, &CreateIssueParams{ProjectID: 1, Title: "x > y", Labels: []string{"a&b"}}} {
			for _, i := range []*int64{nil, &id, &big} {
				got, gerr := encodeRequest(method, params, i)
				r, werr := newWireRequest(method, params, i)
				var want []byte
				if werr == nil {
					want, werr = json.Marshal(r)
				}
				if !bytes.Equal(got, want) || fmt.Sprint(gerr) != fmt.Sprint(werr) {
					t.Errorf("%q %#v %v:\n got %s %v\nwant %s %v", method, params, i, got, gerr, want, werr)
				}
			}
		}
	}
}
