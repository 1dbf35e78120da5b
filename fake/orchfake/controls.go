package orchfake

import (
	"fmt"
	"sync"
	"time"

	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/protobuf/proto"
)

// Fault is what the next calls of an operation answer instead of their
// result; see [Server.InjectFault].
type Fault struct {
	// Code is one of orchwire's codes ("UNAVAILABLE", "RESOURCE_EXHAUSTED",
	// "WORKFLOW_EXECUTION_NOT_FOUND", …). Empty lets the call through after
	// Latency.
	Code string
	// Message of the error; empty means "injected fault".
	Message string
	// Details of the error.
	Details []*orchpb.ErrorDetail
	// Latency delays the call by this much before it runs (or fails).
	Latency time.Duration
	// OnClock makes Latency a wait on the fake clock (the call answers when
	// the test advances the clock past it) instead of real time.
	OnClock bool
	// Times is how many calls the fault affects; 0 means every call until
	// ClearFaults.
	Times int
}

// Call is one call the fake received, as its log keeps it.
type Call struct {
	Time      time.Time     // on the fake's clock, when the call arrived
	Method    string        // the RPC's name, "StartWorkflowExecution"; "" for an HTTP request no operation matched
	Transport string        // TransportGRPC or TransportHTTP
	Namespace string        // the request's namespace, if it has one
	Subject   string        // the caller's sub (or API key name) when auth is on
	Request   proto.Message // a copy of the request (nil when it could not be read)
	Code      string        // the error code answered; "" for success
	Fault     bool          // an injected fault matched it
	Path      string        // the HTTP path, for calls over HTTP
}

type faultRule struct {
	method    string
	fault     Fault
	remaining int // -1: unlimited
}

type controls struct {
	mu     sync.Mutex
	faults []*faultRule
	calls  []Call
}

// callLogLimit caps the call log; the oldest calls go first.
const callLogLimit = 10_000

// InjectFault makes the next calls of method (an RPC's name such as
// "StartWorkflowExecution", or "" for every operation) answer as f says, on
// both transports. Faults apply in the order they were injected; the first
// that matches and has calls left wins.
func (s *Server) InjectFault(method string, f Fault) error {
	if f.Times < 0 || f.Latency < 0 {
		return fmt.Errorf("orchfake: invalid fault %+v", f)
	}
	if f.Code != "" && !orchwire.Known(f.Code) {
		return fmt.Errorf("orchfake: unknown error code %q", f.Code)
	}
	if method != "" && !knownOp(method) {
		return fmt.Errorf("orchfake: unknown operation %q", method)
	}
	r := &faultRule{method: method, fault: f, remaining: f.Times}
	if f.Times == 0 {
		r.remaining = -1
	}
	s.ctl.mu.Lock()
	defer s.ctl.mu.Unlock()
	s.ctl.faults = append(s.ctl.faults, r)
	return nil
}

// ClearFaults removes every injected fault.
func (s *Server) ClearFaults() {
	s.ctl.mu.Lock()
	defer s.ctl.mu.Unlock()
	s.ctl.faults = nil
}

func (c *controls) takeFault(method string) (Fault, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, r := range c.faults {
		if r.method != "" && r.method != method {
			continue
		}
		if r.remaining > 0 {
			r.remaining--
			if r.remaining == 0 {
				c.faults = append(c.faults[:i:i], c.faults[i+1:]...)
			}
		}
		return r.fault, true
	}
	return Fault{}, false
}

func (c *controls) record(e Call) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.calls) >= callLogLimit {
		c.calls = append(c.calls[:0:0], c.calls[callLogLimit/2:]...) // amortised: drop the older half
	}
	c.calls = append(c.calls, e)
}

// Calls returns the calls received over both transports, oldest first. A
// call is logged once it is answered.
func (s *Server) Calls() []Call {
	s.ctl.mu.Lock()
	defer s.ctl.mu.Unlock()
	return append([]Call(nil), s.ctl.calls...)
}

// CallsTo returns the logged calls of one operation.
func (s *Server) CallsTo(method string) []Call {
	var out []Call
	for _, c := range s.Calls() {
		if c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

// ResetCalls empties the call log.
func (s *Server) ResetCalls() {
	s.ctl.mu.Lock()
	defer s.ctl.mu.Unlock()
	s.ctl.calls = nil
}

var allOps = []op{
	opRegisterNamespace, opDescribeNamespace, opListNamespaces, opStartWorkflow, opGetWorkflow,
	opTerminateWorkflow, opSignalWorkflow, opRequestCancelWorkflow, opQueryWorkflow, opGetHistory,
	opListWorkflows, opScanWorkflows, opCountWorkflows, opPollWorkflowTask, opPollActivityTask,
	opRespondWorkflowTaskDone, opRespondWorkflowTaskFail, opHeartbeat, opRespondActivityDone,
	opRespondActivityFail, opRegisterWorker, opDescribeTaskQueue, opListPartitions,
	opDescribeCluster, opListMembers, opDescribeShard, opCloseShard,
}

func knownOp(name string) bool {
	for _, o := range allOps {
		if o.name == name {
			return true
		}
	}
	return false
}
