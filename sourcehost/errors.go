package sourcehost

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apitwin/apitwin/internal/rest"
)

// Sentinels matched by errors.Is against an *Error's status.
var (
	ErrNotModified       = errors.New("sourcehost: not modified")                 // 304: nothing to do
	ErrBadRequest        = errors.New("sourcehost: bad request")                  // 400
	ErrUnauthorized      = errors.New("sourcehost: unauthorized")                 // 401
	ErrForbidden         = errors.New("sourcehost: forbidden")                    // 403
	ErrInsufficientScope = errors.New("sourcehost: token lacks the needed scope") // 403 insufficient_scope
	ErrNotFound          = errors.New("sourcehost: not found")                    // 404
	ErrMethodNotAllowed  = errors.New("sourcehost: method not allowed")           // 405
	ErrConflict          = errors.New("sourcehost: conflict")                     // 409
	ErrUnprocessable     = errors.New("sourcehost: unprocessable entity")         // 422
	ErrRateLimited       = errors.New("sourcehost: rate limited")                 // 429
	ErrServer            = errors.New("sourcehost: server error")                 // 5xx
)

// Error is an error answer of the API.
type Error struct {
	StatusCode int
	Method     string
	Path       string // the request path, without the query
	// Message is the server's message, flattened to one line: "404 Project
	// Not Found", "title is missing", "name has already been taken".
	Message string
	// Fields holds validation errors by field name, when the server sent them
	// ({"message":{"name":["has already been taken"]}}).
	Fields map[string][]string
	// Scope is the scope a token lacked, for insufficient_scope answers.
	Scope string
	// RequestID is the server's X-Request-Id, for its operators.
	RequestID string
	// Body is the raw answer (at most 1 MiB), secrets redacted.
	Body []byte
}

func (e *Error) Error() string {
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.StatusCode)
	}
	code := strconv.Itoa(e.StatusCode)
	if strings.HasPrefix(msg, code+" ") { // GitLab's own texts start with the status: "404 Project Not Found"
		return fmt.Sprintf("sourcehost: %s %s: %s", e.Method, e.Path, msg)
	}
	return fmt.Sprintf("sourcehost: %s %s: %s %s", e.Method, e.Path, code, msg)
}

// Is matches the sentinel of the error's status.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrNotModified:
		return e.StatusCode == http.StatusNotModified
	case ErrBadRequest:
		return e.StatusCode == http.StatusBadRequest
	case ErrUnauthorized:
		return e.StatusCode == http.StatusUnauthorized
	case ErrForbidden:
		return e.StatusCode == http.StatusForbidden
	case ErrInsufficientScope:
		return e.StatusCode == http.StatusForbidden && e.Scope != ""
	case ErrNotFound:
		return e.StatusCode == http.StatusNotFound
	case ErrMethodNotAllowed:
		return e.StatusCode == http.StatusMethodNotAllowed
	case ErrConflict:
		return e.StatusCode == http.StatusConflict
	case ErrUnprocessable:
		return e.StatusCode == http.StatusUnprocessableEntity
	case ErrRateLimited:
		return e.StatusCode == http.StatusTooManyRequests
	case ErrServer:
		return e.StatusCode >= 500
	}
	return false
}

// scrubError is the REST core's ScrubError: an *Error is cleaned of the
// client's secrets in place, so errors.As still finds it.
func scrubError(err error, s *rest.Scrubber) (error, bool) {
	e, ok := err.(*Error)
	if !ok {
		return err, false
	}
	e.Method, e.Path, e.Message = s.String(e.Method), s.String(e.Path), s.String(e.Message)
	e.Scope, e.RequestID, e.Body = s.String(e.Scope), s.String(e.RequestID), s.Bytes(e.Body)
	if e.Fields != nil {
		fields := make(map[string][]string, len(e.Fields))
		for k, v := range e.Fields {
			for i := range v {
				v[i] = s.String(v[i])
			}
			fields[s.String(k)] = v
		}
		e.Fields = fields
	}
	return e, true
}

// decodeError reads the API's error shapes:
//
//	{"message": "404 Project Not Found"}
//	{"message": {"name": ["has already been taken"]}}
//	{"message": ["You can't use same project/branch for source and target"]}
//	{"error": "title is missing"}
//	{"error": "insufficient_scope", "error_description": "…", "scope": "api"}
//
// and plain text ("Retry later").
func decodeError(resp *http.Response, body []byte) error {
	e := &Error{
		StatusCode: resp.StatusCode,
		Method:     resp.Request.Method,
		Path:       resp.Request.URL.Path,
		RequestID:  resp.Header.Get("X-Request-Id"),
		Body:       body,
	}
	var shape struct {
		Message          json.RawMessage `json:"message"`
		Error            string          `json:"error"`
		ErrorDescription string          `json:"error_description"`
		Scope            string          `json:"scope"`
	}
	if json.Unmarshal(body, &shape) != nil {
		e.Message = oneLine(string(bytes.ToValidUTF8(body, nil)))
		return e
	}
	switch {
	case len(shape.Message) > 0 && string(shape.Message) != "null":
		e.Message, e.Fields = flattenMessage(shape.Message)
	case shape.Error == "insufficient_scope":
		e.Scope = shape.Scope
		if e.Scope == "" {
			e.Scope = "unknown"
		}
		e.Message = "insufficient_scope: " + shape.ErrorDescription
	case shape.ErrorDescription != "":
		e.Message = shape.Error + ": " + shape.ErrorDescription
	default:
		e.Message = shape.Error
	}
	return e
}

// flattenMessage turns a message that is a string, a list, or a map of
// fields to strings or lists into one line, keeping the fields.
func flattenMessage(raw json.RawMessage) (string, map[string][]string) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return oneLine(s), nil
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		return oneLine(strings.Join(list, "; ")), nil
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return oneLine(string(raw)), nil
	}
	out := make(map[string][]string, len(fields))
	for k, v := range fields {
		var msgs []string
		if json.Unmarshal(v, &msgs) != nil {
			var one string
			if json.Unmarshal(v, &one) != nil {
				one = string(v)
			}
			msgs = []string{one}
		}
		out[k] = msgs
	}
	keys := make([]string, 0, len(out))
	for k := range out {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		for _, m := range out[k] {
			if k == "base" || k == "error" { // not a field: the message stands alone
				parts = append(parts, m)
			} else {
				parts = append(parts, k+" "+m)
			}
		}
	}
	return oneLine(strings.Join(parts, "; ")), out
}

// oneLine folds white space and keeps at most 500 runes.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > 500 {
		s = string([]rune(s)[:500]) + "…"
	}
	return s
}
