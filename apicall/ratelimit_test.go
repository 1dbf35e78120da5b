package apicall_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/apitwin/apitwin/apicall"
)

func TestParseRateLimit(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_700_000_000, 0)
	for _, tc := range []struct {
		name string
		h    http.Header
		want apicall.RateLimit
	}{
		{"none", http.Header{}, apicall.RateLimit{}},
		{"x family", http.Header{"X-Ratelimit-Limit": {"600"}, "X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {"1700000060"}, "X-Ratelimit-Scope": {"namespace:default"}},
			apicall.RateLimit{Limit: 600, Remaining: 0, Reset: time.Unix(1_700_000_060, 0), Scope: "namespace:default"}},
		{"gitlab family", http.Header{"Ratelimit-Limit": {"60"}, "Ratelimit-Remaining": {"5"}, "Ratelimit-Reset": {"1700000030"}},
			apicall.RateLimit{Limit: 60, Remaining: 5, Reset: time.Unix(1_700_000_030, 0)}},
		{"reset as delay", http.Header{"Ratelimit-Limit": {"60"}, "Ratelimit-Reset": {"30"}},
			apicall.RateLimit{Limit: 60, Reset: now.Add(30 * time.Second)}},
		{"reset time", http.Header{"Ratelimit-Resettime": {"Tue, 14 Nov 2023 22:14:00 GMT"}},
			apicall.RateLimit{Reset: time.Date(2023, 11, 14, 22, 14, 0, 0, time.UTC)}},
		{"x wins", http.Header{"X-Ratelimit-Limit": {"10"}, "Ratelimit-Limit": {"20"}}, apicall.RateLimit{Limit: 10}},
		{"retry-after", http.Header{"Retry-After": {"120"}}, apicall.RateLimit{RetryAfter: 2 * time.Minute}},
		{"garbage ignored", http.Header{"X-Ratelimit-Limit": {"lots"}, "X-Ratelimit-Reset": {"-4"}, "Retry-After": {"soon"}}, apicall.RateLimit{}},
		{"huge ignored", http.Header{"Retry-After": {"99999999999999999"}, "Ratelimit-Reset": {"999999999"}}, apicall.RateLimit{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := apicall.ParseRateLimit(tc.h, now)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("(-want +got)\n%s", diff)
			}
		})
	}
}

func FuzzParseRateLimit(f *testing.F) {
	f.Add("600", "1700000060", "Tue, 14 Nov 2023 22:14:00 GMT", "30")
	f.Add("-1", "99999999999999999999", "", "Wed, 21 Oct 2015 07:28:00 GMT")
	f.Fuzz(func(t *testing.T, limit, reset, resetTime, retryAfter string) {
		h := http.Header{"X-Ratelimit-Limit": {limit}, "Ratelimit-Reset": {reset}, "Ratelimit-Resettime": {resetTime}, "Retry-After": {retryAfter}}
		rl := apicall.ParseRateLimit(h, time.Unix(1_700_000_000, 0))
		if rl.Limit < 0 || rl.Remaining < 0 || rl.RetryAfter < 0 {
			t.Fatalf("negative values from %v: %+v", h, rl)
		}
	})
}
