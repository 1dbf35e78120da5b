package fakekit

import (
	"net/http"
	"net/http/httptest"
)

// HandlerTransport is an http.RoundTripper that answers each request by
// calling Handler in-process, as a server would call it (request URI,
// remote address and an empty body filled in): a client reaches a fake
// that serves on no port at all. Answers are complete when RoundTrip
// returns; nothing streams.
type HandlerTransport struct {
	Handler http.Handler
	// RemoteAddr is the caller's address as the handler sees it; empty
	// means "127.0.0.1:0".
	RemoteAddr string
}

// RoundTrip serves req with the handler.
func (t HandlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := req.Context().Err(); err != nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, err
	}
	in := req.Clone(req.Context())
	in.RequestURI = req.URL.RequestURI()
	in.RemoteAddr = t.RemoteAddr
	if in.RemoteAddr == "" {
		in.RemoteAddr = "127.0.0.1:0"
	}
	if in.Host == "" {
		in.Host = req.URL.Host
	}
	if in.Body == nil {
		in.Body = http.NoBody
	}
	rec := httptest.NewRecorder()
	t.Handler.ServeHTTP(rec, in)
	_ = in.Body.Close()
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}
