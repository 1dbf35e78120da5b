package orch_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/internal/testtools"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// TestCodesTheServerChooses: codes with no natural cause in the fake
// (ABORTED, UNIMPLEMENTED, INTERNAL, DATA_LOSS, UNAVAILABLE) arrive as
// injected faults, over both transports alike.
func TestCodesTheServerChooses(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		srv := e.fake(t)
		c := e.client(t, orch.WithoutRetries())
		for code, sentinel := range map[string]error{
			orch.CodeAborted: orch.ErrAborted, orch.CodeUnimplemented: orch.ErrUnimplemented, orch.CodeInternal: orch.ErrInternal,
			orch.CodeDataLoss: orch.ErrDataLoss, orch.CodeUnavailable: orch.ErrUnavailable,
		} {
			if err := srv.InjectFault("DescribeCluster", control.Fault{Code: code, Message: "injected " + code, Times: 1}); err != nil {
				t.Fatal(err)
			}
			_, err := c.DescribeCluster(t.Context())
			var oe *orch.Error
			if !errors.Is(err, sentinel) || !errors.As(err, &oe) || oe.Code != code || oe.Message != "injected "+code {
				t.Errorf("%s: %v", code, err)
			}
		}
	})
}

// TestUnavailableRetried: a read meeting UNAVAILABLE is sent again (after a
// backoff on the fake clock); a terminate is not.
func TestUnavailableRetried(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		srv := e.fake(t)
		c := e.client(t)
		if err := srv.InjectFault("DescribeNamespace", control.Fault{Code: orch.CodeUnavailable, Times: 2}); err != nil {
			t.Fatal(err)
		}
		before := srv.Clock().Now()
		if _, err := c.DescribeNamespace(t.Context(), ""); err != nil {
			t.Fatalf("read after two UNAVAILABLE: %v", err)
		}
		if waited := srv.Clock().Now().Sub(before); waited != 3*time.Second {
			t.Errorf("backoff %v, want 1s + 2s", waited)
		}
		run, err := c.StartWorkflow(t.Context(), "W", "q", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.InjectFault("TerminateWorkflowExecution", control.Fault{Code: orch.CodeUnavailable, Times: 1}); err != nil {
			t.Fatal(err)
		}
		if err := run.Terminate(t.Context(), nil); !errors.Is(err, orch.ErrUnavailable) {
			t.Errorf("terminate: %v", err)
		}
		if n := len(srv.RequestsTo("TerminateWorkflowExecution")); n != 1 {
			t.Errorf("terminate sent %d times", n)
		}
	})
}

func TestDeadlines(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		c := e.client(t)
		run, err := c.StartWorkflow(t.Context(), "W", uid("no-worker"), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		// No worker answers the query: the caller's deadline ends it.
		err = run.Query(shortCtx(t, 200*time.Millisecond), "state", nil, nil, nil)
		if err == nil || err.Error() != "DeadlineExceeded: context deadline exceeded" || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("query without a worker: %v", err)
		}
		// The client's default call timeout does the same.
		if e.srv != nil {
			if err := e.srv.InjectFault("DescribeCluster", control.Fault{Latency: time.Hour, OnClock: true, Times: 1}); err != nil {
				t.Fatal(err)
			}
			_, err := e.client(t, orch.WithCallTimeout(100*time.Millisecond)).DescribeCluster(t.Context())
			if !errors.Is(err, orch.ErrDeadlineExceeded) {
				t.Errorf("call timeout: %v", err)
			}
		}
		// A closed execution rejects a NOT_OPEN query.
		if err := run.Terminate(t.Context(), nil); err != nil {
			t.Fatal(err)
		}
		err = run.Query(t.Context(), "state", nil, nil, &orch.QueryOptions{RejectCondition: orchpb.QueryRejectCondition_NOT_OPEN})
		var rej *orch.QueryRejectedError
		if !errors.As(err, &rej) || rej.Status != orchpb.WorkflowExecutionStatus_TERMINATED {
			t.Errorf("NOT_OPEN query of a closed run: %v", err)
		}
	})
}

func TestAPIVersions(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		e.fake(t)
		rec := &pathRecorder{next: http.DefaultTransport}
		var logs bytes.Buffer
		opts := []orch.Option{orch.WithAPIVersion("v1beta1"), orch.WithLogger(slog.New(slog.NewTextHandler(&logs, nil)))}
		if e.transport == "http" {
			opts = append(opts, orch.WithHTTPClient(&http.Client{Transport: rec}))
		}
		c := e.client(t, opts...)
		if _, err := c.DescribeNamespace(t.Context(), ""); err != nil {
			t.Fatal(err)
		}
		if e.transport == "http" && (rec.path != "/api/v1beta1/namespaces/default" || rec.version != "v1beta1" || rec.deprecation != "true") {
			t.Errorf("sent %s with version %q, answered deprecation %q", rec.path, rec.version, rec.deprecation)
		}
		if _, err := c.DescribeNamespace(t.Context(), ""); err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(logs.String(), "deprecated"); n != 1 {
			t.Errorf("%d deprecation warnings, want one: %s", n, logs.String())
		}
	})
	if _, err := orch.NewHTTP("http://127.0.0.1:1", orch.WithAPIVersion("v2")); err == nil {
		t.Error("v2 accepted")
	}
}

type pathRecorder struct {
	next                       http.RoundTripper
	path, version, deprecation string
}

func (r *pathRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.path, r.version = req.URL.EscapedPath(), req.Header.Get("Orch-API-Version")
	resp, err := r.next.RoundTrip(req)
	if resp != nil {
		r.deprecation = resp.Header.Get("Deprecation")
	}
	return resp, err
}

// TestServerDown: a server that is not there is UNAVAILABLE on both
// transports, after the retries a read may make (on the client's clock).
func TestServerDown(t *testing.T) {
	t.Parallel()
	addr := testtools.RefusedAddr(t)
	clk := clock.NewFake(epoch)
	g, err := orch.Dial(addr, orch.WithInsecure(), orch.WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	h, err := orch.NewHTTP("http://"+addr, orch.WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]*orch.Client{"grpc": g, "http": h} {
		_, err := c.DescribeCluster(t.Context())
		var oe *orch.Error
		if !errors.Is(err, orch.ErrUnavailable) || !errors.As(err, &oe) || oe.Retries != 3 {
			t.Errorf("%s: %v", name, err)
		}
	}
}
