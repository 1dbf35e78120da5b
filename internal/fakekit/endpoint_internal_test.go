package fakekit

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestStartTLSQuietDiscardsErrorLog: StartTLSQuiet silences the server's
// error log (refused handshakes); StartTLS keeps the default one.
func TestStartTLSQuietDiscardsErrorLog(t *testing.T) {
	t.Parallel()
	var quiet, loud Endpoint
	quiet.StartTLSQuiet(t, http.NotFoundHandler())
	loud.StartTLS(t, http.NotFoundHandler())
	if l := quiet.test.Config.ErrorLog; l == nil || l.Writer() != io.Discard {
		t.Fatalf("StartTLSQuiet error log = %v", l)
	}
	if l := loud.test.Config.ErrorLog; l != nil {
		t.Fatalf("StartTLS error log = %v, want the default", l)
	}
}

// deadlineWriter is a writer that takes deadlines, as a server's
// connection does.
type deadlineWriter struct{ http.ResponseWriter }

func (deadlineWriter) SetWriteDeadline(time.Time) error { return nil }

type wrapping struct{ http.ResponseWriter }

func (w wrapping) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func TestHasDeadlinesLooksThroughWrappers(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	for _, c := range []struct {
		w    http.ResponseWriter
		want bool
	}{
		{rec, false},
		{wrapping{rec}, false},
		{deadlineWriter{rec}, true},
		{wrapping{wrapping{deadlineWriter{rec}}}, true},
	} {
		if got := hasDeadlines(c.w); got != c.want {
			t.Errorf("hasDeadlines(%T) = %v, want %v", c.w, got, c.want)
		}
	}
}
