package orchfake

import (
	"context"
	"net/http"
	"strings"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/internal/fakekit"
	"github.com/apitwin/apitwin/internal/orchwire"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// interceptUnary is the kit's guard around every gRPC call: the call is
// logged (its message as JSON), a panic in the fake is INTERNAL and logged
// with its stack, never a dropped connection.
func (s *Server) interceptUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (resp any, err error) {
	ctx, x := s.beginGRPC(ctx, info.FullMethod)
	if m, ok := req.(proto.Message); ok {
		if body, err := protojson.Marshal(m); err == nil {
			x.SetBody(body, int64(len(body)))
		}
	}
	defer func() {
		if p := recover(); p != nil {
			x.Recovered(p)
			resp, err = nil, errorf(orchwire.Internal, "internal error: the fake panicked (a bug in orchfake; the request log holds the stack)")
		}
		finishGRPC(x, err)
	}()
	return handler(ctx, req)
}

// interceptStream guards the streaming calls (server reflection) as
// interceptUnary guards the others.
func (s *Server) interceptStream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) (err error) {
	ctx, x := s.beginGRPC(ss.Context(), info.FullMethod)
	defer func() {
		if p := recover(); p != nil {
			x.Recovered(p)
			err = errorf(orchwire.Internal, "internal error: the fake panicked (a bug in orchfake; the request log holds the stack)")
		}
		finishGRPC(x, err)
	}()
	return handler(srv, &contextStream{ServerStream: ss, ctx: ctx})
}

// beginGRPC starts the log entry of a gRPC call, its metadata as headers.
func (s *Server) beginGRPC(ctx context.Context, fullMethod string) (context.Context, *fakekit.Exchange) {
	md, _ := metadata.FromIncomingContext(ctx)
	h := make(http.Header, len(md))
	for k, vs := range md {
		if !strings.HasPrefix(k, ":") {
			h[http.CanonicalHeaderKey(k)] = vs
		}
	}
	return s.kit.Begin(ctx, control.TransportGRPC, http.MethodPost, fullMethod, h)
}

// finishGRPC logs a call with the HTTP status of its code.
func finishGRPC(x *fakekit.Exchange, err error) {
	if err == nil {
		x.Finish(http.StatusOK)
		return
	}
	ae := toAPIError(err)
	x.SetCode(ae.code)
	x.Finish(orchwire.HTTPStatus(ae.code))
}

// contextStream is a ServerStream with the context that carries the log
// entry.
type contextStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (c *contextStream) Context() context.Context { return c.ctx }
