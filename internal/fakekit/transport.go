package fakekit

import (
	"errors"
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

// errAborted is what a client of HandlerTransport gets when the handler
// drops the connection (a Drop fault) or aborts with http.ErrAbortHandler:
// what it would get from a server whose connection closed without an
// answer.
var errAborted = errors.New("fakekit: the server closed the connection without an answer")

// RoundTrip serves req with the handler.
func (t HandlerTransport) RoundTrip(req *http.Request) (resp *http.Response, err error) {
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
	defer func() {
		if p := recover(); p != nil {
			if p != http.ErrAbortHandler {
				panic(p)
			}
			_ = in.Body.Close()
			resp, err = nil, errAborted
		}
	}()
	t.Handler.ServeHTTP(rec, in)
	_ = in.Body.Close()
	resp = rec.Result()
	resp.Request = req
	return resp, nil
}
