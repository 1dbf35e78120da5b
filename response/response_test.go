package response_test

import (
	"context"
	"net/http"
	"testing"

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
