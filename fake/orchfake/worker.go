package orchfake

import (
	"context"

	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch/orchpb"
)

func notYet(op string) error {
	return errorf(orchwire.Unimplemented, "%s is not implemented by this fake yet", op)
}

func (s *Server) queryWorkflow(ctx context.Context, req *orchpb.QueryWorkflowRequest) (*orchpb.QueryWorkflowResponse, error) {
	return nil, notYet("QueryWorkflow")
}

func (s *Server) respondWorkflowTaskCompleted(ctx context.Context, req *orchpb.RespondWorkflowTaskCompletedRequest) (*orchpb.RespondWorkflowTaskCompletedResponse, error) {
	return nil, notYet("RespondWorkflowTaskCompleted")
}

func (s *Server) respondWorkflowTaskFailed(ctx context.Context, req *orchpb.RespondWorkflowTaskFailedRequest) (*orchpb.RespondWorkflowTaskFailedResponse, error) {
	return nil, notYet("RespondWorkflowTaskFailed")
}

func (s *Server) recordHeartbeat(ctx context.Context, req *orchpb.RecordActivityTaskHeartbeatRequest) (*orchpb.RecordActivityTaskHeartbeatResponse, error) {
	return nil, notYet("RecordActivityTaskHeartbeat")
}

func (s *Server) respondActivityCompleted(ctx context.Context, req *orchpb.RespondActivityTaskCompletedRequest) (*orchpb.RespondActivityTaskCompletedResponse, error) {
	return nil, notYet("RespondActivityTaskCompleted")
}

func (s *Server) respondActivityFailed(ctx context.Context, req *orchpb.RespondActivityTaskFailedRequest) (*orchpb.RespondActivityTaskFailedResponse, error) {
	return nil, notYet("RespondActivityTaskFailed")
}
