package workflow

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/apitwin/apitwin/orch"
)

// Context is what workflow code receives instead of a context.Context: it
// ties each blocking call to the execution being replayed, carries the
// cancellation of the workflow (a cancel request from a client, or a
// CancelFunc of WithCancel), values, and the activity options of
// WithActivityOptions. Use it only in the coroutine it was given to (or
// derived in): a Context handed to another coroutine through a variable
// blocks the wrong one.
type Context interface {
	// Done is closed when the context is canceled; a Selector can wait on
	// it with AddReceive.
	Done() ReceiveChannel
	// Err is ErrCanceled once the context is canceled, else nil.
	Err() error
	// Value is the value WithValue stored under key, or nil.
	Value(key any) any

	state() *wctx
}

// ErrCanceled is the error of calls ended by cancellation: a canceled
// Context, a cancel request of the workflow. A workflow function that
// returns it (or an error wrapping it) after its workflow was asked to
// cancel ends the run as canceled rather than failed.
var ErrCanceled = errors.New("workflow: canceled")

// wctx is the one implementation of Context; derived contexts copy it.
type wctx struct {
	e        *execution
	co       *coroutine
	scope    *cancelScope
	activity *orch.ActivityOptions
	key, val any
	parent   *wctx // for Value
}

func (c *wctx) state() *wctx { return c }

func (c *wctx) Done() ReceiveChannel { return c.scope.doneChannel() }

func (c *wctx) Err() error {
	if c.scope.canceled {
		return ErrCanceled
	}
	return nil
}

func (c *wctx) Value(key any) any {
	for w := c; w != nil; w = w.parent {
		if w.key != nil && w.key == key {
			return w.val
		}
	}
	return nil
}

func (c *wctx) derive() *wctx {
	cp := *c
	cp.key, cp.val, cp.parent = nil, nil, c
	return &cp
}

// must returns the state behind ctx; a nil Context is a bug of the
// workflow code, reported as the task's failure.
func must(ctx Context) *wctx {
	if ctx == nil {
		panic("workflow: nil Context")
	}
	return ctx.state()
}

// WithValue returns a copy of ctx in which key maps to val.
func WithValue(ctx Context, key, val any) Context {
	c := must(ctx).derive()
	c.key, c.val = key, val
	return c
}

// CancelFunc cancels the context WithCancel returned: its pending
// activities are asked to stop, its timers are canceled, and their
// futures fail with ErrCanceled. Call it from workflow code only.
type CancelFunc func()

// WithCancel returns a copy of ctx that is canceled when cancel is called
// or when ctx is.
func WithCancel(ctx Context) (Context, CancelFunc) {
	c := must(ctx).derive()
	c.scope = c.scope.child()
	scope := c.scope
	return c, func() {
		scope.e.readOnly("CancelFunc")
		scope.cancel()
	}
}

// NewDisconnectedContext returns a context that cancellation of ctx does
// not reach: the place for clean-up work after the workflow was asked to
// cancel (for example a compensating activity before returning
// ErrCanceled).
func NewDisconnectedContext(ctx Context) Context {
	c := must(ctx).derive()
	c.scope = &cancelScope{e: c.e}
	return c
}

// WithActivityOptions returns a copy of ctx whose activities are scheduled
// with opts. One of StartToCloseTimeout and ScheduleToCloseTimeout is
// required; the other fields have the service's defaults.
func WithActivityOptions(ctx Context, opts orch.ActivityOptions) Context {
	c := must(ctx).derive()
	c.activity = &opts
	return c
}

// Info describes the workflow run being executed.
type Info struct {
	WorkflowID   string
	RunID        string
	WorkflowType string
	TaskQueue    string
	// Attempt counts the runs of a workflow retry policy, from 1.
	Attempt int32
	// StartTime is the time of the run's WorkflowExecutionStarted event.
	StartTime time.Time
}

// GetInfo returns the Info of the run ctx belongs to.
func GetInfo(ctx Context) Info { return must(ctx).e.info }

// Now is the workflow's time: the time the service started the workflow
// task being replayed. Use it instead of time.Now, which differs on every
// replay.
func Now(ctx Context) time.Time { return must(ctx).e.now }

// IsReplaying reports whether the code runs again over events an earlier
// task already handled, or for a query, which the next task repeats
// (true), or meets new events (false): the place to keep logs from
// repeating on every task.
func IsReplaying(ctx Context) bool { return must(ctx).e.quiet() }

// quiet reports whether what the code does now is done again, or was
// done, by a workflow task: replays and queries.
func (e *execution) quiet() bool { return e.replaying || e.query }

// cancelScope is the cancellation state that contexts derived from one
// WithCancel (or the root, or a disconnected context) share.
type cancelScope struct {
	e        *execution
	canceled bool
	children []*cancelScope
	handlers []func() // run once, at cancellation
	done     *channel
	// canceledAt is the stamp of the cancellation, for a Done channel
	// first asked for after it.
	canceledAt int64
}

func (s *cancelScope) child() *cancelScope {
	c := &cancelScope{e: s.e}
	if s.canceled {
		c.canceled, c.canceledAt = true, s.canceledAt
	} else {
		s.children = append(s.children, c)
	}
	return c
}

// onCancel runs fn when the scope is canceled (at once if it is).
func (s *cancelScope) onCancel(fn func()) {
	if s.canceled {
		fn()
		return
	}
	s.handlers = append(s.handlers, fn)
}

func (s *cancelScope) cancel() {
	if s.canceled {
		return
	}
	s.canceled = true
	if s.done != nil {
		s.done.close() // first, so a Selector sees the cause before its effects
		s.canceledAt = s.done.closedStamp
	} else {
		s.canceledAt = s.e.nextStamp() // Done's, when it is asked for
	}
	for _, fn := range s.handlers {
		fn()
	}
	s.handlers = nil
	for _, c := range s.children {
		c.cancel()
	}
	s.children = nil
}

func (s *cancelScope) doneChannel() ReceiveChannel {
	if s.done == nil {
		s.done = s.e.newChannel("Done")
		if s.canceled {
			s.done.closed, s.done.closedStamp = true, s.canceledAt
		}
	}
	return s.done
}

// HasLastCompletionResult reports whether this run has the result of the
// run before it: a cron schedule's previous run, or the run a retry
// policy retries.
func HasLastCompletionResult(ctx Context) bool {
	return len(must(ctx).e.lastResult.GetPayloads()) > 0
}

// GetLastCompletionResult decodes the previous run's result (see
// HasLastCompletionResult) into valuePtr; orch.ErrNoPayload when there is
// none.
func GetLastCompletionResult(ctx Context, valuePtr any) error {
	return orch.DecodePayloads(must(ctx).e.lastResult, valuePtr)
}

// GetLogger returns the logger of Options.Logger with the run's workflow
// id, run id and type, which drops what code replaying earlier tasks (or
// running for a query) logs, so each line is written once. Without Options.Logger it discards.
func GetLogger(ctx Context) *slog.Logger {
	e := must(ctx).e
	if e.logger == nil {
		e.logger = slog.New(replayHandler{e: e, h: e.baseLogger.Handler()}).With(
			slog.String("workflow_id", e.info.WorkflowID), slog.String("run_id", e.info.RunID), slog.String("workflow_type", e.info.WorkflowType))
	}
	return e.logger
}

// replayHandler drops records while the code replays.
type replayHandler struct {
	e *execution
	h slog.Handler
}

func (r replayHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return !r.e.quiet() && r.h.Enabled(ctx, l)
}
func (r replayHandler) Handle(ctx context.Context, rec slog.Record) error {
	if r.e.quiet() {
		return nil
	}
	return r.h.Handle(ctx, rec)
}
func (r replayHandler) WithAttrs(a []slog.Attr) slog.Handler {
	return replayHandler{e: r.e, h: r.h.WithAttrs(a)}
}
func (r replayHandler) WithGroup(n string) slog.Handler {
	return replayHandler{e: r.e, h: r.h.WithGroup(n)}
}
