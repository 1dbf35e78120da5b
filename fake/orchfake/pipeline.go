package orchfake

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/internal/fakekit"
	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
)

// Transports, as the request log names them.
const (
	TransportGRPC = control.TransportGRPC
	TransportHTTP = control.TransportHTTP
)

// op is an operation as the pipeline needs it: its short name, the
// permission it needs, and the rate limit it counts against, read from the
// contract's operation table (orchwire.RPCs, shared with the client).
type op struct {
	name  string
	perm  string
	limit orchwire.Limit
}

// opOf reads an operation from the table; a name missing there is a bug
// the package's tests meet at once.
func opOf(name string) op {
	r, ok := orchwire.LookupRPC(name)
	if !ok {
		panic("orchfake: no operation " + name + " in the contract's table")
	}
	return op{name: r.Name, perm: r.Permission, limit: r.Limit}
}

// The operations the services' methods run.
var (
	opRegisterNamespace       = opOf("RegisterNamespace")
	opDescribeNamespace       = opOf("DescribeNamespace")
	opListNamespaces          = opOf("ListNamespaces")
	opStartWorkflow           = opOf("StartWorkflowExecution")
	opGetWorkflow             = opOf("GetWorkflowExecution")
	opTerminateWorkflow       = opOf("TerminateWorkflowExecution")
	opSignalWorkflow          = opOf("SignalWorkflowExecution")
	opRequestCancelWorkflow   = opOf("RequestCancelWorkflowExecution")
	opQueryWorkflow           = opOf("QueryWorkflow")
	opGetHistory              = opOf("GetWorkflowExecutionHistory")
	opListWorkflows           = opOf("ListWorkflowExecutions")
	opScanWorkflows           = opOf("ScanWorkflowExecutions")
	opCountWorkflows          = opOf("CountWorkflowExecutions")
	opPollWorkflowTask        = opOf("PollWorkflowTaskQueue")
	opPollActivityTask        = opOf("PollActivityTaskQueue")
	opRespondWorkflowTaskDone = opOf("RespondWorkflowTaskCompleted")
	opRespondWorkflowTaskFail = opOf("RespondWorkflowTaskFailed")
	opHeartbeat               = opOf("RecordActivityTaskHeartbeat")
	opRespondActivityDone     = opOf("RespondActivityTaskCompleted")
	opRespondActivityFail     = opOf("RespondActivityTaskFailed")
	opRegisterWorker          = opOf("RegisterWorker")
	opShutdownWorker          = opOf("ShutdownWorker")
	opSignalWithStart         = opOf("SignalWithStartWorkflowExecution")
	opAddSearchAttributes     = opOf("AddSearchAttributes")
	opRemoveSearchAttributes  = opOf("RemoveSearchAttributes")
	opListSearchAttributes    = opOf("ListSearchAttributes")
	opDescribeTaskQueue       = opOf("DescribeTaskQueue")
	opListPartitions          = opOf("ListTaskQueuePartitions")
	opDescribeCluster         = opOf("DescribeCluster")
	opListMembers             = opOf("ListClusterMembers")
	opDescribeShard           = opOf("DescribeShard")
	opCloseShard              = opOf("CloseShard")
	opUpdateWorkflow          = opOf("UpdateWorkflowExecution")
	opExecuteMultiOperation   = opOf("ExecuteMultiOperation")
	opCreateSchedule          = opOf("CreateSchedule")
	opDescribeSchedule        = opOf("DescribeSchedule")
	opUpdateSchedule          = opOf("UpdateSchedule")
	opPatchSchedule           = opOf("PatchSchedule")
	opListSchedules           = opOf("ListSchedules")
	opDeleteSchedule          = opOf("DeleteSchedule")
	opRespondActivityCancel   = opOf("RespondActivityTaskCanceled")
	opRespondActivityDoneByID = opOf("RespondActivityTaskCompletedById")
	opRespondActivityFailByID = opOf("RespondActivityTaskFailedById")
	opHeartbeatByID           = opOf("RecordActivityTaskHeartbeatById")
	opRespondActivityCancelID = opOf("RespondActivityTaskCanceledById")
	opResetWorkflow           = opOf("ResetWorkflowExecution")
	opDeleteWorkflow          = opOf("DeleteWorkflowExecution")
	opUpdateNamespace         = opOf("UpdateNamespace")
	opDeprecateNamespace      = opOf("DeprecateNamespace")
	opDeleteNamespace         = opOf("DeleteNamespace")
)

// httpCall is what the HTTP side knows of a call, carried in its context
// to the pipeline.
type httpCall struct {
	s      *Server // the fake called: the gateway is shared by every fake
	header http.Header
	beta   bool
	json   listedJSON // a List or Scan answer's runs, written already
	// direct is a call on the direct List path (listhttp.go), which has no
	// gateway stream for grpc.SetHeader: the pipeline leaves its headers
	// in hdr instead.
	direct bool
	hdr    map[string]string
}

// listed is where a List or Scan keeps its runs' JSON for the answer;
// nil for a gRPC call (hc nil).
func (hc *httpCall) listed() *listedJSON {
	if hc == nil {
		return nil
	}
	return &hc.json
}

type httpCallKey struct{}

// serverOf is the fake an HTTP call's context is for.
func serverOf(ctx context.Context) *Server {
	return ctx.Value(httpCallKey{}).(*httpCall).s
}

// namespaced is a request that names its namespace.
type namespaced interface{ GetNamespace() string }

// taskQueued is a request that names its task queue.
type taskQueued interface{ GetTaskQueue() string }

// call runs one operation through what every call goes through, whichever
// transport it came by: the version check, injected faults, authentication
// and permission, rate limits (with their headers or metadata), then h. The
// request log entry (the kit's Exchange, begun by the transport) gets the
// operation, the caller and the code answered.
func call[Req proto.Message, Resp proto.Message](s *Server, ctx context.Context, o op, req Req, h func(context.Context, Req) (Resp, error)) (Resp, error) {
	var zero Resp
	hc, _ := ctx.Value(httpCallKey{}).(*httpCall)
	x := fakekit.ExchangeFrom(ctx)
	x.SetRoute(o.name)
	ns := ""
	if n, ok := any(req).(namespaced); ok {
		ns = n.GetNamespace()
	}
	if tr, ok := any(req).(interface{ GetTaskToken() []byte }); ok && ns == "" {
		// A task's namespace is its token's when the request names none: a
		// token scoped to another namespace must not answer it.
		if tt, err := decodeTaskToken(tr.GetTaskToken()); err == nil {
			ns = tt.namespace
		}
	}
	resp, hdr, err := s.run(ctx, o, ns, req, hc, x, func(ctx context.Context) (proto.Message, error) { return h(ctx, req) })
	if len(hdr) > 0 {
		if hc != nil && hc.direct {
			hc.hdr = hdr
		} else {
			_ = grpc.SetHeader(ctx, headerMD(hdr))
		}
	}
	if err != nil {
		ae := toAPIError(err)
		x.SetCode(ae.code)
		if len(hdr) > 0 && hc == nil {
			md := metadata.MD{}
			for k, v := range hdr {
				md.Set(k, v)
			}
			_ = grpc.SetTrailer(ctx, md)
		}
		return zero, ae
	}
	return resp.(Resp), nil
}

// headerAPIVersion is orchwire.HeaderAPIVersion in canonical form, which
// Header.Get then takes as it is instead of canonicalising a copy per call.
var headerAPIVersion = http.CanonicalHeaderKey(orchwire.HeaderAPIVersion)

// headerMD is the pipeline's headers as metadata, set at once: each
// grpc.SetHeader call joins what it is given to what is set already, a
// copy of all of it per call. The keys are lower case already.
func headerMD(hdr map[string]string) metadata.MD {
	md := make(metadata.MD, len(hdr))
	vals := make([]string, 0, len(hdr))
	for k, v := range hdr {
		vals = append(vals, v)
		md[k] = vals[len(vals)-1 : len(vals) : len(vals)]
	}
	return md
}

// run is call without the generics: everything up to and including h.
func (s *Server) run(ctx context.Context, o op, ns string, req proto.Message, hc *httpCall, x *fakekit.Exchange, h func(context.Context) (proto.Message, error)) (proto.Message, map[string]string, error) {
	hdr := map[string]string{}
	if s.isClosed() {
		return nil, hdr, errorf(orchwire.Unavailable, "the fake is shut down")
	}
	// The version: the header (metadata) Orch-API-Version, or the path.
	version := ""
	var authz string
	if hc != nil {
		version = hc.header.Get(headerAPIVersion)
		authz = hc.header.Get("Authorization")
		if hc.beta && version == "" {
			version = orchwire.V1Beta1
		}
	} else if md, ok := metadata.FromIncomingContext(ctx); ok {
		version = first(md.Get(strings.ToLower(orchwire.HeaderAPIVersion)))
		authz = first(md.Get("authorization"))
	}
	switch version {
	case "", orchwire.V1:
	case orchwire.V1Beta1: // by the header on either transport (a v1beta1 HTTP path has them already)
		if hc == nil || !hc.beta {
			hdr["deprecation"] = "true"
			hdr["sunset"] = orchwire.Sunset
		}
	default:
		return nil, hdr, &apiError{code: orchwire.InvalidArgument,
			msg:     "unsupported API version " + strconv.Quote(version) + " in " + orchwire.HeaderAPIVersion + " (supported: v1; v1beta1, deprecated)",
			details: []*orchpb.ErrorDetail{{Type: "FieldViolation", Field: orchwire.HeaderAPIVersion, Description: "unsupported version " + strconv.Quote(version)}}}
	}

	if f, ok := s.kit.TakeFault(nil, o.name); ok {
		x.MarkFault()
		if err := s.applyFault(ctx, f); err != nil {
			return nil, hdr, err
		}
	}

	p, err := s.authenticate(authz)
	if err != nil {
		return nil, hdr, err
	}
	if p != nil {
		x.SetCaller(p.sub)
		if err := p.allow(o.perm, ns); err != nil {
			return nil, hdr, err
		}
		ctx = context.WithValue(ctx, principalKey{}, p)
	}

	tq := ""
	if t, ok := req.(taskQueued); ok && o.limit == orchwire.LimitTaskQueue {
		tq = t.GetTaskQueue()
	}
	// Names that travel back in X-RateLimit-Scope (and the request log)
	// must be printable: a control character is refused, never echoed.
	if err := printableName("namespace", ns); err != nil {
		return nil, hdr, err
	}
	if err := printableName("task_queue", tq); err != nil {
		return nil, hdr, err
	}
	d := s.limits.admit(o, ns, tq)
	if d.Allowed && ns != "" && historyWrites[o.name] {
		if full := s.limits.eventsFull(ns); !full.Allowed {
			d = full
		}
	}
	rateHeader(d, hdr)
	if !d.Allowed {
		return nil, hdr, rateErr(d)
	}
	resp, err := h(ctx)
	return resp, hdr, err
}

// applyFault waits out a fault's latency and answers its code (or the code
// of its HTTP status), if any.
func (s *Server) applyFault(ctx context.Context, f control.Fault) error {
	if err := s.kit.Wait(ctx, f); err != nil {
		switch {
		case errors.Is(err, fakekit.ErrClosed):
			return errorf(orchwire.Unavailable, "the fake is shut down")
		case errors.Is(err, context.Canceled):
			return errorf(orchwire.Canceled, "context canceled")
		}
		return errorf(orchwire.DeadlineExceeded, "context deadline exceeded")
	}
	code := f.Code
	if code == "" && f.Status >= 400 {
		code = orchwire.FromHTTPStatus(f.Status)
	}
	if code == "" {
		return nil
	}
	msg := f.Message
	if msg == "" {
		msg = "injected fault"
	}
	ae := &apiError{code: code, msg: msg}
	if code == orchwire.ResourceExhausted {
		// an injected RESOURCE_EXHAUSTED plays a rate refusal, which a
		// client tells from other exhaustion (a message too large) by its
		// detail
		ae.details = []*orchpb.ErrorDetail{{Type: orchwire.DetailRateLimitExceeded, Scope: "fault", Window: limitWindowName}}
	}
	return ae
}

func first(vs []string) string {
	if len(vs) == 0 {
		return ""
	}
	return vs[0]
}

// printableName refuses a name holding a control character or invalid
// UTF-8: no namespace or task queue can be named so.
func printableName(field, name string) error {
	if !utf8.ValidString(name) {
		return badField(field, "not valid UTF-8")
	}
	for _, r := range name {
		if unicode.IsControl(r) {
			return badField(field, "contains the control character %U", r)
		}
	}
	return nil
}
