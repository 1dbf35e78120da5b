package erpfake

import (
	"encoding/json"
	"testing"
)

var jsonStringSeeds = []string{
	"", "plain", `"quoted" \ back`, "<b>&amp;</b>", "\n\r\t\b\f\x00\x01\x1f\x7f", "Zèbre 日本 🎉",
	"\u2028\u2029", "bad\xffutf8", "\xe2\x80", "\xed\xa0\x80surrogate", "end\xc3", "a\u2028b<c",
}

// appendJSONString writes what encoding/json writes for every string.
func TestAppendJSONString(t *testing.T) {
	t.Parallel()
	for _, s := range jsonStringSeeds {
		want, _ := json.Marshal(s)
		if got := appendJSONString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Errorf("appendJSONString(%q) = %s, want %s", s, got[1:], want)
		}
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range jsonStringSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, s); string(got) != string(want) {
			t.Errorf("appendJSONString(%q) = %s, want %s", s, got, want)
		}
	})
}
