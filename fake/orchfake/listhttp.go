package orchfake

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch/orchpb"
	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/protobuf/proto"
)

// The direct path for List (GET .../namespaces/{namespace}/workflows) and
// Scan (POST .../workflows/scan) over HTTP. grpc-gateway's route matching,
// query population by reflection, metadata and header joining cost a list
// call some 80 allocations, more than all the rest of the call; this path
// reads the request itself, runs the same service method (and so the same
// pipeline), and writes in the gateway's forwarder's order with the
// gateway's marshaler, response rewriter and error handler, so the bytes
// are the same.
//
// It takes only what it understands exactly as the gateway does (see
// parseListCall); anything else goes to the gateway untouched, before any
// side effect, so odd requests keep the gateway's exact answers.
// TestListDirectSameAsGateway and FuzzListDirectQuery hold the two paths to
// the same answers.

// listCall is a List or Scan request the direct path takes, with what
// its call needs besides, in one allocation.
type listCall struct {
	scan bool
	beta bool // by the deprecated /api/v1beta1/ alias
	ns   string
	list orchpb.ListWorkflowExecutionsRequest // GET
	sreq orchpb.ScanWorkflowExecutionsRequest // POST
	hc   httpCall
	vals [8]string // the answer's header values, for writeListAnswer
}

// Path prefixes, as gatewayRouter reads them.
const (
	v1Prefix   = orchwire.PathPrefix + orchwire.V1 + "/"
	betaPrefix = orchwire.PathPrefix + orchwire.V1Beta1 + "/"
)

// maxDirectParams is the most query parameters the direct path reads,
// counted as net/url counts them (one more than the '&'s). net/url refuses
// a query of more than its limit (10,000, or GODEBUG urlmaxqueryparams);
// this stays far below it, and queryLimitBelow turns the path off for
// queries should the limit be set lower still.
const maxDirectParams = 4

var queryLimitBelow = func() bool {
	_, err := url.ParseQuery(strings.Repeat("&", maxDirectParams-1))
	return err != nil
}()

// serveListDirect answers a List or Scan call that parseListCall takes;
// false, having done nothing, for any other.
func (s *Server) serveListDirect(w http.ResponseWriter, r *http.Request) bool {
	if s.gatewayOnly.Load() {
		return false
	}
	lc, ok := parseListCall(r)
	if !ok {
		return false
	}
	hc := &lc.hc
	hc.s, hc.header, hc.beta, hc.direct = s, r.Header, lc.beta, true
	if lc.beta { // as gatewayRouter
		w.Header().Set("Deprecation", "true")
		w.Header().Set("Sunset", orchwire.Sunset)
	}
	ctx := context.WithValue(r.Context(), httpCallKey{}, hc)
	var resp proto.Message
	var err error
	svc := workflowService{s: s}
	if lc.scan {
		var sr *orchpb.ScanWorkflowExecutionsResponse
		if sr, err = svc.ScanWorkflowExecutions(ctx, &lc.sreq); err == nil {
			resp = sr
		}
	} else {
		var lr *orchpb.ListWorkflowExecutionsResponse
		if lr, err = svc.ListWorkflowExecutions(ctx, &lc.list); err == nil {
			resp = lr
		}
	}
	if err != nil {
		s.httpError(withHeaderMD(ctx, hc), sharedGateway(), gatewayJSON, w, r, err)
	} else {
		s.writeListAnswer(ctx, w, r, hc, resp, lc.vals[:0])
	}
	hc.json.release() // written: the writer keeps none of it
	return true
}

// withHeaderMD puts the pipeline's headers where the gateway keeps what
// grpc.SetHeader set, for httpError to read them there.
func withHeaderMD(ctx context.Context, hc *httpCall) context.Context {
	return runtime.NewServerMetadataContext(ctx, runtime.ServerMetadata{HeaderMD: headerMD(hc.hdr)})
}

// writeListAnswer writes an answer as the gateway's forwarder
// (runtime.ForwardResponseMessage, with this gateway's options: no
// Content-Length, no forward-response options; parseListCall hands on a
// request that asks for trailers) does: the pipeline's headers added, the
// Content-Type, the body from rewriteListAnswer and the marshaler, or
// httpError if the marshaler fails. It adds the headers as Header.Add would
// (the names are canonical), with the values in one slice, vals.
func (s *Server) writeListAnswer(ctx context.Context, w http.ResponseWriter, r *http.Request, hc *httpCall, resp proto.Message, vals []string) {
	h := w.Header()
	for k, v := range hc.hdr {
		name, ok := outgoingHeader(k)
		if !ok {
			continue
		}
		if old := h[name]; len(old) > 0 {
			h[name] = append(old, v)
			continue
		}
		vals = append(vals, v)
		h[name] = vals[len(vals)-1 : len(vals) : len(vals)]
	}
	h.Set("Content-Type", gatewayJSON.ContentType(resp))
	v, _ := rewriteListAnswer(ctx, resp) // it fails for nothing
	body, err := gatewayJSON.Marshal(v)
	if err != nil {
		s.httpError(withHeaderMD(ctx, hc), sharedGateway(), gatewayJSON, w, r, err)
		return
	}
	_, _ = w.Write(body)
}

// parseListCall reads a List or Scan call as the gateway would, or says
// false for anything it does not take exactly as the gateway does: another
// path or method, plain-JSON payloads (Orch-Payloads), a Grpc-Timeout
// (which the gateway reads), a TE header (trailers), a List query
// parameter other than page_size, next_page_token and query (by proto or
// JSON name, each once, one value, well formed), a Scan body that does not
// decode. It may read a Scan's body, and then puts it back as it was.
func parseListCall(r *http.Request) (*listCall, bool) {
	if r.Method != http.MethodGet && r.Method != http.MethodPost {
		return nil, false
	}
	if r.Header.Get(HeaderPayloads) != "" || r.Header.Get("Grpc-Timeout") != "" || r.Header.Get("TE") != "" {
		return nil, false
	}
	// The path as the gateway matches it: after gatewayRouter's rewrite of
	// the alias, the escaped form when net/url kept one (RawPath), split on
	// "/"; literals compared as they are, the namespace unescaped. Nothing
	// is allocated until the path is List's or Scan's: every other call of
	// the HTTP side comes through here first.
	beta := false
	path, raw := r.URL.Path, r.URL.RawPath
	if rest, ok := strings.CutPrefix(path, betaPrefix); ok {
		beta, path = true, rest
		if raw, ok = strings.CutPrefix(raw, betaPrefix); !ok {
			raw = "" // gatewayRouter drops a RawPath without the prefix
		}
	} else if path, ok = strings.CutPrefix(path, v1Prefix); !ok {
		return nil, false
	} else if raw != "" {
		if raw, ok = strings.CutPrefix(raw, v1Prefix); !ok {
			return nil, false
		}
	}
	p := path
	if raw != "" {
		p = raw
	}
	p, ok := strings.CutPrefix(p, "namespaces/")
	if !ok {
		return nil, false
	}
	ns, tail, ok := strings.Cut(p, "/")
	if !ok {
		return nil, false
	}
	scan := false
	switch {
	case tail == "workflows" && r.Method == http.MethodGet:
	case tail == "workflows/scan" && r.Method == http.MethodPost:
		scan = true
	default:
		return nil, false
	}
	if raw != "" {
		// The gateway unescapes a single segment in full (%2F too): as
		// url.PathUnescape, which refuses a malformed escape as it does.
		var err error
		if ns, err = url.PathUnescape(ns); err != nil {
			return nil, false
		}
	}
	lc := &listCall{scan: scan, beta: beta, ns: ns}
	if lc.scan {
		return lc, lc.scanBody(r)
	}
	return lc, lc.listQuery(r.URL.RawQuery)
}

// listQuery reads List's query parameters as ParseForm and the gateway's
// query parser do: pairs split on '&' (empty ones skipped, ';' refused),
// keys and values query-unescaped, a field by its proto or JSON name, at
// most once, page_size by strconv.ParseInt base 10, next_page_token by
// runtime.Bytes. The gateway ignores unknown keys and a "namespace" key:
// this path hands those on rather than copy the rule.
func (lc *listCall) listQuery(q string) bool {
	req := &lc.list
	req.Namespace = lc.ns
	if q == "" {
		return true
	}
	if queryLimitBelow || strings.Count(q, "&")+1 > maxDirectParams {
		return false
	}
	var seen [3]bool
	for q != "" {
		var kv string
		kv, q, _ = strings.Cut(q, "&")
		if strings.Contains(kv, ";") {
			return false
		}
		if kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		k, err := url.QueryUnescape(k)
		if err != nil {
			return false
		}
		if v, err = url.QueryUnescape(v); err != nil {
			return false
		}
		var field int
		switch k {
		case "page_size", "pageSize":
			n, err := strconv.ParseInt(v, 10, 32)
			if err != nil {
				return false
			}
			req.PageSize = int32(n)
		case "next_page_token", "nextPageToken":
			b, err := runtime.Bytes(v)
			if err != nil {
				return false
			}
			req.NextPageToken, field = b, 1
		case "query":
			req.Query, field = v, 2
		default:
			return false
		}
		if seen[field] {
			return false // repeated, or by both names: the gateway refuses it
		}
		seen[field] = true
	}
	return true
}

// scanBody decodes Scan's body as the gateway does (its marshaler; no
// body is an empty request; the query string is not read); the namespace
// is the path's. On false the body is put back as it was read.
func (lc *listCall) scanBody(r *http.Request) bool {
	req := &lc.sreq
	if r.Body == nil { // the gateway's decoder would read it all the same (and fail)
		return false
	}
	body, err := io.ReadAll(r.Body) // the kit has read and bounded it already
	if err != nil {
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errReader{err}))
		return false
	}
	if err := gatewayJSON.decodeBody(body, req); err != nil && !errors.Is(err, io.EOF) {
		r.Body = io.NopCloser(bytes.NewReader(body))
		return false
	}
	req.Namespace = lc.ns
	return true
}

// errReader fails with its error, as the body it stands for did.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
