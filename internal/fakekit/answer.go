package fakekit

import (
	"encoding/json"
	"net/http"
	"strconv"
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
	if a.SecretFree {
		markSecretFree(w)
	}
	w.WriteHeader(a.Status)
	_, _ = w.Write(body)
}

// markSecretFree tells the request log that the answer going out on w
// holds no secret answer field (Answer.SecretFree), when w is the kit's
// writer or wraps it.
func markSecretFree(w http.ResponseWriter) {
	for {
		switch v := w.(type) {
		case *statusRecorder:
			v.secretFree = true
			return
		case interface{ Unwrap() http.ResponseWriter }:
			w = v.Unwrap()
		default:
			return
		}
	}
}

// WriteJSON answers with v as JSON and the given status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	WriteAnswer(w, Answer{Status: status, Body: v})
}
