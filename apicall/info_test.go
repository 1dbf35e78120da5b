package apicall_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/apicall"
	"github.com/apitwin/apitwin/internal/leaktest"
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
	leaktest.NoSecretIn(t, "the info", info, "s3ss10n")
	leaktest.NoSecretIn(t, "the info's pointer", &info, "s3ss10n")
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		for _, v := range []any{info, &info} {
			out := fmt.Sprintf(verb, v)
			if !strings.Contains(out, "req-7") || !strings.Contains(out, "200") || !strings.Contains(out, "59") {
				t.Errorf("%s of %T lost the rest: %s", verb, v, out)
			}
		}
	}
	// A log keeps the rest, the cookie's name and the marker.
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("call", "info", info)
	for _, want := range []string{`"StatusCode":200`, `"Set-Cookie":["sid=[REDACTED]"]`, `"Remaining":59`, `"RequestID":"req-7"`, `"Retries":1`} {
		if !strings.Contains(logged.String(), want) {
			t.Errorf("the log line lost %s: %s", want, logged.String())
		}
	}
	if got := info.Header.Get("Set-Cookie"); got != session+"; Path=/" {
		t.Errorf("the Header field changed: %q", got)
	}
}
