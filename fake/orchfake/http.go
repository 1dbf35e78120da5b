package orchfake

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/apitwin/apitwin/internal/fakekit"
	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch/orchpb"
	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/protobuf/proto"
)

// sharedGateway is the HTTP/JSON side of every fake in the process: the
// grpc-gateway handlers that call the same services the gRPC side serves,
// with the contract's error form and headers. Its routes are the same for
// every fake, and building them is most of what a fake's start costs, so
// it is built once; each call finds its fake in its context (serverOf),
// which gatewayRouter puts there.
var sharedGateway = sync.OnceValue(func() *runtime.ServeMux {
	mux := runtime.NewServeMux(
		runtime.WithMarshalerOption(runtime.MIMEWildcard, gatewayJSON),
		// The fake is found in ctx, not r: the direct List path (listhttp.go)
		// hands the gateway's forwarder a context of its own.
		runtime.WithErrorHandler(func(ctx context.Context, mux *runtime.ServeMux, m runtime.Marshaler, w http.ResponseWriter, r *http.Request, err error) {
			serverOf(ctx).httpError(ctx, mux, m, w, r, err)
		}),
		runtime.WithRoutingErrorHandler(func(ctx context.Context, mux *runtime.ServeMux, m runtime.Marshaler, w http.ResponseWriter, r *http.Request, status int) {
			serverOf(r.Context()).routingError(ctx, mux, m, w, r, status)
		}),
		runtime.WithOutgoingHeaderMatcher(outgoingHeader),
		runtime.WithForwardResponseRewriter(rewriteListAnswer),
		runtime.WithOutgoingTrailerMatcher(func(string) (string, bool) { return "", false }),
		runtime.WithIncomingHeaderMatcher(func(string) (string, bool) { return "", false }),
		runtime.WithDisablePathLengthFallback(),
		// An escaped "/" in a path segment (a workflow id "orders/1" sent as
		// orders%2F1) stays inside its segment.
		runtime.WithUnescapingMode(runtime.UnescapingModeAllExceptReserved),
	)
	ctx := context.Background()
	if err := orchpb.RegisterWorkflowServiceHandlerServer(ctx, mux, workflowService{}); err != nil {
		panic(err) // only fails on a malformed generated pattern
	}
	if err := orchpb.RegisterAdminServiceHandlerServer(ctx, mux, adminService{}); err != nil {
		panic(err)
	}
	return mux
})

// gatewayJSON is the gateway's only marshaler (every MIME type), in and
// out; the direct List path decodes and writes with it too.
var gatewayJSON = bodyMarshaler{&runtime.JSONPb{MarshalOptions: orchwire.MarshalJSON, UnmarshalOptions: orchwire.StrictJSON}}

// The rate-limit headers in canonical form (X-Ratelimit-Limit), as
// http.Header keeps them: Header.Add and Set take a canonical key as it is,
// and make a new string of any other, per call.
var (
	canonLimit      = http.CanonicalHeaderKey(orchwire.HeaderLimit)
	canonRemaining  = http.CanonicalHeaderKey(orchwire.HeaderRemaining)
	canonReset      = http.CanonicalHeaderKey(orchwire.HeaderReset)
	canonScope      = http.CanonicalHeaderKey(orchwire.HeaderScope)
	canonRetryAfter = http.CanonicalHeaderKey(orchwire.HeaderRetryAfter)
)

// outgoingHeader maps the metadata the pipeline sets to HTTP headers, in
// canonical form.
func outgoingHeader(key string) (string, bool) {
	switch key {
	case "x-ratelimit-limit":
		return canonLimit, true
	case "x-ratelimit-remaining":
		return canonRemaining, true
	case "x-ratelimit-reset":
		return canonReset, true
	case "x-ratelimit-scope":
		return canonScope, true
	case "retry-after":
		return canonRetryAfter, true
	case "deprecation":
		return "Deprecation", true
	case "sunset":
		return "Sunset", true
	}
	return "", false
}

// gatewayRouter is the kit's route table for the HTTP side: one route,
// the gateway, which names the operation itself once it knows it.
type gatewayRouter struct{ s *Server }

// Match names no route: the operation is known once the gateway matched
// the path.
func (gatewayRouter) Match(*http.Request) string { return "" }

// Reaches is never asked: orchfake's faults name operations
// (Config.Operations), which the kit checks instead.
func (gatewayRouter) Reaches(string, *http.ServeMux) bool { return true }

// ServeHTTP serves /api/v1/..., and /api/v1beta1/... as the same
// operations, answered with Deprecation and Sunset headers: List and Scan
// by the direct path when it takes the request (listhttp.go), the rest
// through the gateway.
func (g gatewayRouter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if g.s.serveListDirect(w, r) {
		return
	}
	hc := &httpCall{s: g.s, header: r.Header}
	if rest, ok := strings.CutPrefix(r.URL.Path, orchwire.PathPrefix+orchwire.V1Beta1+"/"); ok {
		hc.beta = true
		r2 := r.Clone(r.Context())
		r2.URL.Path = orchwire.PathPrefix + orchwire.V1 + "/" + rest
		r2.URL.RawPath = ""
		if raw, ok := strings.CutPrefix(r.URL.RawPath, orchwire.PathPrefix+orchwire.V1Beta1+"/"); ok {
			r2.URL.RawPath = orchwire.PathPrefix + orchwire.V1 + "/" + raw
		}
		r = r2
		w.Header().Set("Deprecation", "true")
		w.Header().Set("Sunset", orchwire.Sunset)
	}
	r = r.WithContext(context.WithValue(r.Context(), httpCallKey{}, hc))
	if strings.EqualFold(r.Header.Get(HeaderPayloads), "json") {
		pw := &plainWriter{ResponseWriter: w}
		sharedGateway().ServeHTTP(pw, r)
		pw.finish()
		hc.json.release()
		return
	}
	sharedGateway().ServeHTTP(w, r)
	hc.json.release() // written: the writer keeps none of it
}

// httpError writes an error as {"error":{"code","message","details"}} with
// the code's HTTP status, the rate-limit headers, and Retry-After.
func (s *Server) httpError(ctx context.Context, mux *runtime.ServeMux, _ runtime.Marshaler, w http.ResponseWriter, r *http.Request, err error) {
	ae := toAPIError(err)
	x := fakekit.ExchangeFrom(ctx)
	x.SetCode(ae.code)
	if x.Route() == "" { // refused before the pipeline (a malformed body): name the operation all the same
		if m, ok := runtime.RPCMethod(ctx); ok {
			x.SetRoute(m[strings.LastIndexByte(m, '/')+1:])
		}
	}
	h := w.Header()
	wrote := false
	if md, ok := runtime.ServerMetadataFromContext(ctx); ok {
		for k, vs := range md.HeaderMD {
			if name, ok := outgoingHeader(k); ok {
				for _, v := range vs {
					h.Add(name, v)
					wrote = true
				}
			}
		}
	}
	if !wrote { // the call never reached the pipeline: show the cluster window
		hdr := map[string]string{}
		rateHeader(s.limits.peekCluster(), hdr)
		for k, v := range hdr {
			name, _ := outgoingHeader(k)
			h.Set(name, v)
		}
	}
	writeError(w, ae)
}

func writeError(w http.ResponseWriter, ae *apiError) {
	body := orchwire.HTTPBody(ae.code, ae.msg, ae.details...)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(orchwire.HTTPStatus(ae.code))
	_, _ = w.Write(body)
}

// routingError answers a path no operation has (NOT_FOUND) or a method the
// path does not take (UNIMPLEMENTED, 405).
func (s *Server) routingError(ctx context.Context, mux *runtime.ServeMux, m runtime.Marshaler, w http.ResponseWriter, r *http.Request, status int) {
	var ae *apiError
	switch status {
	case http.StatusMethodNotAllowed:
		ae = errorf(orchwire.Unimplemented, "method %s not allowed on %s", r.Method, r.URL.Path)
	case http.StatusNotFound:
		ae = errorf(orchwire.NotFound, "no operation at %s %s", r.Method, r.URL.Path)
	default:
		ae = errorf(orchwire.InvalidArgument, "bad request: %s", http.StatusText(status))
	}
	fakekit.ExchangeFrom(r.Context()).SetCode(ae.code)
	hdr := map[string]string{}
	rateHeader(s.limits.peekCluster(), hdr)
	for k, v := range hdr {
		name, _ := outgoingHeader(k)
		w.Header().Set(name, v)
	}
	if status == http.StatusMethodNotAllowed {
		body := orchwire.HTTPBody(ae.code, ae.msg)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(body)
		return
	}
	writeError(w, ae)
}

// bodyMarshaler is the gateway's JSON codec with the decoder's errors
// rewritten for people: protojson's own text ("proto: (line 1:17): invalid
// value for string field workflowId: 5") names the field in camelCase and
// the place in its own syntax.
type bodyMarshaler struct{ *runtime.JSONPb }

// Marshal writes List and Scan answers with appendListJSON, the rest (and
// whatever it declines) with protojson: the same bytes either way.
func (m bodyMarshaler) Marshal(v any) ([]byte, error) {
	if a, ok := v.(*listAnswer); ok {
		if b, ok := answerJSON(a); ok {
			return b, nil
		}
		v = a.resp
	}
	if b, ok := appendListJSON(v); ok {
		return b, nil
	}
	return m.JSONPb.Marshal(v)
}

func (m bodyMarshaler) NewDecoder(r io.Reader) runtime.Decoder {
	return runtime.DecoderFunc(func(v any) error {
		body, err := io.ReadAll(r) // the kit bounds the body
		if err != nil {
			return bodyError(err)
		}
		return m.decodeBody(body, v)
	})
}

// decodeBody decodes a whole request body into v: io.EOF for none, which
// the gateway takes as an empty message.
func (m bodyMarshaler) decodeBody(body []byte, v any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return io.EOF
	}
	return m.Unmarshal(body, v)
}

func (m bodyMarshaler) Unmarshal(data []byte, v any) error {
	err := m.JSONPb.Unmarshal(data, v)
	if pm, ok := v.(proto.Message); ok && err != nil {
		// Plain-JSON payloads do not parse as the contract's form: rewrite
		// them, then try again (the wrapper form, what the SDK sends, takes
		// the first and only pass).
		if plain := plainPayloadsIn(data, pm); !bytes.Equal(plain, data) {
			proto.Reset(pm)
			if err2 := m.JSONPb.Unmarshal(plain, v); err2 == nil {
				return nil
			}
		}
	}
	return bodyError(err)
}

var protojsonError = regexp.MustCompile(`^proto:[\s\p{Zs}]*(syntax error[\s\p{Zs}]*)?\(line (\d+):(\d+)\):[\s\p{Zs}]*(.*)$`)

// bodyError rewrites a JSON decoding error; nil stays nil.
func bodyError(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if errors.Is(err, io.ErrUnexpectedEOF) || msg == "unexpected EOF" {
		return errors.New("the request body is not valid JSON: it ends too early")
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return err // the kit answers 413 for it
	}
	m := protojsonError.FindStringSubmatch(msg)
	if m == nil {
		return fmt.Errorf("the request body is not valid JSON: %s", strings.TrimPrefix(msg, "proto: "))
	}
	at := " (line " + m[2] + ", column " + m[3] + ")"
	what := m[4]
	if m[1] != "" {
		return errors.New("the request body is not valid JSON: " + what + at)
	}
	// "invalid value for string field workflowId: 5"
	if i := strings.Index(what, " field "); i >= 0 {
		rest := what[i+len(" field "):]
		name, val, _ := strings.Cut(rest, ": ")
		kind := strings.TrimPrefix(what[:i], "invalid value for ")
		if strings.HasPrefix(what, "invalid value for ") {
			return fmt.Errorf("field %s: %s is not a valid %s value%s", snakeCase(name), val, kind, at)
		}
	}
	if name, ok := strings.CutPrefix(what, "unknown field "); ok {
		return fmt.Errorf("unknown field %s in the request body%s", name, at)
	}
	return errors.New("the request body does not fit the operation: " + what + at)
}

// snakeCase turns a JSON field name (workflowId) into the contract's
// snake_case (workflow_id).
func snakeCase(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsUpper(r) {
			b.WriteByte('_')
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}
