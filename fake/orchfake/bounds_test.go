package orchfake_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// A body over the limit is RESOURCE_EXHAUSTED on both transports: over HTTP
// a 413 before the body is read (issue 14: an 8 MiB body was a 404 or a
// 400), over gRPC the message is refused.
func TestBodyOverTheLimit(t *testing.T) {
	t.Parallel()
	s := newFake(t, control.WithMaxBody(4<<10))
	url := s.URL() + "/api/v1/namespaces/default/workflows"

	big := `{"workflow_id":"big","workflow_type":{"name":"Order"},"task_queue":"orders","memo":{"fields":{"x":{"data":"` + strings.Repeat("QUFB", 2<<10) + `"}}}}`
	status, _, body := rawHTTP(t, s, http.MethodPost, url, big, nil)
	if status != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), `"code":"RESOURCE_EXHAUSTED"`) {
		t.Fatalf("over the limit: %d %s", status, body)
	}

	// Without a length (chunked), the limit holds as the body is read.
	req, _ := http.NewRequest(http.MethodPost, url, io.MultiReader(strings.NewReader(big)))
	req.ContentLength = -1
	r, err := s.RawClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if r.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(b), "RESOURCE_EXHAUSTED") {
		t.Fatalf("chunked over the limit: %d %s", r.StatusCode, b)
	}

	// A length over the limit is refused before a byte of the body is sent:
	// the body here never comes.
	pr, pw := io.Pipe()
	defer pw.Close()
	req, _ = http.NewRequest(http.MethodPost, url, pr)
	req.ContentLength = 8 << 20
	r, err = s.RawClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("announced 8 MiB: %d", r.StatusCode)
	}

	// gRPC: the same limit on the message.
	grpcIV := transports(t, s)[0]
	sr := startReq("default", "big")
	sr.Memo = &orchpb.Memo{Fields: map[string]*orchpb.Payload{"x": {Data: bytes.Repeat([]byte("A"), 8<<10)}}}
	err = grpcIV.call(t.Context(), "StartWorkflowExecution", sr, &orchpb.StartWorkflowExecutionResponse{})
	wantCode(t, err, "RESOURCE_EXHAUSTED")

	// Nothing was started, and the fake still answers.
	for _, iv := range transports(t, s) {
		mustCall(t, iv, "StartWorkflowExecution", startReq("default", "small-"+iv.name), &orchpb.StartWorkflowExecutionResponse{})
	}
	if _, ok := s.Execution("default", "big", ""); ok {
		t.Fatal("a refused start started")
	}
}

// A panic in the fake is INTERNAL in the service's shape on both
// transports, logged with its stack, and leaves no lock held.
func TestPanicIsInternalAndLogged(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	var once sync.Mutex
	panics := 2
	orchfake.SetStartHook(s, func() {
		once.Lock()
		defer once.Unlock()
		if panics > 0 {
			panics--
			panic("a bug in the fake")
		}
	})
	for _, iv := range transports(t, s) {
		err := iv.call(t.Context(), "StartWorkflowExecution", startReq("default", "p-"+iv.name), &orchpb.StartWorkflowExecutionResponse{})
		ae := wantCode(t, err, "INTERNAL")
		if iv.name == orchfake.TransportHTTP && ae.HTTP != http.StatusInternalServerError {
			t.Fatalf("HTTP status %d", ae.HTTP)
		}
	}
	// The panic came with the state lock held: the next calls get it.
	for _, iv := range transports(t, s) {
		mustCall(t, iv, "StartWorkflowExecution", startReq("default", "after-"+iv.name), &orchpb.StartWorkflowExecutionResponse{})
	}
	logged := s.RequestsTo("StartWorkflowExecution")
	if len(logged) != 4 {
		t.Fatalf("%d starts logged", len(logged))
	}
	for i, r := range logged[:2] {
		if !strings.Contains(r.Panic, "a bug in the fake") || r.Status != http.StatusInternalServerError {
			t.Errorf("start %d: %q, status %d", i, r.Panic, r.Status)
		}
	}
	if logged[2].Panic != "" || logged[2].Status != http.StatusOK {
		t.Errorf("a start after the panic: %+v", logged[2])
	}
}

// The request log keeps at most its entries, and of each body its first
// bytes.
func TestRequestLogIsBounded(t *testing.T) {
	t.Parallel()
	s := newFake(t, control.WithRequestLog(3, 16))
	for _, iv := range transports(t, s) {
		for i := range 5 {
			mustCall(t, iv, "StartWorkflowExecution", startReq("default", iv.name+"-"+strings.Repeat("x", i+1)), &orchpb.StartWorkflowExecutionResponse{})
		}
	}
	logged := s.Requests()
	if len(logged) != 3 {
		t.Fatalf("%d entries kept, want 3", len(logged))
	}
	for _, r := range logged {
		if len(r.Body) > 16 || r.BodySize <= 16 || !r.Truncated() || r.Transport != orchfake.TransportHTTP {
			t.Errorf("%s: body %q of %d", r, r.Body, r.BodySize)
		}
	}
}

// Reset puts the fake back as New left it, and ends the polls that wait.
func TestResetPutsTheFakeBack(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	if err := s.AddNamespace(orchfake.NamespaceSeed{Name: "billing"}); err != nil {
		t.Fatal(err)
	}
	iv := transports(t, s)[0]
	mustCall(t, iv, "StartWorkflowExecution", startReq("billing", "b-1"), &orchpb.StartWorkflowExecutionResponse{})
	if err := s.InjectFault("DescribeCluster", control.Fault{Code: "UNAVAILABLE"}); err != nil {
		t.Fatal(err)
	}
	before := s.Clock().Pending()
	polled := make(chan error, 1)
	go func() {
		var r orchpb.PollActivityTaskQueueResponse
		polled <- iv.call(t.Context(), "PollActivityTaskQueue", &orchpb.PollActivityTaskQueueRequest{Namespace: "default", TaskQueue: "idle", Identity: "w"}, &r)
	}()
	if err := s.Clock().WaitForTimers(t.Context(), before+1); err != nil {
		t.Fatal(err)
	}

	s.Reset()
	if err := <-polled; err != nil {
		t.Fatalf("the waiting poll: %v", err)
	}
	if _, ok := s.Namespace("billing"); ok {
		t.Error("billing survived Reset")
	}
	if _, ok := s.Namespace("default"); !ok {
		t.Error("default is gone")
	}
	if len(s.Faults()) != 0 || len(s.RequestsTo("StartWorkflowExecution")) != 0 {
		t.Errorf("faults %v, requests %v", s.Faults(), s.Requests())
	}
	mustCall(t, iv, "DescribeCluster", &orchpb.DescribeClusterRequest{}, &orchpb.DescribeClusterResponse{})
	mustCall(t, iv, "StartWorkflowExecution", startReq("default", "b-1"), &orchpb.StartWorkflowExecutionResponse{})
	if n := len(s.RequestsTo("StartWorkflowExecution")); n != 1 {
		t.Errorf("%d starts logged after Reset, want 1", n)
	}
}

// StartTLS serves both transports over TLS; the fake's clients trust it,
// others do not.
func TestStartTLS(t *testing.T) {
	t.Parallel()
	s := orchfake.Start(t, control.WithTLS(), control.WithClock(clock.NewFake(epoch)))
	if !strings.HasPrefix(s.URL(), "https://") || s.CertificatePEM() == nil {
		t.Fatalf("URL %s", s.URL())
	}
	for name, c := range map[string]interface {
		DescribeCluster(context.Context) (*orchpb.DescribeClusterResponse, error)
	}{"http": s.HTTPClient(), "grpc": s.GRPCClient()} {
		if _, err := c.DescribeCluster(t.Context()); err != nil {
			t.Errorf("%s over TLS: %v", name, err)
		}
	}
	if _, err := http.Get(s.URL() + "/api/v1/cluster"); err == nil {
		t.Error("a client that does not trust the certificate got in")
	}
	conn, err := tls.Dial("tcp", s.GRPCAddr(), &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2"}})
	if err != nil {
		t.Fatalf("gRPC side is not TLS: %v", err)
	}
	if p := conn.ConnectionState().NegotiatedProtocol; p != "h2" {
		t.Errorf("ALPN %q", p)
	}
	conn.Close()
}

// Close ends the long polls that wait, on both transports, and returns.
func TestCloseEndsLongPolls(t *testing.T) {
	t.Parallel()
	s := orchfake.Start(t, control.WithClock(clock.NewFake(epoch)))
	before := s.Clock().Pending()
	var wg sync.WaitGroup
	for _, c := range []*orch.Client{s.HTTPClient(), s.GRPCClient()} {
		wg.Go(func() {
			_, _ = c.Raw().PollWorkflowTaskQueue(t.Context(), &orchpb.PollWorkflowTaskQueueRequest{Namespace: "default", TaskQueue: "idle", Identity: "w"})
		})
	}
	if err := s.Clock().WaitForTimers(t.Context(), before+2); err != nil {
		t.Fatal(err)
	}
	s.Close()
	wg.Wait()
}

// WithFault injects at New; a fault that cannot apply to an operation is
// refused; a fault by HTTP status answers that status's code.
func TestFaultOptions(t *testing.T) {
	t.Parallel()
	s := newFake(t, control.WithFault("DescribeCluster", control.Fault{Status: http.StatusServiceUnavailable, Times: 1}))
	for i, iv := range transports(t, s) {
		err := iv.call(t.Context(), "DescribeCluster", &orchpb.DescribeClusterRequest{}, &orchpb.DescribeClusterResponse{})
		if i == 0 {
			wantCode(t, err, "UNAVAILABLE")
		} else if err != nil {
			t.Fatalf("the fault was for one call: %v", err)
		}
	}
	for _, f := range []control.Fault{
		{Status: 500, Body: `{"x":1}`},
		{Drop: true},
		{Code: "NOT_A_CODE"},
		{Times: -1},
	} {
		if err := s.InjectFault("DescribeCluster", f); err == nil {
			t.Errorf("fault %+v accepted", f)
		}
	}
	if _, err := orchfake.New(control.WithFault("Nope", control.Fault{Code: "UNAVAILABLE"})); err == nil || !strings.Contains(err.Error(), "unknown operation") {
		t.Errorf("WithFault on no operation: %v", err)
	}
}
