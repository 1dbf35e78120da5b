package orchfake

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Payloads in plain JSON over HTTP. A request body may give a Payloads field
// (input, signal_input, result, details, …) as plain JSON values instead of
// {"payloads":[{"metadata":…,"data":<base64>}]}: a JSON array is one
// payload per element, anything else one payload; and a Payload field (a
// memo or header field, a search attribute) as a plain value. Each becomes
// a "json/plain" payload. An answer shows json/plain payloads as plain JSON
// when the request asks with the header Orch-Payloads: json.

const (
	// HeaderPayloads asks for json/plain payloads as plain JSON in an HTTP
	// answer ("Orch-Payloads: json").
	HeaderPayloads = "Orch-Payloads"
	payloadsMsg    = "apitwin.orch.v1.Payloads"
	payloadMsg     = "apitwin.orch.v1.Payload"
	encodingJSON   = "json/plain"
)

var encodingJSONB64 = base64.StdEncoding.EncodeToString([]byte(encodingJSON))

// plainPayloadsIn rewrites the plain-JSON payloads of a request body for
// message m into their wrapper form; a body that is not a JSON object is
// returned as it is (the decoder then says what is wrong).
func plainPayloadsIn(body []byte, m proto.Message) []byte {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil || dec.More() {
		return body
	}
	if !walkMessage(obj, m.ProtoReflect().Descriptor()) {
		return body
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return body
	}
	return out
}

// walkMessage converts obj's payload fields in place; it reports whether it
// changed anything.
func walkMessage(obj map[string]any, md protoreflect.MessageDescriptor) bool {
	changed := false
	for k, v := range obj {
		fd := md.Fields().ByJSONName(k)
		if fd == nil {
			fd = md.Fields().ByName(protoreflect.Name(k))
		}
		if fd == nil || v == nil {
			continue
		}
		switch {
		case fd.IsMap():
			if vd := fd.MapValue(); vd.Kind() == protoreflect.MessageKind {
				if mv, ok := v.(map[string]any); ok {
					for mk, e := range mv {
						if nv, ch := convertValue(e, vd.Message()); ch {
							mv[mk], changed = nv, true
						}
					}
				}
			}
		case fd.Kind() != protoreflect.MessageKind:
		case fd.IsList():
			if list, ok := v.([]any); ok {
				for i, e := range list {
					if nv, ch := convertValue(e, fd.Message()); ch {
						list[i], changed = nv, true
					}
				}
			}
		default:
			if nv, ch := convertValue(v, fd.Message()); ch {
				obj[k], changed = nv, true
			}
		}
	}
	return changed
}

func convertValue(v any, md protoreflect.MessageDescriptor) (any, bool) {
	switch md.FullName() {
	case payloadsMsg:
		if isPayloadsWrapper(v) {
			return v, false
		}
		var values []any
		if list, ok := v.([]any); ok {
			values = list
		} else {
			values = []any{v}
		}
		out := make([]any, len(values))
		for i, e := range values {
			out[i] = wrapPayload(e)
		}
		return map[string]any{"payloads": out}, true
	case payloadMsg:
		if isPayloadWrapper(v) {
			return v, false
		}
		return wrapPayload(v), true
	}
	if obj, ok := v.(map[string]any); ok && md.FullName() != "google.protobuf.Duration" {
		return v, walkMessage(obj, md)
	}
	return v, false
}

func isPayloadsWrapper(v any) bool {
	obj, ok := v.(map[string]any)
	if !ok || len(obj) != 1 {
		return false
	}
	list, ok := obj["payloads"].([]any)
	if !ok {
		return false
	}
	for _, e := range list {
		if !isPayloadWrapper(e) {
			return false
		}
	}
	return true
}

func isPayloadWrapper(v any) bool {
	obj, ok := v.(map[string]any)
	if !ok || len(obj) == 0 {
		return false
	}
	for k := range obj {
		if k != "metadata" && k != "data" {
			return false
		}
	}
	_, isString := obj["data"].(string)
	return isString || obj["data"] == nil
}

func wrapPayload(v any) map[string]any {
	data, _ := json.Marshal(v) // decoded from JSON, so it encodes
	return map[string]any{
		"metadata": map[string]any{"encoding": encodingJSONB64},
		"data":     base64.StdEncoding.EncodeToString(data),
	}
}

// plainPayloadsOut rewrites an answer's json/plain payloads as plain JSON
// (a Payloads as an array of values, a Payload as its value); anything it
// cannot read stays as it is.
func plainPayloadsOut(body []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return body
	}
	out, err := json.Marshal(unwrapAll(v))
	if err != nil {
		return body
	}
	return out
}

func unwrapAll(v any) any {
	switch v := v.(type) {
	case map[string]any:
		if isPayloadsWrapper(v) {
			list := v["payloads"].([]any)
			values := make([]any, len(list))
			for i, e := range list {
				val, ok := unwrapPayload(e)
				if !ok {
					return v
				}
				values[i] = val
			}
			return values
		}
		if val, ok := unwrapPayload(v); ok {
			return val
		}
		for _, k := range slices.Collect(maps.Keys(v)) {
			v[k] = unwrapAll(v[k])
		}
		return v
	case []any:
		for i := range v {
			v[i] = unwrapAll(v[i])
		}
	}
	return v
}

// unwrapPayload reads a json/plain payload's value.
func unwrapPayload(v any) (any, bool) {
	if !isPayloadWrapper(v) {
		return nil, false
	}
	obj := v.(map[string]any)
	meta, _ := obj["metadata"].(map[string]any)
	if len(meta) != 1 || meta["encoding"] != encodingJSONB64 {
		return nil, false
	}
	data, err := base64.StdEncoding.DecodeString(obj["data"].(string))
	if err != nil {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var val any
	if err := dec.Decode(&val); err != nil || dec.More() {
		return nil, false
	}
	return val, true
}

// plainWriter buffers an answer to rewrite its payloads (Orch-Payloads:
// json) before it goes out.
type plainWriter struct {
	http.ResponseWriter
	status int
	buf    bytes.Buffer
}

func (p *plainWriter) WriteHeader(status int) { p.status = status }

func (p *plainWriter) Write(b []byte) (int, error) { return p.buf.Write(b) }

// Flush is the one http.Flusher call grpc-gateway makes; the answer goes
// out whole in finish.
func (p *plainWriter) Flush() {}

func (p *plainWriter) finish() {
	body := p.buf.Bytes()
	if p.status == 0 || p.status == http.StatusOK {
		body = plainPayloadsOut(body)
	}
	h := p.ResponseWriter.Header()
	if h.Get("Content-Length") != "" {
		h.Set("Content-Length", strconv.Itoa(len(body)))
	}
	if p.status != 0 {
		p.ResponseWriter.WriteHeader(p.status)
	}
	_, _ = p.ResponseWriter.Write(body)
}

var _ io.Writer = (*plainWriter)(nil)
