package fakekit

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"time"
)

// HandlerTransport is an http.RoundTripper that answers each request by
// calling Handler in-process, as a server would call it (request URI,
// remote address, Content-Length header and an empty body filled in): a
// client reaches a fake that serves on no port at all. Answers are complete
// when RoundTrip returns; nothing streams.
type HandlerTransport struct {
	Handler http.Handler
	// RemoteAddr is the caller's address as the handler sees it; empty
	// means "127.0.0.1:0".
	RemoteAddr string
	// ResponseHeaderTimeout, when positive, is http.Transport's: how long
	// the handler has to answer before RoundTrip gives up with a timeout
	// error (a net.Error whose Timeout is true), the handler's context
	// cancelled. Since the answer is whole when the handler returns, it
	// bounds the whole answer; a fake's waits (fault latencies) end on the
	// context, so the call ends on time.
	ResponseHeaderTimeout time.Duration
}

// errAborted is what a client of HandlerTransport gets when the handler
// drops the connection (a Drop fault) or aborts with http.ErrAbortHandler:
// what it would get from a server whose connection closed without an
// answer.
var errAborted = errors.New("fakekit: the server closed the connection without an answer")

// errHeaderTimeout is what a client of HandlerTransport gets when the
// handler outlasts ResponseHeaderTimeout, as http.Transport words it.
var errHeaderTimeout error = timeoutError{"fakekit: timeout awaiting response headers"}

// timeoutError is a net.Error that is a timeout.
type timeoutError struct{ msg string }

func (e timeoutError) Error() string   { return e.msg }
func (e timeoutError) Timeout() bool   { return true }
func (e timeoutError) Temporary() bool { return true }

// RoundTrip serves req with the handler.
func (t HandlerTransport) RoundTrip(req *http.Request) (resp *http.Response, err error) {
	if err := req.Context().Err(); err != nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, err
	}
	ctx := req.Context()
	if t.ResponseHeaderTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, t.ResponseHeaderTimeout, errHeaderTimeout)
		defer cancel()
	}
	in := req.Clone(ctx)
	in.RequestURI = req.URL.RequestURI()
	in.RemoteAddr = t.RemoteAddr
	if in.RemoteAddr == "" {
		in.RemoteAddr = "127.0.0.1:0"
	}
	if in.Host == "" {
		in.Host = req.URL.Host
	}
	if in.Header == nil {
		in.Header = http.Header{}
	}
	// The length as http.Transport sends it and a server reads it: a body
	// of unknown length goes chunked, a known one (or none, on a method
	// that carries one) in a Content-Length header, which the fakes log.
	if in.ContentLength == 0 && in.Body != nil && in.Body != http.NoBody {
		in.ContentLength = -1
	}
	if sendsContentLength(in) && in.Header.Get("Content-Length") == "" {
		in.Header.Set("Content-Length", strconv.FormatInt(in.ContentLength, 10))
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
	if context.Cause(ctx) == errHeaderTimeout {
		// Given up on, as http.Transport would have, whatever the handler
		// wrote after.
		return nil, errHeaderTimeout
	}
	resp = rec.Result()
	resp.Request = req
	return resp, nil
}

// sendsContentLength reports whether http.Transport sends r with a
// Content-Length header: a known length, or no body on a method that
// carries one.
func sendsContentLength(r *http.Request) bool {
	if r.ContentLength != 0 {
		return r.ContentLength > 0
	}
	return r.Method == http.MethodPost || r.Method == http.MethodPut || r.Method == http.MethodPatch
}
