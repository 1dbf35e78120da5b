package orchwire

import (
	"net/http"

	"google.golang.org/grpc/codes"
)

// The error codes of the specification: the standard ones, then the
// workflow-specific ones. On gRPC a code travels as the reason of a
// google.rpc.ErrorInfo detail (beside the nearest gRPC status code); on HTTP
// it is error.code of the body.
const (
	InvalidArgument    = "INVALID_ARGUMENT"
	AlreadyExists      = "ALREADY_EXISTS"
	NotFound           = "NOT_FOUND"
	PermissionDenied   = "PERMISSION_DENIED"
	ResourceExhausted  = "RESOURCE_EXHAUSTED"
	FailedPrecondition = "FAILED_PRECONDITION"
	Aborted            = "ABORTED"
	OutOfRange         = "OUT_OF_RANGE"
	Unimplemented      = "UNIMPLEMENTED"
	Internal           = "INTERNAL"
	Unavailable        = "UNAVAILABLE"
	DataLoss           = "DATA_LOSS"
	Unauthenticated    = "UNAUTHENTICATED"

	WorkflowExecutionAlreadyStarted = "WORKFLOW_EXECUTION_ALREADY_STARTED"
	WorkflowExecutionNotFound       = "WORKFLOW_EXECUTION_NOT_FOUND"
	WorkflowExecutionCompleted      = "WORKFLOW_EXECUTION_COMPLETED"
	WorkflowTaskTimeout             = "WORKFLOW_TASK_TIMEOUT"
	ActivityTaskTimeout             = "ACTIVITY_TASK_TIMEOUT"
	NamespaceNotFound               = "NAMESPACE_NOT_FOUND"
	TaskQueueNotFound               = "TASK_QUEUE_NOT_FOUND"

	// Codes of gRPC that the specification does not list but a transport
	// can produce (a caller's deadline, a cancellation, an unknown failure).
	DeadlineExceeded = "DEADLINE_EXCEEDED"
	Canceled         = "CANCELLED"
	Unknown          = "UNKNOWN"
)

// ErrorDomain is the domain of the ErrorInfo detail that carries a code.
const ErrorDomain = "orch.apitwin.dev"

// DetailRateLimitExceeded is the type of the detail of a rate-limit error.
const DetailRateLimitExceeded = "RateLimitExceeded"

// codeInfo is where a code sits on each transport.
type codeInfo struct {
	grpc codes.Code
	http int
}

var codeTable = map[string]codeInfo{
	InvalidArgument:    {codes.InvalidArgument, http.StatusBadRequest},
	AlreadyExists:      {codes.AlreadyExists, http.StatusConflict},
	NotFound:           {codes.NotFound, http.StatusNotFound},
	PermissionDenied:   {codes.PermissionDenied, http.StatusForbidden},
	ResourceExhausted:  {codes.ResourceExhausted, http.StatusTooManyRequests},
	FailedPrecondition: {codes.FailedPrecondition, http.StatusBadRequest},
	Aborted:            {codes.Aborted, http.StatusConflict},
	OutOfRange:         {codes.OutOfRange, http.StatusBadRequest},
	Unimplemented:      {codes.Unimplemented, http.StatusNotImplemented},
	Internal:           {codes.Internal, http.StatusInternalServerError},
	Unavailable:        {codes.Unavailable, http.StatusServiceUnavailable},
	DataLoss:           {codes.DataLoss, http.StatusInternalServerError},
	Unauthenticated:    {codes.Unauthenticated, http.StatusUnauthorized},

	// A running id is a conflict, like ALREADY_EXISTS.
	WorkflowExecutionAlreadyStarted: {codes.AlreadyExists, http.StatusConflict},
	WorkflowExecutionNotFound:       {codes.NotFound, http.StatusNotFound},
	// The run is closed: a signal, cancel request, terminate or task
	// answer finds no open run, and the real service answers NotFound
	// ("workflow execution already completed"), which callers check for.
	WorkflowExecutionCompleted: {codes.NotFound, http.StatusNotFound},
	// A task that timed out no longer exists: its token is answered as not
	// found, as a real service answers a stale task token.
	WorkflowTaskTimeout: {codes.NotFound, http.StatusNotFound},
	ActivityTaskTimeout: {codes.NotFound, http.StatusNotFound},
	NamespaceNotFound:   {codes.NotFound, http.StatusNotFound},
	TaskQueueNotFound:   {codes.NotFound, http.StatusNotFound},

	DeadlineExceeded: {codes.DeadlineExceeded, http.StatusGatewayTimeout},
	Canceled:         {codes.Canceled, 499},
	Unknown:          {codes.Unknown, http.StatusInternalServerError},
}

// Known reports whether code is one of the codes above.
func Known(code string) bool {
	_, ok := codeTable[code]
	return ok
}

// GRPCCode is the gRPC status code that carries code (Unknown for a code
// not in the table).
func GRPCCode(code string) codes.Code {
	if c, ok := codeTable[code]; ok {
		return c.grpc
	}
	return codes.Unknown
}

// HTTPStatus is the HTTP status that carries code (500 for a code not in
// the table).
func HTTPStatus(code string) int {
	if c, ok := codeTable[code]; ok {
		return c.http
	}
	return http.StatusInternalServerError
}

// FromGRPCCode names a gRPC status code that arrived without an ErrorInfo
// detail (from a proxy, or a transport failure).
func FromGRPCCode(c codes.Code) string {
	switch c {
	case codes.OK:
		return ""
	case codes.Canceled:
		return Canceled
	case codes.DeadlineExceeded:
		return DeadlineExceeded
	}
	// The standard codes' names are the gRPC names in upper snake case.
	for name, info := range codeTable {
		if info.grpc == c && standard(name) {
			return name
		}
	}
	return Unknown
}

// FromHTTPStatus names an HTTP status that arrived without an error body
// (from a proxy or a load balancer).
func FromHTTPStatus(status int) string {
	switch status {
	case http.StatusBadRequest:
		return InvalidArgument
	case http.StatusUnauthorized:
		return Unauthenticated
	case http.StatusForbidden:
		return PermissionDenied
	case http.StatusNotFound:
		return NotFound
	case http.StatusConflict:
		return AlreadyExists
	case http.StatusTooManyRequests:
		return ResourceExhausted
	case http.StatusNotImplemented:
		return Unimplemented
	case http.StatusServiceUnavailable, http.StatusBadGateway:
		return Unavailable
	case http.StatusGatewayTimeout:
		return DeadlineExceeded
	case 499:
		return Canceled
	}
	if status >= 500 {
		return Internal
	}
	return Unknown
}

// standard reports whether name is a gRPC code's own name (not one of the
// workflow-specific codes that share a gRPC code).
func standard(name string) bool {
	switch name {
	case InvalidArgument, AlreadyExists, NotFound, PermissionDenied, ResourceExhausted,
		FailedPrecondition, Aborted, OutOfRange, Unimplemented, Internal, Unavailable,
		DataLoss, Unauthenticated, DeadlineExceeded, Canceled, Unknown:
		return true
	}
	return false
}
