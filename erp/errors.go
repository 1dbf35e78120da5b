package erp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Sentinels matched by errors.Is against an *Error.
var (
	ErrBadRequest   = errors.New("erp: bad request")  // 400
	ErrUnauthorized = errors.New("erp: unauthorized") // 401, and a refused login
	ErrForbidden    = errors.New("erp: forbidden")    // 403
	ErrNotFound     = errors.New("erp: not found")    // 404
	ErrRateLimited  = errors.New("erp: rate limited") // 429
	ErrServer       = errors.New("erp: server error") // 5xx
	// ErrNothingDone is the ERP's "nothing done" answer (304, or a message
	// saying so): validating an invoice already validated, closing an order
	// already closed. The object is already in the state asked for.
	ErrNothingDone = errors.New("erp: nothing done")
	// ErrAPINotEnabled means the REST API module of the ERP is switched
	// off, however the server said it: an error status or a web page
	// answered instead of JSON.
	ErrAPINotEnabled = errors.New("erp: API not enabled")
	// ErrAlreadyExists matches the ERP's "…AlreadyExists" error codes
	// (ErrorProductAlreadyExists, ErrorLoginAlreadyExists, …) and their
	// translations ("Login jdoe already exists."), which it answers with
	// 500.
	ErrAlreadyExists = errors.New("erp: already exists")
)

// Error is an error answer of the ERP:
//
//	{"error":{"code":404,"message":"Not Found: Invoice not found"}}
//	{"error":{"code":500,"message":"Internal Server Error: Error creating product","0":"ErrorProductAlreadyExists"}}
//
// or a page that is not JSON at all.
type Error struct {
	StatusCode int // the HTTP status (200 for a web page answered in place of the API)
	// Code is the code inside the error body, when it has one; it is the
	// status in every answer seen so far.
	Code   int
	Method string
	Path   string // the request path, without the query
	// Message is the server's message, one line: "Not Found: Invoice not
	// found". For a web page it is the page's text.
	Message string
	// Details are the further entries of the error object, in order: the
	// ERP's error codes and messages ("ErrorProductAlreadyExists").
	Details []string
	// Body is the raw answer (at most 1 MiB), secrets redacted.
	Body []byte

	apiDisabled bool
	loginFailed bool
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "erp: %s %s: ", e.Method, e.Path)
	switch {
	case e.apiDisabled:
		b.WriteString("API not enabled")
		if e.Message != "" {
			b.WriteString(" (" + e.Message + ")")
		}
		return b.String()
	case e.loginFailed:
		b.WriteString("login failed:")
	default:
		b.WriteString(strconv.Itoa(e.StatusCode))
	}
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.StatusCode)
	}
	b.WriteString(" " + msg)
	if len(e.Details) > 0 {
		b.WriteString(" (" + strings.Join(e.Details, "; ") + ")")
	}
	return b.String()
}

// Is matches the sentinels.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrAPINotEnabled:
		return e.apiDisabled
	case ErrNothingDone:
		return e.StatusCode == http.StatusNotModified || strings.Contains(strings.ToLower(e.Message), "nothing done")
	case ErrAlreadyExists:
		// The code ("ErrorLoginAlreadyExists"), or its translation
		// ("Login jdoe already exists."), which some objects send instead.
		return slices.ContainsFunc(append([]string{e.Message}, e.Details...), func(s string) bool {
			return strings.Contains(s, "AlreadyExists") || strings.Contains(strings.ToLower(s), "already exists")
		})
	case ErrBadRequest:
		return e.StatusCode == http.StatusBadRequest
	case ErrUnauthorized:
		return e.StatusCode == http.StatusUnauthorized || e.loginFailed
	case ErrForbidden:
		return e.StatusCode == http.StatusForbidden
	case ErrNotFound:
		return e.StatusCode == http.StatusNotFound
	case ErrRateLimited:
		return e.StatusCode == http.StatusTooManyRequests
	case ErrServer:
		return e.StatusCode >= 500
	}
	return false
}

// decodeError reads an error answer of the API.
func decodeError(resp *http.Response, body []byte) error {
	e := &Error{StatusCode: resp.StatusCode, Method: resp.Request.Method, Path: resp.Request.URL.Path, Body: body}
	if resp.StatusCode/100 == 2 {
		// Only the IsError hook sends a success here: a page in place of
		// JSON, which is how the ERP answers while its API module is off
		// (and, with its own words, while only the explorer is off).
		e.Message = pageText(body)
		e.apiDisabled = !strings.Contains(strings.ToLower(e.Message), "explorer")
		return e
	}
	var shape struct {
		Error   json.RawMessage `json:"error"`
		Message json.RawMessage `json:"message"`
	}
	if isJSON(resp.Header) && json.Unmarshal(body, &shape) == nil {
		var obj map[string]json.RawMessage
		var text string
		switch {
		case json.Unmarshal(shape.Error, &obj) == nil && obj != nil:
			e.Message, e.Code, e.Details = readErrorObject(obj)
		case json.Unmarshal(shape.Error, &text) == nil, json.Unmarshal(shape.Message, &text) == nil:
			e.Message = oneLine(text)
		default:
			e.Message = pageText(body)
		}
	} else {
		e.Message = pageText(body)
	}
	if e.StatusCode == http.StatusNotModified && e.Message == "" {
		e.Message = "Not Modified: nothing done" // a 304 has no body to say it
	}
	e.apiDisabled = saysAPIDisabled(e.Message)
	return e
}

// readErrorObject reads {"code":…, "message":…, "0":…, "1":…}: Restler puts
// an exception's details beside its code and message under numeric keys.
func readErrorObject(obj map[string]json.RawMessage) (msg string, code int, details []string) {
	var m string
	if json.Unmarshal(obj["message"], &m) == nil {
		msg = oneLine(m)
	}
	if n, err := parseJSONInt(obj["code"]); err == nil {
		code = int(n)
	}
	var idx []int
	for k := range obj {
		if n, err := strconv.Atoi(k); err == nil && n >= 0 {
			idx = append(idx, n)
		}
	}
	slices.Sort(idx)
	for _, n := range idx {
		raw := obj[strconv.Itoa(n)]
		var s string
		if json.Unmarshal(raw, &s) != nil {
			s = string(raw)
		}
		if s = oneLine(s); s != "" {
			details = append(details, s)
		}
	}
	return msg, code, details
}

// saysAPIDisabled recognises the ways the ERP reports its REST module off:
// "Module Api must be enabled", "API not enabled", "module not active".
func saysAPIDisabled(msg string) bool {
	m := strings.ToLower(msg)
	if !strings.Contains(m, "api") && !strings.Contains(m, "module") {
		return false
	}
	return strings.Contains(m, "not enabled") || strings.Contains(m, "must be enabled") || strings.Contains(m, "not active")
}

func isJSON(h http.Header) bool {
	ct, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return ct == "application/json" || strings.HasSuffix(ct, "+json")
}

var tags = regexp.MustCompile(`<[^>]*>`)

// pageText turns a web page or plain text into one line of its text.
func pageText(body []byte) string {
	s := string(bytes.ToValidUTF8(body, nil))
	s = tags.ReplaceAllString(s, " ")
	s = strings.NewReplacer("&nbsp;", " ", "&amp;", "&", "&lt;", "<", "&gt;", ">", "&quot;", `"`, "&#039;", "'").Replace(s)
	return oneLine(s)
}

// oneLine folds white space and keeps at most 500 runes.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > 500 {
		s = string([]rune(s)[:500]) + "…"
	}
	return s
}

// noRecords reports whether err is the ERP's way of saying a list is empty:
// older versions answer a list with no match by 404 "No product found" (or
// "Thirdparties not found") rather than [].
func noRecords(err error) bool {
	var e *Error
	if !errors.As(err, &e) || e.StatusCode != http.StatusNotFound || e.Code == 0 {
		return false // not the ERP's JSON error: a wrong URL, a proxy
	}
	m := strings.ToLower(e.Message)
	return strings.Contains(m, "no ") && strings.Contains(m, "found") || strings.Contains(m, "not found") && m != "not found"
}

// refusedAtLogin reports whether a 401 says the request was turned away
// before the API did anything: no credential it recognised (the
// authentication stage), as opposed to a permission refusal of an
// authenticated user.
func refusedAtLogin(err error) bool {
	var e *Error
	if !errors.As(err, &e) || e.StatusCode != http.StatusUnauthorized {
		return false
	}
	m := strings.ToLower(e.Message + " " + string(e.Body))
	return strings.Contains(m, "failed to login to api") || strings.Contains(m, "session") || strings.Contains(m, "at authenticate stage")
}
