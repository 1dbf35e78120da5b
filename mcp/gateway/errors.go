package gateway

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/apitwin/apitwin/internal/mcpwire"
	"github.com/apitwin/apitwin/mcp"
)

// The errors the gateway answers are mcp.Error, the type its clients
// decode; these build them.

// newError builds an error with the standard message of code and the given
// data (nil for none).
func newError(code int, data *mcpwire.ErrorData) *mcp.Error {
	e := &mcp.Error{Code: code, Message: codeMessage(code)}
	if data != nil {
		e.Status, e.Detail, e.Param, e.Reason = data.Status, data.Message, data.Param, data.Reason
		e.RetryAfter = time.Duration(data.RetryAfter) * time.Second
		e.Data, _ = json.Marshal(data) // cannot fail: strings and ints
	}
	return e
}

func codeMessage(code int) string {
	switch code {
	case mcp.CodeParseError:
		return mcp.MessageParseError
	case mcp.CodeInvalidRequest:
		return mcp.MessageInvalidRequest
	case mcp.CodeMethodNotFound:
		return mcp.MessageMethodNotFound
	case mcp.CodeInvalidParams:
		return mcp.MessageInvalidParams
	case mcp.CodeInternalError:
		return mcp.MessageInternalError
	case mcp.CodeUpstreamError:
		return mcp.MessageUpstreamError
	}
	return "Server error"
}

// paramError is the Invalid params error naming the parameter and what is
// wrong with it.
func paramError(param, reason string) *mcp.Error {
	return newError(mcp.CodeInvalidParams, &mcpwire.ErrorData{Param: param, Reason: reason})
}

// upstreamError is the error for an answer of the source-hosting API with the
// given status, mapped as the specification's table says: 400 is Invalid
// params, 401/403/404/429 (and the other 4xx) are -32000, 5xx Internal error.
func upstreamError(status int, message string) *mcp.Error {
	code := mcp.CodeUpstreamError
	switch {
	case status == http.StatusBadRequest:
		code = mcp.CodeInvalidParams
	case status >= 500:
		code = mcp.CodeInternalError
	}
	return newError(code, &mcpwire.ErrorData{Status: status, Message: message})
}
