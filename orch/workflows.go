package orch

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"iter"
	"time"

	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/apitwin/apitwin/orch/orchpb"
)

// ServerRetryPolicy is how the service retries a workflow or an activity
// that failed (the contract's RetryPolicy), as opposed to RetryPolicy, which
// says how this client retries its own calls.
type ServerRetryPolicy struct {
	// InitialInterval is the delay before the first retry.
	InitialInterval time.Duration
	// BackoffCoefficient multiplies each delay (0 means the server's
	// default, 2).
	BackoffCoefficient float64
	// MaximumInterval caps one delay (0: 100 times InitialInterval).
	MaximumInterval time.Duration
	// MaximumAttempts counts attempts in all, the first included; 0 means
	// unlimited.
	MaximumAttempts int32
	// NonRetryableErrorTypes are failure types never retried.
	NonRetryableErrorTypes []string
}

func (p *ServerRetryPolicy) proto() *orchpb.RetryPolicy {
	if p == nil {
		return nil
	}
	return &orchpb.RetryPolicy{
		InitialInterval:        durationOrNil(p.InitialInterval),
		BackoffCoefficient:     p.BackoffCoefficient,
		MaximumInterval:        durationOrNil(p.MaximumInterval),
		MaximumAttempts:        p.MaximumAttempts,
		NonRetryableErrorTypes: p.NonRetryableErrorTypes,
	}
}

func durationOrNil(d time.Duration) *durationpb.Duration {
	if d == 0 {
		return nil
	}
	return durationpb.New(d)
}

// StartWorkflowOptions are the optional settings of StartWorkflow.
type StartWorkflowOptions struct {
	// ID is the workflow id; empty means a random one.
	ID string
	// ExecutionTimeout bounds the execution, retries and continue-as-new
	// included; RunTimeout bounds one run; TaskTimeout bounds one workflow
	// task. Zero leaves each to the server.
	ExecutionTimeout time.Duration
	RunTimeout       time.Duration
	TaskTimeout      time.Duration
	// RetryPolicy retries the workflow when it fails; nil: no retries.
	RetryPolicy *ServerRetryPolicy
	// ReusePolicy says whether a closed execution's id may be used again
	// (default ALLOW_DUPLICATE; ALLOW_DUPLICATE_FAILED_ONLY,
	// REJECT_DUPLICATE, TERMINATE_IF_RUNNING).
	ReusePolicy orchpb.WorkflowIdReusePolicy
	// ConflictPolicy says what to do when a run of the id is running:
	// WORKFLOW_ID_CONFLICT_POLICY_FAIL (StartWorkflow's default: a
	// *WorkflowExecutionAlreadyStartedError), _USE_EXISTING (the running
	// run, Started false; SignalWithStartWorkflow's default),
	// _TERMINATE_EXISTING (terminate it, start a new run). It cannot be
	// combined with ReusePolicy TERMINATE_IF_RUNNING; signal-with-start
	// refuses FAIL.
	ConflictPolicy orchpb.WorkflowIdConflictPolicy
	// Memo holds values kept with the execution, JSON-encoded.
	Memo map[string]any
	// SearchAttributes holds indexed values for List, Scan and Count,
	// JSON-encoded.
	SearchAttributes map[string]any
	// Header holds values passed to the workflow beside its input.
	Header map[string]any
	// CronSchedule runs the workflow on a cron schedule ("0 * * * *").
	CronSchedule string
	// RequestID makes a retried start idempotent; empty means a random one
	// (so the client's own retries never start a workflow twice).
	RequestID string
}

// WorkflowRun is one run of a workflow execution: its ids, and the calls
// about it. A zero RunID means the latest run of the id.
type WorkflowRun struct {
	ID    string
	RunID string
	// Started is false when StartWorkflow's request id matched an earlier
	// start, so this run was started by that one.
	Started bool

	c *Client
}

// Workflow returns the handle of an execution that already exists; runID ""
// means the latest run of workflowID.
func (c *Client) Workflow(workflowID, runID string) *WorkflowRun {
	return &WorkflowRun{ID: workflowID, RunID: runID, c: c}
}

// StartWorkflow starts an execution of workflowType on taskQueue with input
// (JSON-encoded; nil for none, a *orchpb.Payloads as it is) and returns its
// run. A workflow id in use fails with *WorkflowExecutionAlreadyStartedError.
func (c *Client) StartWorkflow(ctx context.Context, workflowType, taskQueue string, input any, opts *StartWorkflowOptions) (*WorkflowRun, error) {
	req, err := c.startRequest(workflowType, taskQueue, input, opts)
	if err != nil {
		return nil, err
	}
	resp, err := c.Raw().StartWorkflowExecution(ctx, req)
	if err != nil {
		return nil, err
	}
	return &WorkflowRun{ID: req.GetWorkflowId(), RunID: resp.GetRunId(), Started: resp.GetStarted(), c: c}, nil
}

// startRequest is the request StartWorkflow sends (and
// UpdateWithStartWorkflow's start), random ids filled in.
func (c *Client) startRequest(workflowType, taskQueue string, input any, opts *StartWorkflowOptions) (*orchpb.StartWorkflowExecutionRequest, error) {
	var o StartWorkflowOptions
	if opts != nil {
		o = *opts
	}
	if o.ID == "" {
		o.ID = newUUID()
	}
	if o.RequestID == "" {
		o.RequestID = newUUID()
	}
	req := &orchpb.StartWorkflowExecutionRequest{
		Namespace:                c.namespace,
		WorkflowId:               o.ID,
		WorkflowType:             &orchpb.WorkflowType{Name: workflowType},
		TaskQueue:                taskQueue,
		WorkflowExecutionTimeout: durationOrNil(o.ExecutionTimeout),
		WorkflowRunTimeout:       durationOrNil(o.RunTimeout),
		WorkflowTaskTimeout:      durationOrNil(o.TaskTimeout),
		Identity:                 c.identity,
		RequestId:                o.RequestID,
		WorkflowIdReusePolicy:    o.ReusePolicy,
		WorkflowIdConflictPolicy: o.ConflictPolicy,
		RetryPolicy:              o.RetryPolicy.proto(),
		CronSchedule:             o.CronSchedule,
	}
	var err error
	if input != nil {
		if req.Input, err = EncodePayloads(input); err != nil {
			return nil, err
		}
	}
	if err := fillMaps(req, o.Memo, o.SearchAttributes, o.Header); err != nil {
		return nil, err
	}
	return req, nil
}

func fillMaps(req *orchpb.StartWorkflowExecutionRequest, memo, attrs, header map[string]any) error {
	m, err := encodeMap(memo)
	if err != nil {
		return fmt.Errorf("orch: memo %w", err)
	}
	if m != nil {
		req.Memo = &orchpb.Memo{Fields: m}
	}
	if m, err = encodeMap(attrs); err != nil {
		return fmt.Errorf("orch: search attribute %w", err)
	}
	if m != nil {
		req.SearchAttributes = &orchpb.SearchAttributes{IndexedFields: m}
	}
	if m, err = encodeMap(header); err != nil {
		return fmt.Errorf("orch: header %w", err)
	}
	if m != nil {
		req.Header = &orchpb.Header{Fields: m}
	}
	return nil
}

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func execution(workflowID, runID string) *orchpb.WorkflowExecution {
	return &orchpb.WorkflowExecution{WorkflowId: workflowID, RunId: runID}
}

// SignalWithStartWorkflow signals the running execution of workflowID, or,
// when none runs, starts one of workflowType on taskQueue with input and
// signals it, in one atomic call: the new run's first event after its start
// is the signal. The run returned is the one signalled; its Started says
// whether this call started it. opts.ID is ignored (workflowID is the id).
func (c *Client) SignalWithStartWorkflow(ctx context.Context, workflowID, signalName string, signalArg any, workflowType, taskQueue string, input any, opts *StartWorkflowOptions) (*WorkflowRun, error) {
	var o StartWorkflowOptions
	if opts != nil {
		o = *opts
	}
	if workflowID == "" {
		return nil, errors.New("orch: SignalWithStartWorkflow needs a workflow id")
	}
	if o.RequestID == "" {
		o.RequestID = newUUID()
	}
	req := &orchpb.SignalWithStartWorkflowExecutionRequest{
		Namespace:                c.namespace,
		WorkflowId:               workflowID,
		WorkflowType:             &orchpb.WorkflowType{Name: workflowType},
		TaskQueue:                taskQueue,
		WorkflowExecutionTimeout: durationOrNil(o.ExecutionTimeout),
		WorkflowRunTimeout:       durationOrNil(o.RunTimeout),
		WorkflowTaskTimeout:      durationOrNil(o.TaskTimeout),
		Identity:                 c.identity,
		RequestId:                o.RequestID,
		WorkflowIdReusePolicy:    o.ReusePolicy,
		WorkflowIdConflictPolicy: o.ConflictPolicy,
		SignalName:               signalName,
		RetryPolicy:              o.RetryPolicy.proto(),
		CronSchedule:             o.CronSchedule,
	}
	var err error
	if input != nil {
		if req.Input, err = EncodePayloads(input); err != nil {
			return nil, err
		}
	}
	if signalArg != nil {
		if req.SignalInput, err = EncodePayloads(signalArg); err != nil {
			return nil, err
		}
	}
	start := &orchpb.StartWorkflowExecutionRequest{}
	if err := fillMaps(start, o.Memo, o.SearchAttributes, o.Header); err != nil {
		return nil, err
	}
	req.Memo, req.SearchAttributes, req.Header = start.Memo, start.SearchAttributes, start.Header
	resp, err := c.Raw().SignalWithStartWorkflowExecution(ctx, req)
	if err != nil {
		return nil, err
	}
	return &WorkflowRun{ID: workflowID, RunID: resp.GetRunId(), Started: resp.GetStarted(), c: c}, nil
}

// SignalOptions are the optional settings of SignalWorkflow.
type SignalOptions struct {
	// RequestID makes a retried signal recorded once; empty means a random
	// one.
	RequestID string
	Header    map[string]any
	Control   string
}

// SignalWorkflow sends a signal named signalName with arg (JSON-encoded; nil
// for none) to an execution (runID "" for the latest run).
func (c *Client) SignalWorkflow(ctx context.Context, workflowID, runID, signalName string, arg any, opts *SignalOptions) error {
	var o SignalOptions
	if opts != nil {
		o = *opts
	}
	if o.RequestID == "" {
		o.RequestID = newUUID()
	}
	req := &orchpb.SignalWorkflowExecutionRequest{
		Namespace:         c.namespace,
		WorkflowExecution: execution(workflowID, runID),
		SignalName:        signalName,
		Identity:          c.identity,
		RequestId:         o.RequestID,
		Control:           o.Control,
	}
	var err error
	if arg != nil {
		if req.Input, err = EncodePayloads(arg); err != nil {
			return err
		}
	}
	h, err := encodeMap(o.Header)
	if err != nil {
		return fmt.Errorf("orch: header %w", err)
	}
	if h != nil {
		req.Header = &orchpb.Header{Fields: h}
	}
	_, err = c.Raw().SignalWorkflowExecution(ctx, req)
	return err
}

// TerminateOptions are the optional settings of TerminateWorkflow.
type TerminateOptions struct {
	Reason  string
	Details any // JSON-encoded
}

// TerminateWorkflow ends an execution at once, without asking it: its
// history ends with WorkflowExecutionTerminated.
func (c *Client) TerminateWorkflow(ctx context.Context, workflowID, runID string, opts *TerminateOptions) error {
	req := &orchpb.TerminateWorkflowExecutionRequest{
		Namespace:         c.namespace,
		WorkflowExecution: execution(workflowID, runID),
		Identity:          c.identity,
	}
	if opts != nil {
		req.Reason = opts.Reason
		if opts.Details != nil {
			d, err := EncodePayloads(opts.Details)
			if err != nil {
				return err
			}
			req.Details = d
		}
	}
	_, err := c.Raw().TerminateWorkflowExecution(ctx, req)
	return err
}

// CancelOptions are the optional settings of RequestCancelWorkflow.
type CancelOptions struct {
	Reason string
	// RequestID makes a retried request recorded once; empty means a
	// random one.
	RequestID string
}

// RequestCancelWorkflow asks an execution to cancel itself: the service
// records WorkflowExecutionCancelRequested and the workflow decides.
func (c *Client) RequestCancelWorkflow(ctx context.Context, workflowID, runID string, opts *CancelOptions) error {
	var o CancelOptions
	if opts != nil {
		o = *opts
	}
	if o.RequestID == "" {
		o.RequestID = newUUID()
	}
	_, err := c.Raw().RequestCancelWorkflowExecution(ctx, &orchpb.RequestCancelWorkflowExecutionRequest{
		Namespace:         c.namespace,
		WorkflowExecution: execution(workflowID, runID),
		Identity:          c.identity,
		RequestId:         o.RequestID,
		Reason:            o.Reason,
	})
	return err
}

// GetWorkflow returns an execution: its info, the first page of its history
// (up to pageSize events; 0 for the server's default) and its pending
// activities.
func (c *Client) GetWorkflow(ctx context.Context, workflowID, runID string, pageSize int32) (*orchpb.GetWorkflowExecutionResponse, error) {
	return c.Raw().GetWorkflowExecution(ctx, &orchpb.GetWorkflowExecutionRequest{
		Namespace:       c.namespace,
		Execution:       execution(workflowID, runID),
		MaximumPageSize: pageSize,
	})
}

// DescribeWorkflow returns an execution's info: type, status, times, task
// queue, memo and search attributes.
func (c *Client) DescribeWorkflow(ctx context.Context, workflowID, runID string) (*orchpb.WorkflowExecutionInfo, error) {
	resp, err := c.GetWorkflow(ctx, workflowID, runID, 1)
	if err != nil {
		return nil, err
	}
	return resp.GetExecutionInfo(), nil
}

// HistoryOptions are the optional settings of History.
type HistoryOptions struct {
	// PageSize is the number of events per page (0: the server's default).
	PageSize int32
	// Wait keeps the iteration going as new events arrive (history long
	// polls, each ending at the server's poll deadline and asked again)
	// until the execution closes, instead of ending at the last event
	// recorded so far.
	Wait bool
	// CloseEventOnly yields only the event that closed the execution.
	CloseEventOnly bool
	// PageToken starts from a page token of an earlier read.
	PageToken []byte
}

// History iterates over an execution's events in order, following
// next_page_token lazily: one page in memory at a time. It stops at the
// first error (yielded once) and when the caller breaks.
func (c *Client) History(ctx context.Context, workflowID, runID string, opts *HistoryOptions) iter.Seq2[*orchpb.HistoryEvent, error] {
	var o HistoryOptions
	if opts != nil {
		o = *opts
	}
	return func(yield func(*orchpb.HistoryEvent, error) bool) {
		filter := orchpb.HistoryEventFilterType_ALL_EVENT
		if o.CloseEventOnly {
			filter = orchpb.HistoryEventFilterType_CLOSE_EVENT
		}
		token := o.PageToken
		for {
			resp, err := c.Raw().GetWorkflowExecutionHistory(ctx, &orchpb.GetWorkflowExecutionHistoryRequest{
				Namespace:              c.namespace,
				Execution:              execution(workflowID, runID),
				MaximumPageSize:        o.PageSize,
				NextPageToken:          token,
				WaitNewEvent:           o.Wait,
				HistoryEventFilterType: filter,
			})
			if err != nil {
				yield(nil, err)
				return
			}
			closed := false
			for _, ev := range resp.GetHistory() {
				closed = closed || isCloseEvent(ev.GetEventType())
				if !yield(ev, nil) {
					return
				}
			}
			next := resp.GetNextPageToken()
			switch {
			case len(next) > 0:
				token = next
			case o.Wait && !closed && len(resp.GetHistory()) == 0:
				// a long poll that ended without news: ask again from the
				// same place
				if err := ctx.Err(); err != nil {
					yield(nil, contextError("GetWorkflowExecutionHistory", err))
					return
				}
			default:
				return
			}
		}
	}
}

// WaitForCompletion waits until the execution closes (a history long poll
// for its close event) and returns the event that closed it, whatever it is:
// completed, failed, timed out, terminated, canceled or continued as new.
// The wait ends with an error when ctx does.
func (c *Client) WaitForCompletion(ctx context.Context, workflowID, runID string) (*orchpb.HistoryEvent, error) {
	for ev, err := range c.History(ctx, workflowID, runID, &HistoryOptions{Wait: true, CloseEventOnly: true}) {
		if err != nil {
			return nil, err
		}
		if isCloseEvent(ev.GetEventType()) {
			return ev, nil
		}
	}
	return nil, &Error{Code: CodeInternal, Message: "history ended without a close event", Operation: "GetWorkflowExecutionHistory"}
}

func isCloseEvent(t orchpb.EventType) bool {
	switch t {
	case orchpb.EventType_WorkflowExecutionCompleted, orchpb.EventType_WorkflowExecutionFailed,
		orchpb.EventType_WorkflowExecutionTimedOut, orchpb.EventType_WorkflowExecutionTerminated,
		orchpb.EventType_WorkflowExecutionCanceled, orchpb.EventType_WorkflowExecutionContinuedAsNew:
		return true
	}
	return false
}

// GetResult waits for the execution to close and decodes its result into out
// (a pointer; nil to ignore the result). A run that continued as new is
// followed to its successor. An execution that closed other than by
// completing is a *WorkflowExecutionError.
func (c *Client) GetResult(ctx context.Context, workflowID, runID string, out any) error {
	for {
		ev, err := c.WaitForCompletion(ctx, workflowID, runID)
		if err != nil {
			return err
		}
		werr := &WorkflowExecutionError{WorkflowID: workflowID, RunID: runID, Event: ev}
		switch ev.GetEventType() {
		case orchpb.EventType_WorkflowExecutionCompleted:
			result := ev.GetWorkflowExecutionCompletedEventAttributes().GetResult()
			if out == nil || len(result.GetPayloads()) == 0 {
				return nil
			}
			return DecodePayloads(result, out)
		case orchpb.EventType_WorkflowExecutionContinuedAsNew:
			next := ev.GetWorkflowExecutionContinuedAsNewEventAttributes().GetNewExecutionRunId()
			if next == "" {
				return errors.New("orch: continued as new without a new run id")
			}
			runID = next
			continue
		case orchpb.EventType_WorkflowExecutionFailed:
			werr.Status = orchpb.WorkflowExecutionStatus_FAILED
			werr.Failure = ev.GetWorkflowExecutionFailedEventAttributes().GetFailure()
		case orchpb.EventType_WorkflowExecutionTimedOut:
			werr.Status = orchpb.WorkflowExecutionStatus_TIMED_OUT
		case orchpb.EventType_WorkflowExecutionTerminated:
			werr.Status = orchpb.WorkflowExecutionStatus_TERMINATED
		case orchpb.EventType_WorkflowExecutionCanceled:
			werr.Status = orchpb.WorkflowExecutionStatus_CANCELED
		}
		return werr
	}
}

// QueryOptions are the optional settings of QueryWorkflow.
type QueryOptions struct {
	// RejectCondition refuses the query by the execution's state
	// (NOT_OPEN: refuse when closed); the refusal is *QueryRejectedError.
	RejectCondition orchpb.QueryRejectCondition
	Header          map[string]any
}

// QueryWorkflow asks an execution's workflow (through a worker) for its
// answer to queryType with arg (JSON-encoded; nil for none) and decodes the
// answer into out (a pointer; nil to ignore it). No worker answering ends
// with ctx's deadline: "DeadlineExceeded: context deadline exceeded".
func (c *Client) QueryWorkflow(ctx context.Context, workflowID, runID, queryType string, arg, out any, opts *QueryOptions) error {
	var o QueryOptions
	if opts != nil {
		o = *opts
	}
	q := &orchpb.WorkflowQuery{QueryType: queryType}
	var err error
	if arg != nil {
		if q.QueryArgs, err = EncodePayloads(arg); err != nil {
			return err
		}
	}
	req := &orchpb.QueryWorkflowRequest{
		Namespace:            c.namespace,
		Execution:            execution(workflowID, runID),
		Query:                q,
		QueryRejectCondition: o.RejectCondition,
	}
	h, err := encodeMap(o.Header)
	if err != nil {
		return fmt.Errorf("orch: header %w", err)
	}
	if h != nil {
		req.Header = &orchpb.Header{Fields: h}
	}
	resp, err := c.Raw().QueryWorkflow(ctx, req)
	if err != nil {
		return err
	}
	if rej := resp.GetQueryRejected(); rej != nil {
		return &QueryRejectedError{Status: rej.GetStatus()}
	}
	if out == nil || len(resp.GetQueryResult().GetPayloads()) == 0 {
		return nil
	}
	return DecodePayloads(resp.GetQueryResult(), out)
}

// Get waits for the run to close and decodes its result into out; see
// Client.GetResult.
func (r *WorkflowRun) Get(ctx context.Context, out any) error {
	return r.c.GetResult(ctx, r.ID, r.RunID, out)
}

// Wait waits for the run to close and returns its close event; see
// Client.WaitForCompletion.
func (r *WorkflowRun) Wait(ctx context.Context) (*orchpb.HistoryEvent, error) {
	return r.c.WaitForCompletion(ctx, r.ID, r.RunID)
}

// Describe returns the run's info.
func (r *WorkflowRun) Describe(ctx context.Context) (*orchpb.WorkflowExecutionInfo, error) {
	return r.c.DescribeWorkflow(ctx, r.ID, r.RunID)
}

// Signal sends a signal to the run.
func (r *WorkflowRun) Signal(ctx context.Context, signalName string, arg any, opts *SignalOptions) error {
	return r.c.SignalWorkflow(ctx, r.ID, r.RunID, signalName, arg, opts)
}

// Terminate ends the run at once.
func (r *WorkflowRun) Terminate(ctx context.Context, opts *TerminateOptions) error {
	return r.c.TerminateWorkflow(ctx, r.ID, r.RunID, opts)
}

// RequestCancel asks the run to cancel itself.
func (r *WorkflowRun) RequestCancel(ctx context.Context, opts *CancelOptions) error {
	return r.c.RequestCancelWorkflow(ctx, r.ID, r.RunID, opts)
}

// History iterates over the run's events.
func (r *WorkflowRun) History(ctx context.Context, opts *HistoryOptions) iter.Seq2[*orchpb.HistoryEvent, error] {
	return r.c.History(ctx, r.ID, r.RunID, opts)
}

// Query asks the run's workflow a query; see Client.QueryWorkflow.
func (r *WorkflowRun) Query(ctx context.Context, queryType string, arg, out any, opts *QueryOptions) error {
	return r.c.QueryWorkflow(ctx, r.ID, r.RunID, queryType, arg, out, opts)
}

// ResetOptions are the optional settings of ResetWorkflow.
type ResetOptions struct {
	// Reason is recorded as the failure message of the new run's
	// WorkflowTaskFailed and as the reason the current run was terminated.
	Reason string
	// ReapplyType says which events after the point the new run gets again:
	// RESET_REAPPLY_TYPE_SIGNAL (the default: the signals) or _NONE.
	ReapplyType orchpb.ResetReapplyType
	// RequestID makes a retried reset answer the run the first one made;
	// empty means a random one (so the client's own retries never reset
	// twice).
	RequestID string
}

// ResetWorkflow starts a new run of a workflow from one of its workflow
// tasks: finishEventID is the event just after that task's
// WorkflowTaskStarted (its WorkflowTaskCompleted, or the
// WorkflowTaskFailed or -TimedOut that ended it). The new run has the
// history up to that task, the task failed with cause RESET_WORKFLOW, the
// signals recorded after it, and a new workflow task; the workflow id's
// current run, if running, is terminated. It returns the new run. Any
// other event id is INVALID_ARGUMENT (ErrInvalidArgument).
func (c *Client) ResetWorkflow(ctx context.Context, workflowID, runID string, finishEventID int64, opts *ResetOptions) (*WorkflowRun, error) {
	var o ResetOptions
	if opts != nil {
		o = *opts
	}
	if o.RequestID == "" {
		o.RequestID = newUUID()
	}
	resp, err := c.Raw().ResetWorkflowExecution(ctx, &orchpb.ResetWorkflowExecutionRequest{
		Namespace:                 c.namespace,
		WorkflowExecution:         execution(workflowID, runID),
		Reason:                    o.Reason,
		WorkflowTaskFinishEventId: finishEventID,
		RequestId:                 o.RequestID,
		ResetReapplyType:          o.ReapplyType,
		Identity:                  c.identity,
	})
	if err != nil {
		return nil, err
	}
	return &WorkflowRun{ID: workflowID, RunID: resp.GetRunId(), Started: true, c: c}, nil
}

// DeleteWorkflow removes a run (runID "" for the latest): its history and
// its place in List, Scan and Count. A running one is terminated first.
// Later calls naming it are WORKFLOW_EXECUTION_NOT_FOUND
// (ErrWorkflowExecutionNotFound).
func (c *Client) DeleteWorkflow(ctx context.Context, workflowID, runID string) error {
	_, err := c.Raw().DeleteWorkflowExecution(ctx, &orchpb.DeleteWorkflowExecutionRequest{
		Namespace:         c.namespace,
		WorkflowExecution: execution(workflowID, runID),
	})
	return err
}
