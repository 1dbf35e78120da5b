package orch

import (
	"context"

	"google.golang.org/protobuf/proto"

	"github.com/apitwin/apitwin/orch/orchpb"
)

// Raw is the low-level layer: one method per RPC of the contract, taking and
// returning orchpb's types as they are. Calls go through the client's
// transport, limits, retries and errors like every other call; an empty
// namespace field is filled with the client's namespace (on a copy: the
// caller's request is not changed), and a nil request is an empty one. Get it with Client.Raw.
type Raw struct{ c *Client }

// Raw returns the low-level layer of c.
func (c *Client) Raw() Raw { return Raw{c: c} }

// call sends req and returns a new Resp.
func call[Resp any, PResp interface {
	*Resp
	protoMessage
}, Req any, PReq interface {
	*Req
	protoMessage
}](ctx context.Context, c *Client, full string, req PReq) (*Resp, error) {
	if req == nil { // a nil request is an empty one
		req = new(Req)
	}
	resp := PResp(new(Resp))
	if err := c.invoke(ctx, full, req, resp); err != nil {
		return nil, err
	}
	return resp, nil
}

// RegisterNamespace calls WorkflowService.RegisterNamespace.
func (r Raw) RegisterNamespace(ctx context.Context, req *orchpb.RegisterNamespaceRequest) (*orchpb.RegisterNamespaceResponse, error) {
	return call[orchpb.RegisterNamespaceResponse](ctx, r.c, orchpb.WorkflowService_RegisterNamespace_FullMethodName, req)
}

// DescribeNamespace calls WorkflowService.DescribeNamespace.
func (r Raw) DescribeNamespace(ctx context.Context, req *orchpb.DescribeNamespaceRequest) (*orchpb.DescribeNamespaceResponse, error) {
	return call[orchpb.DescribeNamespaceResponse](ctx, r.c, orchpb.WorkflowService_DescribeNamespace_FullMethodName, req)
}

// ListNamespaces calls WorkflowService.ListNamespaces.
func (r Raw) ListNamespaces(ctx context.Context, req *orchpb.ListNamespacesRequest) (*orchpb.ListNamespacesResponse, error) {
	return call[orchpb.ListNamespacesResponse](ctx, r.c, orchpb.WorkflowService_ListNamespaces_FullMethodName, req)
}

// StartWorkflowExecution calls WorkflowService.StartWorkflowExecution.
func (r Raw) StartWorkflowExecution(ctx context.Context, req *orchpb.StartWorkflowExecutionRequest) (*orchpb.StartWorkflowExecutionResponse, error) {
	return call[orchpb.StartWorkflowExecutionResponse](ctx, r.c, orchpb.WorkflowService_StartWorkflowExecution_FullMethodName, req)
}

// GetWorkflowExecution calls WorkflowService.GetWorkflowExecution.
func (r Raw) GetWorkflowExecution(ctx context.Context, req *orchpb.GetWorkflowExecutionRequest) (*orchpb.GetWorkflowExecutionResponse, error) {
	return call[orchpb.GetWorkflowExecutionResponse](ctx, r.c, orchpb.WorkflowService_GetWorkflowExecution_FullMethodName, req)
}

// TerminateWorkflowExecution calls WorkflowService.TerminateWorkflowExecution.
func (r Raw) TerminateWorkflowExecution(ctx context.Context, req *orchpb.TerminateWorkflowExecutionRequest) (*orchpb.TerminateWorkflowExecutionResponse, error) {
	return call[orchpb.TerminateWorkflowExecutionResponse](ctx, r.c, orchpb.WorkflowService_TerminateWorkflowExecution_FullMethodName, req)
}

// SignalWorkflowExecution calls WorkflowService.SignalWorkflowExecution.
func (r Raw) SignalWorkflowExecution(ctx context.Context, req *orchpb.SignalWorkflowExecutionRequest) (*orchpb.SignalWorkflowExecutionResponse, error) {
	return call[orchpb.SignalWorkflowExecutionResponse](ctx, r.c, orchpb.WorkflowService_SignalWorkflowExecution_FullMethodName, req)
}

// RequestCancelWorkflowExecution calls WorkflowService.RequestCancelWorkflowExecution.
func (r Raw) RequestCancelWorkflowExecution(ctx context.Context, req *orchpb.RequestCancelWorkflowExecutionRequest) (*orchpb.RequestCancelWorkflowExecutionResponse, error) {
	return call[orchpb.RequestCancelWorkflowExecutionResponse](ctx, r.c, orchpb.WorkflowService_RequestCancelWorkflowExecution_FullMethodName, req)
}

// QueryWorkflow calls WorkflowService.QueryWorkflow.
func (r Raw) QueryWorkflow(ctx context.Context, req *orchpb.QueryWorkflowRequest) (*orchpb.QueryWorkflowResponse, error) {
	return call[orchpb.QueryWorkflowResponse](ctx, r.c, orchpb.WorkflowService_QueryWorkflow_FullMethodName, req)
}

// GetWorkflowExecutionHistory calls WorkflowService.GetWorkflowExecutionHistory.
func (r Raw) GetWorkflowExecutionHistory(ctx context.Context, req *orchpb.GetWorkflowExecutionHistoryRequest) (*orchpb.GetWorkflowExecutionHistoryResponse, error) {
	return call[orchpb.GetWorkflowExecutionHistoryResponse](ctx, r.c, orchpb.WorkflowService_GetWorkflowExecutionHistory_FullMethodName, req)
}

// ListWorkflowExecutions calls WorkflowService.ListWorkflowExecutions.
func (r Raw) ListWorkflowExecutions(ctx context.Context, req *orchpb.ListWorkflowExecutionsRequest) (*orchpb.ListWorkflowExecutionsResponse, error) {
	return call[orchpb.ListWorkflowExecutionsResponse](ctx, r.c, orchpb.WorkflowService_ListWorkflowExecutions_FullMethodName, req)
}

// ScanWorkflowExecutions calls WorkflowService.ScanWorkflowExecutions.
func (r Raw) ScanWorkflowExecutions(ctx context.Context, req *orchpb.ScanWorkflowExecutionsRequest) (*orchpb.ScanWorkflowExecutionsResponse, error) {
	return call[orchpb.ScanWorkflowExecutionsResponse](ctx, r.c, orchpb.WorkflowService_ScanWorkflowExecutions_FullMethodName, req)
}

// CountWorkflowExecutions calls WorkflowService.CountWorkflowExecutions.
func (r Raw) CountWorkflowExecutions(ctx context.Context, req *orchpb.CountWorkflowExecutionsRequest) (*orchpb.CountWorkflowExecutionsResponse, error) {
	return call[orchpb.CountWorkflowExecutionsResponse](ctx, r.c, orchpb.WorkflowService_CountWorkflowExecutions_FullMethodName, req)
}

// PollWorkflowTaskQueue calls WorkflowService.PollWorkflowTaskQueue.
func (r Raw) PollWorkflowTaskQueue(ctx context.Context, req *orchpb.PollWorkflowTaskQueueRequest) (*orchpb.PollWorkflowTaskQueueResponse, error) {
	return call[orchpb.PollWorkflowTaskQueueResponse](ctx, r.c, orchpb.WorkflowService_PollWorkflowTaskQueue_FullMethodName, req)
}

// PollActivityTaskQueue calls WorkflowService.PollActivityTaskQueue.
func (r Raw) PollActivityTaskQueue(ctx context.Context, req *orchpb.PollActivityTaskQueueRequest) (*orchpb.PollActivityTaskQueueResponse, error) {
	return call[orchpb.PollActivityTaskQueueResponse](ctx, r.c, orchpb.WorkflowService_PollActivityTaskQueue_FullMethodName, req)
}

// RespondWorkflowTaskCompleted calls WorkflowService.RespondWorkflowTaskCompleted.
func (r Raw) RespondWorkflowTaskCompleted(ctx context.Context, req *orchpb.RespondWorkflowTaskCompletedRequest) (*orchpb.RespondWorkflowTaskCompletedResponse, error) {
	return call[orchpb.RespondWorkflowTaskCompletedResponse](ctx, r.c, orchpb.WorkflowService_RespondWorkflowTaskCompleted_FullMethodName, req)
}

// RespondWorkflowTaskFailed calls WorkflowService.RespondWorkflowTaskFailed.
func (r Raw) RespondWorkflowTaskFailed(ctx context.Context, req *orchpb.RespondWorkflowTaskFailedRequest) (*orchpb.RespondWorkflowTaskFailedResponse, error) {
	return call[orchpb.RespondWorkflowTaskFailedResponse](ctx, r.c, orchpb.WorkflowService_RespondWorkflowTaskFailed_FullMethodName, req)
}

// RecordActivityTaskHeartbeat calls WorkflowService.RecordActivityTaskHeartbeat.
func (r Raw) RecordActivityTaskHeartbeat(ctx context.Context, req *orchpb.RecordActivityTaskHeartbeatRequest) (*orchpb.RecordActivityTaskHeartbeatResponse, error) {
	return call[orchpb.RecordActivityTaskHeartbeatResponse](ctx, r.c, orchpb.WorkflowService_RecordActivityTaskHeartbeat_FullMethodName, req)
}

// RespondActivityTaskCompleted calls WorkflowService.RespondActivityTaskCompleted.
func (r Raw) RespondActivityTaskCompleted(ctx context.Context, req *orchpb.RespondActivityTaskCompletedRequest) (*orchpb.RespondActivityTaskCompletedResponse, error) {
	return call[orchpb.RespondActivityTaskCompletedResponse](ctx, r.c, orchpb.WorkflowService_RespondActivityTaskCompleted_FullMethodName, req)
}

// RespondActivityTaskFailed calls WorkflowService.RespondActivityTaskFailed.
func (r Raw) RespondActivityTaskFailed(ctx context.Context, req *orchpb.RespondActivityTaskFailedRequest) (*orchpb.RespondActivityTaskFailedResponse, error) {
	return call[orchpb.RespondActivityTaskFailedResponse](ctx, r.c, orchpb.WorkflowService_RespondActivityTaskFailed_FullMethodName, req)
}

// RegisterWorker calls WorkflowService.RegisterWorker.
func (r Raw) RegisterWorker(ctx context.Context, req *orchpb.RegisterWorkerRequest) (*orchpb.RegisterWorkerResponse, error) {
	return call[orchpb.RegisterWorkerResponse](ctx, r.c, orchpb.WorkflowService_RegisterWorker_FullMethodName, req)
}

// ShutdownWorker calls WorkflowService.ShutdownWorker.
func (r Raw) ShutdownWorker(ctx context.Context, req *orchpb.ShutdownWorkerRequest) (*orchpb.ShutdownWorkerResponse, error) {
	return call[orchpb.ShutdownWorkerResponse](ctx, r.c, orchpb.WorkflowService_ShutdownWorker_FullMethodName, req)
}

// SignalWithStartWorkflowExecution calls WorkflowService.SignalWithStartWorkflowExecution.
func (r Raw) SignalWithStartWorkflowExecution(ctx context.Context, req *orchpb.SignalWithStartWorkflowExecutionRequest) (*orchpb.SignalWithStartWorkflowExecutionResponse, error) {
	return call[orchpb.SignalWithStartWorkflowExecutionResponse](ctx, r.c, orchpb.WorkflowService_SignalWithStartWorkflowExecution_FullMethodName, req)
}

// DescribeTaskQueue calls WorkflowService.DescribeTaskQueue.
func (r Raw) DescribeTaskQueue(ctx context.Context, req *orchpb.DescribeTaskQueueRequest) (*orchpb.DescribeTaskQueueResponse, error) {
	return call[orchpb.DescribeTaskQueueResponse](ctx, r.c, orchpb.WorkflowService_DescribeTaskQueue_FullMethodName, req)
}

// ListTaskQueuePartitions calls WorkflowService.ListTaskQueuePartitions.
func (r Raw) ListTaskQueuePartitions(ctx context.Context, req *orchpb.ListTaskQueuePartitionsRequest) (*orchpb.ListTaskQueuePartitionsResponse, error) {
	return call[orchpb.ListTaskQueuePartitionsResponse](ctx, r.c, orchpb.WorkflowService_ListTaskQueuePartitions_FullMethodName, req)
}

// CreateSchedule calls WorkflowService.CreateSchedule.
func (r Raw) CreateSchedule(ctx context.Context, req *orchpb.CreateScheduleRequest) (*orchpb.CreateScheduleResponse, error) {
	return call[orchpb.CreateScheduleResponse](ctx, r.c, orchpb.WorkflowService_CreateSchedule_FullMethodName, req)
}

// DescribeSchedule calls WorkflowService.DescribeSchedule.
func (r Raw) DescribeSchedule(ctx context.Context, req *orchpb.DescribeScheduleRequest) (*orchpb.DescribeScheduleResponse, error) {
	return call[orchpb.DescribeScheduleResponse](ctx, r.c, orchpb.WorkflowService_DescribeSchedule_FullMethodName, req)
}

// UpdateSchedule calls WorkflowService.UpdateSchedule.
func (r Raw) UpdateSchedule(ctx context.Context, req *orchpb.UpdateScheduleRequest) (*orchpb.UpdateScheduleResponse, error) {
	return call[orchpb.UpdateScheduleResponse](ctx, r.c, orchpb.WorkflowService_UpdateSchedule_FullMethodName, req)
}

// PatchSchedule calls WorkflowService.PatchSchedule.
func (r Raw) PatchSchedule(ctx context.Context, req *orchpb.PatchScheduleRequest) (*orchpb.PatchScheduleResponse, error) {
	return call[orchpb.PatchScheduleResponse](ctx, r.c, orchpb.WorkflowService_PatchSchedule_FullMethodName, req)
}

// ListSchedules calls WorkflowService.ListSchedules.
func (r Raw) ListSchedules(ctx context.Context, req *orchpb.ListSchedulesRequest) (*orchpb.ListSchedulesResponse, error) {
	return call[orchpb.ListSchedulesResponse](ctx, r.c, orchpb.WorkflowService_ListSchedules_FullMethodName, req)
}

// DeleteSchedule calls WorkflowService.DeleteSchedule.
func (r Raw) DeleteSchedule(ctx context.Context, req *orchpb.DeleteScheduleRequest) (*orchpb.DeleteScheduleResponse, error) {
	return call[orchpb.DeleteScheduleResponse](ctx, r.c, orchpb.WorkflowService_DeleteSchedule_FullMethodName, req)
}

// DescribeCluster calls AdminService.DescribeCluster.
func (r Raw) DescribeCluster(ctx context.Context, req *orchpb.DescribeClusterRequest) (*orchpb.DescribeClusterResponse, error) {
	return call[orchpb.DescribeClusterResponse](ctx, r.c, orchpb.AdminService_DescribeCluster_FullMethodName, req)
}

// ListClusterMembers calls AdminService.ListClusterMembers.
func (r Raw) ListClusterMembers(ctx context.Context, req *orchpb.ListClusterMembersRequest) (*orchpb.ListClusterMembersResponse, error) {
	return call[orchpb.ListClusterMembersResponse](ctx, r.c, orchpb.AdminService_ListClusterMembers_FullMethodName, req)
}

// DescribeShard calls AdminService.DescribeShard.
func (r Raw) DescribeShard(ctx context.Context, req *orchpb.DescribeShardRequest) (*orchpb.DescribeShardResponse, error) {
	return call[orchpb.DescribeShardResponse](ctx, r.c, orchpb.AdminService_DescribeShard_FullMethodName, req)
}

// CloseShard calls AdminService.CloseShard.
func (r Raw) CloseShard(ctx context.Context, req *orchpb.CloseShardRequest) (*orchpb.CloseShardResponse, error) {
	return call[orchpb.CloseShardResponse](ctx, r.c, orchpb.AdminService_CloseShard_FullMethodName, req)
}

// AddSearchAttributes calls AdminService.AddSearchAttributes.
func (r Raw) AddSearchAttributes(ctx context.Context, req *orchpb.AddSearchAttributesRequest) (*orchpb.AddSearchAttributesResponse, error) {
	return call[orchpb.AddSearchAttributesResponse](ctx, r.c, orchpb.AdminService_AddSearchAttributes_FullMethodName, req)
}

// RemoveSearchAttributes calls AdminService.RemoveSearchAttributes.
func (r Raw) RemoveSearchAttributes(ctx context.Context, req *orchpb.RemoveSearchAttributesRequest) (*orchpb.RemoveSearchAttributesResponse, error) {
	return call[orchpb.RemoveSearchAttributesResponse](ctx, r.c, orchpb.AdminService_RemoveSearchAttributes_FullMethodName, req)
}

// ListSearchAttributes calls AdminService.ListSearchAttributes.
func (r Raw) ListSearchAttributes(ctx context.Context, req *orchpb.ListSearchAttributesRequest) (*orchpb.ListSearchAttributesResponse, error) {
	return call[orchpb.ListSearchAttributesResponse](ctx, r.c, orchpb.AdminService_ListSearchAttributes_FullMethodName, req)
}

// ResetWorkflowExecution calls WorkflowService.ResetWorkflowExecution.
func (r Raw) ResetWorkflowExecution(ctx context.Context, req *orchpb.ResetWorkflowExecutionRequest) (*orchpb.ResetWorkflowExecutionResponse, error) {
	return call[orchpb.ResetWorkflowExecutionResponse](ctx, r.c, orchpb.WorkflowService_ResetWorkflowExecution_FullMethodName, req)
}

// DeleteWorkflowExecution calls WorkflowService.DeleteWorkflowExecution.
func (r Raw) DeleteWorkflowExecution(ctx context.Context, req *orchpb.DeleteWorkflowExecutionRequest) (*orchpb.DeleteWorkflowExecutionResponse, error) {
	return call[orchpb.DeleteWorkflowExecutionResponse](ctx, r.c, orchpb.WorkflowService_DeleteWorkflowExecution_FullMethodName, req)
}

// UpdateNamespace calls WorkflowService.UpdateNamespace.
func (r Raw) UpdateNamespace(ctx context.Context, req *orchpb.UpdateNamespaceRequest) (*orchpb.UpdateNamespaceResponse, error) {
	return call[orchpb.UpdateNamespaceResponse](ctx, r.c, orchpb.WorkflowService_UpdateNamespace_FullMethodName, req)
}

// DeprecateNamespace calls WorkflowService.DeprecateNamespace.
func (r Raw) DeprecateNamespace(ctx context.Context, req *orchpb.DeprecateNamespaceRequest) (*orchpb.DeprecateNamespaceResponse, error) {
	return call[orchpb.DeprecateNamespaceResponse](ctx, r.c, orchpb.WorkflowService_DeprecateNamespace_FullMethodName, req)
}

// DeleteNamespace calls WorkflowService.DeleteNamespace.
func (r Raw) DeleteNamespace(ctx context.Context, req *orchpb.DeleteNamespaceRequest) (*orchpb.DeleteNamespaceResponse, error) {
	return call[orchpb.DeleteNamespaceResponse](ctx, r.c, orchpb.WorkflowService_DeleteNamespace_FullMethodName, req)
}

// protoMessage is proto.Message, named here so call's constraint reads well.
type protoMessage = proto.Message

// UpdateWorkflowExecution calls WorkflowService.UpdateWorkflowExecution.
func (r Raw) UpdateWorkflowExecution(ctx context.Context, req *orchpb.UpdateWorkflowExecutionRequest) (*orchpb.UpdateWorkflowExecutionResponse, error) {
	return call[orchpb.UpdateWorkflowExecutionResponse](ctx, r.c, orchpb.WorkflowService_UpdateWorkflowExecution_FullMethodName, req)
}

// ExecuteMultiOperation calls WorkflowService.ExecuteMultiOperation.
func (r Raw) ExecuteMultiOperation(ctx context.Context, req *orchpb.ExecuteMultiOperationRequest) (*orchpb.ExecuteMultiOperationResponse, error) {
	return call[orchpb.ExecuteMultiOperationResponse](ctx, r.c, orchpb.WorkflowService_ExecuteMultiOperation_FullMethodName, req)
}

// RespondActivityTaskCanceled calls WorkflowService.RespondActivityTaskCanceled.
func (r Raw) RespondActivityTaskCanceled(ctx context.Context, req *orchpb.RespondActivityTaskCanceledRequest) (*orchpb.RespondActivityTaskCanceledResponse, error) {
	return call[orchpb.RespondActivityTaskCanceledResponse](ctx, r.c, orchpb.WorkflowService_RespondActivityTaskCanceled_FullMethodName, req)
}

// RespondActivityTaskCompletedById calls WorkflowService.RespondActivityTaskCompletedById.
func (r Raw) RespondActivityTaskCompletedById(ctx context.Context, req *orchpb.RespondActivityTaskCompletedByIdRequest) (*orchpb.RespondActivityTaskCompletedByIdResponse, error) {
	return call[orchpb.RespondActivityTaskCompletedByIdResponse](ctx, r.c, orchpb.WorkflowService_RespondActivityTaskCompletedById_FullMethodName, req)
}

// RespondActivityTaskFailedById calls WorkflowService.RespondActivityTaskFailedById.
func (r Raw) RespondActivityTaskFailedById(ctx context.Context, req *orchpb.RespondActivityTaskFailedByIdRequest) (*orchpb.RespondActivityTaskFailedByIdResponse, error) {
	return call[orchpb.RespondActivityTaskFailedByIdResponse](ctx, r.c, orchpb.WorkflowService_RespondActivityTaskFailedById_FullMethodName, req)
}

// RecordActivityTaskHeartbeatById calls WorkflowService.RecordActivityTaskHeartbeatById.
func (r Raw) RecordActivityTaskHeartbeatById(ctx context.Context, req *orchpb.RecordActivityTaskHeartbeatByIdRequest) (*orchpb.RecordActivityTaskHeartbeatByIdResponse, error) {
	return call[orchpb.RecordActivityTaskHeartbeatByIdResponse](ctx, r.c, orchpb.WorkflowService_RecordActivityTaskHeartbeatById_FullMethodName, req)
}

// RespondActivityTaskCanceledById calls WorkflowService.RespondActivityTaskCanceledById.
func (r Raw) RespondActivityTaskCanceledById(ctx context.Context, req *orchpb.RespondActivityTaskCanceledByIdRequest) (*orchpb.RespondActivityTaskCanceledByIdResponse, error) {
	return call[orchpb.RespondActivityTaskCanceledByIdResponse](ctx, r.c, orchpb.WorkflowService_RespondActivityTaskCanceledById_FullMethodName, req)
}
