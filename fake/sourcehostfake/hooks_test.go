package sourcehostfake_test

import (
	"cmp"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/internal/fakekit"
	"github.com/apitwin/apitwin/sourcehost"
)

// holdingReceiver is a webhook receiver that takes each delivery and holds
// it, unanswered, until the test releases it (or the sender gives up).
type holdingReceiver struct {
	*httptest.Server
	arrived chan string // the event of each delivery, as it arrives
	release chan struct{}
	once    sync.Once
}

func newHoldingReceiver(t *testing.T) *holdingReceiver {
	rc := &holdingReceiver{arrived: make(chan string, 1000), release: make(chan struct{})}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc.arrived <- r.Header.Get(sourcehost.HookEventHeader)
		select {
		case <-rc.release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { rc.let(); rc.Close() })
	return rc
}

// let releases every delivery held and to come.
func (rc *holdingReceiver) let() { rc.once.Do(func() { close(rc.release) }) }

func states(ds []sourcehostfake.Delivery) string {
	var out []string
	for _, d := range ds {
		out = append(out, fmt.Sprintf("%s/%s/%d", d.Event, d.State, d.Status))
	}
	return strings.Join(out, ", ")
}

// Finding 5 of issue 14: a receiver that never answers held the request
// that triggered the delivery for 10 s, and a delivery triggered by the
// clock held Advance as long.
func TestReceiverThatNeverAnswersHoldsNothing(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	ctx := t.Context()
	id, err := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Files: map[string]string{sourcehostfake.CIFile: "test: {}"}})
	if err != nil {
		t.Fatal(err)
	}
	rc := newHoldingReceiver(t)
	if _, err := srv.AddHook(id, sourcehostfake.HookSeed{URL: rc.URL, PushEvents: sourcehost.Ptr(false), IssuesEvents: true, PipelineEvents: true}); err != nil {
		t.Fatal(err)
	}
	c := srv.Client()
	if _, err := c.CreateIssue(ctx, sourcehost.ProjectID(id), &sourcehost.CreateIssueRequest{Title: "one"}); err != nil {
		t.Fatal(err)
	}
	// The request has its answer; its delivery is now held by the receiver.
	if ev := <-rc.arrived; ev != sourcehost.IssueHookEvent {
		t.Fatalf("first delivery %q", ev)
	}
	// The clock moves the seeded pipeline on meanwhile; its delivery waits
	// behind the held one, in the hook's queue.
	srv.Clock().Advance(5 * time.Second)
	pls, err := c.ListPipelines(ctx, sourcehost.ProjectID(id), nil)
	if err != nil || len(pls.Items) != 1 || pls.Items[0].Status != sourcehost.PipelineRunning {
		t.Fatalf("pipelines %+v %v", pls, err)
	}
	if _, err := c.CreateIssue(ctx, sourcehost.ProjectID(id), &sourcehost.CreateIssueRequest{Title: "two"}); err != nil {
		t.Fatal(err)
	}
	if ds := srv.Deliveries(); len(ds) != 0 {
		t.Fatalf("deliveries done while the receiver holds the first: %s", states(ds))
	}
	rc.let()
	if err := srv.WaitDeliveries(ctx); err != nil {
		t.Fatal(err)
	}
	ds := srv.Deliveries()
	if got := states(ds); got != "Issue Hook/sent/200, Pipeline Hook/sent/200, Issue Hook/sent/200" {
		t.Fatalf("deliveries, in the hook's order: %s", got)
	}
	for _, d := range ds {
		if d.Duration <= 0 || d.UUID == "" || d.HookID == 0 || d.ProjectID != id || d.PayloadSize != len(d.Payload) {
			t.Fatalf("delivery record %+v", d)
		}
	}
	if !ds[1].Time.Equal(ds[0].Time.Add(5*time.Second)) || ds[0].UUID == ds[2].UUID {
		t.Fatalf("times %v %v, chains %s %s", ds[0].Time, ds[1].Time, ds[0].UUID, ds[2].UUID)
	}
}

// Finding 5 of issue 14: a hook whose URL creates an issue in its own
// project recursed (one issue became 28, or 599). The real service's rule
// stops it at once: the delivery's call back carries the chain's UUID, and
// the hook already fired in that chain.
func TestHookThatCallsTheFakeBack(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	ctx := t.Context()
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
	self := fmt.Sprintf("%s/api/v4/projects/%d/issues?title=echo&private_token=%s", srv.URL(), id, url.QueryEscape(srv.Token()))
	if _, err := srv.Client().AddProjectHook(ctx, sourcehost.ProjectID(id), &sourcehost.AddProjectHookRequest{
		URL: self, IssuesEvents: sourcehost.Ptr(true), PushEvents: sourcehost.Ptr(false)}); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Client().CreateIssue(ctx, sourcehost.ProjectID(id), &sourcehost.CreateIssueRequest{Title: "first"}); err != nil {
		t.Fatal(err)
	}
	if err := srv.WaitDeliveries(ctx); err != nil {
		t.Fatal(err)
	}
	issues := srv.Issues(id)
	if len(issues) != 2 || issues[0].Title != "first" || issues[1].Title != "echo" {
		t.Fatalf("%d issues: %+v", len(issues), issues)
	}
	// Deliveries are recorded as they are done: the blocked one while the
	// first, which caused it, still waited for its answer.
	ds := srv.Deliveries()
	if got := states(ds); got != "Issue Hook/blocked/0, Issue Hook/sent/201" {
		t.Fatalf("deliveries: %s", got)
	}
	if ds[0].UUID != ds[1].UUID || ds[0].Error != fmt.Sprintf("Recursive webhook blocked: hook %d already fired in this chain", ds[0].HookID) {
		t.Fatalf("blocked delivery %+v", ds[0])
	}
	// The call back is in the request log, made by root with the chain's UUID.
	back := srv.RequestsTo("POST /api/v4/projects/{id}/issues")
	if len(back) != 2 || back[1].Header.Get(sourcehost.HookUUIDHeader) != ds[0].UUID || back[1].Caller != sourcehostfake.RootUsername {
		t.Fatalf("requests %v", back)
	}
}

// A chain of hooks, each creating an issue in the next project, stops
// after 100 hooks: the 101st is blocked.
func TestChainOfMoreThan100Hooks(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t, sourcehostfake.WithRateLimit(0, 0))
	ctx := t.Context()
	const n = 101
	ids := make([]int64, n)
	for i := range ids {
		ids[i], _ = srv.AddProject(sourcehostfake.ProjectSeed{Name: fmt.Sprintf("p%d", i)})
	}
	for i, id := range ids {
		next := fmt.Sprintf("%s/api/v4/projects/%d/issues?title=from-%d&private_token=%s", srv.URL(), id+1, i, url.QueryEscape(srv.Token()))
		if _, err := srv.AddHook(id, sourcehostfake.HookSeed{URL: next, IssuesEvents: true}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := srv.AddIssue(ids[0], sourcehostfake.IssueSeed{Title: "start"}); err != nil {
		t.Fatal(err)
	}
	if err := srv.WaitDeliveries(ctx); err != nil {
		t.Fatal(err)
	}
	ds := srv.Deliveries()
	if len(ds) != n {
		t.Fatalf("%d deliveries", len(ds))
	}
	// Recorded as they were done, which is not quite the chain's order.
	slices.SortFunc(ds, func(a, b sourcehostfake.Delivery) int { return cmp.Compare(a.ProjectID, b.ProjectID) })
	for i, d := range ds[:n-1] {
		if d.State != sourcehostfake.DeliverySent || d.UUID != ds[0].UUID || d.ProjectID != ids[i] {
			t.Fatalf("delivery %d: %+v", i, d)
		}
	}
	last := ds[n-1]
	if last.State != sourcehostfake.DeliveryBlocked || last.ProjectID != ids[n-1] || last.UUID != ds[0].UUID ||
		last.Error != "Recursive webhook blocked: this chain already fired 100 webhooks" {
		t.Fatalf("the 101st: %+v", last)
	}
	if got := len(srv.Issues(ids[n-1])); got != 1 {
		t.Fatalf("the last project has %d issues", got)
	}
}

// A hook's queue is bounded: a delivery past it is not sent, and is
// recorded as dropped at once.
func TestFullQueueDropsAndRecords(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t, sourcehostfake.WithHookQueue(2, 0))
	ctx := t.Context()
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
	rc := newHoldingReceiver(t)
	srv.AddHook(id, sourcehostfake.HookSeed{URL: rc.URL, IssuesEvents: true})
	srv.AddIssue(id, sourcehostfake.IssueSeed{Title: "in flight"})
	<-rc.arrived
	for i := range 3 {
		srv.AddIssue(id, sourcehostfake.IssueSeed{Title: fmt.Sprint("waiting ", i)})
	}
	ds := srv.Deliveries()
	if len(ds) != 1 || ds[0].State != sourcehostfake.DeliveryDropped || ds[0].Error != "the webhook queue is full" ||
		!strings.Contains(string(ds[0].Payload), `"waiting 2"`) {
		t.Fatalf("deliveries %+v", ds)
	}
	rc.let()
	if err := srv.WaitDeliveries(ctx); err != nil {
		t.Fatal(err)
	}
	if got := states(srv.Deliveries()); got != "Issue Hook/dropped/0, Issue Hook/sent/200, Issue Hook/sent/200, Issue Hook/sent/200" {
		t.Fatalf("deliveries %s", got)
	}
}

// A receiver that does not answer within the hook timeout fails the
// delivery; the next one goes on.
func TestHookTimeout(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t, sourcehostfake.WithHookTimeout(50*time.Millisecond))
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
	rc := newHoldingReceiver(t)
	srv.AddHook(id, sourcehostfake.HookSeed{URL: rc.URL, IssuesEvents: true})
	srv.AddIssue(id, sourcehostfake.IssueSeed{Title: "one"})
	if err := srv.WaitDeliveries(t.Context()); err != nil {
		t.Fatal(err)
	}
	ds := srv.Deliveries()
	if len(ds) != 1 || ds[0].State != sourcehostfake.DeliveryFailed || ds[0].Status != 0 ||
		ds[0].Error != "the receiver did not answer within 50ms" || ds[0].Duration < 50*time.Millisecond {
		t.Fatalf("deliveries %+v", ds)
	}
}

// Close stops the queues: what is in flight is cancelled, what waits is
// dropped, and nothing is left to wait for.
func TestCloseStopsTheQueues(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
	rc := newHoldingReceiver(t)
	srv.AddHook(id, sourcehostfake.HookSeed{URL: rc.URL, IssuesEvents: true})
	srv.AddIssue(id, sourcehostfake.IssueSeed{Title: "in flight"})
	<-rc.arrived
	srv.AddIssue(id, sourcehostfake.IssueSeed{Title: "waiting"})
	srv.Close()
	srv.Close() // idempotent
	if err := srv.WaitDeliveries(t.Context()); err != nil {
		t.Fatal(err)
	}
	srv.AddIssue(id, sourcehostfake.IssueSeed{Title: "after"})
	if err := srv.WaitDeliveries(t.Context()); err != nil || len(rc.arrived) != 0 || len(srv.Deliveries()) != 0 {
		t.Fatalf("after Close: %v, %d more arrived, %s", err, len(rc.arrived), states(srv.Deliveries()))
	}
}

// A deleted hook's waiting deliveries are not sent.
func TestDeletedHookIsNotDelivered(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	ctx := t.Context()
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
	rc := newHoldingReceiver(t)
	hid, _ := srv.AddHook(id, sourcehostfake.HookSeed{URL: rc.URL, IssuesEvents: true})
	srv.AddIssue(id, sourcehostfake.IssueSeed{Title: "in flight"})
	<-rc.arrived
	srv.AddIssue(id, sourcehostfake.IssueSeed{Title: "waiting"})
	if err := srv.Client().DeleteProjectHook(ctx, sourcehost.ProjectID(id), hid); err != nil {
		t.Fatal(err)
	}
	rc.let()
	if err := srv.WaitDeliveries(ctx); err != nil {
		t.Fatal(err)
	}
	if got := states(srv.Deliveries()); got != "Issue Hook/sent/200" {
		t.Fatalf("deliveries %s", got)
	}
}

// A project has at most 100 hooks, as the real service's default limit.
func TestHookLimit(t *testing.T) {
	t.Parallel()
	srv, err := sourcehostfake.New()
	if err != nil {
		t.Fatal(err)
	}
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
	for i := range 100 {
		if _, err := srv.AddHook(id, sourcehostfake.HookSeed{URL: fmt.Sprintf("http://hooks.example/%d", i)}); err != nil {
			t.Fatal(i, err)
		}
	}
	rec := serve(srv, "POST", fmt.Sprintf("/api/v4/projects/%d/hooks", id), "application/x-www-form-urlencoded", "url=http://hooks.example/x")
	if rec.Code != 422 || rec.Body.String() != `{"message":{"base":["Maximum number of project hooks (100) exceeded"]}}` {
		t.Fatalf("101st hook: %d %s", rec.Code, rec.Body)
	}
	if _, err := srv.AddHook(id, sourcehostfake.HookSeed{URL: "http://hooks.example/y"}); err == nil ||
		err.Error() != "sourcehostfake: base Maximum number of project hooks (100) exceeded" {
		t.Fatalf("seeding the 101st: %v", err)
	}
}

// A request that carries a chain's UUID passes it on; one too long to be a
// UUID is ignored and starts chains of its own.
func TestChainUUIDFromTheRequest(t *testing.T) {
	t.Parallel()
	srv, err := sourcehostfake.New(sourcehostfake.WithHookClient(&http.Client{Transport: fakekit.HandlerTransport{
		Handler: http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})}}))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Hooks: []sourcehostfake.HookSeed{{URL: "http://r.test/", IssuesEvents: true}}})
	long := strings.Repeat("u", 65)
	for _, uuid := range []string{"chain-1", long} {
		req := httptest.NewRequest("POST", fmt.Sprintf("/api/v4/projects/%d/issues?title=t", id), nil)
		req.Header.Set("PRIVATE-TOKEN", srv.Token())
		req.Header.Set(sourcehost.HookUUIDHeader, uuid)
		srv.ServeHTTP(httptest.NewRecorder(), req)
		if err := srv.WaitDeliveries(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	ds := srv.Deliveries()
	if len(ds) != 2 || ds[0].UUID != "chain-1" || ds[1].UUID == long || len(ds[1].UUID) != 36 || !ds[0].OK() || !ds[1].OK() {
		t.Fatalf("deliveries %+v", ds)
	}
}

// A hook with SSL verification off reaches a receiver whose certificate
// nobody trusts; one with it on does not.
func TestHookSSLVerification(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	rc := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	rc.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake is the point
	rc.StartTLS()
	t.Cleanup(rc.Close)
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Hooks: []sourcehostfake.HookSeed{
		{URL: rc.URL + "/on", IssuesEvents: true, PushEvents: sourcehost.Ptr(false)},
		{URL: rc.URL + "/off", IssuesEvents: true, PushEvents: sourcehost.Ptr(false), EnableSSLVerification: sourcehost.Ptr(false)},
	}})
	srv.AddIssue(id, sourcehostfake.IssueSeed{Title: "t"})
	if err := srv.WaitDeliveries(t.Context()); err != nil {
		t.Fatal(err)
	}
	got := map[string]sourcehostfake.Delivery{}
	for _, d := range srv.Deliveries() {
		got[strings.TrimPrefix(d.URL, rc.URL)] = d
	}
	if on := got["/on"]; on.State != sourcehostfake.DeliveryFailed || !strings.Contains(on.Error, "certificate") {
		t.Errorf("verified: %+v", on)
	}
	if off := got["/off"]; off.State != sourcehostfake.DeliverySent {
		t.Errorf("not verified: %+v", off)
	}
}

// The delivery log keeps the newest deliveries, and the start of each
// payload.
func TestDeliveryLogBounds(t *testing.T) {
	t.Parallel()
	srv, err := sourcehostfake.New(sourcehostfake.WithDeliveryLog(2, 10), sourcehostfake.WithHookClient(&http.Client{
		Transport: fakekit.HandlerTransport{Handler: http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})}}))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Hooks: []sourcehostfake.HookSeed{{URL: "http://r.test/", IssuesEvents: true}}})
	for i := range 3 {
		srv.AddIssue(id, sourcehostfake.IssueSeed{Title: fmt.Sprint(i)})
	}
	if err := srv.WaitDeliveries(t.Context()); err != nil {
		t.Fatal(err)
	}
	ds := srv.Deliveries()
	if len(ds) != 2 || len(ds[0].Payload) != 10 || ds[0].PayloadSize < 100 || ds[0].Time.IsZero() {
		t.Fatalf("deliveries %+v", ds)
	}
}

// A fake served in memory delivers to a fake served in memory (here
// itself): its name is no host on any network, so the check of where
// hooks may go does not look it up, and the delivery dials the listener.
func TestHookToAFakeInMemory(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t, control.WithInMemory(), sourcehostfake.WithAllowLocalRequests(false))
	ctx := t.Context()
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
	self := fmt.Sprintf("%s/api/v4/projects/%d/issues?title=echo&private_token=%s", srv.URL(), id, url.QueryEscape(srv.Token()))
	if _, err := srv.AddHook(id, sourcehostfake.HookSeed{URL: self, IssuesEvents: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.AddIssue(id, sourcehostfake.IssueSeed{Title: "first"}); err != nil {
		t.Fatal(err)
	}
	if err := srv.WaitDeliveries(ctx); err != nil {
		t.Fatal(err)
	}
	if got := states(srv.Deliveries()); got != "Issue Hook/blocked/0, Issue Hook/sent/201" {
		t.Fatalf("deliveries: %s", got)
	}
}
