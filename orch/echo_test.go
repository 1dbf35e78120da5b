package orch_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// echo is a transport-level test server, not a fake: it records each
// request it receives (by full method) with its metadata, and answers with
// what its answer hook says. It serves gRPC in memory and HTTP/JSON through
// grpc-gateway in front of that gRPC server, with the contract's error body
// and rate-limit headers, so both of the client's transports meet the same
// server.
type echo struct {
	mu     sync.Mutex
	reqs   map[string]proto.Message
	md     map[string]metadata.MD
	answer func(ctx context.Context, method string, req proto.Message) (proto.Message, metadata.MD, error)

	conn *grpc.ClientConn
	url  string
}

func startEcho(t *testing.T) *echo {
	t.Helper()
	e := &echo{reqs: map[string]proto.Message{}, md: map[string]metadata.MD{}}
	lis := bufconn.Listen(1 << 20)
	srv := grpc.NewServer(grpc.UnknownServiceHandler(e.handle))
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient("passthrough:///echo",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	e.conn = conn

	mux := runtime.NewServeMux(
		runtime.WithIncomingHeaderMatcher(func(k string) (string, bool) {
			if strings.EqualFold(k, orchwire.HeaderAPIVersion) {
				return strings.ToLower(k), true
			}
			return runtime.DefaultHeaderMatcher(k)
		}),
		runtime.WithOutgoingHeaderMatcher(func(k string) (string, bool) { return k, true }),
		runtime.WithErrorHandler(func(_ context.Context, _ *runtime.ServeMux, _ runtime.Marshaler, w http.ResponseWriter, _ *http.Request, err error) {
			st, _ := status.FromError(err)
			code, msg, details := orchwire.FromStatus(st)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(orchwire.HTTPStatus(code))
			_, _ = w.Write(orchwire.HTTPBody(code, msg, details...))
		}),
		runtime.WithMarshalerOption(runtime.MIMEWildcard, &runtime.JSONPb{MarshalOptions: orchwire.MarshalJSON, UnmarshalOptions: orchwire.StrictJSON}),
	)
	ctx := context.Background()
	if err := orchpb.RegisterWorkflowServiceHandlerClient(ctx, mux, orchpb.NewWorkflowServiceClient(conn)); err != nil {
		t.Fatal(err)
	}
	if err := orchpb.RegisterAdminServiceHandlerClient(ctx, mux, orchpb.NewAdminServiceClient(conn)); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	e.url = hs.URL
	return e
}

func (e *echo) handle(_ any, stream grpc.ServerStream) error {
	full, _ := grpc.MethodFromServerStream(stream)
	rule, ok := orchwire.RuleFor(full)
	if !ok {
		return status.Error(12, "unknown method "+full)
	}
	req := dynamicpb.NewMessage(rule.Method.Input())
	if err := stream.RecvMsg(req); err != nil {
		return err
	}
	md, _ := metadata.FromIncomingContext(stream.Context())
	e.mu.Lock()
	e.reqs[full] = req
	e.md[full] = md
	answer := e.answer
	e.mu.Unlock()
	var resp proto.Message = dynamicpb.NewMessage(rule.Method.Output())
	var header metadata.MD
	if answer != nil {
		r, h, err := answer(stream.Context(), full, req)
		if h != nil {
			_ = stream.SetHeader(h)
		}
		if err != nil {
			return err
		}
		if r != nil {
			resp = r
		}
		header = h
	}
	_ = header
	return stream.SendMsg(resp)
}

func (e *echo) request(full string) (proto.Message, metadata.MD) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.reqs[full], e.md[full]
}

func (e *echo) setAnswer(f func(ctx context.Context, method string, req proto.Message) (proto.Message, metadata.MD, error)) {
	e.mu.Lock()
	e.answer = f
	e.mu.Unlock()
}

// echoTransports are the client's two transports against one echo server.
func echoTransports(t *testing.T, e *echo, opts ...orch.Option) map[string]*orch.Client {
	t.Helper()
	base := []orch.Option{orch.WithClock(clock.NewFake(time.Unix(1_800_000_000, 0))), orch.WithClientLimits(orch.ClientLimits{RequestsPerSecond: orch.Unlimited})}
	g, err := orch.NewFromConn(e.conn, append(base, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	h, err := orch.NewHTTP(e.url, append(base, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]*orch.Client{"grpc": g, "http": h}
}
