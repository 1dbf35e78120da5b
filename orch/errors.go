package orch

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// The codes an Error carries: the standard codes and the workflow-specific
// codes of the specification, plus DEADLINE_EXCEEDED, CANCELLED and UNKNOWN,
// which calls meet without the server choosing them.
const (
	CodeInvalidArgument    = orchwire.InvalidArgument
	CodeAlreadyExists      = orchwire.AlreadyExists
	CodeNotFound           = orchwire.NotFound
	CodePermissionDenied   = orchwire.PermissionDenied
	CodeResourceExhausted  = orchwire.ResourceExhausted
	CodeFailedPrecondition = orchwire.FailedPrecondition
	CodeAborted            = orchwire.Aborted
	CodeOutOfRange         = orchwire.OutOfRange
	CodeUnimplemented      = orchwire.Unimplemented
	CodeInternal           = orchwire.Internal
	CodeUnavailable        = orchwire.Unavailable
	CodeDataLoss           = orchwire.DataLoss
	CodeUnauthenticated    = orchwire.Unauthenticated

	CodeWorkflowExecutionAlreadyStarted = orchwire.WorkflowExecutionAlreadyStarted
	CodeWorkflowExecutionNotFound       = orchwire.WorkflowExecutionNotFound
	CodeWorkflowExecutionCompleted      = orchwire.WorkflowExecutionCompleted
	CodeWorkflowTaskTimeout             = orchwire.WorkflowTaskTimeout
	CodeActivityTaskTimeout             = orchwire.ActivityTaskTimeout
	CodeNamespaceNotFound               = orchwire.NamespaceNotFound
	CodeTaskQueueNotFound               = orchwire.TaskQueueNotFound

	CodeDeadlineExceeded = orchwire.DeadlineExceeded
	CodeCanceled         = orchwire.Canceled
	CodeUnknown          = orchwire.Unknown
)

// Sentinels matched by errors.Is against an *Error. A standard code's
// sentinel also matches the workflow-specific codes of its family (those
// sent with the same gRPC code): ErrNotFound matches
// WORKFLOW_EXECUTION_NOT_FOUND, ErrAlreadyExists matches
// WORKFLOW_EXECUTION_ALREADY_STARTED. A workflow-specific sentinel matches
// its own code only.
var (
	ErrInvalidArgument    = errors.New("orch: invalid argument")
	ErrAlreadyExists      = errors.New("orch: already exists")
	ErrNotFound           = errors.New("orch: not found")
	ErrPermissionDenied   = errors.New("orch: permission denied")
	ErrResourceExhausted  = errors.New("orch: resource exhausted")
	ErrFailedPrecondition = errors.New("orch: failed precondition")
	ErrAborted            = errors.New("orch: aborted")
	ErrOutOfRange         = errors.New("orch: out of range")
	ErrUnimplemented      = errors.New("orch: unimplemented")
	ErrInternal           = errors.New("orch: internal error")
	ErrUnavailable        = errors.New("orch: unavailable")
	ErrDataLoss           = errors.New("orch: data loss")
	ErrUnauthenticated    = errors.New("orch: unauthenticated")
	ErrDeadlineExceeded   = errors.New("orch: deadline exceeded")
	ErrCanceled           = errors.New("orch: canceled")

	ErrWorkflowExecutionAlreadyStarted = errors.New("orch: workflow execution already started")
	ErrWorkflowExecutionNotFound       = errors.New("orch: workflow execution not found")
	ErrWorkflowExecutionCompleted      = errors.New("orch: workflow execution completed")
	ErrWorkflowTaskTimeout             = errors.New("orch: workflow task timeout")
	ErrActivityTaskTimeout             = errors.New("orch: activity task timeout")
	ErrNamespaceNotFound               = errors.New("orch: namespace not found")
	ErrTaskQueueNotFound               = errors.New("orch: task queue not found")

	// ErrRateLimited is ErrResourceExhausted under the name the other
	// apitwin clients use.
	ErrRateLimited = ErrResourceExhausted
)

var sentinelCodes = map[error]string{
	ErrInvalidArgument:    CodeInvalidArgument,
	ErrAlreadyExists:      CodeAlreadyExists,
	ErrNotFound:           CodeNotFound,
	ErrPermissionDenied:   CodePermissionDenied,
	ErrResourceExhausted:  CodeResourceExhausted,
	ErrFailedPrecondition: CodeFailedPrecondition,
	ErrAborted:            CodeAborted,
	ErrOutOfRange:         CodeOutOfRange,
	ErrUnimplemented:      CodeUnimplemented,
	ErrInternal:           CodeInternal,
	ErrUnavailable:        CodeUnavailable,
	ErrDataLoss:           CodeDataLoss,
	ErrUnauthenticated:    CodeUnauthenticated,
	ErrDeadlineExceeded:   CodeDeadlineExceeded,
	ErrCanceled:           CodeCanceled,

	ErrWorkflowExecutionAlreadyStarted: CodeWorkflowExecutionAlreadyStarted,
	ErrWorkflowExecutionNotFound:       CodeWorkflowExecutionNotFound,
	ErrWorkflowExecutionCompleted:      CodeWorkflowExecutionCompleted,
	ErrWorkflowTaskTimeout:             CodeWorkflowTaskTimeout,
	ErrActivityTaskTimeout:             CodeActivityTaskTimeout,
	ErrNamespaceNotFound:               CodeNamespaceNotFound,
	ErrTaskQueueNotFound:               CodeTaskQueueNotFound,
}

// Error is a failed call, the same whichever transport carried it: the code
// (from the gRPC status's ErrorInfo reason or the HTTP body's error.code),
// the server's message and details.
type Error struct {
	// Code is one of the Code constants (the server may send others).
	Code string
	// Message is the server's message, or the client's for errors the
	// client met itself (a deadline, a refused connection).
	Message string
	// Details are the error's details: field errors (type, field,
	// description) and rate-limit details.
	Details []*orchpb.ErrorDetail
	// Operation is the RPC that failed ("StartWorkflowExecution").
	Operation string
	// RateLimit holds the rate-limit values of the answer, if it had any.
	RateLimit RateLimit
	// RateLimitExceeded is the RateLimitExceeded detail of a
	// RESOURCE_EXHAUSTED answer, nil otherwise.
	RateLimitExceeded *RateLimitExceeded
	// Retries is how many times the call was sent again before it failed.
	Retries int
	// GaveUp says why a retryable error was not retried (further), e.g.
	// "gave up after 3 retries"; empty when the error was not retryable.
	// The call's error is then this one wrapped in an
	// *apicall.RateLimitError (a refusal for rate) or a *retry.Error, as
	// every apitwin client's is: errors.As reaches both.
	GaveUp string

	cause error
}

// RateLimitExceeded is the detail of a RESOURCE_EXHAUSTED answer: which
// limit was reached and when to try again.
type RateLimitExceeded struct {
	Scope      string        // "namespace:default", "cluster", "task-queue:<name>", …
	Limit      int           // the limit of the window
	Window     string        // the window, such as "1m"
	RetryAfter time.Duration // the wait the server asked for
}

// Error prints "<Code>: <message>" with the code in gRPC's spelling
// (InvalidArgument, WorkflowExecutionNotFound), as the specification's texts
// do. Two codes print the specification's text whatever the server said:
// "DeadlineExceeded: context deadline exceeded", and "PermissionDenied:
// access denied" (followed by the server's message in parentheses when it
// says more). A retryable error that was not retried (further) says why in
// parentheses.
func (e *Error) Error() string {
	name := CodeName(e.Code)
	switch e.Code {
	case CodePermissionDenied:
		return withServerWords(name+": access denied", e.Message, "access denied")
	case CodeDeadlineExceeded:
		// The same text whether the caller's context or the server (at the
		// deadline the client sent it) ended the call; the server's words
		// stay in Message.
		return name + ": context deadline exceeded"
	}
	msg := e.Message
	if msg == "" {
		msg = strings.ToLower(strings.ReplaceAll(e.Code, "_", " "))
	}
	// GaveUp is not repeated here: the call's error is this one wrapped in
	// an *apicall.RateLimitError or a *retry.Error, which says it.
	return name + ": " + msg
}

// withServerWords appends the server's message in parentheses when it says
// more than the fixed text.
func withServerWords(fixed, msg, same string) string {
	if msg == "" || strings.EqualFold(strings.TrimSpace(msg), same) {
		return fixed
	}
	return fixed + " (" + msg + ")"
}

// Is matches the sentinel of the error's code (see the sentinels), and
// context.DeadlineExceeded / context.Canceled for calls their context ended.
func (e *Error) Is(target error) bool {
	code, ok := sentinelCodes[target]
	if !ok {
		return false
	}
	if code == e.Code {
		return true
	}
	if !orchwire.Known(e.Code) || !standardCode(code) {
		return false
	}
	return orchwire.GRPCCode(code) == orchwire.GRPCCode(e.Code) && code != CodeUnknown
}

// Unwrap returns the error under this one: the context's error for a call
// its context ended, the transport's error for one that never got an
// answer, nil for an answer of the server.
func (e *Error) Unwrap() error { return e.cause }

func standardCode(code string) bool {
	switch code {
	case CodeWorkflowExecutionAlreadyStarted, CodeWorkflowExecutionNotFound, CodeWorkflowExecutionCompleted,
		CodeWorkflowTaskTimeout, CodeActivityTaskTimeout, CodeNamespaceNotFound, CodeTaskQueueNotFound:
		return false
	}
	return true
}

// CodeName spells a code the way gRPC names its codes:
// "WORKFLOW_EXECUTION_NOT_FOUND" is "WorkflowExecutionNotFound",
// "CANCELLED" is "Canceled".
func CodeName(code string) string {
	if code == CodeCanceled {
		return "Canceled"
	}
	if code == "" {
		return "Unknown"
	}
	var b strings.Builder
	for _, word := range strings.Split(code, "_") {
		if word == "" {
			continue
		}
		b.WriteString(word[:1])
		b.WriteString(strings.ToLower(word[1:]))
	}
	return b.String()
}

// WorkflowExecutionAlreadyStartedError is the error of a start whose
// workflow id is in use by a running execution (or was used before, and the
// reuse policy refuses it): the specification's
// WorkflowExecutionAlreadyStartedError. errors.As finds it, errors.Is
// matches ErrWorkflowExecutionAlreadyStarted, and it unwraps to the *Error.
type WorkflowExecutionAlreadyStartedError struct {
	WorkflowID string
	// RunID is the run holding the id, when the server said which: a
	// detail whose field is "run_id" (the run id its description), or of
	// type "WorkflowExecutionAlreadyStarted" whose description is
	// "run_id <id>".
	RunID string
	Err   *Error
}

func (e *WorkflowExecutionAlreadyStartedError) Error() string { return e.Err.Error() }

// Unwrap returns the *Error.
func (e *WorkflowExecutionAlreadyStartedError) Unwrap() error { return e.Err }

// BadRequestError is the client error the specification names for a task
// queue that does not exist: "Task queue not found", whose cause is that no
// worker is polling the queue. It unwraps to the *Error (code
// TASK_QUEUE_NOT_FOUND), so errors.Is(err, ErrTaskQueueNotFound) holds.
type BadRequestError struct {
	// Message is the specification's text, "Task queue not found".
	Message string
	// Cause is why: "no worker polling the queue".
	Cause string
	Err   *Error
}

// Error prints "Task queue not found", followed by the server's message in
// parentheses when it says more.
func (e *BadRequestError) Error() string {
	return withServerWords(e.Message, e.Err.Message, e.Message)
}

// Unwrap returns the *Error.
func (e *BadRequestError) Unwrap() error { return e.Err }

// TaskQueueNotFoundMessage is the specification's text of BadRequestError.
const TaskQueueNotFoundMessage = "Task queue not found"

// specific turns an *Error into the named error the specification gives for
// its code, when there is one.
func specific(e *Error, req any) error {
	switch e.Code {
	case CodeWorkflowExecutionAlreadyStarted:
		out := &WorkflowExecutionAlreadyStartedError{Err: e}
		if r, ok := req.(*orchpb.StartWorkflowExecutionRequest); ok {
			out.WorkflowID = r.GetWorkflowId()
		}
		for _, d := range e.Details {
			switch {
			case d.GetField() == "run_id":
				out.RunID = d.GetDescription()
			case d.GetType() == "WorkflowExecutionAlreadyStarted" && strings.HasPrefix(d.GetDescription(), "run_id "):
				out.RunID = strings.TrimPrefix(d.GetDescription(), "run_id ")
			}
		}
		return out
	case CodeTaskQueueNotFound:
		return &BadRequestError{Message: TaskQueueNotFoundMessage, Cause: "no worker polling the queue", Err: e}
	}
	return e
}

// contextError is the *Error of a call its context ended.
func contextError(op string, err error) *Error {
	e := &Error{Code: CodeUnknown, Message: err.Error(), Operation: op, cause: err}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		e.Code, e.Message = CodeDeadlineExceeded, context.DeadlineExceeded.Error()
	case errors.Is(err, context.Canceled):
		e.Code, e.Message = CodeCanceled, context.Canceled.Error()
	}
	return e
}

// rateLimitDetail finds the RateLimitExceeded detail.
func rateLimitDetail(details []*orchpb.ErrorDetail) *RateLimitExceeded {
	for _, d := range details {
		if d.GetType() == orchwire.DetailRateLimitExceeded {
			return &RateLimitExceeded{
				Scope:      d.GetScope(),
				Limit:      int(d.GetLimit()),
				Window:     d.GetWindow(),
				RetryAfter: time.Duration(max(d.GetRetryAfter(), 0)) * time.Second,
			}
		}
	}
	return nil
}

// WorkflowExecutionError is the error of waiting for a result of an
// execution that closed other than by completing: failed, timed out,
// terminated or canceled.
type WorkflowExecutionError struct {
	WorkflowID string
	RunID      string
	Status     orchpb.WorkflowExecutionStatus
	// Failure is the execution's failure, for FAILED.
	Failure *orchpb.Failure
	// Event is the event that closed the execution.
	Event *orchpb.HistoryEvent
}

func (e *WorkflowExecutionError) Error() string {
	s := fmt.Sprintf("orch: workflow %s (run %s) %s", e.WorkflowID, e.RunID, strings.ToLower(e.Status.String()))
	if m := e.Failure.GetMessage(); m != "" {
		s += ": " + m
	}
	if a := e.Event.GetWorkflowExecutionTerminatedEventAttributes(); a != nil && a.GetReason() != "" {
		s += ": " + a.GetReason()
	}
	return s
}

// QueryRejectedError is the answer to a query that its reject condition
// refused: the execution's status did not allow it.
type QueryRejectedError struct {
	Status orchpb.WorkflowExecutionStatus
}

func (e *QueryRejectedError) Error() string {
	return "orch: query rejected: workflow execution is " + strings.ToLower(e.Status.String())
}
