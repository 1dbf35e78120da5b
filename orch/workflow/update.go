package workflow

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// updateHandler is what SetUpdateHandler registered for one update name.
type updateHandler struct {
	run func(ctx Context, args *orchpb.Payloads) (any, error)
	// validate runs read-only before the update is accepted (nil: every
	// update is accepted).
	validate func(args *orchpb.Payloads) error
}

// incomingUpdate is an update the code takes in this step: a new one
// from the task's requests (checked by its validator), or, in a replay,
// one the history records as accepted (not checked again).
type incomingUpdate struct {
	req   *orchpb.ProtocolMessage
	check bool
}

// SetUpdateHandler handles the updates named updateName (sent with
// orch.Client.UpdateWorkflow) with handler, which runs as a coroutine of
// the workflow: it may do what workflow code does (activities, timers,
// awaiting signals) and its result, or its error, is the update's outcome,
// recorded in the history (WorkflowExecutionUpdateCompleted). validator,
// when not nil, runs first, read-only like a query handler: an error
// rejects the update, and nothing of it is recorded. An update whose name
// has no handler is rejected. Register handlers at the top of the
// workflow function: an update that arrives with the run's first task is
// taken once the function has run until it first blocks.
func SetUpdateHandler(ctx Context, updateName string, handler func(ctx Context) (any, error), validator func() error) {
	if handler == nil {
		panic("workflow: SetUpdateHandler with a nil handler")
	}
	h := &updateHandler{run: func(ctx Context, _ *orchpb.Payloads) (any, error) { return handler(ctx) }}
	if validator != nil {
		h.validate = func(*orchpb.Payloads) error { return validator() }
	}
	must(ctx).e.updates[updateName] = h
}

// SetUpdateHandlerWithArg is SetUpdateHandler for updates that carry an
// argument, decoded (JSON) into an A; one that does not decode is
// rejected.
func SetUpdateHandlerWithArg[A any](ctx Context, updateName string, handler func(ctx Context, arg A) (any, error), validator func(arg A) error) {
	if handler == nil {
		panic("workflow: SetUpdateHandlerWithArg with a nil handler")
	}
	decode := func(args *orchpb.Payloads) (A, error) {
		var a A
		if len(args.GetPayloads()) > 0 {
			if err := orch.DecodePayload(args.GetPayloads()[0], &a); err != nil {
				return a, fmt.Errorf("update %s: %w", updateName, err)
			}
		}
		return a, nil
	}
	must(ctx).e.updates[updateName] = &updateHandler{
		run: func(ctx Context, args *orchpb.Payloads) (any, error) {
			a, err := decode(args)
			if err != nil {
				return nil, err
			}
			return handler(ctx, a)
		},
		validate: func(args *orchpb.Payloads) error {
			a, err := decode(args)
			if err != nil || validator == nil {
				return err
			}
			return validator(a)
		},
	}
}

// takeUpdates takes the step's incoming updates: each is rejected (no
// handler, its validator said no, the workflow is closing) or accepted,
// its handler started as a coroutine. In a replay an accepted update
// whose handler is gone is a non-deterministic change.
func (e *execution) takeUpdates(in []incomingUpdate) error {
	for _, u := range in {
		id, req := u.req.GetProtocolInstanceId(), u.req.GetRequest()
		name := req.GetInput().GetName()
		h := e.updates[name]
		var why error
		switch {
		case e.closing != nil:
			why = errors.New("workflow: the workflow is closing")
		case h == nil:
			known := slices.Sorted(maps.Keys(e.updates))
			why = fmt.Errorf("workflow: unknown update %q (known: %s)", name, strings.Join(known, ", "))
		case u.check && h.validate != nil:
			why = e.validateUpdate(name, h.validate, req.GetInput().GetArgs())
		}
		if why != nil {
			if !u.check {
				return fmt.Errorf("workflow: non-deterministic: the history records update %s (%s) as accepted, but the code rejects it now: %w", id, name, why)
			}
			e.replies = append(e.replies, orch.RejectUpdate(u.req, why))
			continue
		}
		msg, cmd := orch.AcceptUpdate(u.req)
		e.addCommand(cmd, nil).msg = msg
		uctx := &wctx{e: e, scope: e.root}
		uctx.co = e.newCoroutine("update "+id, func(*coroutine) {
			result, err := h.run(uctx, req.GetInput().GetArgs())
			msg, cmd, cerr := orch.CompleteUpdate(id, result, err)
			if cerr != nil { // the result does not encode: that is the outcome
				msg, cmd, _ = orch.CompleteUpdate(id, nil, fmt.Errorf("workflow: update %s: result: %w", name, cerr))
			}
			e.addCommand(cmd, nil).msg = msg
		})
	}
	return nil
}

// validateUpdate runs a validator read-only: a call that would issue a
// command or block is its error, as in a query handler.
func (e *execution) validateUpdate(name string, validate func(*orchpb.Payloads) error, args *orchpb.Payloads) (err error) {
	e.answering = true
	defer func() {
		e.answering = false
		if r := recover(); r != nil {
			if re, ok := r.(error); ok {
				err = fmt.Errorf("workflow: update %s validator: %w", name, re)
			} else {
				err = fmt.Errorf("workflow: update %s validator panicked: %v", name, r)
			}
		}
	}()
	return validate(args)
}

// liveUpdates are a task's update requests, to be checked.
func liveUpdates(reqs []*orchpb.ProtocolMessage) []incomingUpdate {
	out := make([]incomingUpdate, len(reqs))
	for i, r := range reqs {
		out[i] = incomingUpdate{req: r, check: true}
	}
	return out
}

// acceptedUpdate is an update the history records as accepted, as the
// request the code took then.
func acceptedUpdate(a *orchpb.WorkflowExecutionUpdateAcceptedEventAttributes) incomingUpdate {
	return incomingUpdate{req: &orchpb.ProtocolMessage{Id: a.GetAcceptedRequestMessageId(), ProtocolInstanceId: a.GetProtocolInstanceId(),
		SequencingId: &orchpb.ProtocolMessage_EventId{EventId: a.GetAcceptedRequestSequencingEventId()},
		Body:         &orchpb.ProtocolMessage_Request{Request: a.GetAcceptedRequest()}}}
}

// isProtocolCommand: a PROTOCOL_MESSAGE command records no event of its
// own that a replay could check it against (the update's events follow
// its messages), so replays leave it out.
func isProtocolCommand(c *command) bool {
	return c.cmd.GetCommandType() == orchpb.CommandType_PROTOCOL_MESSAGE
}
