// Package cron reads cron lines and says when they fire next: the one
// parser the fakes share (orchfake's cron_schedule and schedules' cron
// strings, sourcehostfake's pipeline schedules). [NewCalendar] builds the
// same kind of schedule from structured ranges (orchfake's schedule
// calendars), to the second and the year.
package cron

import (
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"time"
)

// Schedule is a parsed cron line: five fields (minute hour
// day-of-month month day-of-week, each *, a number, a range a-b, a list
// a,b and steps /n), or a descriptor (@every <duration>, @hourly, @daily,
// @midnight, @weekly, @monthly, @yearly, @annually). Next reads it in
// UTC, NextIn in a time zone.
type Schedule struct {
	every                           time.Duration // @every; the fields are unused
	sec, min, hour, dom, month, dow uint64        // bit sets
	domStar, dowStar                bool
	years                           []Range // nil: every year
}

var cronDescriptors = map[string]string{
	"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
	"@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
}

// Parse reads a schedule; an error says what is wrong with it.
func Parse(spec string) (*Schedule, error) {
	spec = strings.TrimSpace(spec)
	if d, ok := strings.CutPrefix(spec, "@every "); ok {
		every, err := time.ParseDuration(strings.TrimSpace(d))
		if err != nil || every < time.Second {
			return nil, fmt.Errorf("@every needs a duration of at least 1s, such as \"@every 1h30m\"")
		}
		return &Schedule{every: every}, nil
	}
	if strings.HasPrefix(spec, "@") {
		full, ok := cronDescriptors[spec]
		if !ok {
			return nil, fmt.Errorf("unknown descriptor %q (want @every <duration>, @hourly, @daily, @weekly, @monthly or @yearly)", spec)
		}
		spec = full
	}
	fields := strings.Fields(spec)
	if len(fields) != 5 {
		return nil, fmt.Errorf("want 5 fields (minute hour day-of-month month day-of-week), got %d", len(fields))
	}
	c := &Schedule{sec: 1} // a cron line fires at second 0
	var err error
	bounds := [5][2]int{{0, 59}, {0, 23}, {1, 31}, {1, 12}, {0, 7}}
	names := [5]string{"minute", "hour", "day-of-month", "month", "day-of-week"}
	sets := [5]*uint64{&c.min, &c.hour, &c.dom, &c.month, &c.dow}
	for i, f := range fields {
		if *sets[i], err = cronField(f, bounds[i][0], bounds[i][1]); err != nil {
			return nil, fmt.Errorf("%s field %q: %v", names[i], f, err)
		}
	}
	if c.dow&(1<<7) != 0 { // 7 is Sunday too
		c.dow |= 1
	}
	c.domStar, c.dowStar = fields[2] == "*" || strings.HasPrefix(fields[2], "*/"), fields[4] == "*" || strings.HasPrefix(fields[4], "*/")
	return c, nil
}

func cronField(f string, lo, hi int) (uint64, error) {
	var set uint64
	for _, part := range strings.Split(f, ",") {
		rng, stepText, hasStep := strings.Cut(part, "/")
		step := 1
		if hasStep {
			n, err := strconv.Atoi(stepText)
			if err != nil || n <= 0 {
				return 0, errors.New("a step must be a positive number")
			}
			step = n
		}
		a, b := lo, hi
		if rng != "*" {
			from, to, isRange := strings.Cut(rng, "-")
			var err error
			if a, err = strconv.Atoi(from); err != nil {
				return 0, errors.New("not a number, range, list or *")
			}
			b = a
			if isRange {
				if b, err = strconv.Atoi(to); err != nil {
					return 0, errors.New("not a number, range, list or *")
				}
			} else if hasStep {
				b = hi
			}
		}
		if a < lo || b > hi || a > b {
			return 0, fmt.Errorf("out of range %d-%d", lo, hi)
		}
		for v := a; v <= b; v += step {
			set |= 1 << v
		}
	}
	return set, nil
}

// Next is the first time strictly after t the schedule fires, in UTC;
// zero when it never does (within five years).
func (c *Schedule) Next(t time.Time) time.Time { return c.NextIn(t, time.UTC) }

// NextIn is the first time strictly after t the schedule fires, its
// fields read as wall-clock times in loc (a time that does not exist
// there, in a daylight-saving gap, is skipped); zero when it never does
// (within five years).
func (c *Schedule) NextIn(t time.Time, loc *time.Location) time.Time {
	if c.every > 0 {
		// @every runs on multiples of the interval since the epoch, as
		// Temporal aligns it, so runs do not drift with their own length.
		n := t.UnixNano()/int64(c.every) + 1
		return time.Unix(0, n*int64(c.every)).UTC()
	}
	t = t.In(loc).Truncate(time.Second).Add(time.Second)
	limit := t.AddDate(5, 0, 0) // a schedule such as "0 0 30 2 *" never fires
	for t.Before(limit) {
		switch {
		case !c.yearMatches(t.Year()):
			t = time.Date(t.Year()+1, 1, 1, 0, 0, 0, 0, loc)
		case c.month&(1<<uint(t.Month())) == 0:
			t = time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, loc)
		case !c.dayMatches(t):
			t = time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, loc)
		case c.hour&(1<<uint(t.Hour())) == 0:
			t = time.Date(t.Year(), t.Month(), t.Day(), t.Hour()+1, 0, 0, 0, loc)
		case c.min&(1<<uint(t.Minute())) == 0:
			t = t.Truncate(time.Minute).Add(time.Minute)
		case c.sec&(1<<uint(t.Second())) == 0:
			// the next second of the set in this minute, else the next minute
			if later := c.sec >> uint(t.Second()+1); later != 0 {
				t = t.Add(time.Duration(bits.TrailingZeros64(later)+1) * time.Second)
			} else {
				t = t.Truncate(time.Minute).Add(time.Minute)
			}
		default:
			return t.UTC()
		}
	}
	return time.Time{}
}

// Matches reports whether the schedule fires at t (in UTC), to the
// second.
func (c *Schedule) Matches(t time.Time) bool {
	if c.every > 0 {
		return t.UnixNano()%int64(c.every) == 0
	}
	t = t.UTC()
	return t.Nanosecond() == 0 && c.yearMatches(t.Year()) && c.month&(1<<uint(t.Month())) != 0 && c.dayMatches(t) &&
		c.hour&(1<<uint(t.Hour())) != 0 && c.min&(1<<uint(t.Minute())) != 0 && c.sec&(1<<uint(t.Second())) != 0
}

func (c *Schedule) yearMatches(y int) bool {
	if c.years == nil {
		return true
	}
	for _, r := range c.years {
		if y >= r.Start && y <= r.End && (y-r.Start)%r.Step == 0 {
			return true
		}
	}
	return false
}

// Range is the values Start to End inclusive, every Step: an End below
// Start means Start alone, a Step of 0 means 1.
type Range struct{ Start, End, Step int }

// Calendar is a schedule in structured ranges, Temporal's structured
// calendar spec: a time matches when each of its fields is in one of the
// field's ranges. An empty Second, Minute or Hour means 0; an empty
// DayOfMonth, Month, Year or DayOfWeek means any. DayOfWeek is 0 (Sunday)
// to 6. Unlike a cron line, day of month and day of week must both match.
type Calendar struct {
	Second, Minute, Hour, DayOfMonth, Month, Year, DayOfWeek []Range
}

// MaxYear bounds a calendar's years.
const MaxYear = 9999

// NewCalendar builds the schedule of c; an error names the field and range
// that is out of bounds.
func NewCalendar(c Calendar) (*Schedule, error) {
	sch := &Schedule{domStar: true, dowStar: true}
	type field struct {
		name   string
		ranges []Range
		lo, hi int
		def    []Range
		set    *uint64
	}
	fields := []field{
		{"second", c.Second, 0, 59, []Range{{0, 0, 1}}, &sch.sec},
		{"minute", c.Minute, 0, 59, []Range{{0, 0, 1}}, &sch.min},
		{"hour", c.Hour, 0, 23, []Range{{0, 0, 1}}, &sch.hour},
		{"day_of_month", c.DayOfMonth, 1, 31, []Range{{1, 31, 1}}, &sch.dom},
		{"month", c.Month, 1, 12, []Range{{1, 12, 1}}, &sch.month},
		{"day_of_week", c.DayOfWeek, 0, 6, []Range{{0, 6, 1}}, &sch.dow},
	}
	for _, f := range fields {
		rs := f.ranges
		if len(rs) == 0 {
			rs = f.def
		}
		for _, r := range rs {
			r, err := normalRange(f.name, r, f.lo, f.hi)
			if err != nil {
				return nil, err
			}
			for v := r.Start; v <= r.End; v += r.Step {
				*f.set |= 1 << uint(v)
			}
		}
	}
	for _, r := range c.Year {
		r, err := normalRange("year", r, 1970, MaxYear)
		if err != nil {
			return nil, err
		}
		sch.years = append(sch.years, r)
	}
	return sch, nil
}

func normalRange(name string, r Range, lo, hi int) (Range, error) {
	if r.End < r.Start {
		r.End = r.Start
	}
	if r.Step == 0 {
		r.Step = 1
	}
	if r.Step < 0 {
		return r, fmt.Errorf("%s: step %d is negative", name, r.Step)
	}
	if r.Start < lo || r.End > hi {
		return r, fmt.Errorf("%s: range %d-%d is outside %d-%d", name, r.Start, r.End, lo, hi)
	}
	return r, nil
}

// dayMatches: day-of-month and day-of-week, either one when both are
// restricted (cron's rule).
func (c *Schedule) dayMatches(t time.Time) bool {
	dom := c.dom&(1<<uint(t.Day())) != 0
	dow := c.dow&(1<<uint(t.Weekday())) != 0
	if c.domStar || c.dowStar {
		return dom && dow
	}
	return dom || dow
}
