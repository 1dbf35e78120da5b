package ratelimit_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/apitwin/apitwin/ratelimit"
)

func TestParse(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_700_000_000, 0)
	for _, tc := range []struct {
		name string
		h    http.Header
		want ratelimit.Status
	}{
		{"none", http.Header{}, ratelimit.Status{}},
		{"x family", http.Header{"X-Ratelimit-Limit": {"600"}, "X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {"1700000060"}, "X-Ratelimit-Scope": {"namespace:default"}},
			ratelimit.Status{Limit: 600, Remaining: 0, Reset: time.Unix(1_700_000_060, 0), Scope: "namespace:default"}},
		{"gitlab family", http.Header{"Ratelimit-Limit": {"60"}, "Ratelimit-Remaining": {"5"}, "Ratelimit-Reset": {"1700000030"}},
			ratelimit.Status{Limit: 60, Remaining: 5, Reset: time.Unix(1_700_000_030, 0)}},
		{"reset as delay", http.Header{"Ratelimit-Limit": {"60"}, "Ratelimit-Reset": {"30"}},
			ratelimit.Status{Limit: 60, Reset: now.Add(30 * time.Second)}},
		{"reset time", http.Header{"Ratelimit-Resettime": {"Tue, 14 Nov 2023 22:14:00 GMT"}},
			ratelimit.Status{Reset: time.Date(2023, 11, 14, 22, 14, 0, 0, time.UTC)}},
		{"x wins", http.Header{"X-Ratelimit-Limit": {"10"}, "Ratelimit-Limit": {"20"}}, ratelimit.Status{Limit: 10}},
		{"retry-after", http.Header{"Retry-After": {"120"}}, ratelimit.Status{RetryAfter: 2 * time.Minute}},
		{"garbage ignored", http.Header{"X-Ratelimit-Limit": {"lots"}, "X-Ratelimit-Reset": {"-4"}, "Retry-After": {"soon"}}, ratelimit.Status{}},
		{"huge ignored", http.Header{"Retry-After": {"99999999999999999"}, "Ratelimit-Reset": {"999999999"}}, ratelimit.Status{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ratelimit.Parse(tc.h, now)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("(-want +got)\n%s", diff)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add("600", "1700000060", "Tue, 14 Nov 2023 22:14:00 GMT", "30")
	f.Add("-1", "99999999999999999999", "", "Wed, 21 Oct 2015 07:28:00 GMT")
	f.Fuzz(func(t *testing.T, limit, reset, resetTime, retryAfter string) {
		h := http.Header{"X-Ratelimit-Limit": {limit}, "Ratelimit-Reset": {reset}, "Ratelimit-Resettime": {resetTime}, "Retry-After": {retryAfter}}
		rl := ratelimit.Parse(h, time.Unix(1_700_000_000, 0))
		if rl.Limit < 0 || rl.Remaining < 0 || rl.RetryAfter < 0 {
			t.Fatalf("negative values from %v: %+v", h, rl)
		}
	})
}
