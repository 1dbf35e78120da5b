package orchfake

import (
	"context"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// The fake cluster (see doc.go).
const (
	// NumShards is the number of history shards, ids 1 to NumShards.
	NumShards = 4
	// ServerVersion is what DescribeCluster reports.
	ServerVersion = "1.0.0-orchfake"
)

// member is one host of the fake cluster.
type member struct {
	role   orchpb.ClusterMemberRole
	hostID string
	port   int
}

// members are the fake cluster's hosts: one frontend, two history hosts
// (owning the odd and the even shards), one matching host, one worker.
var members = []member{
	{orchpb.ClusterMemberRole_FRONTEND, "frontend-0", 7233},
	{orchpb.ClusterMemberRole_HISTORY, "history-0", 7234},
	{orchpb.ClusterMemberRole_HISTORY, "history-1", 7244},
	{orchpb.ClusterMemberRole_MATCHING, "matching-0", 7235},
	{orchpb.ClusterMemberRole_WORKER, "worker-0", 7239},
}

func (m member) address() string { return fmt.Sprintf("127.0.0.1:%d", m.port) }

type shard struct {
	id         int32
	rangeID    int64
	acquired   time.Time
	executions int64
}

// owner is the rpc address of the history host that owns the shard.
func (sh *shard) owner() string {
	if sh.id%2 == 1 {
		return members[1].address()
	}
	return members[2].address()
}

// shardFor is the shard of a workflow id: FNV-1a of namespace id and
// workflow id, modulo the shard count, plus one.
func (st *state) shardFor(ns *namespace, workflowID string) *shard {
	h := fnv.New32a()
	h.Write([]byte(ns.info.Id))
	h.Write([]byte{0})
	h.Write([]byte(workflowID))
	return st.shards[h.Sum32()%uint32(len(st.shards))]
}

func (st *state) member(m member) *orchpb.ClusterMember {
	return &orchpb.ClusterMember{
		Role: m.role, HostId: m.hostID, RpcAddress: m.address(),
		SessionStartTime:  timestamppb.New(st.started),
		LastHeartbeatTime: timestamppb.New(st.s.clk.Now()),
	}
}

func (s *Server) describeCluster(ctx context.Context, _ *orchpb.DescribeClusterRequest) (*orchpb.DescribeClusterResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	resp := &orchpb.DescribeClusterResponse{ClusterInfo: &orchpb.ClusterInfo{
		ClusterId: s.st.clusterID, ClusterName: ClusterName, ServerVersion: ServerVersion,
		HistoryShardCount: int32(len(s.st.shards)), PersistenceStore: "memory", VisibilityStore: "memory",
	}}
	for _, m := range members {
		resp.MembershipInfo = append(resp.MembershipInfo, s.st.member(m))
	}
	return resp, nil
}

func (s *Server) listMembers(ctx context.Context, req *orchpb.ListClusterMembersRequest) (*orchpb.ListClusterMembersResponse, error) {
	if _, ok := orchpb.ClusterMemberRole_name[int32(req.GetRole())]; !ok {
		return nil, badField("role", "unknown role %d", req.GetRole())
	}
	size, err := pageSize(req.GetPageSize(), 100, 1000, "page_size")
	if err != nil {
		return nil, err
	}
	off := 0
	if tok := req.GetNextPageToken(); len(tok) > 0 {
		if off, err = parseOffsetToken(tok); err != nil {
			return nil, err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var all []*orchpb.ClusterMember
	for _, m := range members {
		if req.GetRole() == orchpb.ClusterMemberRole_CLUSTER_MEMBER_ROLE_UNSPECIFIED || req.GetRole() == m.role {
			all = append(all, s.st.member(m))
		}
	}
	resp := &orchpb.ListClusterMembersResponse{}
	if off < len(all) {
		end := min(off+size, len(all))
		resp.Members = all[off:end]
		if end < len(all) {
			resp.NextPageToken = offsetToken(end)
		}
	}
	return resp, nil
}

func (s *Server) shard(id int32) (*shard, error) {
	if id < 1 || int(id) > len(s.st.shards) {
		return nil, &apiError{code: orchwire.OutOfRange,
			msg: fmt.Sprintf("shard_id %d out of range: the cluster has shards 1 to %d", id, len(s.st.shards)),
			details: []*orchpb.ErrorDetail{{Type: "FieldViolation", Field: "shard_id",
				Description: fmt.Sprintf("must be between 1 and %d", len(s.st.shards))}}}
	}
	return s.st.shards[id-1], nil
}

func (sh *shard) info() *orchpb.ShardInfo {
	return &orchpb.ShardInfo{
		ShardId: sh.id, Owner: sh.owner(), Status: orchpb.ShardStatus_OPEN, RangeId: sh.rangeID,
		ExecutionCount: sh.executions, AcquiredTime: timestamppb.New(sh.acquired),
	}
}

func (s *Server) describeShard(ctx context.Context, req *orchpb.DescribeShardRequest) (*orchpb.DescribeShardResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sh, err := s.shard(req.GetShardId())
	if err != nil {
		return nil, err
	}
	return &orchpb.DescribeShardResponse{ShardInfo: sh.info()}, nil
}

// closeShard lets the shard go and takes it back at once, with a higher
// range id and a new acquired time.
func (s *Server) closeShard(ctx context.Context, req *orchpb.CloseShardRequest) (*orchpb.CloseShardResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sh, err := s.shard(req.GetShardId())
	if err != nil {
		return nil, err
	}
	sh.rangeID++
	sh.acquired = s.clk.Now()
	return &orchpb.CloseShardResponse{}, nil
}
