package orch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/apitwin/apitwin/apicall"
	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/internal/callrun"
	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/internal/rest"
	"github.com/apitwin/apitwin/internal/version"
	"github.com/apitwin/apitwin/orch/orchpb"
	"github.com/apitwin/apitwin/retry"
)

// DefaultNamespace is the namespace a client uses unless WithNamespace says
// otherwise.
const DefaultNamespace = "default"

// DefaultPort is the port Dial adds to a target that has none.
const DefaultPort = "7233"

// LongPollTimeout is the deadline a long poll gets when its context has
// none: a little more than a server's usual poll deadline (60 s), so the
// server, not the client, ends an idle poll.
const LongPollTimeout = 70 * time.Second

// Client talks to one orchestration service over gRPC (Dial, NewFromConn)
// or HTTP/JSON (NewHTTP): the same methods and the same errors whichever
// transport. It is safe for concurrent use.
type Client struct {
	tr        transport
	kind      string // "grpc" or "http", for String
	target    string
	namespace string
	identity  string
	hasToken  bool // for String; the token is the transport's, behind a pointer (see sourcehost.Client)
	clk       clock.Clock
	// clean takes the token out of errors and log records. A pointer, so
	// that the token its set holds is two pointers away from a Client
	// printed by value (with %s, fmt shows what a pointer field points to).
	clean   *rest.Cleaner
	log     *slog.Logger // cleaned by clean
	run     *callrun.Runner
	limits  *limiter
	timeout time.Duration

	warnDeprecated *sync.Once // shared by the clients of WithNamespace
}

// transport carries one call. It fills resp on success and returns what the
// answer said of rate limits either way. An error is an *Error when the
// server answered or the transport failed in a known way.
type transport interface {
	invoke(ctx context.Context, m *method, req, resp proto.Message) (callInfo, error)
	close() error
}

// callInfo is what a transport learned of an answer besides its body.
type callInfo struct {
	header     http.Header // the answer's headers or header metadata (and trailers)
	rateLimit  RateLimit
	retryAfter time.Duration // the answer's Retry-After, if any
	sent       bool          // false when the transport knows the request never left
	deprecated bool          // the answer said its API version is deprecated
	permanent  bool          // a transport failure no retry can cure (a bad certificate)
	status     int           // the HTTP status of the answer (HTTP transport only)
}

// Dial returns a client of the gRPC service at target ("host", "host:port"
// or a gRPC target such as "dns:///host:port"; the port defaults to 7233).
// The connection is made lazily, at the first call. TLS is on unless
// WithInsecure; close the client to close the connection.
func Dial(target string, opts ...Option) (*Client, error) {
	s, err := applyOptions(opts)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(target) == "" {
		return nil, errors.New("orch: empty target")
	}
	target = withDefaultPort(target)
	creds := credentials.NewTLS(s.tlsForGRPC())
	if s.insecure {
		creds = insecure.NewCredentials()
	}
	ua := version.UserAgent
	if s.rest.UserAgent != "" {
		ua += " " + s.rest.UserAgent
	}
	dial := append([]grpc.DialOption{grpc.WithTransportCredentials(creds), grpc.WithUserAgent(ua)}, s.dialOptions...)
	conn, err := grpc.NewClient(target, dial...)
	if err != nil {
		return nil, fmt.Errorf("orch: dial %s: %w", target, err)
	}
	return newClient(s, &grpcTransport{conn: conn, closer: conn, s: &s}, "grpc", target, grpcCleaner(&s)), nil
}

// NewFromConn returns a client over an existing gRPC connection: an
// in-memory one for tests, or one dialled with options of your own. Closing
// the client leaves conn open.
func NewFromConn(conn grpc.ClientConnInterface, opts ...Option) (*Client, error) {
	if conn == nil {
		return nil, errors.New("orch: nil connection")
	}
	s, err := applyOptions(opts)
	if err != nil {
		return nil, err
	}
	target := "conn"
	if cc, ok := conn.(interface{ Target() string }); ok {
		target = cc.Target()
	}
	return newClient(s, &grpcTransport{conn: conn, s: &s}, "grpc", target, grpcCleaner(&s)), nil
}

// NewHTTP returns a client of the HTTP/JSON side of the service at baseURL
// (the server's root, "https://orch.example.com"; a trailing /api/v1 is
// accepted and dropped).
func NewHTTP(baseURL string, opts ...Option) (*Client, error) {
	s, err := applyOptions(opts)
	if err != nil {
		return nil, err
	}
	tr, err := newHTTPTransport(baseURL, &s)
	if err != nil {
		return nil, err
	}
	return newClient(s, tr, "http", tr.rest.BaseURL(), tr.rest.Cleaner()), nil
}

// newClient builds a Client; clean takes the token out of its errors and
// log records (the HTTP transport's REST core's, or grpcCleaner).
func newClient(s settings, tr transport, kind, target string, clean rest.Cleaner) *Client {
	c := &Client{
		tr:        tr,
		kind:      kind,
		target:    target,
		namespace: s.namespace,
		identity:  s.identity,
		hasToken:  s.token != "",
		clk:       s.rest.Clock,
		clean:     &clean,
		log:       clean.Logger(s.rest.Logger),
		limits:    newLimiter(s.limits, s.rest.Clock),
		timeout:   s.callTimeout,

		warnDeprecated: new(sync.Once),
	}
	c.run, _ = callrun.New(callrun.Config{ // the policy was checked by WithRetry
		Service: "orch", Policy: s.rest.Retry, Clock: s.rest.Clock, Logger: c.log, Hook: s.hook, Clean: c.clean,
		ContextError: func(op string, err error, retries int) error {
			e := contextError(op, err)
			e.Retries = retries
			return e
		},
	})
	return c
}

// withDefaultPort adds :7233 to a host without a port; gRPC targets with a
// scheme ("dns:///…", "unix:…", "passthrough:///…") are left alone.
func withDefaultPort(target string) string {
	if strings.Contains(target, ":///") || strings.HasPrefix(target, "unix:") {
		return target
	}
	if _, _, err := net.SplitHostPort(target); err == nil {
		return target
	}
	host := strings.TrimSuffix(strings.TrimPrefix(target, "["), "]")
	return net.JoinHostPort(host, DefaultPort)
}

func defaultIdentity() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown"
	}
	return strconv.Itoa(os.Getpid()) + "@" + host
}

// Close releases the client's connection: Dial's gRPC connection. A client
// of NewFromConn leaves its connection to its owner; one of NewHTTP holds
// nothing that needs closing.
func (c *Client) Close() error { return c.tr.close() }

// Namespace returns the namespace the client's calls go to.
func (c *Client) Namespace() string { return c.namespace }

// Identity returns the identity the client reports.
func (c *Client) Identity() string { return c.identity }

// WithNamespace returns a client for another namespace sharing this one's
// connection, limits and settings.
func (c *Client) WithNamespace(namespace string) *Client {
	cp := &Client{
		tr: c.tr, kind: c.kind, target: c.target, namespace: namespace, identity: c.identity,
		hasToken: c.hasToken, clk: c.clk, clean: c.clean, log: c.log, run: new(callrun.Runner), limits: c.limits, timeout: c.timeout,
		warnDeprecated: c.warnDeprecated,
	}
	cp.run.InitFrom(c.run, c.log, c.clean) // its rate limit its own
	return cp
}

// RateLimit returns the rate-limit values of the most recent answer that
// carried any.
func (c *Client) RateLimit() RateLimit { return c.run.RateLimit() }

// String describes the client without its token.
func (c *Client) String() string {
	auth := "none"
	if c.hasToken {
		auth = "bearer " + rest.Redacted
	}
	return fmt.Sprintf("orch.Client{transport: %s, target: %s, namespace: %s, auth: %s}", c.kind, c.target, c.namespace, auth)
}

// GoString is String, so %#v does not print the token either.
func (c *Client) GoString() string { return c.String() }

// heartbeatTokenTaken marks the context of a heartbeat whose client-side
// token the worker took already (it skips a heartbeat rather than wait).
type heartbeatTokenTaken struct{}

// callKind says which client-side limit a call counts against.
type callKind int

const (
	kindNormal callKind = iota
	kindLongPoll
	kindHeartbeat
)

// method is what the client knows of one RPC.
type method struct {
	name       string // "StartWorkflowExecution"
	full       string // "/apitwin.orch.v1.WorkflowService/StartWorkflowExecution"
	kind       callKind
	idempotent func(req proto.Message) bool // sending twice is harmless
	rule       orchwire.Rule
}

func always(proto.Message) bool { return true }
func never(proto.Message) bool  { return false }

// withRequestID: idempotent when the request carries a request_id.
func withRequestID(req proto.Message) bool {
	r, ok := req.(interface{ GetRequestId() string })
	return ok && r.GetRequestId() != ""
}

// historyKind: a history read is a long poll when it waits for new events.
func historyKind(req proto.Message) callKind {
	if r, ok := req.(*orchpb.GetWorkflowExecutionHistoryRequest); ok && r.GetWaitNewEvent() {
		return kindLongPoll
	}
	return kindNormal
}

// methods is the client's view of the contract's operation table
// (orchwire.RPCs, shared with the fake).
var methods = sync.OnceValue(func() map[string]*method {
	m := map[string]*method{}
	for _, r := range orchwire.RPCs() {
		md := &method{name: r.Name, full: r.FullMethod, rule: r.Rule, idempotent: never}
		switch r.Idempotency {
		case orchwire.Always:
			md.idempotent = always
		case orchwire.WithRequestID:
			md.idempotent = withRequestID
		}
		switch r.Kind {
		case orchwire.KindLongPoll:
			md.kind = kindLongPoll
		case orchwire.KindHeartbeat:
			md.kind = kindHeartbeat
		}
		m[r.FullMethod] = md
	}
	return m
})

// invoke sends one call: fills the namespace, keeps the client-side limits,
// and runs it through the pipeline (hook, retries, apicall.Info, logs),
// each attempt's failure an *Error (or the named error the specification
// gives for its code).
func (c *Client) invoke(ctx context.Context, full string, req, resp proto.Message) error {
	m := methods()[full]
	if ctx == nil {
		return &Error{Code: CodeInvalidArgument, Message: "nil context", Operation: m.name}
	}
	if r, ok := req.(interface{ GetNamespace() string }); ok && r.GetNamespace() == "" && m.name != "RegisterNamespace" {
		req = proto.Clone(req) // the caller's request stays as it was
		setNamespace(req, c.namespace)
	}
	kind := m.kind
	if full == orchpb.WorkflowService_GetWorkflowExecutionHistory_FullMethodName {
		kind = historyKind(req)
	}
	if _, has := ctx.Deadline(); !has {
		var cancel context.CancelFunc
		switch {
		case kind == kindLongPoll:
			ctx, cancel = context.WithTimeout(ctx, LongPollTimeout)
			defer cancel()
		case c.timeout > 0:
			ctx, cancel = context.WithTimeout(ctx, c.timeout)
			defer cancel()
		}
	}
	switch kind {
	case kindLongPoll:
		release, err := c.limits.longPoll(ctx)
		if err != nil {
			return contextError(m.name, err)
		}
		defer release()
	case kindHeartbeat:
		if taken, _ := ctx.Value(heartbeatTokenTaken{}).(bool); !taken {
			if err := c.limits.heartbeat(ctx); err != nil {
				return contextError(m.name, err)
			}
		}
	}
	call := callrun.Call{Operation: m.name, Idempotent: m.idempotent(req)}
	err := c.run.Run(ctx, &call, func(ctx context.Context, retries int) callrun.Outcome {
		if err := c.limits.request(ctx); err != nil {
			return callrun.Outcome{Err: contextError(m.name, err)} // the caller gave up waiting for it
		}
		info, err := c.tr.invoke(ctx, m, req, resp)
		if info.deprecated && c.log != nil {
			c.warnDeprecated.Do(func() {
				c.log.LogAttrs(ctx, slog.LevelWarn, "the server says this API version is deprecated",
					slog.String("service", "orch"), slog.String("operation", m.name))
			})
		}
		o := callrun.Outcome{Status: info.status, Header: info.header, RateLimit: info.rateLimit,
			NotSent: !info.sent, Permanent: info.permanent}
		if err == nil {
			o.Status = http.StatusOK
			return o
		}
		e := c.asError(ctx, m, err, info)
		e.Retries = retries
		o.Err, o.Code = e, e.Code
		if c.kind == "grpc" && info.sent {
			o.Status = orchwire.HTTPStatus(e.Code) // what apicall.Info says of a gRPC answer
		}
		switch e.Code {
		case CodeResourceExhausted:
			// For rate (see rateRefusal): the server did not do it. Any
			// other (a message too large, a quota) never passes.
			o.Throttled = rateRefusal(e, info)
		case CodeUnavailable:
			o.Transient = true
		}
		if d := e.RateLimitExceeded; d != nil {
			o.Wait = d.RetryAfter
		}
		return o
	})
	if err == nil {
		return nil
	}
	// The *Error says how the retries ended too (GaveUp), as the wrapper
	// the pipeline put around it does.
	var e *Error
	if errors.As(err, &e) {
		var rl *apicall.RateLimitError
		var re *retry.Error
		switch {
		case errors.As(err, &rl):
			e.GaveUp = rl.Reason
		case errors.As(err, &re):
			e.GaveUp = re.Reason
		}
		if err == error(e) {
			return specific(e, req)
		}
	}
	return err
}

// rateRefusal reports whether a RESOURCE_EXHAUSTED answer refused the call
// for its rate: it carries the RateLimitExceeded detail or a Retry-After;
// over HTTP it is a 429 (not a 413, a body too large); over gRPC it is not
// gRPC's own refusal of a message over the size limit ("grpc: received
// message larger than max", "trying to send message larger than max"),
// which is how Temporal's SDKs tell the two apart.
func rateRefusal(e *Error, info callInfo) bool {
	switch {
	case e.RateLimitExceeded != nil || info.retryAfter > 0:
		return true
	case info.status != 0:
		return info.status == http.StatusTooManyRequests
	}
	return !strings.Contains(e.Message, "larger than max")
}

// asError turns whatever a transport returned into an *Error.
func (c *Client) asError(ctx context.Context, m *method, err error, info callInfo) *Error {
	var e *Error
	if !errors.As(err, &e) {
		if ctxErr := ctx.Err(); ctxErr != nil {
			e = contextError(m.name, ctxErr)
		} else {
			e = &Error{Code: CodeUnavailable, Message: err.Error(), cause: err}
		}
	}
	if (e.Code == CodeDeadlineExceeded || e.Code == CodeCanceled) && e.cause == nil {
		switch ctxErr := ctx.Err(); {
		case ctxErr != nil:
			e.cause = ctxErr
		case e.Code == CodeDeadlineExceeded:
			// the server ended the call at the deadline the client sent it
			// (grpc-timeout), a moment before the caller's context did
			e.cause = context.DeadlineExceeded
		}
	}
	e.Operation = m.name
	e.RateLimit = info.rateLimit
	if e.RateLimitExceeded == nil {
		e.RateLimitExceeded = rateLimitDetail(e.Details)
	}
	// Whatever the transport: the server's code, message and details, the
	// trailer's rate-limit values and the transport's error may quote the
	// token (cleaned in place, so e stays the *Error).
	if clean, ok := c.clean.Scrub(e).(*Error); ok {
		e = clean
	}
	return e
}

// setNamespace sets the namespace field of a request that has one.
func setNamespace(req proto.Message, ns string) {
	r := req.ProtoReflect()
	if f := r.Descriptor().Fields().ByName("namespace"); f != nil {
		r.Set(f, protoreflect.ValueOfString(ns))
	}
}
