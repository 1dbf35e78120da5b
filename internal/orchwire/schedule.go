package orchwire

import (
	"strconv"
	"strings"

	"github.com/apitwin/apitwin/orch/orchpb"
)

// ScheduleSpecText is a schedule's spec in one line, as orchctl's tables
// and the fake's console both show it: its cron strings, intervals (with
// their phase) and how many calendars, joined by "; ".
func ScheduleSpecText(sp *orchpb.ScheduleSpec) string {
	parts := append([]string(nil), sp.GetCronString()...)
	for _, iv := range sp.GetInterval() {
		p := "every " + iv.GetInterval().AsDuration().String()
		if ph := iv.GetPhase().AsDuration(); ph > 0 {
			p += " +" + ph.String()
		}
		parts = append(parts, p)
	}
	if n := len(sp.GetStructuredCalendar()); n > 0 {
		parts = append(parts, strconv.Itoa(n)+" calendar(s)")
	}
	return strings.Join(parts, "; ")
}

// OverlapPolicyName is an overlap policy's name without its enum prefix
// ("SKIP", "BUFFER_ONE", ...); the unspecified policy is SKIP, the one the
// service applies for it.
func OverlapPolicyName(p orchpb.ScheduleOverlapPolicy) string {
	if p == orchpb.ScheduleOverlapPolicy_SCHEDULE_OVERLAP_POLICY_UNSPECIFIED {
		p = orchpb.ScheduleOverlapPolicy_SCHEDULE_OVERLAP_POLICY_SKIP
	}
	return strings.TrimPrefix(p.String(), "SCHEDULE_OVERLAP_POLICY_")
}
