package fakekit

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"syscall"
	"testing"
)

// Start serves h on a loopback httptest server that closes when the test
// ends.
func Start(tb testing.TB, h http.Handler) *httptest.Server {
	tb.Helper()
	s := httptest.NewServer(h)
	tb.Cleanup(s.Close)
	return s
}

// StartTLS is Start over TLS with httptest's self-signed certificate; the
// server's Client() and Certificate() give what a client needs to trust it.
func StartTLS(tb testing.TB, h http.Handler) *httptest.Server {
	tb.Helper()
	s := httptest.NewTLSServer(h)
	tb.Cleanup(s.Close)
	return s
}

// Listen serves h on addr ("127.0.0.1:8080"; port 0 picks a free one) for
// programs that are not tests; the caller closes the server. A port already
// in use is an error that names it.
func Listen(addr string, h http.Handler) (*httptest.Server, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			_, port, _ := net.SplitHostPort(addr)
			return nil, fmt.Errorf("port %s is already in use (%s)", port, addr)
		}
		return nil, err
	}
	s := &httptest.Server{Listener: l, Config: &http.Server{Handler: h}}
	s.Start()
	return s, nil
}

// WriteJSON answers with v as JSON and the given status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "fake: encoding answer: "+err.Error(), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h["Content-Type"] = []string{"application/json"}
	h["Content-Length"] = []string{strconv.Itoa(len(b))}
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
