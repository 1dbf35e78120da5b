package rest_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/apitwin/apitwin/internal/rest"
)

func TestParseRateLimit(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_700_000_000, 0)
	for _, tc := range []struct {
		name string
		h    http.Header
		want rest.RateLimit
	}{
		{"none", http.Header{}, rest.RateLimit{}},
		{"x family", http.Header{"X-Ratelimit-Limit": {"600"}, "X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {"1700000060"}, "X-Ratelimit-Scope": {"namespace:default"}},
			rest.RateLimit{Limit: 600, Remaining: 0, Reset: time.Unix(1_700_000_060, 0), Scope: "namespace:default"}},
		{"gitlab family", http.Header{"Ratelimit-Limit": {"60"}, "Ratelimit-Remaining": {"5"}, "Ratelimit-Reset": {"1700000030"}},
			rest.RateLimit{Limit: 60, Remaining: 5, Reset: time.Unix(1_700_000_030, 0)}},
		{"reset as delay", http.Header{"Ratelimit-Limit": {"60"}, "Ratelimit-Reset": {"30"}},
			rest.RateLimit{Limit: 60, Reset: now.Add(30 * time.Second)}},
		{"reset time", http.Header{"Ratelimit-Resettime": {"Tue, 14 Nov 2023 22:14:00 GMT"}},
			rest.RateLimit{Reset: time.Date(2023, 11, 14, 22, 14, 0, 0, time.UTC)}},
		{"x wins", http.Header{"X-Ratelimit-Limit": {"10"}, "Ratelimit-Limit": {"20"}}, rest.RateLimit{Limit: 10}},
		{"retry-after", http.Header{"Retry-After": {"120"}}, rest.RateLimit{RetryAfter: 2 * time.Minute}},
		{"garbage ignored", http.Header{"X-Ratelimit-Limit": {"lots"}, "X-Ratelimit-Reset": {"-4"}, "Retry-After": {"soon"}}, rest.RateLimit{}},
		{"huge ignored", http.Header{"Retry-After": {"99999999999999999"}, "Ratelimit-Reset": {"999999999"}}, rest.RateLimit{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := rest.ParseRateLimit(tc.h, now)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("(-want +got)\n%s", diff)
			}
		})
	}
}

func TestParseLink(t *testing.T) {
	t.Parallel()
	h := `<https://h/api/v4/projects?page=2&per_page=20>; rel="next", <https://h/api/v4/projects?page=1>; rel="first prev",` +
		` <https://h/api/v4/projects?page=5>; rel=last, garbage, <unterminated; rel="x"`
	want := map[string]string{
		"next":  "https://h/api/v4/projects?page=2&per_page=20",
		"first": "https://h/api/v4/projects?page=1",
		"prev":  "https://h/api/v4/projects?page=1",
		"last":  "https://h/api/v4/projects?page=5",
	}
	if diff := cmp.Diff(want, rest.ParseLink(h)); diff != "" {
		t.Fatalf("(-want +got)\n%s", diff)
	}
}

func FuzzParseHeaders(f *testing.F) {
	f.Add("600", "1700000060", "Tue, 14 Nov 2023 22:14:00 GMT", "30", `<https://h/?page=2>; rel="next"`)
	f.Add("-1", "99999999999999999999", "", "Wed, 21 Oct 2015 07:28:00 GMT", "<")
	f.Fuzz(func(t *testing.T, limit, reset, resetTime, retryAfter, link string) {
		h := http.Header{"X-Ratelimit-Limit": {limit}, "Ratelimit-Reset": {reset}, "Ratelimit-Resettime": {resetTime}, "Retry-After": {retryAfter}}
		rl := rest.ParseRateLimit(h, time.Unix(1_700_000_000, 0))
		if rl.Limit < 0 || rl.Remaining < 0 || rl.RetryAfter < 0 {
			t.Fatalf("negative values from %v: %+v", h, rl)
		}
		_ = rest.ParseLink(link)
	})
}
