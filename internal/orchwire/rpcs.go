package orchwire

import (
	"strings"
	"sync"

	"github.com/apitwin/apitwin/orch/orchpb"
)

// RPC is one operation of the contract with what both sides must agree on:
// the client (how it retries and limits the call) and the fake (which
// permission it needs and which rate limit it counts against). This table
// is the only list of them.
type RPC struct {
	// Name is the operation's short name, "StartWorkflowExecution": the
	// fake's fault and request-log route.
	Name string
	// FullMethod is the gRPC method.
	FullMethod string
	// Rule is its HTTP binding.
	Rule Rule
	// Idempotency says when sending it twice is harmless.
	Idempotency Idempotency
	// Kind is the client-side limit it counts against.
	Kind Kind
	// Permission is what a caller's token must grant (the fake's auth).
	Permission string
	// Limit is the server-side rate limit it counts against, besides the
	// cluster's.
	Limit Limit
}

// Idempotency says when an operation may be sent twice.
type Idempotency uint8

const (
	// Never: sending it twice could do it twice.
	Never Idempotency = iota
	// Always: a read, or a write whose second coming changes nothing.
	Always
	// WithRequestID: harmless once the request carries a request_id the
	// server deduplicates by.
	WithRequestID
)

// Kind is the client-side limit an operation counts against.
type Kind uint8

const (
	KindNormal    Kind = iota
	KindLongPoll       // a task poll (a history read with wait_new_event is one too, by its request)
	KindHeartbeat      // an activity heartbeat
)

// Limit is the server-side rate limit an operation counts against.
type Limit uint8

const (
	LimitNone      Limit = iota // the cluster's only
	LimitStart                  // its namespace's starts
	LimitTaskQueue              // its task queue's operations
)

// The permissions of the contract's authorization: "orch:<area>:<action>",
// with "*" for every action of an area and "orch:*" for all.
const (
	PermAll               = "orch:*"
	PermCluster           = "orch:cluster:*"
	PermClusterRead       = "orch:cluster:read"
	PermClusterWrite      = "orch:cluster:write"
	PermNamespace         = "orch:namespace:*"
	PermNamespaceCreate   = "orch:namespace:create"
	PermNamespaceRead     = "orch:namespace:read"
	PermNamespaceUpdate   = "orch:namespace:update"
	PermNamespaceDelete   = "orch:namespace:delete"
	PermWorkflow          = "orch:workflow:*"
	PermWorkflowStart     = "orch:workflow:start"
	PermWorkflowSignal    = "orch:workflow:signal"
	PermWorkflowQuery     = "orch:workflow:query"
	PermWorkflowRead      = "orch:workflow:read"
	PermWorkflowList      = "orch:workflow:list"
	PermWorkflowTerminate = "orch:workflow:terminate"
	PermWorkflowCancel    = "orch:workflow:cancel"
	PermWorkflowWorker    = "orch:workflow:worker"
	PermWorkflowUpdate    = "orch:workflow:update"
	// PermWorkflowSchedule is creating, changing and deleting schedules
	// (reading them is PermWorkflowRead and PermWorkflowList).
	PermWorkflowSchedule = "orch:workflow:schedule"
)

var rpcs = sync.OnceValues(func() ([]RPC, map[string]*RPC) {
	type row struct {
		full string
		idem Idempotency
		kind Kind
		perm string
		lim  Limit
	}
	rows := []row{
		{orchpb.WorkflowService_RegisterNamespace_FullMethodName, Never, KindNormal, PermNamespaceCreate, LimitNone},
		{orchpb.WorkflowService_DescribeNamespace_FullMethodName, Always, KindNormal, PermNamespaceRead, LimitNone},
		{orchpb.WorkflowService_ListNamespaces_FullMethodName, Always, KindNormal, PermNamespaceRead, LimitNone},
		{orchpb.WorkflowService_StartWorkflowExecution_FullMethodName, WithRequestID, KindNormal, PermWorkflowStart, LimitStart},
		{orchpb.WorkflowService_SignalWithStartWorkflowExecution_FullMethodName, WithRequestID, KindNormal, PermWorkflowStart, LimitStart},
		{orchpb.WorkflowService_GetWorkflowExecution_FullMethodName, Always, KindNormal, PermWorkflowRead, LimitNone},
		{orchpb.WorkflowService_TerminateWorkflowExecution_FullMethodName, Never, KindNormal, PermWorkflowTerminate, LimitNone},
		{orchpb.WorkflowService_SignalWorkflowExecution_FullMethodName, WithRequestID, KindNormal, PermWorkflowSignal, LimitNone},
		{orchpb.WorkflowService_RequestCancelWorkflowExecution_FullMethodName, WithRequestID, KindNormal, PermWorkflowCancel, LimitNone},
		{orchpb.WorkflowService_QueryWorkflow_FullMethodName, Always, KindNormal, PermWorkflowQuery, LimitNone},
		{orchpb.WorkflowService_GetWorkflowExecutionHistory_FullMethodName, Always, KindNormal, PermWorkflowRead, LimitNone},
		{orchpb.WorkflowService_ListWorkflowExecutions_FullMethodName, Always, KindNormal, PermWorkflowList, LimitNone},
		{orchpb.WorkflowService_ScanWorkflowExecutions_FullMethodName, Always, KindNormal, PermWorkflowList, LimitNone},
		{orchpb.WorkflowService_CountWorkflowExecutions_FullMethodName, Always, KindNormal, PermWorkflowList, LimitNone},
		{orchpb.WorkflowService_PollWorkflowTaskQueue_FullMethodName, Never, KindLongPoll, PermWorkflowWorker, LimitTaskQueue},
		{orchpb.WorkflowService_PollActivityTaskQueue_FullMethodName, Never, KindLongPoll, PermWorkflowWorker, LimitTaskQueue},
		{orchpb.WorkflowService_RespondWorkflowTaskCompleted_FullMethodName, Never, KindNormal, PermWorkflowWorker, LimitNone},
		{orchpb.WorkflowService_RespondWorkflowTaskFailed_FullMethodName, Never, KindNormal, PermWorkflowWorker, LimitNone},
		{orchpb.WorkflowService_RecordActivityTaskHeartbeat_FullMethodName, Always, KindHeartbeat, PermWorkflowWorker, LimitNone},
		{orchpb.WorkflowService_RespondActivityTaskCompleted_FullMethodName, Never, KindNormal, PermWorkflowWorker, LimitNone},
		{orchpb.WorkflowService_RespondActivityTaskFailed_FullMethodName, Never, KindNormal, PermWorkflowWorker, LimitNone},
		{orchpb.WorkflowService_RegisterWorker_FullMethodName, Always, KindNormal, PermWorkflowWorker, LimitTaskQueue},
		{orchpb.WorkflowService_ShutdownWorker_FullMethodName, Always, KindNormal, PermWorkflowWorker, LimitNone},
		{orchpb.WorkflowService_DescribeTaskQueue_FullMethodName, Always, KindNormal, PermWorkflowRead, LimitTaskQueue},
		{orchpb.WorkflowService_ListTaskQueuePartitions_FullMethodName, Always, KindNormal, PermWorkflowRead, LimitTaskQueue},
		// An update is sent again only under its update id, which the
		// service deduplicates by (the client always sets one).
		{orchpb.WorkflowService_UpdateWorkflowExecution_FullMethodName, Always, KindNormal, PermWorkflowUpdate, LimitNone},
		// Update-with-start counts as a start, as signal-with-start does.
		{orchpb.WorkflowService_ExecuteMultiOperation_FullMethodName, Never, KindNormal, PermWorkflowStart, LimitStart},
		{orchpb.WorkflowService_CreateSchedule_FullMethodName, WithRequestID, KindNormal, PermWorkflowSchedule, LimitNone},
		{orchpb.WorkflowService_DescribeSchedule_FullMethodName, Always, KindNormal, PermWorkflowRead, LimitNone},
		{orchpb.WorkflowService_UpdateSchedule_FullMethodName, WithRequestID, KindNormal, PermWorkflowSchedule, LimitNone},
		{orchpb.WorkflowService_PatchSchedule_FullMethodName, WithRequestID, KindNormal, PermWorkflowSchedule, LimitNone},
		{orchpb.WorkflowService_ListSchedules_FullMethodName, Always, KindNormal, PermWorkflowList, LimitNone},
		{orchpb.WorkflowService_DeleteSchedule_FullMethodName, Never, KindNormal, PermWorkflowSchedule, LimitNone},
		{orchpb.WorkflowService_RespondActivityTaskCanceled_FullMethodName, Never, KindNormal, PermWorkflowWorker, LimitNone},
		{orchpb.WorkflowService_RespondActivityTaskCompletedById_FullMethodName, Never, KindNormal, PermWorkflowWorker, LimitNone},
		{orchpb.WorkflowService_RespondActivityTaskFailedById_FullMethodName, Never, KindNormal, PermWorkflowWorker, LimitNone},
		{orchpb.WorkflowService_RecordActivityTaskHeartbeatById_FullMethodName, Always, KindHeartbeat, PermWorkflowWorker, LimitNone},
		{orchpb.WorkflowService_RespondActivityTaskCanceledById_FullMethodName, Never, KindNormal, PermWorkflowWorker, LimitNone},
		{orchpb.WorkflowService_ResetWorkflowExecution_FullMethodName, WithRequestID, KindNormal, PermWorkflowTerminate, LimitNone},
		{orchpb.WorkflowService_DeleteWorkflowExecution_FullMethodName, Always, KindNormal, PermWorkflowTerminate, LimitNone},
		{orchpb.WorkflowService_UpdateNamespace_FullMethodName, Always, KindNormal, PermNamespaceUpdate, LimitNone},
		{orchpb.WorkflowService_DeprecateNamespace_FullMethodName, Always, KindNormal, PermNamespaceUpdate, LimitNone},
		{orchpb.WorkflowService_DeleteNamespace_FullMethodName, Never, KindNormal, PermNamespaceDelete, LimitNone},
		{orchpb.AdminService_DescribeCluster_FullMethodName, Always, KindNormal, PermClusterRead, LimitNone},
		{orchpb.AdminService_ListClusterMembers_FullMethodName, Always, KindNormal, PermClusterRead, LimitNone},
		{orchpb.AdminService_DescribeShard_FullMethodName, Always, KindNormal, PermClusterRead, LimitNone},
		{orchpb.AdminService_CloseShard_FullMethodName, Never, KindNormal, PermClusterWrite, LimitNone},
		{orchpb.AdminService_AddSearchAttributes_FullMethodName, Always, KindNormal, PermNamespaceUpdate, LimitNone},
		{orchpb.AdminService_RemoveSearchAttributes_FullMethodName, Never, KindNormal, PermNamespaceUpdate, LimitNone},
		{orchpb.AdminService_ListSearchAttributes_FullMethodName, Always, KindNormal, PermNamespaceRead, LimitNone},
	}
	list := make([]RPC, 0, len(rows))
	byName := make(map[string]*RPC, 2*len(rows))
	for _, r := range rows {
		rule, ok := RuleFor(r.full)
		if !ok {
			panic("orchwire: no HTTP rule for " + r.full) // the contract is compiled in; its test catches this
		}
		list = append(list, RPC{Name: r.full[strings.LastIndexByte(r.full, '/')+1:], FullMethod: r.full, Rule: rule,
			Idempotency: r.idem, Kind: r.kind, Permission: r.perm, Limit: r.lim})
	}
	for i := range list {
		byName[list[i].Name] = &list[i]
		byName[list[i].FullMethod] = &list[i]
	}
	return list, byName
})

// RPCs returns every operation of the contract, in the order of the
// services' definitions.
func RPCs() []RPC {
	list, _ := rpcs()
	return list
}

// LookupRPC finds an operation by its short name ("StartWorkflowExecution")
// or its gRPC method.
func LookupRPC(name string) (RPC, bool) {
	_, byName := rpcs()
	r, ok := byName[name]
	if !ok {
		return RPC{}, false
	}
	return *r, true
}
