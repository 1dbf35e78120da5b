package fakekit

import (
	"io"
	"net/http"
	"testing"
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
