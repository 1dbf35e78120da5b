package orch

import (
	"context"
	"io"
	"net/http"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/apitwin/apitwin/apicall"
	"github.com/apitwin/apitwin/internal/orchwire"
)

// grpcTransport sends calls over a gRPC connection with the generated
// method names of orchpb, so the wire is exactly what orchpb's clients send.
type grpcTransport struct {
	conn   grpc.ClientConnInterface
	closer io.Closer // nil when the connection belongs to the caller
	s      *settings
}

func (t *grpcTransport) invoke(ctx context.Context, m *method, req, resp proto.Message) (callInfo, error) {
	kv := []string{strings.ToLower(orchwire.HeaderAPIVersion), t.s.apiVersion}
	if t.s.token != "" {
		kv = append(kv, "authorization", "Bearer "+t.s.token)
	}
	ctx = metadata.AppendToOutgoingContext(ctx, kv...)
	var header, trailer metadata.MD
	err := t.conn.Invoke(ctx, m.full, req, resp, grpc.Header(&header), grpc.Trailer(&trailer))
	info := callInfo{sent: true}
	info.header = mdHeader(header, trailer)
	info.rateLimit = apicall.ParseRateLimit(info.header, t.s.rest.Clock.Now())
	info.retryAfter = info.rateLimit.RetryAfter
	info.deprecated = len(header.Get("deprecation")) > 0 || len(trailer.Get("deprecation")) > 0
	if err == nil {
		return info, nil
	}
	st, ok := status.FromError(err)
	if !ok {
		return info, err
	}
	code, msg, details := orchwire.FromStatus(st)
	// A failed TLS handshake (an untrusted or mismatched certificate) fails
	// the same way however often it is tried.
	info.permanent = code == CodeUnavailable && strings.Contains(msg, "authentication handshake failed")
	return info, &Error{Code: code, Message: msg, Details: details}
}

func (t *grpcTransport) close() error {
	if t.closer == nil {
		return nil
	}
	return t.closer.Close()
}

// rateLimitFromMD reads the X-RateLimit-* and Retry-After values of gRPC
// header metadata (and trailers, where an error answer carries them) the way
// the HTTP side reads headers.
func mdHeader(header, trailer metadata.MD) http.Header {
	h := http.Header{}
	for _, md := range []metadata.MD{trailer, header} { // header wins
		for k, vs := range md {
			if len(vs) > 0 {
				h[http.CanonicalHeaderKey(k)] = vs
			}
		}
	}
	return h
}
