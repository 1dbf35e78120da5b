package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/apitwin/apitwin/internal/mcpwire"
	"github.com/apitwin/apitwin/mcp"
)

// The wire form of JSON-RPC 2.0 messages, and the decoder the gateway runs
// over every request body.

// nullID is the id of an error answer to a message whose id could not be
// read.
var nullID = json.RawMessage("null")

// message is one decoded request. When invalid is set the element was not a
// valid Request object, and err (-32600) is answered even without an id.
// Otherwise err, when set, is the answer to a valid request that cannot run
// (positional params), answered only when the request has an id.
type message struct {
	method  string
	params  json.RawMessage // an object, or nil when absent
	id      json.RawMessage // nil for a notification; "null", a number or a string otherwise
	raw     json.RawMessage // the element as it came, for the MCP handler
	invalid bool
	err     *mcp.Error
}

// answered reports whether the message gets a response: every invalid
// element does, a valid request only when it has an id.
func (m *message) answered() bool { return m.invalid || m.id != nil }

// response is one JSON-RPC answer. Exactly one of Result and Error is set.
// It is written in the specification's member order
// ({"jsonrpc","result"|"error","id"}), so answers match its examples byte
// for byte.
type response struct {
	Result json.RawMessage
	Error  *mcp.Error
	ID     json.RawMessage
}

// decodeBody reads a request body: one Request object or a batch (an array
// of them). A body that is not JSON is a parse error (fatal); a body that is
// JSON but not a request, an empty batch, or a batch of more than maxBatch
// elements is one Invalid Request error (fatal). Otherwise every element
// gets a message, invalid ones carrying their error. batch reports whether
// the body was an array.
//
// A batch's elements are counted before anything is decoded, so that a
// body of a million tiny elements costs one pass over its bytes, not a
// million decoded messages.
func decodeBody(body []byte, maxBatch int) (msgs []message, batch bool, fatal *mcp.Error) {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if isBatchBody(trimmed) {
		if n := countElements(trimmed, maxBatch+1); n > maxBatch {
			return nil, true, newError(mcp.CodeInvalidRequest, &mcpwire.ErrorData{Reason: fmt.Sprintf("a batch holds at most %d requests", maxBatch)})
		}
		var elems []json.RawMessage
		if err := json.Unmarshal(trimmed, &elems); err != nil {
			return nil, true, newError(mcp.CodeParseError, nil)
		}
		if len(elems) == 0 {
			return nil, true, newError(mcp.CodeInvalidRequest, nil)
		}
		msgs = make([]message, len(elems))
		for i, e := range elems {
			msgs[i] = decodeMessage(e)
		}
		return msgs, true, nil
	}
	if !json.Valid(trimmed) {
		return nil, false, newError(mcp.CodeParseError, nil)
	}
	return []message{decodeMessage(trimmed)}, false, nil
}

// isBatchBody reports whether body is a batch (a JSON array) as decodeBody
// reads it.
func isBatchBody(body []byte) bool {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	return len(trimmed) > 0 && trimmed[0] == '['
}

// decodeMessage checks one element, valid JSON (the whole body passed
// json.Valid, or the batch json.Unmarshal), against the Request object's
// rules: jsonrpc exactly "2.0", method a string, params an object or array
// when present, id a string, number or null when present. Member names are
// matched exactly, as JSON-RPC requires (encoding/json alone would fold case).
//
// The members are found by mcpwire.Members, without a map of them; an
// element whose keys it cannot read plainly is decoded into the map as
// before (requestMembers), with the same results (TestDecodeMessageFast).
func decodeMessage(raw json.RawMessage) message {
	var rm requestMembers
	if !mcpwire.Members(raw, rm.set) {
		var ok bool
		if rm, ok = requestMembersOf(raw); !ok {
			return message{invalid: true, err: newError(mcp.CodeInvalidRequest, nil)}
		}
	}
	return rm.message(raw)
}

// requestMembers are the members of a request object that the rules look
// at, as written; the last of a name counts, as in a map.
type requestMembers struct {
	id, jsonrpc, method, params             json.RawMessage
	hasID, hasVersion, hasMethod, hasParams bool
}

func (rm *requestMembers) set(key, value []byte) bool {
	switch string(key) {
	case "id":
		rm.id, rm.hasID = value, true
	case "jsonrpc":
		rm.jsonrpc, rm.hasVersion = value, true
	case "method":
		rm.method, rm.hasMethod = value, true
	case "params":
		rm.params, rm.hasParams = value, true
	}
	return true
}

// requestMembersOf reads the members through a map, for an element
// mcpwire.Members leaves alone; false when it is not an object.
func requestMembersOf(raw json.RawMessage) (requestMembers, bool) {
	var rm requestMembers
	var obj map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &obj) != nil {
		return rm, false
	}
	rm.id, rm.hasID = obj["id"]
	rm.jsonrpc, rm.hasVersion = obj["jsonrpc"]
	rm.method, rm.hasMethod = obj["method"]
	rm.params, rm.hasParams = obj["params"]
	return rm, true
}

// message applies the rules to the members of raw.
func (rm *requestMembers) message(raw json.RawMessage) message {
	// -32600 carries no data: the specification's examples fix its bytes.
	invalid := func(id json.RawMessage) message {
		return message{id: id, invalid: true, err: newError(mcp.CodeInvalidRequest, nil)}
	}
	m := message{raw: raw}
	if rm.hasID {
		if !validID(rm.id) {
			return invalid(nil)
		}
		m.id = rm.id
	}
	if !rm.hasVersion || !isVersion(rm.jsonrpc) {
		return invalid(m.id)
	}
	method := rm.method
	if !rm.hasMethod || len(method) == 0 || method[0] != '"' {
		return invalid(m.id)
	}
	if s, ok := mcpwire.PlainString(method); ok {
		m.method = string(s)
	} else if json.Unmarshal(method, &m.method) != nil {
		return invalid(m.id)
	}
	if rm.hasParams {
		switch rm.params[0] {
		case '{':
			m.params = rm.params
		case '[':
			// A valid Request, but the gateway's methods take params by name.
			m.err = paramError("params", "must be an object: params are taken by name, not by position")
		default:
			return invalid(m.id)
		}
	}
	return m
}

// isVersion reports whether v, a JSON value, is the string "2.0".
func isVersion(v json.RawMessage) bool {
	if string(v) == `"2.0"` {
		return true
	}
	var version string
	return json.Unmarshal(v, &version) == nil && version == mcpwire.Version
}

// validID reports whether id, a JSON value, is one a request may carry: a
// string, a number or null. A string whose bytes are not UTF-8 is not a
// JSON string (RFC 8259, section 8.1), though encoding/json lets it pass:
// echoed back as it came, it would make the answer invalid JSON, so it is
// an id that cannot be read (Invalid Request, id null).
func validID(id json.RawMessage) bool {
	if len(id) == 0 {
		return false
	}
	switch c := id[0]; {
	case c == '"':
		return utf8.Valid(id)
	case c == '-', c >= '0' && c <= '9':
		return true
	case bytes.Equal(id, nullID):
		return true
	}
	return false
}

// encodeResponses writes the answers of a body: nothing when there are none
// (only notifications), a single object for a single request, an array for a
// batch. Results are spliced in as they are: they come from json.Marshal
// (valid and compact already), and running them through the encoder again
// would scan every byte of a possibly large answer once more.
func encodeResponses(rs []response, batch bool) ([]byte, error) {
	if len(rs) == 0 {
		return nil, nil
	}
	size := 2 // the brackets of a batch
	for i := range rs {
		size += len(`{"jsonrpc":"2.0","result":,"id":},`) + len(rs[i].Result) + len(rs[i].ID)
		if rs[i].Error != nil {
			size += 128 // most errors' members; more is appended as needed
		}
	}
	b := make([]byte, 0, size)
	if batch {
		b = append(b, '[')
	}
	for i, r := range rs {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendResponse(b, r); err != nil {
			return nil, err
		}
	}
	if batch {
		b = append(b, ']')
	}
	return b, nil
}

func appendResponse(b []byte, r response) ([]byte, error) {
	b = append(b, `{"jsonrpc":"2.0",`...)
	if r.Error != nil {
		e, err := json.Marshal(r.Error)
		if err != nil {
			return nil, err
		}
		b = append(append(b, `"error":`...), e...)
	} else {
		b = append(append(b, `"result":`...), r.Result...)
	}
	b = append(append(b, `,"id":`...), r.ID...)
	return append(b, '}'), nil
}

func errorResponse(id json.RawMessage, e *mcp.Error) response {
	if id == nil {
		id = nullID
	}
	return response{Error: e, ID: id}
}

// resultResponse answers with result; an empty result (which would leave
// the answer with neither member) is answered as an internal error.
func resultResponse(id json.RawMessage, result json.RawMessage) response {
	if len(result) == 0 {
		return errorResponse(id, newError(mcp.CodeInternalError, &mcpwire.ErrorData{Message: "empty result"}))
	}
	return response{Result: result, ID: id}
}

// countElements counts the elements of the JSON array at the start of b,
// stopping once it has seen limit of them. It reads nothing but brackets,
// commas and strings; a malformed array is counted as best it can be and
// left for the decoder to refuse.
func countElements(b []byte, limit int) int {
	depth, n, inString, escaped, empty := 0, 0, false, false, true
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth--
			if depth == 0 {
				if !empty {
					n++
				}
				return n
			}
		case c == ',' && depth == 1:
			n++
			if n >= limit {
				return n
			}
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			continue
		}
		if depth >= 1 && c != '[' || depth > 1 {
			empty = false
		}
	}
	return n
}
