// Package cron reads cron lines and says when they fire next: the one
// parser the fakes share (orchfake's cron_schedule, sourcehostfake's
// pipeline schedules).
package cron

import (
	"errors"
	"fmt"
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
	every                      time.Duration // @every; the fields are unused
	min, hour, dom, month, dow uint64        // bit sets
	domStar, dowStar           bool
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
	c := &Schedule{}
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
	t = t.In(loc).Truncate(time.Minute).Add(time.Minute)
	limit := t.AddDate(5, 0, 0) // a schedule such as "0 0 30 2 *" never fires
	for t.Before(limit) {
		switch {
		case c.month&(1<<uint(t.Month())) == 0:
			t = time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, loc)
		case !c.dayMatches(t):
			t = time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, loc)
		case c.hour&(1<<uint(t.Hour())) == 0:
			t = time.Date(t.Year(), t.Month(), t.Day(), t.Hour()+1, 0, 0, 0, loc)
		case c.min&(1<<uint(t.Minute())) == 0:
			t = t.Add(time.Minute)
		default:
			return t.UTC()
		}
	}
	return time.Time{}
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
