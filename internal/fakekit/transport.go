package fakekit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"strconv"
	"strings"
	"sync"
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
	rec := new(recorder)
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
	resp = rec.result()
	resp.Request = req
	return resp, nil
}

// recorder is what HandlerTransport hands a handler to write to: the
// answer httptest.ResponseRecorder would record, read back as its Result
// is, but made in one allocation with the response it becomes (a
// recorder, its body buffer, and the response, body reader and status line
// Result makes are otherwise six or seven per call). Its methods are the
// recorder's, to the letter, so a handler sees the same writer.
type recorder struct {
	header      http.Header // the handler's, live
	snap        http.Header // header as it was at WriteHeader
	code        int
	wroteHeader bool
	body        bytes.Buffer
	resp        http.Response
	reader      recorderBody
}

// Header is the header map the handler fills in.
func (rw *recorder) Header() http.Header {
	if rw.header == nil {
		rw.header = make(http.Header)
	}
	return rw.header
}

// writeHeader is an implicit WriteHeader(200), with a Content-Type sniffed
// from the first bytes written when the handler set none.
func (rw *recorder) writeHeader(b []byte, str string) {
	if rw.wroteHeader {
		return
	}
	if len(str) > 512 {
		str = str[:512]
	}
	m := rw.Header()
	_, hasType := m["Content-Type"]
	hasTE := m.Get("Transfer-Encoding") != ""
	if !hasType && !hasTE {
		if b == nil {
			b = []byte(str)
		}
		m.Set("Content-Type", http.DetectContentType(b))
	}
	rw.WriteHeader(200)
}

// Write appends buf to the body.
func (rw *recorder) Write(buf []byte) (int, error) {
	rw.writeHeader(buf, "")
	rw.body.Write(buf)
	if !bodyAllowedForStatus(rw.code) {
		return 0, http.ErrBodyNotAllowed
	}
	return len(buf), nil
}

// WriteString appends str to the body.
func (rw *recorder) WriteString(str string) (int, error) {
	rw.writeHeader(nil, str)
	rw.body.WriteString(str)
	if !bodyAllowedForStatus(rw.code) {
		return 0, http.ErrBodyNotAllowed
	}
	return len(str), nil
}

func bodyAllowedForStatus(status int) bool {
	switch {
	case status >= 100 && status <= 199:
		return false
	case status == 204:
		return false
	case status == 304:
		return false
	}
	return true
}

// WriteHeader records code and the header as it is now, once.
func (rw *recorder) WriteHeader(code int) {
	if rw.wroteHeader {
		return
	}
	if code < 100 || code > 999 {
		panic(fmt.Sprintf("invalid WriteHeader code %v", code))
	}
	rw.code = code
	rw.wroteHeader = true
	if rw.header == nil {
		rw.header = make(http.Header)
	}
	rw.snap = rw.header.Clone()
}

// Flush sends the header if it was not: the answer is whole anyway.
func (rw *recorder) Flush() {
	if !rw.wroteHeader {
		rw.WriteHeader(200)
	}
}

// result is the answer recorded, as httptest.ResponseRecorder.Result makes
// it. An answer with trailers, which no fake sends, is made by Result
// itself.
func (rw *recorder) result() *http.Response {
	if rw.snap == nil {
		rw.snap = rw.header.Clone()
		if rw.snap == nil {
			rw.snap = http.Header{}
		}
	}
	if rw.hasTrailers() {
		return rw.recorded().Result()
	}
	code := rw.code
	if code == 0 {
		code = 200
	}
	res := &rw.resp
	*res = http.Response{
		Status:     statusLine(code),
		StatusCode: code,
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     rw.snap,
	}
	rw.reader.r.Reset(rw.body.Bytes())
	res.Body = &rw.reader
	res.ContentLength = parseContentLength(res.Header.Get("Content-Length"))
	return res
}

// hasTrailers reports whether the handler declared or set trailers.
func (rw *recorder) hasTrailers() bool {
	if _, ok := rw.snap["Trailer"]; ok {
		return true
	}
	for k := range rw.header {
		if strings.HasPrefix(k, http.TrailerPrefix) {
			return true
		}
	}
	return false
}

// recorded is the same answer in an httptest.ResponseRecorder: the header
// at WriteHeader as its snapshot, the live one as its header.
func (rw *recorder) recorded() *httptest.ResponseRecorder {
	code := rw.code
	if code == 0 {
		code = 200
	}
	rec := httptest.NewRecorder()
	h := rec.Header()
	maps.Copy(h, rw.snap)
	rec.WriteHeader(code) // snapshots rw.snap
	clear(h)
	maps.Copy(h, rw.header) // and holds the live header after
	rec.Body = &rw.body
	return rec
}

// recorderBody is the body of a recorded answer: the methods of
// io.NopCloser(bytes.NewReader(body)), without its two allocations.
type recorderBody struct{ r bytes.Reader }

func (b *recorderBody) Read(p []byte) (int, error)         { return b.r.Read(p) }
func (b *recorderBody) WriteTo(w io.Writer) (int64, error) { return b.r.WriteTo(w) }
func (*recorderBody) Close() error                         { return nil }

// statusLine is Response.Status for code, as httptest words it ("200 OK");
// those of the codes from 100 to 599 are made once.
func statusLine(code int) string {
	if code >= 100 && code < 600 {
		return statusLines()[code-100]
	}
	return fmt.Sprintf("%03d %s", code, http.StatusText(code))
}

var statusLines = sync.OnceValue(func() *[500]string {
	var lines [500]string
	for i := range lines {
		lines[i] = fmt.Sprintf("%03d %s", i+100, http.StatusText(i+100))
	}
	return &lines
})

// parseContentLength is the length a Content-Length header gives, -1 for
// none or a bad one.
func parseContentLength(cl string) int64 {
	cl = textproto.TrimString(cl)
	if cl == "" {
		return -1
	}
	n, err := strconv.ParseUint(cl, 10, 63)
	if err != nil {
		return -1
	}
	return int64(n)
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
