package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/apitwin/apitwin/internal/callrun"
)

// Batch collects calls and notifications to send in one request. The
// gateway runs them concurrently and answers each call by its id; Send
// matches the answers back. A batch holds at most the gateway's limit
// (100 by default); a larger one is refused whole.
//
// Calls the gateway answers with a rate-limit error are sent again, alone,
// under the client's retry policy; the others keep their first answer.
type Batch struct {
	c     *Client
	calls []*BatchCall
	notes []wireRequest
	err   error // the first params that could not be encoded
}

// BatchCall is one call of a Batch; its answer is there after Send.
type BatchCall struct {
	Method string
	req    wireRequest
	result json.RawMessage
	err    error
	done   bool
	c      *Client // whose secrets a decoding error is cleaned of
}

// scrub is err cleaned of the client's secrets.
func (bc *BatchCall) scrub(err error) error {
	if bc.c == nil {
		return err
	}
	return bc.c.rest.Scrub(err)
}

// NewBatch starts an empty batch.
func (c *Client) NewBatch() *Batch { return &Batch{c: c} }

// Call adds a call of method with params.
func (b *Batch) Call(method string, params any) *BatchCall {
	id := b.c.ids.Add(1)
	r, err := newWireRequest(method, params, &id)
	bc := &BatchCall{Method: method, req: r, c: b.c}
	if err != nil && b.err == nil {
		b.err = err
	}
	b.calls = append(b.calls, bc)
	return bc
}

// Notify adds a notification of method with params.
func (b *Batch) Notify(method string, params any) {
	r, err := newWireRequest(method, params, nil)
	if err != nil && b.err == nil {
		b.err = err
	}
	b.notes = append(b.notes, r)
}

// Len is the number of requests in the batch.
func (b *Batch) Len() int { return len(b.calls) + len(b.notes) }

// Send sends the batch and matches the answers to the calls. It returns an
// error only when no answer could be had at all (params that do not
// encode, the transport, a refusal of the whole request); each call's own
// error is its Err.
func (b *Batch) Send(ctx context.Context) error {
	if b.err != nil {
		return b.err
	}
	if b.Len() == 0 {
		return errors.New("mcp: empty batch")
	}
	pending := b.calls
	notes := b.notes
	answered := false // the last round got answers, if only rate-limit errors
	call := callrun.Call{Operation: "batch"}
	err := b.c.rest.Runner().Run(ctx, &call, func(ctx context.Context, _ int) callrun.Outcome {
		reqs := make([]wireRequest, 0, len(pending)+len(notes))
		for _, bc := range pending {
			reqs = append(reqs, bc.req)
		}
		reqs = append(reqs, notes...)
		body, err := json.Marshal(reqs)
		if err != nil {
			return callrun.Outcome{Err: fmt.Errorf("mcp: encoding the batch: %w", err)}
		}
		ans, o := b.c.post(ctx, &call, body)
		if o.Err != nil {
			// Refused whole (401, 429, …): nothing ran, everything goes again.
			err := b.c.rest.Scrub(o.Err, call.Secrets...)
			for _, bc := range pending {
				bc.result, bc.err, bc.done = nil, err, true
			}
			answered = false
			return withCode(o)
		}
		notes = nil // they ran; whether they failed is not ours to know
		answered = true
		pending = b.match(ans, pending)
		if len(pending) == 0 {
			return o
		}
		// Calls refused for rate: sent again, after the longest wait the
		// gateway or the source-hosting API asked for.
		o.Err = pending[0].err
		o = withCode(o)
		o.Throttled, o.Wait = true, o.RateLimit.RetryAfter
		for _, bc := range pending {
			var e *Error
			if errors.As(bc.err, &e) {
				o.Wait = max(o.Wait, e.RetryAfter)
			}
		}
		return o
	})
	if answered {
		return nil // every call has its answer, rate-limit errors among them
	}
	return err
}

// match files the answers of one round and returns the calls to send again:
// those answered with a rate-limit error.
func (b *Batch) match(ans json.RawMessage, sent []*BatchCall) (again []*BatchCall) {
	var list []answer
	if err := json.Unmarshal(ans, &list); err != nil {
		// One answer for the whole batch: an error (a parse error, a batch
		// over the limit), given to every call.
		err := b.c.rest.Scrub(decodeAnswer(ans, 0, nil))
		if err == nil {
			err = errors.New("mcp: the gateway answered a batch with a single result")
		}
		for _, bc := range sent {
			bc.result, bc.err, bc.done = nil, err, true
		}
		if rateLimited(err) {
			return sent
		}
		return nil
	}
	byID := make(map[string]*answer, len(list))
	for i := range list {
		byID[string(list[i].ID)] = &list[i]
	}
	for _, bc := range sent {
		bc.done = true
		a := byID[strconv.FormatInt(*bc.req.ID, 10)]
		switch {
		case a == nil:
			bc.result, bc.err = nil, fmt.Errorf("mcp: the gateway did not answer call %d (%s)", *bc.req.ID, bc.Method)
		case a.Error != nil:
			a.Error.HTTPStatus = 200
			bc.result, bc.err = nil, b.c.rest.Scrub(a.Error)
			if a.Error.rateLimited() {
				again = append(again, bc)
			}
		default:
			bc.result, bc.err = a.Result, nil
		}
	}
	return again
}

// Err is the call's error: a *Error answer, or why there is no answer.
func (bc *BatchCall) Err() error {
	if !bc.done && bc.err == nil {
		return errors.New("mcp: the batch has not been sent")
	}
	return bc.err
}

// Result is the call's raw result.
func (bc *BatchCall) Result() json.RawMessage { return bc.result }

// Decode decodes the call's result into out, or returns its error.
func (bc *BatchCall) Decode(out any) error {
	if err := bc.Err(); err != nil {
		return err
	}
	if err := json.Unmarshal(bc.result, out); err != nil {
		return bc.scrub(fmt.Errorf("mcp: %s: decoding the result: %w", bc.Method, err))
	}
	return nil
}
