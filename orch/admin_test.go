package orch_test

import (
	"context"
	"errors"
	"testing"

	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
)

func TestAdministration(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		c := e.client(t)
		cl, err := c.DescribeCluster(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if cl.GetClusterInfo().GetClusterName() == "" || cl.GetClusterInfo().GetHistoryShardCount() < 1 || len(cl.GetMembershipInfo()) == 0 {
			t.Errorf("cluster %v", cl)
		}
		var all []*orchpb.ClusterMember
		for m, err := range c.AllClusterMembers(t.Context(), &orch.ListClusterMembersOptions{ListOptions: orch.ListOptions{PageSize: 2}}) {
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, m)
		}
		if len(all) != len(cl.GetMembershipInfo()) {
			t.Errorf("%d members listed, the cluster has %d", len(all), len(cl.GetMembershipInfo()))
		}
		hist, err := c.ListClusterMembers(t.Context(), &orch.ListClusterMembersOptions{Role: orchpb.ClusterMemberRole_HISTORY})
		if err != nil || len(hist.Items) == 0 {
			t.Fatalf("history members: %v, %v", hist, err)
		}
		for _, m := range hist.Items {
			if m.GetRole() != orchpb.ClusterMemberRole_HISTORY {
				t.Errorf("role filter let %v through", m)
			}
		}
		shard, err := c.DescribeShard(t.Context(), 1)
		if err != nil {
			t.Fatal(err)
		}
		if e.srv != nil {
			if err := c.CloseShard(t.Context(), 1); err != nil {
				t.Fatal(err)
			}
			again, err := c.DescribeShard(t.Context(), 1)
			if err != nil || again.GetRangeId() != shard.GetRangeId()+1 || again.GetStatus() != orchpb.ShardStatus_OPEN {
				t.Errorf("after close: %v (before %v), %v", again, shard, err)
			}
		}
		if _, err := c.DescribeShard(t.Context(), 1<<20); !errors.Is(err, orch.ErrOutOfRange) {
			t.Errorf("shard out of range: %v", err)
		}
	})
}

func TestTaskQueues(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		c := e.client(t)
		q := uid("queue")
		_, err := c.DescribeTaskQueue(t.Context(), q, nil)
		var bad *orch.BadRequestError
		if !errors.As(err, &bad) || !errors.Is(err, orch.ErrTaskQueueNotFound) || bad.Message != "Task queue not found" {
			t.Errorf("a queue nobody polls: %v", err)
		}
		if _, err := c.ListTaskQueuePartitions(t.Context(), q); !errors.Is(err, orch.ErrTaskQueueNotFound) {
			t.Errorf("partitions of a queue nobody polls: %v", err)
		}
		if _, err := c.Raw().RegisterWorker(t.Context(), &orchpb.RegisterWorkerRequest{
			TaskQueue: q, Identity: "worker-1", WorkflowTypes: []string{"W"}, ActivityTypes: []string{"A"},
		}); err != nil {
			t.Fatal(err)
		}
		// A poll that finds nothing ends empty.
		task, err := emptyPoll(t, e, func(ctx context.Context) (*orchpb.PollWorkflowTaskQueueResponse, error) {
			return c.Raw().PollWorkflowTaskQueue(ctx, &orchpb.PollWorkflowTaskQueueRequest{TaskQueue: q, Identity: "worker-1"})
		})
		if err != nil || len(task.GetTaskToken()) != 0 {
			t.Errorf("empty poll: %v, %v", task, err)
		}
		desc, err := c.DescribeTaskQueue(t.Context(), q, &orch.DescribeTaskQueueOptions{IncludeStatus: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(desc.GetPollers()) != 1 || desc.GetPollers()[0].GetIdentity() != "worker-1" || desc.GetTaskQueueStatus() == nil {
			t.Errorf("described %v", desc)
		}
		parts, err := c.ListTaskQueuePartitions(t.Context(), q)
		if err != nil || len(parts.GetWorkflowTaskQueuePartitions()) == 0 {
			t.Errorf("partitions %v, %v", parts, err)
		}
	})
}
