package controlapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// Client drives a running apitwin-fake through its control API, for a Go
// program that starts apitwin-fake as a process (a test of a program in
// another language, say). The address and token are the ones apitwin-fake
// prints on its "control url=… token=…" line.
//
//	c := controlapi.NewClient("http://127.0.0.1:8999", token, nil)
//	err := c.InjectFault(ctx, "erp", "", control.Fault{Status: 503, Times: 1})
//	_, err = c.Advance(ctx, time.Hour)
//
// Its answers are the Go values the fakes give in-process: a fault is a
// control.ActiveFault, a logged request a control.Request, a webhook
// delivery a sourcehostfake.Delivery, a run's history the
// *orchpb.HistoryEvent of orchfake.Server.Execution.
//
// Services are named "erp", "cloudauth", "orch", "sourcehost" and "mcp".
// Every method returns an *APIError for a refusal of the control API.
type Client struct {
	base  string
	token string
	hc    *http.Client
}

// NewClient returns a client of the control API at baseURL with token; hc
// nil uses a client with a 30-second timeout.
func NewClient(baseURL, token string, hc *http.Client) *Client {
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	return &Client{base: strings.TrimRight(baseURL, "/"), token: token, hc: hc}
}

// String names the client without its token.
func (c *Client) String() string { return "controlapi.Client(" + c.base + ")" }

// GoString is String, so that %#v shows no token either.
func (c *Client) GoString() string { return c.String() }

// Services lists the fakes with their URLs and counts.
func (c *Client) Services(ctx context.Context) ([]ServiceInfo, error) {
	var out []ServiceInfo
	return out, c.call(ctx, http.MethodGet, "/api/services", nil, "", &out)
}

// Reset puts one fake back as it started: data, faults, request log and
// pending work dropped; credentials, options and clock kept.
func (c *Client) Reset(ctx context.Context, service string) error {
	return c.call(ctx, http.MethodPost, "/api/"+url.PathEscape(service)+"/reset", nil, "", nil)
}

// Seed loads a seed (the format of apitwin-fake's --seed files) into the
// fakes: JSON, or YAML when format is "yaml". A seed any fake refuses
// changes nothing.
func (c *Client) Seed(ctx context.Context, seed []byte, format string) error {
	ct := "application/json"
	if format == "yaml" {
		ct = "application/yaml"
	}
	return c.call(ctx, http.MethodPost, "/api/seed", bytes.NewReader(seed), ct, nil)
}

// InjectFault adds f on route ("" for every request) to one fake's faults.
func (c *Client) InjectFault(ctx context.Context, service, route string, f control.Fault) error {
	body, err := json.Marshal(control.ActiveFault{Route: route, Fault: f})
	if err != nil {
		return err
	}
	return c.call(ctx, http.MethodPost, "/api/"+url.PathEscape(service)+"/faults", bytes.NewReader(body), "application/json", nil)
}

// Faults lists one fake's faults in force, in the order they apply.
func (c *Client) Faults(ctx context.Context, service string) ([]control.ActiveFault, error) {
	var out []control.ActiveFault
	return out, c.call(ctx, http.MethodGet, "/api/"+url.PathEscape(service)+"/faults", nil, "", &out)
}

// ClearFaults removes every fault of one fake.
func (c *Client) ClearFaults(ctx context.Context, service string) error {
	return c.call(ctx, http.MethodDelete, "/api/"+url.PathEscape(service)+"/faults", nil, "", nil)
}

// RequestFilter narrows a request log listing; zero fields match all.
type RequestFilter struct {
	Route  string // the route matched, exactly
	Method string
	Path   string // a prefix of the path
	Status int
	// Limit is how many of the newest matches to return (default and
	// at most MaxRequestsListed).
	Limit int
}

func (f RequestFilter) query() string {
	q := url.Values{}
	if f.Route != "" {
		q.Set("route", f.Route)
	}
	if f.Method != "" {
		q.Set("method", f.Method)
	}
	if f.Path != "" {
		q.Set("path", f.Path)
	}
	if f.Status != 0 {
		q.Set("status", strconv.Itoa(f.Status))
	}
	if f.Limit != 0 {
		q.Set("limit", strconv.Itoa(f.Limit))
	}
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}

// Requests lists one fake's logged requests that match f, oldest first.
func (c *Client) Requests(ctx context.Context, service string, f RequestFilter) ([]control.Request, error) {
	var out []control.Request
	return out, c.call(ctx, http.MethodGet, "/api/"+url.PathEscape(service)+"/requests"+f.query(), nil, "", &out)
}

// ClearRequests empties one fake's request log.
func (c *Client) ClearRequests(ctx context.Context, service string) error {
	return c.call(ctx, http.MethodDelete, "/api/"+url.PathEscape(service)+"/requests", nil, "", nil)
}

// Clock returns the fakes' shared clock.
func (c *Client) Clock(ctx context.Context) (ClockState, error) {
	var out ClockState
	return out, c.call(ctx, http.MethodGet, "/api/clock", nil, "", &out)
}

// Advance moves the clock forward by d (at most MaxAdvance): whatever
// falls due on the way happens (timers fire, tokens expire).
func (c *Client) Advance(ctx context.Context, d time.Duration) (ClockState, error) {
	return c.clock(ctx, "advance", map[string]string{"by": d.String()})
}

// SetClock moves the clock to t; forward fires what falls due.
func (c *Client) SetClock(ctx context.Context, t time.Time) (ClockState, error) {
	return c.clock(ctx, "set", map[string]string{"time": t.Format(time.RFC3339Nano)})
}

// Freeze stops the clock following the wall clock: it moves only when
// advanced or set.
func (c *Client) Freeze(ctx context.Context) (ClockState, error) { return c.clock(ctx, "freeze", nil) }

// FollowWallClock makes the clock move with the wall clock again, keeping
// the advances made meanwhile.
func (c *Client) FollowWallClock(ctx context.Context) (ClockState, error) {
	return c.clock(ctx, "follow", nil)
}

func (c *Client) clock(ctx context.Context, op string, in any) (ClockState, error) {
	var body io.Reader
	ct := ""
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return ClockState{}, err
		}
		body, ct = bytes.NewReader(b), "application/json"
	}
	var out ClockState
	return out, c.call(ctx, http.MethodPost, "/api/clock/"+op, body, ct, &out)
}

// Deliveries lists the sourcehost fake's webhook deliveries, oldest first.
func (c *Client) Deliveries(ctx context.Context) ([]sourcehostfake.Delivery, error) {
	var out []sourcehostfake.Delivery
	return out, c.call(ctx, http.MethodGet, "/api/sourcehost/deliveries", nil, "", &out)
}

// Workflows lists the orch fake's workflow runs, newest first; namespace ""
// lists every namespace's.
func (c *Client) Workflows(ctx context.Context, namespace string) ([]orchfake.WorkflowSummary, error) {
	q := ""
	if namespace != "" {
		q = "?namespace=" + url.QueryEscape(namespace)
	}
	var out []orchfake.WorkflowSummary
	return out, c.call(ctx, http.MethodGet, "/api/orch/workflows"+q, nil, "", &out)
}

// History returns the events of one workflow run (the latest run of
// workflowID when runID is ""), as orchfake.Server.Execution gives them.
func (c *Client) History(ctx context.Context, namespace, workflowID, runID string) ([]*orchpb.HistoryEvent, error) {
	q := url.Values{"namespace": {namespace}, "workflow_id": {workflowID}, "run_id": {runID}}
	var raw json.RawMessage
	if err := c.call(ctx, http.MethodGet, "/api/orch/history?"+q.Encode(), nil, "", &raw); err != nil {
		return nil, err
	}
	out, err := decodeHistory(raw)
	if err != nil {
		return nil, fmt.Errorf("control API: GET /api/orch/history: reading the answer: %w", err)
	}
	return out, nil
}

// TaskQueues lists the orch fake's task queues with their backlogs and
// pollers.
func (c *Client) TaskQueues(ctx context.Context) ([]orchfake.TaskQueueSummary, error) {
	var out []orchfake.TaskQueueSummary
	return out, c.call(ctx, http.MethodGet, "/api/orch/task-queues", nil, "", &out)
}

// call makes one request and decodes the answer into out (nil: none
// expected).
func (c *Client) call(ctx context.Context, method, path string, body io.Reader, contentType string, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Accept", "application/json")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		e := &APIError{Status: resp.StatusCode}
		if json.Unmarshal(data, e) != nil || e.Message == "" {
			e.Message = strings.TrimSpace(string(data[:min(len(data), 512)]))
		}
		return e
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("control API: %s %s: reading the answer: %w", method, path, err)
	}
	return nil
}

// Snapshot makes apitwin-fake write a snapshot of every fake to its
// -state-dir now, as it does at shutdown, so that a crash after it loses
// nothing before it. Without -state-dir it is refused (409).
func (c *Client) Snapshot(ctx context.Context) (SnapshotInfo, error) {
	var out SnapshotInfo
	return out, c.call(ctx, http.MethodPost, "/api/snapshot", nil, "", &out)
}
