package orchwire

import (
	"encoding/json"

	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
)

// Status is the gRPC status of an error: the code's gRPC code, the message,
// an ErrorInfo whose reason is the code, then the details.
func Status(code, message string, details ...*orchpb.ErrorDetail) *status.Status {
	st := status.New(GRPCCode(code), message)
	withInfo, err := st.WithDetails(&errdetails.ErrorInfo{Reason: code, Domain: ErrorDomain})
	if err != nil {
		return st
	}
	st = withInfo
	for _, d := range details {
		if next, err := st.WithDetails(d); err == nil {
			st = next
		}
	}
	return st
}

// FromStatus reads a gRPC status back: the code from its ErrorInfo (or from
// the gRPC code when there is none), the message, and the details.
func FromStatus(st *status.Status) (code, message string, details []*orchpb.ErrorDetail) {
	for _, d := range st.Details() {
		switch d := d.(type) {
		case *errdetails.ErrorInfo:
			if d.GetDomain() == ErrorDomain && code == "" {
				code = d.GetReason()
			}
		case *orchpb.ErrorDetail:
			details = append(details, d)
		}
	}
	if code == "" {
		code = FromGRPCCode(st.Code())
	}
	return code, st.Message(), details
}

// ErrorBody is the JSON error body of the HTTP side:
// {"error":{"code","message","details"}}.
type ErrorBody struct {
	Error ErrorObject `json:"error"`
}

// ErrorObject is the "error" member of ErrorBody.
type ErrorObject struct {
	Code    string            `json:"code"`
	Message string            `json:"message"`
	Details []json.RawMessage `json:"details"`
}

// HTTPBody is the JSON body of an error on the HTTP side. details is always
// an array, empty when there are none.
func HTTPBody(code, message string, details ...*orchpb.ErrorDetail) []byte {
	body := ErrorBody{Error: ErrorObject{Code: code, Message: message, Details: []json.RawMessage{}}}
	for _, d := range details {
		if raw, err := MarshalJSON.Marshal(d); err == nil {
			body.Error.Details = append(body.Error.Details, raw)
		}
	}
	out, _ := json.Marshal(body)
	return out
}

// ParseHTTPBody reads an HTTP error body. ok is false when the body is not
// the error shape (a proxy's page, say); the caller then names the status.
func ParseHTTPBody(body []byte) (code, message string, details []*orchpb.ErrorDetail, ok bool) {
	var parsed ErrorBody
	if err := json.Unmarshal(body, &parsed); err != nil || parsed.Error.Code == "" {
		return "", "", nil, false
	}
	for _, raw := range parsed.Error.Details {
		d := new(orchpb.ErrorDetail)
		if err := LenientJSON.Unmarshal(raw, d); err == nil {
			details = append(details, d)
		}
	}
	return parsed.Error.Code, parsed.Error.Message, details, true
}

// MarshalJSON writes messages as the HTTP side carries them: proto field
// names (snake_case), enums by name, durations "<n>s", unset fields left out.
var MarshalJSON = protojson.MarshalOptions{UseProtoNames: true}

// StrictJSON reads a request body the way the service does: an unknown
// field is an error.
var StrictJSON = protojson.UnmarshalOptions{}

// LenientJSON reads a response the way a client should: fields it does not
// know (from a newer server) are skipped.
var LenientJSON = protojson.UnmarshalOptions{DiscardUnknown: true}
