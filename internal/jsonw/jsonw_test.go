package jsonw_test

import (
	"encoding/json"
	"testing"

	"github.com/apitwin/apitwin/internal/jsonw"
)

var seeds = []string{
	"", "plain", `"quoted" \ back`, "<b>&amp;</b>", "\n\r\t\b\f\x00\x01\x1f\x7f", "Zèbre 日本 🎉",
	"\u2028\u2029", "bad\xffutf8", "\xe2\x80", "\xed\xa0\x80surrogate", "end\xc3", "a\u2028b<c",
	"\xff\xfe bad", "trunc\xe2\x80", "\xf0\x9f\x98",
}

// AppendString writes what encoding/json writes for every string, after
// what the buffer held.
func TestAppendString(t *testing.T) {
	t.Parallel()
	for _, s := range seeds {
		want, _ := json.Marshal(s)
		if got := jsonw.AppendString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Errorf("AppendString(%q) = %s, want %s", s, got[1:], want)
		}
	}
}

// FuzzAppendString checks the escaping against encoding/json's, alone and
// written in pieces joined by an ASCII byte (AppendEscaped's promise).
func FuzzAppendString(f *testing.F) {
	for _, s := range seeds {
		f.Add(s, "x")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		want, _ := json.Marshal(a)
		if got := jsonw.AppendString(nil, a); string(got) != string(want) {
			t.Fatalf("AppendString(%q) = %s, want %s", a, got, want)
		}
		want, _ = json.Marshal(a + "/" + b)
		got := append(jsonw.AppendEscaped(append(jsonw.AppendEscaped([]byte{'"'}, a), '/'), b), '"')
		if string(got) != string(want) {
			t.Fatalf("%q + / + %q written in pieces = %s, want %s", a, b, got, want)
		}
	})
}

// TestAppendStringEveryByteEverywhere puts each byte value at each place
// of a plain string longer than the eight bytes AppendString checks at
// once, and holds the result to encoding/json.
func TestAppendStringEveryByteEverywhere(t *testing.T) {
	t.Parallel()
	plain := []byte("abcdefghijklmnopqrst")
	for c := range 256 {
		for at := range plain {
			s := []byte(string(plain))
			s[at] = byte(c)
			want, _ := json.Marshal(string(s))
			if got := jsonw.AppendString(nil, string(s)); string(got) != string(want) {
				t.Fatalf("byte %#x at %d: AppendString = %s, want %s", c, at, got, want)
			}
		}
	}
}

// Plain holds exactly the strings AppendEscaped leaves as they are, among
// them each printable ASCII byte JSON does not escape; no byte of 0x80 or
// more, even in valid UTF-8.
func TestPlain(t *testing.T) {
	t.Parallel()
	for c := range 256 {
		s := "ab" + string(rune(c)) + "cd"
		if c >= 0x80 {
			s = "ab" + string([]byte{byte(c)}) + "cd"
		}
		escaped := string(jsonw.AppendEscaped(nil, s)) != s
		if got, want := jsonw.Plain(s), !escaped && c < 0x80; got != want {
			t.Errorf("Plain(%q) = %v, want %v", s, got, want)
		}
	}
	if !jsonw.Plain("") || !jsonw.Plain("http://127.0.0.1:8080/group/sub/shop") || jsonw.Plain("é") {
		t.Error("Plain is wrong on a whole string")
	}
}
