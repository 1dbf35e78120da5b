package rest

import "net/http"

// Idempotent reports whether sending a request twice is harmless: an
// idempotent method, or a request carrying an Idempotency-Key header. It is
// the rule retries follow, exported for client packages that send a request
// again for reasons of their own (a renewed login).
func Idempotent(method string, h http.Header) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace, http.MethodPut, http.MethodDelete:
		return true
	}
	return h.Get("Idempotency-Key") != ""
}
