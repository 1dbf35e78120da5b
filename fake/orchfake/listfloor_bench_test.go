package orchfake_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/internal/benchfloor"
	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/test/bufconn"
)

// listQuery3Terms is the query of BenchmarkList3Terms10k: over seedSearch's
// executions it matches one in six.
const listQuery3Terms = "WorkflowType = 'Order' AND ExecutionStatus = 'Running' AND CustomerId STARTS_WITH 'acme-'"

// BenchmarkListVersusPlainHandler is ListWorkflowExecutions beside its
// floor, in one run, for a page of 100 out of 1,000 seeded executions
// (seedSearch: two search attributes each), with no query ("all") and
// with the three-term query ("3terms"), over each transport. Issue 18's
// goal is the fake within 1.4x of the floor's time and 2x of its
// allocations:
//
//	go test -run '^$' -bench BenchmarkListVersusPlainHandler -benchmem -count 3 ./fake/orchfake
//
// HTTP ("http-…"): benchfloor.Compare: "fake" is the fake's own
// http.Handler (Server.ServeHTTP: the kit's guard and log, the direct List
// path of listhttp.go, the pipeline, the list) answering into an httptest.ResponseRecorder, no
// network; "floor=plain" re-encodes the fake's own answer from plain
// structs with encoding/json per request and sets the fake's headers.
//
// gRPC ("grpc-…"): the floor is a plain gRPC server with only
// ListWorkflowExecutions, answering a response decoded once from the
// fake's own answer (and the same header metadata, as the HTTP floor sets
// the same headers). Both are reached the same way, by the same generated
// client over an in-memory bufconn connection of the same size as
// Server.Conn's, so what differs is only what the server does per call
// before gRPC marshals the answer: this measures the fake as a user of
// Server.Conn sees it, transport included, rather than the service method
// alone, which a proto.Marshal comparison would isolate but which no
// caller ever meets.
//
// The cluster rate limit is raised out of reach rather than turned off,
// so the fake still does its per-call rate-limit work and sends the
// headers, as it does by default.
//
// Besides ns/op, each reports cpu-ns/op, the process's CPU time (every
// thread: the gRPC server's, the GC's) per call (benchfloor.ReportCPU): on
// a machine shared with other work, wall time swings with the load and CPU
// time much less, so compare fake and floor by both.
func BenchmarkListVersusPlainHandler(b *testing.B) {
	s, err := orchfake.New(control.WithClock(clock.NewFake(epoch)),
		orchfake.WithLimits(orchfake.Limits{ClusterRequestsPerMinute: 1 << 30}))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Close)
	seedSearch(b, s, 1000)
	for _, c := range []struct{ name, query string }{{"all", ""}, {"3terms", listQuery3Terms}} {
		// HTTP: the fake's handler, and the floor built from its answer.
		path := "/api/v1/namespaces/default/workflows?page_size=100"
		if c.query != "" {
			path += "&query=" + url.QueryEscape(c.query)
		}
		benchfloor.Compare(b, "http-"+c.name, s, httptest.NewRequest(http.MethodGet, path, nil))

		// gRPC: the fake over Server.Conn, the floor over its own bufconn.
		lreq := &orchpb.ListWorkflowExecutionsRequest{Namespace: "default", PageSize: 100, Query: c.query}
		fc := orchpb.NewWorkflowServiceClient(s.Conn())
		var md metadata.MD
		answer, err := fc.ListWorkflowExecutions(context.Background(), lreq, grpc.Header(&md))
		if err != nil || len(answer.GetExecutions()) != 100 {
			b.Fatalf("%s: %v, %d executions", c.name, err, len(answer.GetExecutions()))
		}
		floorConn := plainListServer(b, answer, md)
		for _, h := range []struct {
			name string
			c    orchpb.WorkflowServiceClient
		}{{"fake", fc}, {"floor=plain", orchpb.NewWorkflowServiceClient(floorConn)}} {
			b.Run("grpc-"+c.name+"/"+h.name, func(b *testing.B) {
				b.ReportAllocs()
				cpu := benchfloor.ProcessCPU()
				for b.Loop() {
					resp, err := h.c.ListWorkflowExecutions(context.Background(), lreq)
					if err != nil || len(resp.GetExecutions()) != 100 {
						b.Fatal(err, len(resp.GetExecutions()))
					}
				}
				benchfloor.ReportCPU(b, cpu)
			})
		}
	}
}

// plainList is the gRPC floor: ListWorkflowExecutions answers a response
// held since the start, with fixed header metadata.
type plainList struct {
	orchpb.UnimplementedWorkflowServiceServer
	resp *orchpb.ListWorkflowExecutionsResponse
	md   metadata.MD
}

func (p *plainList) ListWorkflowExecutions(ctx context.Context, _ *orchpb.ListWorkflowExecutionsRequest) (*orchpb.ListWorkflowExecutionsResponse, error) {
	if len(p.md) > 0 {
		_ = grpc.SetHeader(ctx, p.md)
	}
	return p.resp, nil
}

// plainListServer serves plainList on a bufconn listener and returns a
// connection to it, both closed when the benchmark ends.
func plainListServer(b *testing.B, resp *orchpb.ListWorkflowExecutionsResponse, md metadata.MD) *grpc.ClientConn {
	lis := bufconn.Listen(256 << 10) // as Server.Conn
	srv := grpc.NewServer()
	keep := metadata.MD{}
	for k, v := range md {
		if k != "content-type" {
			keep[k] = v
		}
	}
	orchpb.RegisterWorkflowServiceServer(srv, &plainList{resp: resp, md: keep})
	go func() { _ = srv.Serve(lis) }()
	conn, err := grpc.NewClient("passthrough:///floor",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = conn.Close()
		srv.Stop()
	})
	return conn
}
