package response_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/ratelimit"
	"github.com/apitwin/apitwin/response"
)

func TestCaptureAndFrom(t *testing.T) {
	t.Parallel()
	if response.From(context.Background()) != nil {
		t.Fatal("a context without a capture has one")
	}
	var info response.Info
	ctx := response.Capture(context.Background(), &info)
	if response.From(ctx) != &info {
		t.Fatal("From does not give the captured Info")
	}
	inner := response.Capture(ctx, new(response.Info))
	if response.From(inner) == &info {
		t.Fatal("an inner capture does not win")
	}
}

func TestRequestID(t *testing.T) {
	t.Parallel()
	for h, want := range map[*http.Header]string{
		{"X-Request-Id": {"a"}, "X-Correlation-Id": {"b"}}: "a",
		{"X-Correlation-Id": {"b"}}:                        "b",
		{}:                                                 "",
	} {
		if got := response.RequestID(*h); got != want {
			t.Errorf("%v: %q, want %q", *h, got, want)
		}
	}
}

// Printing an Info in any verb hides the values of credential headers (an
// answer's Set-Cookie can be the client's session) and shows the rest;
// the Header field keeps every value.
func TestInfoPrintsNoCredential(t *testing.T) {
	t.Parallel()
	const session = "sid=s3ss10n-value"
	info := response.Info{
		StatusCode: 200,
		Header:     http.Header{"Set-Cookie": {session + "; Path=/"}, "X-Request-Id": {"req-7"}},
		RateLimit:  ratelimit.Status{Limit: 60, Remaining: 59},
		RequestID:  "req-7",
		Retries:    1,
	}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		for _, v := range []any{info, &info} {
			out := fmt.Sprintf(verb, v)
			if strings.Contains(out, "s3ss10n") {
				t.Errorf("%s of %T prints the session: %s", verb, v, out)
			}
			if !strings.Contains(out, "req-7") || !strings.Contains(out, "200") || !strings.Contains(out, "59") {
				t.Errorf("%s of %T lost the rest: %s", verb, v, out)
			}
		}
	}
	if got := info.Header.Get("Set-Cookie"); got != session+"; Path=/" {
		t.Errorf("the Header field changed: %q", got)
	}
}
