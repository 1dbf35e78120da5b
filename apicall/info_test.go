package apicall_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/apicall"
)

func TestCaptureAndFrom(t *testing.T) {
	t.Parallel()
	if apicall.From(context.Background()) != nil {
		t.Fatal("a context without a capture has one")
	}
	var info apicall.Info
	ctx := apicall.Capture(context.Background(), &info)
	if apicall.From(ctx) != &info {
		t.Fatal("From does not give the captured Info")
	}
	inner := apicall.Capture(ctx, new(apicall.Info))
	if apicall.From(inner) == &info {
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
		if got := apicall.RequestID(*h); got != want {
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
	info := apicall.Info{
		StatusCode: 200,
		Header:     http.Header{"Set-Cookie": {session + "; Path=/"}, "X-Request-Id": {"req-7"}},
		RateLimit:  apicall.RateLimit{Limit: 60, Remaining: 59},
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
