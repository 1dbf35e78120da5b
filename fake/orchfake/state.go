package orchfake

import (
	"crypto/rand"
	"fmt"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/orchfake/internal/visibility"
	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/protobuf/types/known/durationpb"
)

// state is everything the fake holds; Server.mu guards all of it.
type state struct {
	s          *Server
	namespaces map[string]*namespace
	shards     []*shard
	clusterID  string
	started    time.Time
	querySeq   int64
	// schedulerDown stops the schedules' timers (SchedulerOutage).
	schedulerDown bool
	// gone is closed when Reset replaces this state: the long polls still
	// waiting on it end empty.
	gone chan struct{}
}

type namespace struct {
	st              *state
	info            *orchpb.NamespaceInfo
	config          *orchpb.NamespaceConfig
	replication     *orchpb.NamespaceReplicationConfig
	global          bool
	failoverVersion int64

	schema    *visibility.Schema
	workflows map[string]*workflow  // by workflow id
	runs      map[string]*execution // by run id
	starts    map[string]*execution // by the request_id that started it
	queues    map[string]*taskQueue // by name
	sticky    map[string]*taskQueue // workers' sticky queues, by worker_instance_key
	// owed holds the sticky workers that will poll again: each took a
	// workflow task, or had a poll end empty at its deadline, and has not
	// polled since; with when, on the real clock (see workerAlive).
	owed    map[string]time.Time
	running int // open executions
	// byStart is the runs in the reverse of the default list order (start
	// time, then run id descending), each filed under its start time;
	// unfiled holds the runs started since, filed at the next list (see
	// startIndex). A run's start time does not change once it is filed.
	byStart []startEntry
	unfiled []*execution
	parsed  parsedQueries // queries parsed against schema

	schedules map[string]*schedule    // by schedule id
	scheduled map[*workflow]*schedule // the schedule that started a workflow still running
}

// workflow is every run of one workflow id, oldest first.
type workflow struct {
	id   string
	runs []*execution
}

func (w *workflow) latest() *execution { return w.runs[len(w.runs)-1] }

func newState(s *Server) *state {
	now := s.clk.Now()
	st := &state{s: s, namespaces: map[string]*namespace{}, clusterID: newID(), started: now, gone: make(chan struct{})}
	for i := range s.cfg.shards {
		st.shards = append(st.shards, &shard{id: int32(i + 1), rangeID: 1, acquired: now})
	}
	st.addNamespace(&orchpb.RegisterNamespaceRequest{
		Namespace:                        DefaultNamespace,
		Description:                      "The namespace every fake starts with.",
		WorkflowExecutionRetentionPeriod: durationpb.New(DefaultRetention),
	})
	return st
}

// stopTimers stops every pending clock timer of the state (at Close).
func (st *state) stopTimers() {
	for _, ns := range st.namespaces {
		for _, e := range ns.runs {
			e.stopTimers()
		}
		for _, sc := range ns.schedules {
			sc.stop()
		}
	}
}

// endPolls ends the long polls waiting on this state (at Reset).
func (st *state) endPolls() { close(st.gone) }

// newID returns a random UUID (version 4) in its usual text form.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// afterFunc schedules fn on the fake clock; fn runs with s.mu held unless
// the execution it belongs to is gone.
func (s *Server) afterFunc(d time.Duration, fn func()) *clock.Timer {
	return s.clk.AfterFunc(d, func() {
		if s.isClosed() {
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		fn()
	})
}
