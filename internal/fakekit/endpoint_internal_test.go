package fakekit

import (
	"errors"
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

func TestHandlerTransportTurnsADroppedConnectionIntoAnError(t *testing.T) {
	t.Parallel()
	for name, h := range map[string]http.HandlerFunc{
		"drop":  func(w http.ResponseWriter, _ *http.Request) { dropConnection(w) },
		"abort": func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) },
	} {
		c := &http.Client{Transport: HandlerTransport{Handler: h}}
		resp, err := c.Get("http://fake.invalid/")
		if err == nil {
			resp.Body.Close()
			t.Errorf("%s: an answer (%d), want an error", name, resp.StatusCode)
		} else if !errors.Is(err, errAborted) {
			t.Errorf("%s: %v", name, err)
		}
	}
	c := &http.Client{Transport: HandlerTransport{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "ok")
	})}}
	resp, err := c.Get("http://fake.invalid/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if b, _ := io.ReadAll(resp.Body); string(b) != "ok" {
		t.Errorf("answer %q", b)
	}
}
