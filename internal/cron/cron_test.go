package cron

import (
	"testing"
	"time"
)

func TestNextIn(t *testing.T) {
	t.Parallel()
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no time zone data:", err)
	}
	from := time.Date(2026, 3, 28, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		spec string
		loc  *time.Location
		want time.Time
	}{
		{"0 * * * *", time.UTC, time.Date(2026, 3, 28, 13, 0, 0, 0, time.UTC)},
		{"30 12 * * *", berlin, time.Date(2026, 3, 29, 10, 30, 0, 0, time.UTC)}, // 12:30 CEST the next day: 12:30 CET today has passed
		{"30 2 * * *", berlin, time.Date(2026, 3, 30, 0, 30, 0, 0, time.UTC)},   // 02:30 does not exist on the 29th (the clocks go forward)
		{"@daily", time.UTC, time.Date(2026, 3, 29, 0, 0, 0, 0, time.UTC)},
		{"0 0 30 2 *", time.UTC, time.Time{}}, // never
	} {
		s, err := Parse(tc.spec)
		if err != nil {
			t.Fatalf("%q: %v", tc.spec, err)
		}
		if got := s.NextIn(from, tc.loc); !got.Equal(tc.want) {
			t.Errorf("%q in %s: %v, want %v", tc.spec, tc.loc, got, tc.want)
		}
	}
	for _, bad := range []string{"", "* * * *", "60 * * * *", "*/0 * * * *", "@often", "@every 1ms"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"0 * * * *", "*/5 1-3,7 * 1 0", "@every 1h", "@weekly"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		s, err := Parse(spec)
		if err != nil {
			return
		}
		from := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		if next := s.Next(from); !next.IsZero() && !next.After(from) {
			t.Fatalf("%q: next %v is not after %v", spec, next, from)
		}
	})
}
