package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

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
