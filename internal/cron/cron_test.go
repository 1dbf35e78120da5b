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

func TestCalendar(t *testing.T) {
	t.Parallel()
	from := time.Date(2026, 3, 28, 12, 0, 0, 0, time.UTC) // a Saturday
	for _, tc := range []struct {
		name string
		cal  Calendar
		want time.Time
	}{
		{"defaults: midnight", Calendar{}, time.Date(2026, 3, 29, 0, 0, 0, 0, time.UTC)},
		{"seconds", Calendar{Second: []Range{{Start: 30}}, Minute: []Range{{Start: 0, End: 59}}, Hour: []Range{{Start: 12}}},
			time.Date(2026, 3, 28, 12, 0, 30, 0, time.UTC)},
		{"day of month and of week both", Calendar{DayOfMonth: []Range{{Start: 1, End: 7}}, DayOfWeek: []Range{{Start: 1}}},
			time.Date(2026, 4, 6, 0, 0, 0, 0, time.UTC)}, // the first Monday of April
		{"years with a step", Calendar{Year: []Range{{Start: 2026, End: 2030, Step: 2}}, Month: []Range{{Start: 1}}, DayOfMonth: []Range{{Start: 1}}},
			time.Date(2028, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"end below start is start", Calendar{Hour: []Range{{Start: 15, End: 3}}}, time.Date(2026, 3, 28, 15, 0, 0, 0, time.UTC)},
	} {
		s, err := NewCalendar(tc.cal)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := s.Next(from); !got.Equal(tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
		if !s.Matches(tc.want) || s.Matches(tc.want.Add(-time.Second)) {
			t.Errorf("%s: Matches disagrees with Next at %v", tc.name, tc.want)
		}
	}
	for _, bad := range []Calendar{
		{Second: []Range{{Start: 60}}}, {Hour: []Range{{Start: 1, End: 24}}}, {DayOfMonth: []Range{{Start: 0}}},
		{DayOfWeek: []Range{{Start: 7}}}, {Year: []Range{{Start: 1969}}}, {Minute: []Range{{Start: 1, Step: -1}}},
	} {
		if _, err := NewCalendar(bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

// A cron line fires on the minute, whatever second it is asked from.
func TestNextFromMidMinute(t *testing.T) {
	t.Parallel()
	s, err := Parse("*/5 * * * *")
	if err != nil {
		t.Fatal(err)
	}
	from := time.Date(2026, 3, 28, 12, 4, 59, 500, time.UTC)
	if got, want := s.Next(from), time.Date(2026, 3, 28, 12, 5, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("%v, want %v", got, want)
	}
	if !s.Matches(time.Date(2026, 3, 28, 12, 5, 0, 0, time.UTC)) || s.Matches(time.Date(2026, 3, 28, 12, 5, 1, 0, time.UTC)) {
		t.Error("Matches is not to the second")
	}
}
