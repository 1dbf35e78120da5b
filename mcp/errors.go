package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/apitwin/apitwin/internal/mcpwire"
)

// The error codes of JSON-RPC 2.0, and the gateway's code for an error the
// source-hosting API answered.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	CodeUpstreamError  = -32000
)

// The messages that go with each code, as the specification gives them.
const (
	MessageParseError     = "Parse error"
	MessageInvalidRequest = "Invalid Request"
	MessageMethodNotFound = "Method not found"
	MessageInvalidParams  = "Invalid params"
	MessageInternalError  = "Internal error"
	MessageUpstreamError  = "source-hosting API Error"
)

// Sentinels for errors.Is. A *Error matches the sentinel of its code and, when
// it carries an upstream status (data.status), the sentinel of that status:
// errors.Is(err, ErrNotFound) holds for -32000 with data.status 404.
var (
	ErrParse          = errors.New("mcp: parse error")
	ErrInvalidRequest = errors.New("mcp: invalid request")
	ErrMethodNotFound = errors.New("mcp: method not found")
	ErrInvalidParams  = errors.New("mcp: invalid params")
	ErrInternal       = errors.New("mcp: internal error")
	ErrUpstream       = errors.New("mcp: source-hosting API error")

	ErrBadRequest   = errors.New("mcp: upstream status 400")
	ErrUnauthorized = errors.New("mcp: upstream status 401")
	ErrForbidden    = errors.New("mcp: upstream status 403")
	ErrNotFound     = errors.New("mcp: upstream status 404")
	ErrRateLimited  = errors.New("mcp: upstream status 429")
	ErrServer       = errors.New("mcp: upstream status 5xx")
)

// Error is a JSON-RPC error object. The gateway writes it; the client returns
// it. Data is kept as sent; the fields the gateway fills in are also decoded:
// Status and Detail for an upstream error (data {status, message}), Param and
// Reason for a parameter the gateway refused (data {param, reason}).
type Error struct {
	Code    int
	Message string
	Data    json.RawMessage

	Status int    // data.status: the upstream HTTP status, or the gateway's own refusal status
	Detail string // data.message
	Param  string // data.param: the offending parameter of an Invalid params error
	Reason string // data.reason: what is wrong with it
	// RetryAfter is data.retry_after: how long the source-hosting API asked
	// a rate-limited caller to wait (its Retry-After), 0 if it did not say.
	RetryAfter time.Duration

	// HTTPStatus is the status of the HTTP answer that carried the error, as
	// the client saw it (200 for errors inside a normal answer).
	HTTPStatus int
}

type wireError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string {
	s := fmt.Sprintf("mcp: %d %s", e.Code, e.Message)
	switch {
	case e.Status != 0 && e.Detail != "":
		s += fmt.Sprintf(" (status %d: %s)", e.Status, e.Detail)
	case e.Status != 0:
		s += fmt.Sprintf(" (status %d)", e.Status)
	case e.Param != "":
		s += fmt.Sprintf(" (%s: %s)", e.Param, e.Reason)
	case e.Detail != "":
		s += " (" + e.Detail + ")"
	case e.Reason != "":
		s += " (" + e.Reason + ")"
	}
	return s
}

// Is reports whether target is the sentinel of e's code or upstream status.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrParse:
		return e.Code == CodeParseError
	case ErrInvalidRequest:
		return e.Code == CodeInvalidRequest
	case ErrMethodNotFound:
		return e.Code == CodeMethodNotFound
	case ErrInvalidParams:
		return e.Code == CodeInvalidParams
	case ErrInternal:
		return e.Code == CodeInternalError
	case ErrUpstream:
		return e.Code == CodeUpstreamError
	case ErrBadRequest:
		return e.Status == http.StatusBadRequest
	case ErrUnauthorized:
		return e.Status == http.StatusUnauthorized
	case ErrForbidden:
		return e.Status == http.StatusForbidden
	case ErrNotFound:
		return e.Status == http.StatusNotFound
	case ErrRateLimited:
		return e.Status == http.StatusTooManyRequests
	case ErrServer:
		return e.Status >= 500
	}
	return false
}

// rateLimited reports whether e is the error the specification says a client
// retries: -32000 with data.status 429.
func (e *Error) rateLimited() bool {
	return e.Code == CodeUpstreamError && e.Status == http.StatusTooManyRequests
}

// MarshalJSON writes the JSON-RPC error object {code, message, data}.
func (e *Error) MarshalJSON() ([]byte, error) {
	return json.Marshal(wireError{Code: e.Code, Message: e.Message, Data: e.Data})
}

// UnmarshalJSON reads a JSON-RPC error object, decoding the data fields the
// gateway uses when they are there.
func (e *Error) UnmarshalJSON(b []byte) error {
	var w wireError
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*e = Error{Code: w.Code, Message: w.Message, Data: w.Data}
	if len(w.Data) > 0 {
		var d mcpwire.ErrorData
		if json.Unmarshal(w.Data, &d) == nil { // data of another shape is kept raw only
			e.Status, e.Detail, e.Param, e.Reason = d.Status, d.Message, d.Param, d.Reason
			if d.RetryAfter > 0 && d.RetryAfter <= mcpwire.MaxRetryAfter {
				e.RetryAfter = time.Duration(d.RetryAfter) * time.Second
			}
		}
	}
	return nil
}
