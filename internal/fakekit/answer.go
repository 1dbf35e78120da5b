package fakekit

import (
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
)

// Answer is what a fake's handler answers: a status with a body in the
// service's shape. It is the one way every HTTP fake writes, success and
// error alike.
type Answer struct {
	Status int
	// Body is encoded as JSON, unless Raw is set.
	Body any
	// Raw is the body as it goes out.
	Raw []byte
	// ContentType is the body's type; "" means application/json.
	ContentType string
	// Header is added to the answer.
	Header http.Header
	// SecretFree says the body holds none of the fields
	// Config.SecretAnswerFields names: it was written from types whose
	// keys are all known and none of them is one. The request log then
	// keeps it without searching it for them (it still masks the userinfo
	// of URLs, which any string may hold): on a page of 20 records that
	// search was a tenth of the fake's time.
	SecretFree bool
	// Pooled says Raw was written into a buffer from AnswerBuffer, which
	// the handler lets go with the answer: the request log keeps it as
	// the answer's body, without the copy it makes of other answers, and
	// gives it back for reuse when the log lets the answer go. The
	// handler must not touch Raw again.
	Pooled bool
}

// answerBufs are the buffers of pooled answers (Answer.Pooled), given back
// by the request log when it lets their answers go.
var answerBufs = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledAnswer is the largest buffer kept for reuse: a page of 100 big
// records fits; a larger one goes to the garbage collector.
const maxPooledAnswer = 1 << 20

// AnswerBuffer is an empty buffer to write an answer into, for an Answer
// with Pooled set: reused, once the request log has let an earlier answer
// go, so that a fake's answer costs neither an allocation nor a copy.
func AnswerBuffer() []byte {
	p := answerBufs.Get().(*[]byte)
	b := *p
	*p = nil
	pointers.Put(p)
	if b == nil {
		b = make([]byte, 0, 16<<10)
	}
	return b
}

// pointers are the holders AnswerBuffer empties, for ReleaseAnswerBuffer to
// fill again: a buffer goes in and out of the pool without an allocation.
var pointers = sync.Pool{New: func() any { return new([]byte) }}

// ReleaseAnswerBuffer gives b back for AnswerBuffer to hand out again; b
// must be referenced by nothing else. The request log calls it for the
// answers it lets go; a handler calls it for a buffer that no answer took
// (one whose content it copied into another, or left unused).
func ReleaseAnswerBuffer(b []byte) {
	if cap(b) == 0 || cap(b) > maxPooledAnswer {
		return
	}
	p := pointers.Get().(*[]byte)
	*p = b[:0]
	answerBufs.Put(p)
}

// WriteAnswer writes a: its headers, its status, and its body (none for
// 204 and 304). A body that cannot be encoded is a 500 naming the problem:
// it is a bug of the fake's, and the guard's log shows it.
func WriteAnswer(w http.ResponseWriter, a Answer) {
	h := w.Header()
	for k, vs := range a.Header {
		h[k] = vs
	}
	if a.Status == http.StatusNoContent || a.Status == http.StatusNotModified {
		w.WriteHeader(a.Status)
		return
	}
	body := a.Raw
	if body == nil {
		var err error
		if body, err = json.Marshal(a.Body); err != nil {
			http.Error(w, "fake: encoding the answer: "+err.Error(), http.StatusInternalServerError)
			return
		}
	}
	ct := a.ContentType
	if ct == "" {
		ct = "application/json"
	}
	vals := []string{ct, strconv.Itoa(len(body))} // one allocation for both headers
	h["Content-Type"] = vals[0:1:1]
	h["Content-Length"] = vals[1:2:2]
	rec := recorderOf(w)
	if rec != nil {
		rec.secretFree = a.SecretFree
		rec.pooled = a.Pooled && a.Raw != nil
	}
	w.WriteHeader(a.Status)
	_, _ = w.Write(body)
	if a.Pooled && a.Raw != nil && (rec == nil || !rec.keptPooled) { // nobody keeps it: a Writer keeps nothing it was given
		ReleaseAnswerBuffer(a.Raw)
	}
}

// recorderOf is the kit's writer, when w is it or wraps it: the answer
// going out on it is told what the request log may do with it
// (Answer.SecretFree, Answer.Pooled).
func recorderOf(w http.ResponseWriter) *statusRecorder {
	for {
		switch v := w.(type) {
		case *statusRecorder:
			return v
		case interface{ Unwrap() http.ResponseWriter }:
			w = v.Unwrap()
		default:
			return nil
		}
	}
}

// WriteJSON answers with v as JSON and the given status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	WriteAnswer(w, Answer{Status: status, Body: v})
}
