package orch

import (
	"context"
	"iter"

	"github.com/apitwin/apitwin/orch/orchpb"
)

// DescribeCluster returns the cluster's info and its members.
func (c *Client) DescribeCluster(ctx context.Context) (*orchpb.DescribeClusterResponse, error) {
	return c.Raw().DescribeCluster(ctx, &orchpb.DescribeClusterRequest{})
}

// ListClusterMembersOptions are the optional settings of ListClusterMembers.
type ListClusterMembersOptions struct {
	// Role keeps only the members of one role (unspecified: all).
	Role orchpb.ClusterMemberRole
	ListOptions
}

// ListClusterMembers returns one page of the cluster's members.
func (c *Client) ListClusterMembers(ctx context.Context, opts *ListClusterMembersOptions) (*Page[*orchpb.ClusterMember], error) {
	return pageCall(ctx, func(ctx context.Context) (*Page[*orchpb.ClusterMember], error) {
		var o ListClusterMembersOptions
		if opts != nil {
			o = *opts
		}
		resp, err := c.Raw().ListClusterMembers(ctx, &orchpb.ListClusterMembersRequest{Role: o.Role, PageSize: o.PageSize, NextPageToken: o.PageToken})
		if err != nil {
			return nil, err
		}
		return &Page[*orchpb.ClusterMember]{Items: resp.GetMembers(), NextPageToken: resp.GetNextPageToken()}, nil
	})
}

// AllClusterMembers iterates over every member, page by page.
func (c *Client) AllClusterMembers(ctx context.Context, opts *ListClusterMembersOptions) iter.Seq2[*orchpb.ClusterMember, error] {
	var o ListClusterMembersOptions
	if opts != nil {
		o = *opts
	}
	return all(ctx, &o.ListOptions, func(ctx context.Context, lo *ListOptions) (*Page[*orchpb.ClusterMember], error) {
		return c.ListClusterMembers(ctx, &ListClusterMembersOptions{Role: o.Role, ListOptions: *lo})
	})
}

// DescribeShard returns one history shard: owner, status, range id.
func (c *Client) DescribeShard(ctx context.Context, shardID int32) (*orchpb.ShardInfo, error) {
	resp, err := c.Raw().DescribeShard(ctx, &orchpb.DescribeShardRequest{ShardId: shardID})
	if err != nil {
		return nil, err
	}
	return resp.GetShardInfo(), nil
}

// CloseShard closes a history shard; its owner takes it back at once with a
// higher range id.
func (c *Client) CloseShard(ctx context.Context, shardID int32) error {
	_, err := c.Raw().CloseShard(ctx, &orchpb.CloseShardRequest{ShardId: shardID})
	return err
}

// DescribeTaskQueueOptions are the optional settings of DescribeTaskQueue.
type DescribeTaskQueueOptions struct {
	// Type is the side of the queue (default WORKFLOW).
	Type orchpb.TaskQueueType
	// IncludeStatus asks for the queue's status (backlog and rates).
	IncludeStatus bool
}

// DescribeTaskQueue returns a task queue's pollers (and status). A queue no
// worker has polled is *BadRequestError "Task queue not found"
// (ErrTaskQueueNotFound).
func (c *Client) DescribeTaskQueue(ctx context.Context, taskQueue string, opts *DescribeTaskQueueOptions) (*orchpb.DescribeTaskQueueResponse, error) {
	var o DescribeTaskQueueOptions
	if opts != nil {
		o = *opts
	}
	return c.Raw().DescribeTaskQueue(ctx, &orchpb.DescribeTaskQueueRequest{
		Namespace: c.namespace, TaskQueue: taskQueue, TaskQueueType: o.Type, IncludeTaskQueueStatus: o.IncludeStatus,
	})
}

// ListTaskQueuePartitions returns the partitions of a task queue and the
// hosts that own them.
func (c *Client) ListTaskQueuePartitions(ctx context.Context, taskQueue string) (*orchpb.ListTaskQueuePartitionsResponse, error) {
	return c.Raw().ListTaskQueuePartitions(ctx, &orchpb.ListTaskQueuePartitionsRequest{Namespace: c.namespace, TaskQueue: taskQueue})
}
