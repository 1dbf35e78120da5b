package orchfake

import (
	"context"

	"github.com/apitwin/apitwin/orch/orchpb"
)

// workflowService is the WorkflowService of both transports: each method
// runs its operation through call (version, log, faults, auth, limits).
type workflowService struct {
	orchpb.UnimplementedWorkflowServiceServer
	s *Server
}

// adminService is the AdminService of both transports.
type adminService struct {
	orchpb.UnimplementedAdminServiceServer
	s *Server
}

var (
	_ orchpb.WorkflowServiceServer = workflowService{}
	_ orchpb.AdminServiceServer    = adminService{}
)

func (w workflowService) RegisterNamespace(ctx context.Context, req *orchpb.RegisterNamespaceRequest) (*orchpb.RegisterNamespaceResponse, error) {
	return call(w.s, ctx, opRegisterNamespace, req, w.s.registerNamespace)
}

func (w workflowService) DescribeNamespace(ctx context.Context, req *orchpb.DescribeNamespaceRequest) (*orchpb.DescribeNamespaceResponse, error) {
	return call(w.s, ctx, opDescribeNamespace, req, w.s.describeNamespace)
}

func (w workflowService) ListNamespaces(ctx context.Context, req *orchpb.ListNamespacesRequest) (*orchpb.ListNamespacesResponse, error) {
	return call(w.s, ctx, opListNamespaces, req, w.s.listNamespaces)
}

func (w workflowService) StartWorkflowExecution(ctx context.Context, req *orchpb.StartWorkflowExecutionRequest) (*orchpb.StartWorkflowExecutionResponse, error) {
	return call(w.s, ctx, opStartWorkflow, req, w.s.startWorkflow)
}

func (w workflowService) SignalWithStartWorkflowExecution(ctx context.Context, req *orchpb.SignalWithStartWorkflowExecutionRequest) (*orchpb.SignalWithStartWorkflowExecutionResponse, error) {
	return call(w.s, ctx, opSignalWithStart, req, w.s.signalWithStart)
}

func (w workflowService) GetWorkflowExecution(ctx context.Context, req *orchpb.GetWorkflowExecutionRequest) (*orchpb.GetWorkflowExecutionResponse, error) {
	return call(w.s, ctx, opGetWorkflow, req, w.s.getWorkflow)
}

func (w workflowService) TerminateWorkflowExecution(ctx context.Context, req *orchpb.TerminateWorkflowExecutionRequest) (*orchpb.TerminateWorkflowExecutionResponse, error) {
	return call(w.s, ctx, opTerminateWorkflow, req, w.s.terminateWorkflow)
}

func (w workflowService) SignalWorkflowExecution(ctx context.Context, req *orchpb.SignalWorkflowExecutionRequest) (*orchpb.SignalWorkflowExecutionResponse, error) {
	return call(w.s, ctx, opSignalWorkflow, req, w.s.signalWorkflow)
}

func (w workflowService) RequestCancelWorkflowExecution(ctx context.Context, req *orchpb.RequestCancelWorkflowExecutionRequest) (*orchpb.RequestCancelWorkflowExecutionResponse, error) {
	return call(w.s, ctx, opRequestCancelWorkflow, req, w.s.requestCancelWorkflow)
}

func (w workflowService) QueryWorkflow(ctx context.Context, req *orchpb.QueryWorkflowRequest) (*orchpb.QueryWorkflowResponse, error) {
	return call(w.s, ctx, opQueryWorkflow, req, w.s.queryWorkflow)
}

func (w workflowService) GetWorkflowExecutionHistory(ctx context.Context, req *orchpb.GetWorkflowExecutionHistoryRequest) (*orchpb.GetWorkflowExecutionHistoryResponse, error) {
	return call(w.s, ctx, opGetHistory, req, w.s.getHistory)
}

func (w workflowService) ListWorkflowExecutions(ctx context.Context, req *orchpb.ListWorkflowExecutionsRequest) (*orchpb.ListWorkflowExecutionsResponse, error) {
	return call(w.s, ctx, opListWorkflows, req, w.s.listWorkflows)
}

func (w workflowService) ScanWorkflowExecutions(ctx context.Context, req *orchpb.ScanWorkflowExecutionsRequest) (*orchpb.ScanWorkflowExecutionsResponse, error) {
	return call(w.s, ctx, opScanWorkflows, req, w.s.scanWorkflows)
}

func (w workflowService) CountWorkflowExecutions(ctx context.Context, req *orchpb.CountWorkflowExecutionsRequest) (*orchpb.CountWorkflowExecutionsResponse, error) {
	return call(w.s, ctx, opCountWorkflows, req, w.s.countWorkflows)
}

func (w workflowService) PollWorkflowTaskQueue(ctx context.Context, req *orchpb.PollWorkflowTaskQueueRequest) (*orchpb.PollWorkflowTaskQueueResponse, error) {
	return call(w.s, ctx, opPollWorkflowTask, req, w.s.pollWorkflowTask)
}

func (w workflowService) PollActivityTaskQueue(ctx context.Context, req *orchpb.PollActivityTaskQueueRequest) (*orchpb.PollActivityTaskQueueResponse, error) {
	return call(w.s, ctx, opPollActivityTask, req, w.s.pollActivityTask)
}

func (w workflowService) RespondWorkflowTaskCompleted(ctx context.Context, req *orchpb.RespondWorkflowTaskCompletedRequest) (*orchpb.RespondWorkflowTaskCompletedResponse, error) {
	return call(w.s, ctx, opRespondWorkflowTaskDone, req, w.s.respondWorkflowTaskCompleted)
}

func (w workflowService) RespondWorkflowTaskFailed(ctx context.Context, req *orchpb.RespondWorkflowTaskFailedRequest) (*orchpb.RespondWorkflowTaskFailedResponse, error) {
	return call(w.s, ctx, opRespondWorkflowTaskFail, req, w.s.respondWorkflowTaskFailed)
}

func (w workflowService) RecordActivityTaskHeartbeat(ctx context.Context, req *orchpb.RecordActivityTaskHeartbeatRequest) (*orchpb.RecordActivityTaskHeartbeatResponse, error) {
	return call(w.s, ctx, opHeartbeat, req, w.s.recordHeartbeat)
}

func (w workflowService) RespondActivityTaskCompleted(ctx context.Context, req *orchpb.RespondActivityTaskCompletedRequest) (*orchpb.RespondActivityTaskCompletedResponse, error) {
	return call(w.s, ctx, opRespondActivityDone, req, w.s.respondActivityCompleted)
}

func (w workflowService) RespondActivityTaskFailed(ctx context.Context, req *orchpb.RespondActivityTaskFailedRequest) (*orchpb.RespondActivityTaskFailedResponse, error) {
	return call(w.s, ctx, opRespondActivityFail, req, w.s.respondActivityFailed)
}

func (w workflowService) RegisterWorker(ctx context.Context, req *orchpb.RegisterWorkerRequest) (*orchpb.RegisterWorkerResponse, error) {
	return call(w.s, ctx, opRegisterWorker, req, w.s.registerWorker)
}

func (w workflowService) ShutdownWorker(ctx context.Context, req *orchpb.ShutdownWorkerRequest) (*orchpb.ShutdownWorkerResponse, error) {
	return call(w.s, ctx, opShutdownWorker, req, w.s.shutdownWorker)
}

func (w workflowService) DescribeTaskQueue(ctx context.Context, req *orchpb.DescribeTaskQueueRequest) (*orchpb.DescribeTaskQueueResponse, error) {
	return call(w.s, ctx, opDescribeTaskQueue, req, w.s.describeTaskQueue)
}

func (w workflowService) ListTaskQueuePartitions(ctx context.Context, req *orchpb.ListTaskQueuePartitionsRequest) (*orchpb.ListTaskQueuePartitionsResponse, error) {
	return call(w.s, ctx, opListPartitions, req, w.s.listPartitions)
}

func (a adminService) DescribeCluster(ctx context.Context, req *orchpb.DescribeClusterRequest) (*orchpb.DescribeClusterResponse, error) {
	return call(a.s, ctx, opDescribeCluster, req, a.s.describeCluster)
}

func (a adminService) ListClusterMembers(ctx context.Context, req *orchpb.ListClusterMembersRequest) (*orchpb.ListClusterMembersResponse, error) {
	return call(a.s, ctx, opListMembers, req, a.s.listMembers)
}

func (a adminService) DescribeShard(ctx context.Context, req *orchpb.DescribeShardRequest) (*orchpb.DescribeShardResponse, error) {
	return call(a.s, ctx, opDescribeShard, req, a.s.describeShard)
}

func (a adminService) AddSearchAttributes(ctx context.Context, req *orchpb.AddSearchAttributesRequest) (*orchpb.AddSearchAttributesResponse, error) {
	return call(a.s, ctx, opAddSearchAttributes, req, a.s.addSearchAttributes)
}

func (a adminService) RemoveSearchAttributes(ctx context.Context, req *orchpb.RemoveSearchAttributesRequest) (*orchpb.RemoveSearchAttributesResponse, error) {
	return call(a.s, ctx, opRemoveSearchAttributes, req, a.s.removeSearchAttributes)
}

func (a adminService) ListSearchAttributes(ctx context.Context, req *orchpb.ListSearchAttributesRequest) (*orchpb.ListSearchAttributesResponse, error) {
	return call(a.s, ctx, opListSearchAttributes, req, a.s.listSearchAttributes)
}

func (a adminService) CloseShard(ctx context.Context, req *orchpb.CloseShardRequest) (*orchpb.CloseShardResponse, error) {
	return call(a.s, ctx, opCloseShard, req, a.s.closeShard)
}
