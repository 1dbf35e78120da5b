package orchfake_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoregistry"
)

var epoch = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// newFake starts a fake on a fake clock at epoch.
func newFake(t testing.TB, opts ...orchfake.Option) *orchfake.Server {
	t.Helper()
	return orchfake.Start(t, append([]orchfake.Option{control.WithClock(clock.NewFake(epoch))}, opts...)...)
}

// apiErr is an error as either transport answered it.
type apiErr struct {
	Code    string
	Message string
	Details []*orchpb.ErrorDetail
	HTTP    int
}

func (e *apiErr) Error() string { return e.Code + ": " + e.Message }

// invoker calls one RPC over one transport: the gRPC method name, the
// request, the response to fill, and the bearer token ("" for none).
type invoker struct {
	name   string
	s      *orchfake.Server
	token  string
	header map[string]string // extra headers/metadata
	last   http.Header       // rate-limit headers of the last answer
}

func transports(t *testing.T, s *orchfake.Server) []*invoker {
	return []*invoker{{name: orchfake.TransportGRPC, s: s}, {name: orchfake.TransportHTTP, s: s}}
}

// eachFake runs f in parallel over each transport, against a fake of its
// own made with opts.
func eachFake(t *testing.T, opts []orchfake.Option, f func(t *testing.T, s *orchfake.Server, iv *invoker)) {
	for _, tr := range []string{orchfake.TransportGRPC, orchfake.TransportHTTP} {
		t.Run(tr, func(t *testing.T) {
			t.Parallel()
			s := newFake(t, opts...)
			f(t, s, &invoker{name: tr, s: s})
		})
	}
}

func (iv *invoker) with(token string) *invoker {
	cp := *iv
	cp.token = token
	return &cp
}

// call invokes method ("/apitwin.orch.v1.WorkflowService/StartWorkflowExecution" or the
// short name) and returns nil or an *apiErr.
func (iv *invoker) call(ctx context.Context, method string, req, resp proto.Message) error {
	full := method
	if method[0] != '/' {
		full = "/apitwin.orch.v1.WorkflowService/" + method
		if _, ok := orchwire.RuleFor(full); !ok {
			full = "/apitwin.orch.v1.AdminService/" + method
		}
	}
	if iv.name == orchfake.TransportGRPC {
		md := metadata.MD{}
		if iv.token != "" {
			md.Set("authorization", "Bearer "+iv.token)
		}
		for k, v := range iv.header {
			md.Set(k, v)
		}
		ctx = metadata.NewOutgoingContext(ctx, md)
		var hdr, trl metadata.MD
		err := iv.s.Conn().Invoke(ctx, full, req, resp, grpc.Header(&hdr), grpc.Trailer(&trl))
		iv.last = http.Header{}
		for _, m := range []metadata.MD{trl, hdr} {
			for k, v := range m {
				iv.last[http.CanonicalHeaderKey(k)] = v
			}
		}
		if err != nil {
			st, _ := status.FromError(err)
			code, msg, details := orchwire.FromStatus(st)
			return &apiErr{Code: code, Message: msg, Details: details}
		}
		return nil
	}
	rule, ok := orchwire.RuleFor(full)
	if !ok {
		panic("no rule for " + full)
	}
	httpReq, err := buildHTTP(ctx, iv.s.URL(), rule, req)
	if err != nil {
		return err
	}
	if iv.token != "" {
		httpReq.Header.Set("Authorization", "Bearer "+iv.token)
	}
	if dl, ok := ctx.Deadline(); ok { // as the orch client does
		httpReq.Header.Set("Grpc-Timeout", strconv.FormatInt(time.Until(dl).Milliseconds(), 10)+"m")
	}
	for k, v := range iv.header {
		httpReq.Header.Set(k, v)
	}
	r, err := iv.s.RawClient().Do(httpReq)
	if err != nil {
		return err
	}
	defer r.Body.Close()
	body, _ := io.ReadAll(r.Body)
	iv.last = r.Header
	if r.StatusCode != http.StatusOK {
		code, msg, details, ok := orchwire.ParseHTTPBody(body)
		if !ok {
			return errors.New("not an error body: " + string(body))
		}
		return &apiErr{Code: code, Message: msg, Details: details, HTTP: r.StatusCode}
	}
	return orchwire.StrictJSON.Unmarshal(body, resp)
}

func mustCall(t testing.TB, iv *invoker, method string, req, resp proto.Message) {
	t.Helper()
	if err := iv.call(context.Background(), method, req, resp); err != nil {
		t.Fatalf("%s over %s: %v", method, iv.name, err)
	}
}

func wantCode(t testing.TB, err error, code string) *apiErr {
	t.Helper()
	var ae *apiErr
	if !errors.As(err, &ae) {
		t.Fatalf("error %v, want code %s", err, code)
	}
	if ae.Code != code {
		t.Fatalf("code %s (%s), want %s", ae.Code, ae.Message, code)
	}
	return ae
}

// rawHTTP sends a request with a raw body to s, and returns status,
// headers, body.
func rawHTTP(t testing.TB, s *orchfake.Server, method, url, body string, hdr map[string]string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	r, err := s.RawClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	return r.StatusCode, r.Header, b
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// respFor is a new response message of a method (short name).
func respFor(method string) proto.Message {
	rule, ok := orchwire.RuleFor("/apitwin.orch.v1.WorkflowService/" + method)
	if !ok {
		rule, _ = orchwire.RuleFor("/apitwin.orch.v1.AdminService/" + method)
	}
	mt, err := protoregistry.GlobalTypes.FindMessageByName(rule.Method.Output().FullName())
	if err != nil {
		panic(err)
	}
	return mt.New().Interface()
}
