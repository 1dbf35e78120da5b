package jsonw_test

import (
	"testing"
	"time"

	"github.com/apitwin/apitwin/internal/jsonw"
)

// FuzzAppendTimeMillis checks the written time against the layout's, in
// any zone, for every second (years before 0 and after 9999 included,
// which go through the layout).
func FuzzAppendTimeMillis(f *testing.F) {
	f.Add(int64(0), int64(0))
	f.Add(int64(1772600767), int64(89_999_999))
	f.Add(int64(-62135596800), int64(1))   // year 1
	f.Add(int64(-62167219200), int64(0))   // year 0
	f.Add(int64(-62167219201), int64(0))   // the last second of year -1
	f.Add(int64(253402300799), int64(999)) // the last second of 9999
	f.Add(int64(253402300800), int64(0))   // year 10000
	f.Add(int64(951782400), int64(0))      // 2000-02-29
	f.Add(int64(-2203891200), int64(0))    // 1900-03-01
	f.Add(int64(-1), int64(999_999_999))
	f.Fuzz(func(t *testing.T, sec, nsec int64) {
		tm := time.Unix(sec, nsec).In(time.FixedZone("x", 5*3600+1800))
		want := `"` + tm.UTC().Format(jsonw.LayoutMillis) + `"`
		if got := jsonw.AppendTimeMillis(nil, tm); string(got) != want {
			t.Fatalf("AppendTimeMillis(%v) = %s, want %s", tm, got, want)
		}
	})
}

// TestAppendTimeMillisAcrossYears writes every 97th day of years -1 to
// 10000 (so every day of the month and every month, leap days among them,
// over the centuries) at a time of day that changes with it, against the
// layout.
func TestAppendTimeMillisAcrossYears(t *testing.T) {
	t.Parallel()
	start := time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)
	end := time.Date(10001, 1, 1, 0, 0, 0, 0, time.UTC)
	var b []byte
	for d, i := start, int64(0); d.Before(end); d, i = d.AddDate(0, 0, 97), i+1 {
		tm := d.Add(time.Duration(i*7919%86400) * time.Second).Add(time.Duration(i%1000) * time.Millisecond)
		b = jsonw.AppendTimeMillis(b[:0], tm)
		if want := `"` + tm.Format(jsonw.LayoutMillis) + `"`; string(b) != want {
			t.Fatalf("AppendTimeMillis(%v) = %s, want %s", tm, b, want)
		}
	}
}

// BenchmarkAppendTimeMillis is one time written, as a list writes each
// record's created_at and updated_at.
func BenchmarkAppendTimeMillis(b *testing.B) {
	tm := time.Date(2026, 3, 4, 5, 6, 7, 89_000_000, time.UTC)
	buf := make([]byte, 0, 64)
	b.ReportAllocs()
	for b.Loop() {
		buf = jsonw.AppendTimeMillis(buf[:0], tm)
	}
}
