package sourcehostfake

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/internal/bodytext"
	"github.com/apitwin/apitwin/internal/credential"
	"github.com/apitwin/apitwin/internal/fakekit"
	"github.com/apitwin/apitwin/sourcehost"
)

// Webhook deliveries run off the request path, as the real service runs
// them in background jobs: a request that triggers a hook queues the
// delivery and answers; workers send it. Each hook has a queue of its own,
// delivered in order (FIFO), one delivery at a time; different hooks are
// delivered concurrently, up to hookWorkers at once.
//
// Recursion is stopped as the real service stops it. Every delivery
// carries sourcehost.HookUUIDHeader. A request that arrives without that
// header starts a chain per hook it triggers (each hook gets a new UUID,
// the same for every event of that hook in that request), and is never
// blocked. A request that arrives with it belongs to that chain: every hook
// it triggers is sent with the same UUID, unless the hook already fired in
// the chain or the chain already holds hookChainLimit hooks; then it is not
// sent, and is recorded as blocked.

// Delivery states.
const (
	// DeliverySent: the receiver answered 2xx.
	DeliverySent = "sent"
	// DeliveryFailed: the receiver answered another status, could not be
	// reached, or did not answer within the hook timeout.
	DeliveryFailed = "failed"
	// DeliveryBlocked: not sent, by the recursion rule, or because the
	// hook's host is an address hooks may not be sent to (see
	// Server.SetAllowLocalRequests).
	DeliveryBlocked = "blocked"
	// DeliveryDropped: not sent, because the hook's queue (or all queues
	// together) was full.
	DeliveryDropped = "dropped"
)

// Delivery is one webhook delivery the fake made, or chose not to make.
type Delivery struct {
	HookID    int64
	ProjectID int64
	URL       string
	Event     string // "Issue Hook", "Push Hook", …
	// UUID is the chain the delivery belongs to, as sent in
	// sourcehost.HookUUIDHeader.
	UUID string
	// Payload is the start of the JSON payload (the whole of it up to the
	// delivery log's payload bound, 64 KiB by default); PayloadSize is its
	// full size.
	Payload     []byte
	PayloadSize int
	// Time is when the delivery was queued, on the fake clock.
	Time time.Time
	// State is DeliverySent, DeliveryFailed, DeliveryBlocked or
	// DeliveryDropped.
	State string
	// Status is the receiver's answer; 0 when there was none.
	Status int
	// Duration is how long the delivery took, on the wall clock; 0 when it
	// was not sent.
	Duration time.Duration
	// Error says why the delivery failed or was not sent; "" when the
	// receiver answered 2xx.
	Error string
}

// OK reports whether the receiver accepted the delivery.
func (d Delivery) OK() bool { return d.State == DeliverySent }

// deliveryJSON is a Delivery in JSON.
type deliveryJSON struct {
	HookID          int64     `json:"hook_id"`
	ProjectID       int64     `json:"project_id"`
	URL             string    `json:"url"`
	Event           string    `json:"event"`
	UUID            string    `json:"uuid"`
	Payload         string    `json:"payload"`
	PayloadEncoding string    `json:"payload_encoding,omitempty"`
	PayloadSize     int       `json:"payload_size"`
	Time            time.Time `json:"time"`
	State           string    `json:"state"`
	Status          int       `json:"status,omitempty"`
	DurationMS      float64   `json:"duration_ms,omitempty"`
	Error           string    `json:"error,omitempty"`
}

// MarshalJSON writes d as apitwin-fake's control API gives a delivery:
// the URL without its userinfo or credential query parameters (a hook's
// URL may carry a password), the payload as text, or as base64 when it
// is not UTF-8 (payload_encoding "base64"; a payload cut at the log's
// bound may end inside a character), the duration in milliseconds.
func (d Delivery) MarshalJSON() ([]byte, error) {
	w := deliveryJSON{HookID: d.HookID, ProjectID: d.ProjectID, URL: shownURL(d.URL), Event: d.Event, UUID: d.UUID,
		PayloadSize: d.PayloadSize, Time: d.Time, State: d.State, Status: d.Status,
		DurationMS: float64(d.Duration.Microseconds()) / 1000, Error: d.Error}
	w.Payload, w.PayloadEncoding = bodytext.Encode(d.Payload)
	return json.Marshal(w)
}

// UnmarshalJSON reads a delivery as the control API gives it.
func (d *Delivery) UnmarshalJSON(b []byte) error {
	var w deliveryJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	payload, err := bodytext.Decode(w.Payload, w.PayloadEncoding)
	if err != nil {
		return fmt.Errorf("payload: %w", err)
	}
	*d = Delivery{HookID: w.HookID, ProjectID: w.ProjectID, URL: w.URL, Event: w.Event, UUID: w.UUID,
		Payload: payload, PayloadSize: w.PayloadSize, Time: w.Time, State: w.State, Status: w.Status,
		Duration: time.Duration(w.DurationMS * float64(time.Millisecond)).Round(time.Microsecond), Error: w.Error}
	return nil
}

// shownURL is a URL someone gave (a webhook's) as the fakes show it:
// without its userinfo or credential query parameters
// (credential.RedactURL).
func shownURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(a URL that does not parse)"
	}
	return credential.RedactURL(u)
}

// The bounds of webhook delivery; see the package doc's Bounds section.
const (
	// DefaultHookTimeout is how long a receiver has to answer, as the real
	// service's default.
	DefaultHookTimeout = 10 * time.Second
	// DefaultHookQueue is how many deliveries may wait per hook.
	DefaultHookQueue = 1000
	// DefaultHookQueueBytes is how many bytes of payloads may wait in all
	// queues together (a payload sent to several hooks counts once).
	DefaultHookQueueBytes = 64 << 20
	// DefaultDeliveryLog and DefaultDeliveryLogPayload bound the log of
	// deliveries: its entries, and the bytes of each payload it keeps.
	DefaultDeliveryLog        = 10_000
	DefaultDeliveryLogPayload = 64 << 10
	// deliveryLogBytes caps the memory of the delivery log in all.
	deliveryLogBytes = 32 << 20
	// hookWorkers is how many deliveries may be in flight at once.
	hookWorkers = 16
	// hookChainLimit is how many hooks one chain may trigger, as the real
	// service's recursion detection allows.
	hookChainLimit = 100
	// hookChainTTL is how long a chain is remembered after its last hook,
	// on the fake clock, as the real service keeps it.
	hookChainTTL = 30 * time.Minute
	// hookChains caps the chains remembered; the oldest go first.
	hookChains = 10_000
	// maxChainUUID is the longest header value taken as a chain's UUID; a
	// longer one is ignored (the request starts new chains).
	maxChainUUID = 64
)

// event is one delivery to queue: a hook and what to send it.
type event struct {
	hookID    int64
	projectID int64
	url       string
	token     string
	sslVerify bool
	name      string
	payload   *payload
}

// payload is an event's JSON body, shared by every hook the event goes to.
// refs counts the deliveries waiting with it, for the queue's byte bound.
type payload struct {
	data []byte
	refs int
}

// trigger is what a request (or the fake itself) triggers hooks as: the
// chain it belongs to, or none.
type trigger struct {
	chain   string           // the UUID the request came with; "" for none
	perHook map[int64]string // the new UUIDs given to hooks, without a chain
}

// hookUUIDKey is sourcehost.HookUUIDHeader as http.Header keeps it, so
// that looking it up makes no copy.
var hookUUIDKey = http.CanonicalHeaderKey(sourcehost.HookUUIDHeader)

// chainOf reads the chain a request belongs to from its header.
func chainOf(r *http.Request) *trigger {
	uuid := r.Header.Get(hookUUIDKey)
	if len(uuid) > maxChainUUID {
		uuid = ""
	}
	return &trigger{chain: uuid}
}

// job is one delivery waiting in a hook's queue.
type job struct {
	ev     event
	uuid   string
	queued time.Time
	gen    uint64
}

// hookQueue is one hook's waiting deliveries.
type hookQueue struct {
	id    int64
	jobs  []*job
	ready bool // in dispatcher.ready or being delivered
}

type chain struct {
	hooks   []int64 // at most hookChainLimit
	touched time.Time
}

// dispatcher queues and sends webhook deliveries. It has a lock of its
// own, taken after Server.mu when both are held; its workers never take
// Server.mu.
type dispatcher struct {
	clock    *clock.Fake
	timeout  time.Duration
	perHook  int
	maxBytes int64
	client   *http.Client
	// guard checks each delivery's address: in client's dialer when it
	// could be guarded, else before the request (precheck).
	guard   *hookGuard
	guarded bool

	insecureOnce sync.Once
	insecure     *http.Client

	mu  sync.Mutex
	gen uint64 // bumped by reset: work of an older generation is forgotten
	// ctx is the deliveries' context, cancelled by reset; it is made by
	// the first delivery that needs one (nil until then), as queues and
	// chains are made by the first event: most fakes deliver nothing, and
	// a fake is started (and closed) per test.
	ctx     context.Context
	cancel  context.CancelFunc
	closed  bool
	queues  map[int64]*hookQueue
	ready   []*hookQueue // queues with work and no worker on them, in turn
	workers int
	pending int           // deliveries queued or in flight
	bytes   int64         // payload bytes queued
	idle    chan struct{} // closed when pending falls to 0
	log     *fakekit.Bounded[Delivery]
	logMax  int
	chains  map[string]*chain
	order   []string // chain UUIDs, oldest first
}

func newDispatcher(clk *clock.Fake, cfg config, allowLocal func() bool) *dispatcher {
	d := &dispatcher{clock: clk, timeout: cfg.hookTimeout, perHook: cfg.hookQueue, maxBytes: cfg.hookQueueBytes,
		logMax: cfg.deliveryPayload, guard: &hookGuard{resolver: cfg.hookResolver, allowLocal: allowLocal}}
	d.client, d.guarded = guardedClient(cfg.hookClient, d.guard)
	d.log = fakekit.NewBounded[Delivery](cfg.deliveryLog, deliveryLogBytes)
	d.resetLocked()
	return d
}

// resetLocked drops every waiting delivery, cancels those in flight, and
// forgets the log and the chains. d.mu must be held (or d unshared).
func (d *dispatcher) resetLocked() {
	if d.cancel != nil {
		d.cancel()
	}
	d.gen++
	d.ctx, d.cancel = nil, nil
	clear(d.queues)
	d.ready, d.pending, d.bytes = nil, 0, 0
	if d.idle != nil {
		close(d.idle)
		d.idle = nil
	}
	d.log.Reset()
	clear(d.chains)
	d.order = nil
}

// reset is Server.Reset's part: pending deliveries are dropped.
func (d *dispatcher) reset() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.resetLocked()
}

// close stops the queues for good: waiting deliveries are dropped, those in
// flight cancelled, and new ones are not queued.
func (d *dispatcher) close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return
	}
	log := d.log.All()
	d.resetLocked()
	for _, rec := range log { // what was delivered stays readable
		d.log.Add(rec, recordSize(rec))
	}
	d.closed = true
}

// enqueue queues the deliveries of events triggered as t, in order. Blocked
// and dropped ones are recorded at once. It does no I/O: the state lock may
// be held, so that hooks get events in the order the state changed.
func (d *dispatcher) enqueue(t *trigger, events []event) {
	if len(events) == 0 {
		return
	}
	now := d.clock.Now()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return
	}
	for _, ev := range events {
		j := &job{ev: ev, queued: now, gen: d.gen}
		if t.chain == "" {
			// Not called by a hook: a chain of the hook's own, never blocked.
			if t.perHook == nil {
				t.perHook = map[int64]string{}
			}
			if t.perHook[ev.hookID] == "" {
				t.perHook[ev.hookID] = newUUID()
			}
			j.uuid = t.perHook[ev.hookID]
		} else {
			j.uuid = t.chain
			if why := d.blocked(t.chain, ev.hookID, now); why != "" {
				d.record(j, DeliveryBlocked, 0, 0, why)
				continue
			}
		}
		q := d.queues[ev.hookID]
		if q == nil {
			q = &hookQueue{id: ev.hookID}
			if d.queues == nil {
				d.queues = map[int64]*hookQueue{}
			}
			d.queues[ev.hookID] = q
		}
		size := int64(0)
		if ev.payload.refs == 0 {
			size = int64(len(ev.payload.data))
		}
		if len(q.jobs) >= d.perHook || d.bytes+size > d.maxBytes {
			d.record(j, DeliveryDropped, 0, 0, "the webhook queue is full")
			continue
		}
		d.register(j.uuid, ev.hookID, now)
		ev.payload.refs++
		d.bytes += size
		q.jobs = append(q.jobs, j)
		d.pending++
		if d.idle == nil {
			d.idle = make(chan struct{})
		}
		if !q.ready {
			q.ready = true
			d.ready = append(d.ready, q)
			if d.workers < hookWorkers {
				d.workers++
				go d.work()
			}
		}
	}
}

// blocked says why the recursion rule stops hook in chain uuid, or "".
// d.mu must be held.
func (d *dispatcher) blocked(uuid string, hook int64, now time.Time) string {
	c := d.chains[uuid]
	if c == nil || now.Sub(c.touched) > hookChainTTL {
		return ""
	}
	switch {
	case slices.Contains(c.hooks, hook):
		return fmt.Sprintf("Recursive webhook blocked: hook %d already fired in this chain", hook)
	case len(c.hooks) >= hookChainLimit:
		return fmt.Sprintf("Recursive webhook blocked: this chain already fired %d webhooks", hookChainLimit)
	}
	return ""
}

// register notes that hook fired in chain uuid. d.mu must be held.
func (d *dispatcher) register(uuid string, hook int64, now time.Time) {
	c := d.chains[uuid]
	if c != nil && now.Sub(c.touched) > hookChainTTL {
		c.hooks = nil
	}
	if c == nil {
		if len(d.order) >= hookChains {
			delete(d.chains, d.order[0])
			d.order = slices.Delete(d.order, 0, 1)
		}
		c = &chain{}
		if d.chains == nil {
			d.chains = map[string]*chain{}
		}
		d.chains[uuid] = c
		d.order = append(d.order, uuid)
	}
	c.touched = now
	if !slices.Contains(c.hooks, hook) && len(c.hooks) < hookChainLimit {
		c.hooks = append(c.hooks, hook)
	}
}

// dropHook forgets the waiting deliveries of a deleted hook, as the real
// service skips the jobs of a hook that no longer exists.
func (d *dispatcher) dropHook(id int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	q := d.queues[id]
	if q == nil {
		return
	}
	for _, j := range q.jobs {
		d.release(j)
		d.pending--
	}
	q.jobs = nil
	d.settle()
}

// release gives back a waiting job's share of the byte bound. d.mu must be
// held.
func (d *dispatcher) release(j *job) {
	j.ev.payload.refs--
	if j.ev.payload.refs == 0 {
		d.bytes -= int64(len(j.ev.payload.data))
	}
}

// settle wakes WaitDeliveries once nothing is pending. d.mu must be held.
func (d *dispatcher) settle() {
	if d.pending == 0 && d.idle != nil {
		close(d.idle)
		d.idle = nil
	}
}

// work delivers the head of each ready queue in turn until none is left.
func (d *dispatcher) work() {
	for {
		d.mu.Lock()
		if len(d.ready) == 0 || d.closed {
			d.workers--
			d.mu.Unlock()
			return
		}
		q := d.ready[0]
		d.ready = slices.Delete(d.ready, 0, 1)
		if len(q.jobs) == 0 { // its hook was deleted meanwhile
			d.retire(q)
			d.mu.Unlock()
			continue
		}
		j := q.jobs[0]
		q.jobs = slices.Delete(q.jobs, 0, 1)
		d.release(j)
		if d.ctx == nil {
			d.ctx, d.cancel = context.WithCancel(context.Background())
		}
		ctx := d.ctx
		d.mu.Unlock()

		status, took, errText, blocked := d.send(ctx, j)

		d.mu.Lock()
		if j.gen == d.gen { // not reset meanwhile
			state := DeliverySent
			switch {
			case blocked:
				state = DeliveryBlocked
			case errText != "":
				state = DeliveryFailed
			}
			d.record(j, state, status, took, errText)
			d.pending--
			if len(q.jobs) > 0 {
				d.ready = append(d.ready, q)
			} else {
				d.retire(q)
			}
			d.settle()
		}
		d.mu.Unlock()
	}
}

// retire forgets a queue that has no more work. d.mu must be held.
func (d *dispatcher) retire(q *hookQueue) {
	q.ready = false
	if d.queues[q.id] == q {
		delete(d.queues, q.id)
	}
}

// send POSTs a delivery and reports the receiver's status, the time it
// took, and what went wrong ("" for a 2xx answer); blocked when it was not
// sent for its address.
func (d *dispatcher) send(ctx context.Context, j *job) (status int, took time.Duration, errText string, blocked bool) {
	// start before the deadline is set: a delivery that timed out took at
	// least the timeout, however late this goroutine runs.
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, j.ev.url, bytes.NewReader(j.ev.payload.data))
	if err != nil {
		return 0, 0, err.Error(), false
	}
	if !d.guarded {
		if err := d.guard.precheck(ctx, j.ev.url); err != nil {
			var b *blockedError
			return 0, 0, err.Error(), errors.As(err, &b)
		}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Sourcehost/apitwin-fake")
	req.Header.Set(sourcehost.HookEventHeader, j.ev.name)
	req.Header.Set(sourcehost.HookUUIDHeader, j.uuid)
	if j.ev.token != "" {
		req.Header.Set(sourcehost.HookTokenHeader, j.ev.token)
	}
	resp, err := d.clientFor(j.ev.sslVerify).Do(req)
	if err != nil {
		var b *blockedError
		switch {
		case errors.As(err, &b):
			return 0, 0, b.Error(), true
		case errors.Is(err, context.DeadlineExceeded):
			return 0, time.Since(start), fmt.Sprintf("the receiver did not answer within %v", d.timeout), false
		}
		return 0, time.Since(start), err.Error(), false
	}
	// Read (a little of) the answer, so that a client's own transport can
	// reuse the connection.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	took = time.Since(start)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, took, "receiver answered " + resp.Status, false
	}
	return resp.StatusCode, took, "", false
}

// clientFor is the client for a hook: the configured one, or for hooks
// with SSL verification off, one copy of it that skips verification, built
// once so its connections are reused.
func (d *dispatcher) clientFor(sslVerify bool) *http.Client {
	if sslVerify {
		return d.client
	}
	d.insecureOnce.Do(func() {
		hc := *d.client
		tr, ok := hc.Transport.(*http.Transport)
		if !ok || tr == nil {
			if hc.Transport != nil { // a transport of the caller's own: use it as it is
				d.insecure = &hc
				return
			}
			tr = http.DefaultTransport.(*http.Transport)
		}
		tr = tr.Clone()
		tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // the hook asked for no verification
		hc.Transport = tr
		d.insecure = &hc
	})
	return d.insecure
}

// record logs a delivery's outcome. d.mu must be held.
func (d *dispatcher) record(j *job, state string, status int, took time.Duration, errText string) {
	data := j.ev.payload.data
	rec := Delivery{HookID: j.ev.hookID, ProjectID: j.ev.projectID, URL: j.ev.url, Event: j.ev.name, UUID: j.uuid,
		Payload: bytes.Clone(data[:min(len(data), d.logMax)]), PayloadSize: len(data), Time: j.queued,
		State: state, Status: status, Duration: took, Error: errText}
	d.log.Add(rec, recordSize(rec))
}

func recordSize(d Delivery) int64 {
	return int64(256 + len(d.URL) + len(d.Event) + len(d.UUID) + len(d.Payload) + len(d.Error))
}

// Deliveries returns the webhook deliveries made, blocked or dropped so
// far, in the order they were done (the newest 10,000 by default; see
// WithDeliveryLog): a blocked or dropped one when it is queued, a sent or
// failed one when its receiver answered or gave up. Those of one hook were
// sent in the order they were queued (Time). Call WaitDeliveries first to
// see all the deliveries a call triggered.
func (s *Server) Deliveries() []Delivery {
	s.hooks.mu.Lock()
	defer s.hooks.mu.Unlock()
	return s.hooks.log.All()
}

// WaitDeliveries waits until every queued webhook delivery is done (sent,
// failed or timed out), including those that deliveries trigger in turn by
// calling the fake back, or until ctx ends.
func (s *Server) WaitDeliveries(ctx context.Context) error {
	d := s.hooks
	for {
		d.mu.Lock()
		idle := d.idle
		d.mu.Unlock()
		if idle == nil {
			return nil
		}
		select {
		case <-idle:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
