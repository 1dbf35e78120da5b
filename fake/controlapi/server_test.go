package controlapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/controlapi"
	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
	"github.com/apitwin/apitwin/sourcehost"
	"google.golang.org/protobuf/proto"
)

const token = "test-control-token-0123456789"

// env is the fakes, their control server, and a Go client of it.
type env struct {
	f   *fake.Fakes
	wc  *controlapi.WallClock
	srv *controlapi.Server
	url string
	c   *controlapi.Client
}

func start(t *testing.T) *env {
	t.Helper()
	f := fake.Start(t)
	wc := controlapi.NewWallClock(f.Clock, false)
	srv, err := controlapi.New(f, wc, token)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return &env{f: f, wc: wc, srv: srv, url: ts.URL, c: controlapi.NewClient(ts.URL, token, ts.Client())}
}

// raw makes one request to the control API and returns the status and
// body.
func (e *env) raw(t *testing.T, method, path, contentType, body string, tok string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, e.url+path, strings.NewReader(body))
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestNewRefusesAShortToken(t *testing.T) {
	t.Parallel()
	f := fake.Start(t)
	if _, err := controlapi.New(f, controlapi.NewWallClock(f.Clock, false), "short"); err == nil {
		t.Fatal("a 5-character token accepted")
	}
}

func TestEveryOperationNeedsTheToken(t *testing.T) {
	t.Parallel()
	e := start(t)
	for _, tok := range []string{"", "wrong-token-0123456789", token + "x"} {
		status, body := e.raw(t, "GET", "/api/services", "", "", tok)
		if status != http.StatusUnauthorized || !strings.Contains(body, `"error"`) {
			t.Errorf("token %q: %d %s", tok, status, body)
		}
	}
	// A write with a wrong token changes nothing.
	if status, _ := e.raw(t, "POST", "/api/erp/faults", "application/json", `{"status":503}`, "nope-nope-nope-nope"); status != 401 {
		t.Errorf("fault with a wrong token: %d", status)
	}
	if len(e.f.ERP.Faults()) != 0 {
		t.Error("a fault was injected without the token")
	}
	// The OpenAPI document is not secret.
	if status, body := e.raw(t, "GET", "/openapi.json", "", "", ""); status != 200 || !strings.Contains(body, `"openapi"`) {
		t.Errorf("openapi.json: %d", status)
	}
}

func TestServices(t *testing.T) {
	t.Parallel()
	e := start(t)
	ctx := context.Background()
	if _, err := e.f.Clients.ERP.ListThirdparties(ctx, nil); err != nil {
		t.Fatal(err)
	}
	list, err := e.c.Services(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range list {
		names = append(names, s.Name)
		if s.URL == "" {
			t.Errorf("%s has no URL", s.Name)
		}
		if s.Name == "erp" && s.Requests != 1 {
			t.Errorf("erp requests %d, want 1", s.Requests)
		}
		if s.Name == "orch" && s.GRPC == "" {
			t.Error("orch has no gRPC address")
		}
	}
	if !slices.Equal(names, []string{"erp", "cloudauth", "orch", "sourcehost", "mcp"}) {
		t.Errorf("services %v", names)
	}
}

// A fault added through the API is the fault a Go test would inject: the
// ERP answers 503 once, the request log shows it, and clearing it works.
func TestFaultsThroughTheAPI(t *testing.T) {
	t.Parallel()
	e := start(t)
	ctx := context.Background()
	if err := e.c.InjectFault(ctx, "erp", "", control.Fault{Status: 503, Times: 1}); err != nil {
		t.Fatal(err)
	}
	faults, err := e.c.Faults(ctx, "erp")
	if err != nil || len(faults) != 1 || faults[0].Status != 503 || faults[0].Remaining != 1 {
		t.Fatalf("faults %+v, %v", faults, err)
	}
	_, err = e.f.ERP.Client(erp.WithoutRetries()).GetThirdparty(ctx, 1)
	var ee *erp.Error
	if !errors.As(err, &ee) || ee.StatusCode != 503 {
		t.Fatalf("the ERP call: %v, want the injected 503", err)
	}
	reqs, err := e.c.Requests(ctx, "erp", controlapi.RequestFilter{Status: 503})
	if err != nil || len(reqs) != 1 || !reqs[0].Fault || reqs[0].Method != "GET" {
		t.Fatalf("requests %+v, %v", reqs, err)
	}
	if len(reqs[0].ResponseBody) == 0 || reqs[0].ResponseSize == 0 {
		t.Errorf("the answer's body is not in the log: %+v", reqs[0])
	}
	if err := e.c.InjectFault(ctx, "orch", "StartWorkflowExecution", control.Fault{Code: "UNAVAILABLE"}); err != nil {
		t.Fatal(err)
	}
	if err := e.c.ClearFaults(ctx, "orch"); err != nil || len(e.f.Orch.Faults()) != 0 {
		t.Fatalf("clear: %v, %d left", err, len(e.f.Orch.Faults()))
	}
}

// Bad control requests get 400 (404, 413, 415) naming the problem, and
// change nothing.
func TestBadRequestsChangeNothing(t *testing.T) {
	t.Parallel()
	e := start(t)
	for _, tc := range []struct {
		method, path, ctype, body string
		status                    int
		says                      string
	}{
		{"POST", "/api/payroll/faults", "application/json", `{"status":503}`, 404, "no service"},
		{"POST", "/api/erp/faults", "application/json", `{"status":503,"latency":"soon"}`, 400, "latency"},
		{"POST", "/api/erp/faults", "application/json", `{"status":503,"latency":"3h"}`, 400, "latency"},
		{"POST", "/api/erp/faults", "application/json", `{"status":42}`, 400, "status"},
		{"POST", "/api/erp/faults", "application/json", `{"status":503,"times":-1}`, 400, "times"},
		{"POST", "/api/erp/faults", "application/json", `{"status":503,"times":2000000}`, 400, "times"},
		{"POST", "/api/erp/faults", "application/json", `{"status":503,"remaining":3}`, 400, "remaining"},
		{"POST", "/api/erp/faults", "application/json", `{"status":503,"colour":"red"}`, 400, "colour"},
		{"POST", "/api/erp/faults", "application/json", `{"status":503}{"status":500}`, 400, "more than one"},
		{"POST", "/api/erp/faults", "text/plain", `{"status":503}`, 415, "application/json"},
		{"POST", "/api/erp/faults", "application/json", `{"route":"GET /items/{bad","status":503}`, 400, "pattern"},
		{"POST", "/api/orch/faults", "application/json", `{"route":"StartWorkflowExecution","code":"NOT_A_CODE"}`, 400, "NOT_A_CODE"},
		{"POST", "/api/erp/faults", "application/json", `{"status":503,"body":"` + strings.Repeat("x", 3<<20) + `"}`, 413, "larger"},
		{"POST", "/api/clock/advance", "application/json", `{"by":"tomorrow"}`, 400, "duration"},
		{"POST", "/api/clock/advance", "application/json", `{"by":"-1h"}`, 400, "more than 0"},
		{"POST", "/api/clock/advance", "application/json", `{"by":"9000h"}`, 400, "at most"},
		{"POST", "/api/clock/set", "application/json", `{"time":"noon"}`, 400, "RFC 3339"},
		{"GET", "/api/erp/requests?limit=0", "", "", 400, "limit"},
		{"GET", "/api/erp/requests?status=abc", "", "", 400, "status"},
		{"POST", "/api/seed", "application/json", `{"erp":{"products":[{"ref":"A","label":"a","price":"1"},{"ref":"A","label":"dup","price":"x"}]}}`, 400, "erp.products[1]"},
		{"POST", "/api/seed", "application/json", `{"payroll":{}}`, 400, "payroll"},
		{"POST", "/api/seed", "text/plain", `{}`, 415, "application/json or application/yaml"},
		{"GET", "/api/orch/history?namespace=default&workflow_id=nope", "", "", 404, "nope"},
		{"PATCH", "/api/erp/faults", "application/json", `{}`, 404, "no such control operation"},
	} {
		before := e.wc.State().Now
		status, body := e.raw(t, tc.method, tc.path, tc.ctype, tc.body, token)
		var ae controlapi.APIError
		if status != tc.status || json.Unmarshal([]byte(body), &ae) != nil || !strings.Contains(ae.Message, tc.says) {
			t.Errorf("%s %s %.80s: %d %.300s, want %d naming %q", tc.method, tc.path, tc.body, status, body, tc.status, tc.says)
		}
		if !e.wc.State().Now.Equal(before) {
			t.Errorf("%s %s moved the clock", tc.method, tc.path)
		}
	}
	if n := len(e.f.ERP.Faults()) + len(e.f.Orch.Faults()); n != 0 {
		t.Errorf("%d faults injected by refused requests", n)
	}
	if n := len(e.f.ERP.Products()); n != 0 {
		t.Errorf("a refused seed left %d products", n)
	}
}

func TestSeedAndReset(t *testing.T) {
	t.Parallel()
	e := start(t)
	ctx := context.Background()
	yaml := "erp:\n  thirdparties: [{name: Acme Corp}]\nsourcehost:\n  users: [{username: alice}]\n  projects: [{name: shop, owner: alice}]\n"
	if err := e.c.Seed(ctx, []byte(yaml), "yaml"); err != nil {
		t.Fatal(err)
	}
	if tps := e.f.ERP.Thirdparties(); len(tps) != 1 || tps[0].Name != "Acme Corp" {
		t.Fatalf("third parties %+v", tps)
	}
	if ps := e.f.SourceHost.Projects(); len(ps) != 1 || ps[0].Path != "shop" {
		t.Fatalf("projects %+v", ps)
	}
	if err := e.c.Reset(ctx, "erp"); err != nil {
		t.Fatal(err)
	}
	if n := len(e.f.ERP.Thirdparties()); n != 0 {
		t.Errorf("after reset: %d third parties", n)
	}
	if n := len(e.f.SourceHost.Projects()); n != 1 {
		t.Errorf("resetting erp touched sourcehost: %d projects", n)
	}
}

func TestRequestLogFilters(t *testing.T) {
	t.Parallel()
	e := start(t)
	ctx := context.Background()
	sh := e.f.Clients.SourceHost
	sh.GetProject(ctx, sourcehost.ProjectID(999), nil) // 404
	if _, err := sh.ListProjects(ctx, nil); err != nil {
		t.Fatal(err)
	}
	all, err := e.c.Requests(ctx, "sourcehost", controlapi.RequestFilter{})
	if err != nil || len(all) != 2 {
		t.Fatalf("%d requests, %v", len(all), err)
	}
	for _, h := range all {
		for k, vs := range h.Header {
			if strings.EqualFold(k, "Private-Token") && vs[0] != "[REDACTED]" {
				t.Errorf("the token shows in the log: %s", vs[0])
			}
		}
	}
	for _, tc := range []struct {
		f    controlapi.RequestFilter
		want int
	}{
		{controlapi.RequestFilter{Status: 404}, 1},
		{controlapi.RequestFilter{Route: "GET /api/v4/projects"}, 1},
		{controlapi.RequestFilter{Path: "/api/v4/projects/9"}, 1},
		{controlapi.RequestFilter{Method: "post"}, 0},
		{controlapi.RequestFilter{Limit: 1}, 1},
	} {
		got, err := e.c.Requests(ctx, "sourcehost", tc.f)
		if err != nil || len(got) != tc.want {
			t.Errorf("%+v: %d, %v; want %d", tc.f, len(got), err, tc.want)
		}
	}
	if got, _ := e.c.Requests(ctx, "sourcehost", controlapi.RequestFilter{Limit: 1}); len(got) == 1 && got[0].Status == 404 {
		t.Error("limit kept the oldest, not the newest")
	}
	if err := e.c.ClearRequests(ctx, "sourcehost"); err != nil || len(e.f.SourceHost.Requests()) != 0 {
		t.Fatalf("clear: %v", err)
	}
}

// The clock through the API: advance fires what falls due (an orch timer),
// set, freeze and follow.
func TestClock(t *testing.T) {
	t.Parallel()
	e := start(t)
	ctx := context.Background()
	st, err := e.c.Clock(ctx)
	if err != nil || st.FollowingWallClock {
		t.Fatalf("%+v %v", st, err)
	}
	start := st.Now
	oc := e.f.Clients.Orch
	run, err := oc.StartWorkflow(ctx, "Sleepy", "q", nil, &orch.StartWorkflowOptions{ID: "sleepy", ExecutionTimeout: 30 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	st, err = e.c.Advance(ctx, time.Hour)
	if err != nil || !st.Now.Equal(start.Add(time.Hour)) {
		t.Fatalf("advance: %+v %v", st, err)
	}
	// The run's execution timeout fell due on the way.
	if wfs, _ := e.c.Workflows(ctx, "default"); len(wfs) != 1 || wfs[0].Status != "TIMED_OUT" || wfs[0].RunID != run.RunID {
		t.Fatalf("workflows after the advance: %+v", wfs)
	}
	later := start.Add(48 * time.Hour)
	if st, err = e.c.SetClock(ctx, later); err != nil || !st.Now.Equal(later) {
		t.Fatalf("set: %+v %v", st, err)
	}
	if st, err = e.c.FollowWallClock(ctx); err != nil || !st.FollowingWallClock {
		t.Fatalf("follow: %+v %v", st, err)
	}
	if st, err = e.c.Freeze(ctx); err != nil || st.FollowingWallClock {
		t.Fatalf("freeze: %+v %v", st, err)
	}
}

func TestOrchAtAGlance(t *testing.T) {
	t.Parallel()
	e := start(t)
	ctx := context.Background()
	if _, err := e.f.Orch.StartExecution(&orchpb.StartWorkflowExecutionRequest{Namespace: "default", WorkflowId: "order-1",
		WorkflowType: &orchpb.WorkflowType{Name: "Order"}, TaskQueue: "orders-q"}); err != nil {
		t.Fatal(err)
	}
	wfs, err := e.c.Workflows(ctx, "")
	if err != nil || len(wfs) != 1 || wfs[0].WorkflowID != "order-1" || wfs[0].Type != "Order" || wfs[0].Status != "RUNNING" || wfs[0].HistoryLength < 1 {
		t.Fatalf("workflows %+v %v", wfs, err)
	}
	// The history through the API is the fake's own, event for event.
	h, err := e.c.History(ctx, "default", "order-1", "")
	run, _ := e.f.Orch.Execution("default", "order-1", "")
	if err != nil || len(h) < 2 || len(h) != len(run.History) ||
		h[0].GetWorkflowExecutionStartedEventAttributes().GetWorkflowType().GetName() != "Order" {
		t.Fatalf("history %v %v", h, err)
	}
	for i := range h {
		if !proto.Equal(h[i], run.History[i]) {
			t.Fatalf("event %d through the API:\n%v\nthe fake's:\n%v", i, h[i], run.History[i])
		}
	}
	qs, err := e.c.TaskQueues(ctx)
	if err != nil || !slices.ContainsFunc(qs, func(q orchfake.TaskQueueSummary) bool { return q.Name == "orders-q" && q.WorkflowBacklog == 1 }) {
		t.Fatalf("task queues %+v %v", qs, err)
	}
}

// A webhook delivery of the sourcehost fake shows through the API with its
// event, state and payload; before any, the list is empty, not null.
func TestDeliveries(t *testing.T) {
	t.Parallel()
	e := start(t)
	ctx := context.Background()
	if got, err := e.c.Deliveries(ctx); err != nil || got == nil || len(got) != 0 {
		t.Fatalf("before any hook: %v %v (want an empty list)", got, err)
	}
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	t.Cleanup(receiver.Close)
	pid, err := e.f.SourceHost.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.f.SourceHost.AddHook(pid, sourcehostfake.HookSeed{URL: receiver.URL + "/hook", IssuesEvents: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.f.Clients.SourceHost.CreateIssue(ctx, sourcehost.ProjectID(pid), &sourcehost.CreateIssueRequest{Title: "delivered"}); err != nil {
		t.Fatal(err)
	}
	if err := e.f.SourceHost.WaitDeliveries(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := e.c.Deliveries(ctx)
	if err != nil || len(got) != 1 {
		t.Fatalf("%+v %v (want one delivery)", got, err)
	}
	d := got[0]
	if d.Event != "Issue Hook" || d.State != sourcehostfake.DeliverySent || d.Status != 200 || d.ProjectID != pid ||
		d.URL != receiver.URL+"/hook" || !strings.Contains(string(d.Payload), `"delivered"`) || d.PayloadSize != len(d.Payload) {
		t.Errorf("delivery %+v", d)
	}
}

// The OpenAPI document describes every operation the server has, and no
// other.
func TestOpenAPIDescribesEveryOperation(t *testing.T) {
	t.Parallel()
	e := start(t)
	_, body := e.raw(t, "GET", "/openapi.json", "", "", "")
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		t.Fatal(err)
	}
	var described []string
	for p, ops := range doc.Paths {
		for m := range ops {
			described = append(described, strings.ToUpper(m)+" "+p)
		}
	}
	slices.Sort(described)
	served := controlapi.Operations()
	slices.Sort(served)
	if !slices.Equal(described, served) {
		t.Errorf("described %v\nserved    %v", described, served)
	}
	// And each is answered (401 without the token), not 404.
	for _, op := range served {
		method, path, _ := strings.Cut(op, " ")
		path = strings.NewReplacer("{service}", "erp").Replace(path)
		if status, _ := e.raw(t, method, path, "", "", ""); status != http.StatusUnauthorized {
			t.Errorf("%s %s without a token: %d", method, path, status)
		}
	}
}
