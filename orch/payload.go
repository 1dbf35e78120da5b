package orch

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/apitwin/apitwin/orch/orchpb"
)

// Payload encodings the client writes and reads, in the "encoding" metadata
// of a Payload.
const (
	MetadataEncoding = "encoding"
	EncodingJSON     = "json/plain"
	EncodingNull     = "binary/null"
)

// EncodePayload encodes v as a JSON payload ("encoding": "json/plain"). A
// *orchpb.Payload is returned as it is; nil encodes as "binary/null".
func EncodePayload(v any) (*orchpb.Payload, error) {
	switch v := v.(type) {
	case *orchpb.Payload:
		return v, nil
	case nil:
		return &orchpb.Payload{Metadata: map[string][]byte{MetadataEncoding: []byte(EncodingNull)}}, nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("orch: encoding payload: %w", err)
	}
	return &orchpb.Payload{Metadata: map[string][]byte{MetadataEncoding: []byte(EncodingJSON)}, Data: data}, nil
}

// EncodePayloads encodes each value as one payload (see EncodePayload). A
// single *orchpb.Payloads is returned as it is; no values is nil.
func EncodePayloads(values ...any) (*orchpb.Payloads, error) {
	if len(values) == 1 {
		if p, ok := values[0].(*orchpb.Payloads); ok {
			return p, nil
		}
	}
	if len(values) == 0 {
		return nil, nil
	}
	out := &orchpb.Payloads{Payloads: make([]*orchpb.Payload, 0, len(values))}
	for _, v := range values {
		p, err := EncodePayload(v)
		if err != nil {
			return nil, err
		}
		out.Payloads = append(out.Payloads, p)
	}
	return out, nil
}

// ErrNoPayload is returned when a value is decoded from payloads that hold
// none.
var ErrNoPayload = errors.New("orch: no payload to decode")

// DecodePayload decodes a payload into out (a pointer), as encoding/json
// would. A payload without an encoding is read as JSON; "binary/null"
// leaves out as it is.
func DecodePayload(p *orchpb.Payload, out any) error {
	if p == nil {
		return ErrNoPayload
	}
	switch enc := string(p.GetMetadata()[MetadataEncoding]); enc {
	case EncodingNull:
		return nil
	case EncodingJSON, "":
		if out == nil {
			return nil
		}
		if err := json.Unmarshal(p.GetData(), out); err != nil {
			return fmt.Errorf("orch: decoding payload: %w", err)
		}
		return nil
	default:
		return fmt.Errorf("orch: decoding payload: unsupported encoding %q", enc)
	}
}

// DecodePayloads decodes payloads into outs, one payload per pointer, in
// order. Fewer payloads than pointers is ErrNoPayload; extra payloads are
// ignored.
func DecodePayloads(ps *orchpb.Payloads, outs ...any) error {
	list := ps.GetPayloads()
	for i, out := range outs {
		if i >= len(list) {
			return ErrNoPayload
		}
		if err := DecodePayload(list[i], out); err != nil {
			return err
		}
	}
	return nil
}

// encodeMap encodes a map of values (memo, search attributes, headers).
func encodeMap(m map[string]any) (map[string]*orchpb.Payload, error) {
	if len(m) == 0 {
		return nil, nil
	}
	out := make(map[string]*orchpb.Payload, len(m))
	for k, v := range m {
		p, err := EncodePayload(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		out[k] = p
	}
	return out, nil
}

// encodeOptional is EncodePayloads of v, nil for nil.
func encodeOptional(v any) (*orchpb.Payloads, error) {
	if v == nil {
		return nil, nil
	}
	return EncodePayloads(v)
}
