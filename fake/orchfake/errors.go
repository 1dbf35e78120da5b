package orchfake

import (
	"errors"
	"fmt"
	"strings"

	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/grpc/status"
)

// apiError is an error the fake answers: one of orchwire's codes, a
// message and details. The pipeline turns it into a gRPC status (and the
// gateway into the HTTP error body).
type apiError struct {
	code    string
	msg     string
	details []*orchpb.ErrorDetail
}

func (e *apiError) Error() string { return e.code + ": " + e.msg }

// GRPCStatus lets status.FromError read the error.
func (e *apiError) GRPCStatus() *status.Status {
	return orchwire.Status(e.code, e.msg, e.details...)
}

func errorf(code, format string, args ...any) *apiError {
	return &apiError{code: code, msg: fmt.Sprintf(format, args...)}
}

// toAPIError reads any error the fake meets as an apiError.
func toAPIError(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	if st, ok := status.FromError(err); ok {
		code, msg, details := orchwire.FromStatus(st)
		return &apiError{code: code, msg: msg, details: details}
	}
	return &apiError{code: orchwire.Internal, msg: err.Error()}
}

// badField is INVALID_ARGUMENT naming one field.
func badField(field, format string, args ...any) *apiError {
	var v violations
	v.add(field, format, args...)
	return v.apiErr()
}

// violations collects field errors of one request; err answers all of them
// as one INVALID_ARGUMENT whose details name each field
// ({type "FieldViolation", field, description}).
type violations struct {
	list []*orchpb.ErrorDetail
}

func (v *violations) add(field, format string, args ...any) {
	v.list = append(v.list, &orchpb.ErrorDetail{Type: "FieldViolation", Field: field, Description: fmt.Sprintf(format, args...)})
}

// check adds the violation when ok is false.
func (v *violations) check(ok bool, field, format string, args ...any) {
	if !ok {
		v.add(field, format, args...)
	}
}

// err is nil when nothing was wrong.
func (v *violations) err() error {
	if len(v.list) == 0 {
		return nil
	}
	return v.apiErr()
}

func (v *violations) apiErr() *apiError {
	var b strings.Builder
	b.WriteString("invalid argument: ")
	for i, d := range v.list {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(d.Field + ": " + d.Description)
	}
	return &apiError{code: orchwire.InvalidArgument, msg: b.String(), details: v.list}
}

func notFoundNamespace(name string) *apiError {
	return errorf(orchwire.NamespaceNotFound, "namespace %q not found", name)
}
