package sourcehostfake

import (
	"encoding/json"
	"testing"
	"time"
)

// FuzzAppendJoined checks strings written in pieces joined by an ASCII
// byte against encoding/json's escaping of the whole (the escaping itself
// is internal/jsonw's, fuzzed there).
func FuzzAppendJoined(f *testing.F) {
	for _, s := range []string{"", "plain", `"quoted" \back\`, "<b>&amp;</b>", "tab\there\nnew\r\b\f\x00\x1f\x7f",
		"é ü 日本 🚀", "\u2028\u2029", "\xff\xfe bad", "trunc\xe2\x80", "\xf0\x9f\x98"} {
		f.Add(s, "x")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		want, _ := json.Marshal(a + "/" + b)
		if got := appendJoined(nil, a, "/", b); string(got) != string(want) {
			t.Fatalf("appendJoined(%q, /, %q) = %s, want %s", a, b, got, want)
		}
	})
}

// FuzzAppendStamp checks the hand-written time format against stamp's
// MarshalJSON, which formats with the layout.
func FuzzAppendStamp(f *testing.F) {
	f.Add(int64(0), int64(0))
	f.Add(int64(1772600767), int64(89_999_999))
	f.Add(int64(-62135596800), int64(1))   // year 1
	f.Add(int64(253402300799), int64(999)) // the last second of 9999
	f.Add(int64(253402300800), int64(0))   // year 10000
	f.Add(int64(-62167219200-86400), int64(0))
	f.Fuzz(func(t *testing.T, sec, nsec int64) {
		tm := time.Unix(sec, nsec).In(time.FixedZone("x", 5*3600+1800))
		want, err := stamp(tm).MarshalJSON()
		if err != nil {
			t.Skip()
		}
		if got := appendStamp(nil, tm); string(got) != string(want) {
			t.Fatalf("appendStamp(%v) = %s, want %s", tm, got, want)
		}
	})
}
