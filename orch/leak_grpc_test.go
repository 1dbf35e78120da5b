package orch_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/protoadapt"

	"github.com/apitwin/apitwin/internal/leaktest"
	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// leakingServer answers every DescribeNamespace with its status, after
// setting its trailer; the status's message also quotes the authorization
// metadata the call carried.
type leakingServer struct {
	orchpb.UnimplementedWorkflowServiceServer
	st      func(received string) *status.Status
	trailer metadata.MD
}

func (s *leakingServer) DescribeNamespace(ctx context.Context, _ *orchpb.DescribeNamespaceRequest) (*orchpb.DescribeNamespaceResponse, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	if s.trailer != nil {
		_ = grpc.SetTrailer(ctx, s.trailer)
	}
	return nil, s.st(fmt.Sprint(md.Get("authorization"))).Err()
}

// echoingStatus is a status of code whose message, ErrorInfo metadata,
// BadRequest field violations and orch ErrorDetails quote every form of
// the token (and the authorization metadata the server received).
func echoingStatus(t *testing.T, c codes.Code, reason, quote string, extra ...*orchpb.ErrorDetail) func(string) *status.Status {
	return func(received string) *status.Status {
		details := []protoadapt.MessageV1{
			&errdetails.ErrorInfo{Reason: reason, Domain: orchwire.ErrorDomain, Metadata: map[string]string{"token": quote, "authorization": received}},
			&errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{{Field: "token " + quote, Description: "echo " + quote}}},
			&errdetails.DebugInfo{Detail: "authorization: " + received + " " + quote},
			&orchpb.ErrorDetail{Type: "FieldViolation", Field: "token " + quote, Description: "echo " + quote},
		}
		for _, d := range extra {
			details = append(details, d)
		}
		st, err := status.New(c, "bad token "+quote+" (authorization: "+received+")").WithDetails(details...)
		if err != nil {
			t.Error(err)
		}
		return st
	}
}

// TestGRPCTokenNeverInErrorChains: over gRPC, however a call fails (a status
// whose message, ErrorInfo, BadRequest and orch details and trailer echo the
// token; an interceptor's error quoting the outgoing metadata; a server that
// cannot be reached, through a dialer whose error quotes the token or not),
// no rendering of the error, of any error it wraps, of the *Error's code,
// message and details, of what the hook saw or of the log shows the bearer
// token; the sentinels still match.
func TestGRPCTokenNeverInErrorChains(t *testing.T) {
	t.Parallel()
	const token = `orch-Sup3r/S3cret+tok"&=` // each form of it differs
	quote := leaktest.Quoting(token)
	// dumpingInterceptor fails every call with an error holding the
	// outgoing metadata, as a proxy's error or a request dump would.
	dumpingInterceptor := func(ctx context.Context, method string, _, _ any, _ *grpc.ClientConn, _ grpc.UnaryInvoker, _ ...grpc.CallOption) error {
		md, _ := metadata.FromOutgoingContext(ctx)
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://orch"+method, nil)
		if err != nil {
			return err
		}
		for k, vs := range md {
			req.Header[http.CanonicalHeaderKey(k)] = vs
		}
		return leaktest.NewDumpError(req)
	}
	for _, tc := range []struct {
		name     string
		st       func(received string) *status.Status
		trailer  metadata.MD
		opts     []grpc.DialOption
		dial     func() (net.Conn, error) // instead of the server
		code     string
		sentinel error
	}{
		{name: "InvalidArgument quoting the token", st: echoingStatus(t, codes.InvalidArgument, orch.CodeInvalidArgument, quote),
			code: orch.CodeInvalidArgument, sentinel: orch.ErrInvalidArgument},
		{name: "ResourceExhausted quoting the token in its rate-limit detail and trailer",
			st: echoingStatus(t, codes.ResourceExhausted, orch.CodeResourceExhausted, quote,
				&orchpb.ErrorDetail{Type: orchwire.DetailRateLimitExceeded, Scope: "namespace:" + quote, Limit: 10, Window: quote, RetryAfter: 1}),
			trailer: metadata.Pairs("x-ratelimit-scope", quote, "x-ratelimit-limit", "10", "retry-after", "1"),
			code:    orch.CodeResourceExhausted, sentinel: orch.ErrRateLimited},
		{name: "Unavailable quoting the token", st: echoingStatus(t, codes.Unavailable, orch.CodeUnavailable, quote),
			code: orch.CodeUnavailable, sentinel: orch.ErrUnavailable},
		{name: "already started, the run id quoting the token",
			st:   echoingStatus(t, codes.AlreadyExists, orch.CodeWorkflowExecutionAlreadyStarted, quote, &orchpb.ErrorDetail{Field: "run_id", Description: quote}),
			code: orch.CodeWorkflowExecutionAlreadyStarted, sentinel: orch.ErrAlreadyExists},
		{name: "ErrorInfo reason quoting the token", st: echoingStatus(t, codes.NotFound, "NOT_FOUND "+quote, quote),
			code: "NOT_FOUND "}, // the code is the reason, whatever it says
		{name: "interceptor error quoting the metadata", opts: []grpc.DialOption{grpc.WithUnaryInterceptor(dumpingInterceptor)},
			code: orch.CodeUnavailable, sentinel: orch.ErrUnavailable},
		{name: "unreachable through a dialer quoting the token", dial: func() (net.Conn, error) {
			return nil, errors.New("proxy refused CONNECT (Proxy-Authorization: Bearer " + quote + ")")
		}, code: orch.CodeUnavailable, sentinel: orch.ErrUnavailable},
		{name: "unreachable", dial: func() (net.Conn, error) {
			lis := bufconn.Listen(1 << 10)
			_ = lis.Close()
			return lis.Dial()
		}, code: orch.CodeUnavailable, sentinel: orch.ErrUnavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dial := tc.dial
			if dial == nil {
				lis := bufconn.Listen(1 << 16)
				gs := grpc.NewServer()
				st := tc.st
				if st == nil {
					st = func(string) *status.Status { return status.New(codes.Internal, "not reached") }
				}
				orchpb.RegisterWorkflowServiceServer(gs, &leakingServer{st: st, trailer: tc.trailer})
				go func() { _ = gs.Serve(lis) }()
				t.Cleanup(gs.Stop)
				dial = lis.Dial
			}
			dialOpts := append([]grpc.DialOption{grpc.WithContextDialer(func(context.Context, string) (net.Conn, error) { return dial() })}, tc.opts...)
			var obs leaktest.Observed
			c, err := orch.Dial("passthrough:///leak", orch.WithInsecure(), orch.WithToken(token), orch.WithoutRetries(),
				orch.WithHook(obs.Hook), orch.WithLogger(obs.Logger()), orch.WithGRPCDialOptions(dialOpts...))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = c.Close() })
			_, err = c.DescribeNamespace(context.Background(), "default")
			if err == nil {
				t.Fatal("the call did not fail")
			}
			leaktest.NoSecretIn(t, "the error", err, token)
			var e *orch.Error
			if !errors.As(err, &e) {
				t.Fatalf("the error is not an *orch.Error: %#v", err)
			}
			if tc.sentinel != nil && e.Code != tc.code || !strings.HasPrefix(e.Code, tc.code) {
				t.Errorf("code %q, want %q: %v", e.Code, tc.code, err)
			}
			if tc.sentinel != nil && !errors.Is(err, tc.sentinel) {
				t.Errorf("errors.Is(err, %v) = false: %v", tc.sentinel, err)
			}
			leaktest.NoSecretIn(t, "the *Error's code", e.Code, token)
			leaktest.NoSecretIn(t, "the *Error's message", e.Message, token)
			for _, d := range e.Details {
				leaktest.NoSecretIn(t, "a detail of the *Error", d.String()+" "+d.GetField()+" "+d.GetDescription()+" "+d.GetScope()+" "+d.GetWindow(), token)
			}
			if r := e.RateLimitExceeded; r != nil {
				leaktest.NoSecretIn(t, "the *Error's RateLimitExceeded", *r, token)
			}
			leaktest.NoSecretIn(t, "the *Error's RateLimit", e.RateLimit, token)
			var started *orch.WorkflowExecutionAlreadyStartedError
			if errors.As(err, &started) {
				leaktest.NoSecretIn(t, "the run id", started.RunID, token)
				if started.RunID == "" {
					t.Error("the run id the server named is lost")
				}
			}
			obs.Check(t, token)
		})
	}
}
