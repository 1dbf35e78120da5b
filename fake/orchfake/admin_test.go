package orchfake_test

import (
	"context"
	"net"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/orch/orchpb"
	rpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

func TestClusterAndShards(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for _, iv := range transports(t, s) {
		t.Run(iv.name, func(t *testing.T) {
			var c orchpb.DescribeClusterResponse
			mustCall(t, iv, "DescribeCluster", &orchpb.DescribeClusterRequest{}, &c)
			if c.GetClusterInfo().GetHistoryShardCount() != orchfake.NumShards || c.GetClusterInfo().GetClusterName() != "active" || len(c.GetMembershipInfo()) != 5 {
				t.Fatalf("cluster %v", &c)
			}
			var m orchpb.ListClusterMembersResponse
			mustCall(t, iv, "ListClusterMembers", &orchpb.ListClusterMembersRequest{Role: orchpb.ClusterMemberRole_HISTORY, PageSize: 1}, &m)
			if len(m.GetMembers()) != 1 || m.GetMembers()[0].GetHostId() != "history-0" || len(m.GetNextPageToken()) == 0 {
				t.Fatalf("members %v", &m)
			}
			var m2 orchpb.ListClusterMembersResponse
			mustCall(t, iv, "ListClusterMembers", &orchpb.ListClusterMembersRequest{Role: orchpb.ClusterMemberRole_HISTORY, PageSize: 1, NextPageToken: m.GetNextPageToken()}, &m2)
			if len(m2.GetMembers()) != 1 || m2.GetMembers()[0].GetHostId() != "history-1" || len(m2.GetNextPageToken()) != 0 {
				t.Fatalf("members page 2 %v", &m2)
			}
			var sh orchpb.DescribeShardResponse
			mustCall(t, iv, "DescribeShard", &orchpb.DescribeShardRequest{ShardId: 2}, &sh)
			before := sh.GetShardInfo().GetRangeId()
			mustCall(t, iv, "CloseShard", &orchpb.CloseShardRequest{ShardId: 2}, &orchpb.CloseShardResponse{})
			mustCall(t, iv, "DescribeShard", &orchpb.DescribeShardRequest{ShardId: 2}, &sh)
			if sh.GetShardInfo().GetRangeId() != before+1 || sh.GetShardInfo().GetStatus() != orchpb.ShardStatus_OPEN || !strings.HasSuffix(sh.GetShardInfo().GetOwner(), ":7244") {
				t.Fatalf("shard %v", &sh)
			}
			for _, id := range []int32{0, 5, -1} {
				err := iv.call(t.Context(), "DescribeShard", &orchpb.DescribeShardRequest{ShardId: id}, &orchpb.DescribeShardResponse{})
				wantCode(t, err, "OUT_OF_RANGE")
			}
		})
	}
}

func TestTaskQueueExistsOncePolled(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for _, iv := range transports(t, s) {
		t.Run(iv.name, func(t *testing.T) {
			tq := "tq-" + iv.name
			err := iv.call(t.Context(), "DescribeTaskQueue", &orchpb.DescribeTaskQueueRequest{Namespace: "default", TaskQueue: tq}, &orchpb.DescribeTaskQueueResponse{})
			ae := wantCode(t, err, "TASK_QUEUE_NOT_FOUND")
			if !strings.HasPrefix(ae.Message, "Task queue not found") {
				t.Fatalf("message %q", ae.Message)
			}
			err = iv.call(t.Context(), "ListTaskQueuePartitions", &orchpb.ListTaskQueuePartitionsRequest{Namespace: "default", TaskQueue: tq}, &orchpb.ListTaskQueuePartitionsResponse{})
			wantCode(t, err, "TASK_QUEUE_NOT_FOUND")

			// An activity poll that ends empty after its longest wait, on
			// the fake clock (the finding of issue 14: a 200 ms wall-clock
			// deadline made this test fail on a slow machine).
			var poll orchpb.PollActivityTaskQueueResponse
			err = emptyWait(t, s, func(ctx context.Context) error {
				return iv.call(ctx, "PollActivityTaskQueue", &orchpb.PollActivityTaskQueueRequest{Namespace: "default", TaskQueue: tq, Identity: "worker-1",
					TaskQueueMetadata: &orchpb.TaskQueueMetadata{MaxTasksPerSecond: wrapperspb.Double(50)}}, &poll)
			})
			if err != nil || len(poll.GetTaskToken()) != 0 {
				t.Fatalf("poll: %v %v", err, &poll)
			}
			var d orchpb.DescribeTaskQueueResponse
			mustCall(t, iv, "DescribeTaskQueue", &orchpb.DescribeTaskQueueRequest{Namespace: "default", TaskQueue: tq, TaskQueueType: orchpb.TaskQueueType_ACTIVITY, IncludeTaskQueueStatus: true}, &d)
			if len(d.GetPollers()) != 1 || d.GetPollers()[0].GetIdentity() != "worker-1" || d.GetPollers()[0].GetRatePerSecond() != 50 || d.GetTaskQueueStatus().GetRatePerSecond() != 50 {
				t.Fatalf("describe %v", &d)
			}
			var p orchpb.ListTaskQueuePartitionsResponse
			mustCall(t, iv, "ListTaskQueuePartitions", &orchpb.ListTaskQueuePartitionsRequest{Namespace: "default", TaskQueue: tq}, &p)
			if len(p.GetWorkflowTaskQueuePartitions()) != 1 || len(p.GetActivityTaskQueuePartitions()) != 1 {
				t.Fatalf("partitions %v", &p)
			}
		})
	}
}

func TestBacklogOfWorkflowTasks(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	iv := transports(t, s)[0]
	mustCall(t, iv, "RegisterWorker", &orchpb.RegisterWorkerRequest{Namespace: "default", TaskQueue: "orders", Identity: "w", WorkflowTypes: []string{"Order"}}, &orchpb.RegisterWorkerResponse{})
	for _, id := range []string{"a", "b", "c"} {
		mustCall(t, iv, "StartWorkflowExecution", startReq("default", id), &orchpb.StartWorkflowExecutionResponse{})
	}
	var d orchpb.DescribeTaskQueueResponse
	mustCall(t, iv, "DescribeTaskQueue", &orchpb.DescribeTaskQueueRequest{Namespace: "default", TaskQueue: "orders", IncludeTaskQueueStatus: true}, &d)
	if d.GetTaskQueueStatus().GetBacklogCountHint() != 3 {
		t.Fatalf("backlog %v", d.GetTaskQueueStatus())
	}
}

func TestReflection(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	stream, err := rpb.NewServerReflectionClient(s.Conn()).ServerReflectionInfo(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&rpb.ServerReflectionRequest{MessageRequest: &rpb.ServerReflectionRequest_ListServices{}}); err != nil {
		t.Fatal(err)
	}
	resp, err := stream.Recv()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, svc := range resp.GetListServicesResponse().GetService() {
		names = append(names, svc.GetName())
	}
	got := strings.Join(names, ",")
	if !strings.Contains(got, "apitwin.orch.v1.WorkflowService") || !strings.Contains(got, "apitwin.orch.v1.AdminService") {
		t.Fatalf("services %s", got)
	}
}

func TestListenNamesAPortInUse(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	s, err := orchfake.New()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	err = s.Listen("127.0.0.1:0", l.Addr().String())
	if err == nil || !strings.Contains(err.Error(), "port "+port+" is already in use") {
		t.Fatalf("err %v", err)
	}
	if err := s.Listen("127.0.0.1:0", ""); err != nil || s.GRPCAddr() == "" || s.URL() != "" {
		t.Fatalf("gRPC only: %v %q %q", err, s.GRPCAddr(), s.URL())
	}
}
