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

// server is the fake a call is for: the service's own on gRPC, where
// every fake has its server; on HTTP, where every fake in the process
// shares one gateway (see sharedGateway), the one the call's context names.
func (w workflowService) server(ctx context.Context) *Server {
	if w.s != nil {
		return w.s
	}
	return serverOf(ctx)
}

func (a adminService) server(ctx context.Context) *Server {
	if a.s != nil {
		return a.s
	}
	return serverOf(ctx)
}

var (
	_ orchpb.WorkflowServiceServer = workflowService{}
	_ orchpb.AdminServiceServer    = adminService{}
)

func (w workflowService) RegisterNamespace(ctx context.Context, req *orchpb.RegisterNamespaceRequest) (*orchpb.RegisterNamespaceResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opRegisterNamespace, req, s.registerNamespace)
}

func (w workflowService) DescribeNamespace(ctx context.Context, req *orchpb.DescribeNamespaceRequest) (*orchpb.DescribeNamespaceResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opDescribeNamespace, req, s.describeNamespace)
}

func (w workflowService) ListNamespaces(ctx context.Context, req *orchpb.ListNamespacesRequest) (*orchpb.ListNamespacesResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opListNamespaces, req, s.listNamespaces)
}

func (w workflowService) StartWorkflowExecution(ctx context.Context, req *orchpb.StartWorkflowExecutionRequest) (*orchpb.StartWorkflowExecutionResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opStartWorkflow, req, s.startWorkflow)
}

func (w workflowService) SignalWithStartWorkflowExecution(ctx context.Context, req *orchpb.SignalWithStartWorkflowExecutionRequest) (*orchpb.SignalWithStartWorkflowExecutionResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opSignalWithStart, req, s.signalWithStart)
}

func (w workflowService) GetWorkflowExecution(ctx context.Context, req *orchpb.GetWorkflowExecutionRequest) (*orchpb.GetWorkflowExecutionResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opGetWorkflow, req, s.getWorkflow)
}

func (w workflowService) TerminateWorkflowExecution(ctx context.Context, req *orchpb.TerminateWorkflowExecutionRequest) (*orchpb.TerminateWorkflowExecutionResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opTerminateWorkflow, req, s.terminateWorkflow)
}

func (w workflowService) SignalWorkflowExecution(ctx context.Context, req *orchpb.SignalWorkflowExecutionRequest) (*orchpb.SignalWorkflowExecutionResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opSignalWorkflow, req, s.signalWorkflow)
}

func (w workflowService) RequestCancelWorkflowExecution(ctx context.Context, req *orchpb.RequestCancelWorkflowExecutionRequest) (*orchpb.RequestCancelWorkflowExecutionResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opRequestCancelWorkflow, req, s.requestCancelWorkflow)
}

func (w workflowService) QueryWorkflow(ctx context.Context, req *orchpb.QueryWorkflowRequest) (*orchpb.QueryWorkflowResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opQueryWorkflow, req, s.queryWorkflow)
}

func (w workflowService) GetWorkflowExecutionHistory(ctx context.Context, req *orchpb.GetWorkflowExecutionHistoryRequest) (*orchpb.GetWorkflowExecutionHistoryResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opGetHistory, req, s.getHistory)
}

func (w workflowService) ListWorkflowExecutions(ctx context.Context, req *orchpb.ListWorkflowExecutionsRequest) (*orchpb.ListWorkflowExecutionsResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opListWorkflows, req, s.listWorkflows)
}

func (w workflowService) ScanWorkflowExecutions(ctx context.Context, req *orchpb.ScanWorkflowExecutionsRequest) (*orchpb.ScanWorkflowExecutionsResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opScanWorkflows, req, s.scanWorkflows)
}

func (w workflowService) CountWorkflowExecutions(ctx context.Context, req *orchpb.CountWorkflowExecutionsRequest) (*orchpb.CountWorkflowExecutionsResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opCountWorkflows, req, s.countWorkflows)
}

func (w workflowService) PollWorkflowTaskQueue(ctx context.Context, req *orchpb.PollWorkflowTaskQueueRequest) (*orchpb.PollWorkflowTaskQueueResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opPollWorkflowTask, req, s.pollWorkflowTask)
}

func (w workflowService) PollActivityTaskQueue(ctx context.Context, req *orchpb.PollActivityTaskQueueRequest) (*orchpb.PollActivityTaskQueueResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opPollActivityTask, req, s.pollActivityTask)
}

func (w workflowService) RespondWorkflowTaskCompleted(ctx context.Context, req *orchpb.RespondWorkflowTaskCompletedRequest) (*orchpb.RespondWorkflowTaskCompletedResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opRespondWorkflowTaskDone, req, s.respondWorkflowTaskCompleted)
}

func (w workflowService) RespondWorkflowTaskFailed(ctx context.Context, req *orchpb.RespondWorkflowTaskFailedRequest) (*orchpb.RespondWorkflowTaskFailedResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opRespondWorkflowTaskFail, req, s.respondWorkflowTaskFailed)
}

func (w workflowService) RecordActivityTaskHeartbeat(ctx context.Context, req *orchpb.RecordActivityTaskHeartbeatRequest) (*orchpb.RecordActivityTaskHeartbeatResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opHeartbeat, req, s.recordHeartbeat)
}

func (w workflowService) RespondActivityTaskCompleted(ctx context.Context, req *orchpb.RespondActivityTaskCompletedRequest) (*orchpb.RespondActivityTaskCompletedResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opRespondActivityDone, req, s.respondActivityCompleted)
}

func (w workflowService) RespondActivityTaskFailed(ctx context.Context, req *orchpb.RespondActivityTaskFailedRequest) (*orchpb.RespondActivityTaskFailedResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opRespondActivityFail, req, s.respondActivityFailed)
}

func (w workflowService) RespondActivityTaskCanceled(ctx context.Context, req *orchpb.RespondActivityTaskCanceledRequest) (*orchpb.RespondActivityTaskCanceledResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opRespondActivityCancel, req, s.respondActivityCanceled)
}

func (w workflowService) RespondActivityTaskCompletedById(ctx context.Context, req *orchpb.RespondActivityTaskCompletedByIdRequest) (*orchpb.RespondActivityTaskCompletedByIdResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opRespondActivityDoneByID, req, s.respondActivityCompletedByID)
}

func (w workflowService) RespondActivityTaskFailedById(ctx context.Context, req *orchpb.RespondActivityTaskFailedByIdRequest) (*orchpb.RespondActivityTaskFailedByIdResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opRespondActivityFailByID, req, s.respondActivityFailedByID)
}

func (w workflowService) RecordActivityTaskHeartbeatById(ctx context.Context, req *orchpb.RecordActivityTaskHeartbeatByIdRequest) (*orchpb.RecordActivityTaskHeartbeatByIdResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opHeartbeatByID, req, s.recordHeartbeatByID)
}

func (w workflowService) RespondActivityTaskCanceledById(ctx context.Context, req *orchpb.RespondActivityTaskCanceledByIdRequest) (*orchpb.RespondActivityTaskCanceledByIdResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opRespondActivityCancelID, req, s.respondActivityCanceledByID)
}

func (w workflowService) RegisterWorker(ctx context.Context, req *orchpb.RegisterWorkerRequest) (*orchpb.RegisterWorkerResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opRegisterWorker, req, s.registerWorker)
}

func (w workflowService) ShutdownWorker(ctx context.Context, req *orchpb.ShutdownWorkerRequest) (*orchpb.ShutdownWorkerResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opShutdownWorker, req, s.shutdownWorker)
}

func (w workflowService) DescribeTaskQueue(ctx context.Context, req *orchpb.DescribeTaskQueueRequest) (*orchpb.DescribeTaskQueueResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opDescribeTaskQueue, req, s.describeTaskQueue)
}

func (w workflowService) ListTaskQueuePartitions(ctx context.Context, req *orchpb.ListTaskQueuePartitionsRequest) (*orchpb.ListTaskQueuePartitionsResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opListPartitions, req, s.listPartitions)
}

func (w workflowService) UpdateWorkflowExecution(ctx context.Context, req *orchpb.UpdateWorkflowExecutionRequest) (*orchpb.UpdateWorkflowExecutionResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opUpdateWorkflow, req, s.updateWorkflow)
}

func (w workflowService) ExecuteMultiOperation(ctx context.Context, req *orchpb.ExecuteMultiOperationRequest) (*orchpb.ExecuteMultiOperationResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opExecuteMultiOperation, req, s.executeMultiOperation)
}

func (w workflowService) ResetWorkflowExecution(ctx context.Context, req *orchpb.ResetWorkflowExecutionRequest) (*orchpb.ResetWorkflowExecutionResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opResetWorkflow, req, s.resetWorkflow)
}

func (w workflowService) DeleteWorkflowExecution(ctx context.Context, req *orchpb.DeleteWorkflowExecutionRequest) (*orchpb.DeleteWorkflowExecutionResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opDeleteWorkflow, req, s.deleteWorkflow)
}

func (w workflowService) UpdateNamespace(ctx context.Context, req *orchpb.UpdateNamespaceRequest) (*orchpb.UpdateNamespaceResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opUpdateNamespace, req, s.updateNamespace)
}

func (w workflowService) DeprecateNamespace(ctx context.Context, req *orchpb.DeprecateNamespaceRequest) (*orchpb.DeprecateNamespaceResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opDeprecateNamespace, req, s.deprecateNamespace)
}

func (w workflowService) DeleteNamespace(ctx context.Context, req *orchpb.DeleteNamespaceRequest) (*orchpb.DeleteNamespaceResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opDeleteNamespace, req, s.deleteNamespace)
}

func (w workflowService) CreateSchedule(ctx context.Context, req *orchpb.CreateScheduleRequest) (*orchpb.CreateScheduleResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opCreateSchedule, req, s.createSchedule)
}

func (w workflowService) DescribeSchedule(ctx context.Context, req *orchpb.DescribeScheduleRequest) (*orchpb.DescribeScheduleResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opDescribeSchedule, req, s.describeSchedule)
}

func (w workflowService) UpdateSchedule(ctx context.Context, req *orchpb.UpdateScheduleRequest) (*orchpb.UpdateScheduleResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opUpdateSchedule, req, s.updateSchedule)
}

func (w workflowService) PatchSchedule(ctx context.Context, req *orchpb.PatchScheduleRequest) (*orchpb.PatchScheduleResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opPatchSchedule, req, s.patchSchedule)
}

func (w workflowService) ListSchedules(ctx context.Context, req *orchpb.ListSchedulesRequest) (*orchpb.ListSchedulesResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opListSchedules, req, s.listSchedules)
}

func (w workflowService) DeleteSchedule(ctx context.Context, req *orchpb.DeleteScheduleRequest) (*orchpb.DeleteScheduleResponse, error) {
	s := w.server(ctx)
	return call(s, ctx, opDeleteSchedule, req, s.deleteSchedule)
}

func (a adminService) DescribeCluster(ctx context.Context, req *orchpb.DescribeClusterRequest) (*orchpb.DescribeClusterResponse, error) {
	s := a.server(ctx)
	return call(s, ctx, opDescribeCluster, req, s.describeCluster)
}

func (a adminService) ListClusterMembers(ctx context.Context, req *orchpb.ListClusterMembersRequest) (*orchpb.ListClusterMembersResponse, error) {
	s := a.server(ctx)
	return call(s, ctx, opListMembers, req, s.listMembers)
}

func (a adminService) DescribeShard(ctx context.Context, req *orchpb.DescribeShardRequest) (*orchpb.DescribeShardResponse, error) {
	s := a.server(ctx)
	return call(s, ctx, opDescribeShard, req, s.describeShard)
}

func (a adminService) AddSearchAttributes(ctx context.Context, req *orchpb.AddSearchAttributesRequest) (*orchpb.AddSearchAttributesResponse, error) {
	s := a.server(ctx)
	return call(s, ctx, opAddSearchAttributes, req, s.addSearchAttributes)
}

func (a adminService) RemoveSearchAttributes(ctx context.Context, req *orchpb.RemoveSearchAttributesRequest) (*orchpb.RemoveSearchAttributesResponse, error) {
	s := a.server(ctx)
	return call(s, ctx, opRemoveSearchAttributes, req, s.removeSearchAttributes)
}

func (a adminService) ListSearchAttributes(ctx context.Context, req *orchpb.ListSearchAttributesRequest) (*orchpb.ListSearchAttributesResponse, error) {
	s := a.server(ctx)
	return call(s, ctx, opListSearchAttributes, req, s.listSearchAttributes)
}

func (a adminService) CloseShard(ctx context.Context, req *orchpb.CloseShardRequest) (*orchpb.CloseShardResponse, error) {
	s := a.server(ctx)
	return call(s, ctx, opCloseShard, req, s.closeShard)
}
