package orchfake

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/apitwin/apitwin/fake/orchfake/internal/visibility"
	"github.com/apitwin/apitwin/internal/fakekit"
	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// SnapshotFormat and SnapshotVersion name the shape of the fake's
// snapshots; Restore reads this version only.
const (
	SnapshotFormat  = "orchfake"
	SnapshotVersion = 1
)

type snapTime = fakekit.SnapshotTime

type snapshot struct {
	fakekit.SnapshotHeader
	ClusterID  string          `json:"cluster_id"`
	Started    snapTime        `json:"started"`
	QuerySeq   int64           `json:"query_seq"`
	Shards     []snapShard     `json:"shards"`
	Namespaces []snapNamespace `json:"namespaces"`
}

type snapShard struct {
	ID         int32    `json:"id"`
	RangeID    int64    `json:"range_id"`
	Acquired   snapTime `json:"acquired"`
	Executions int64    `json:"executions"`
}

type snapNamespace struct {
	Info            json.RawMessage   `json:"info"`
	Config          json.RawMessage   `json:"config"`
	Replication     json.RawMessage   `json:"replication"`
	Global          bool              `json:"global"`
	FailoverVersion int64             `json:"failover_version"`
	SearchAttrs     map[string]string `json:"search_attributes"` // custom: name → type
	// Runs are every run, each workflow id's oldest first.
	Runs       []snapRun       `json:"runs"`
	TaskQueues []snapTaskQueue `json:"task_queues"`
	// Schedules are absent from snapshots taken before the fake kept
	// them: such a snapshot restores with none.
	Schedules []snapSchedule `json:"schedules,omitempty"`
}

// snapRunRef names a run: of another namespace, perhaps.
type snapRunRef struct {
	Namespace string `json:"namespace"`
	RunID     string `json:"run_id"`
}

type snapRun struct {
	WorkflowID      string            `json:"workflow_id"`
	RunID           string            `json:"run_id"`
	FirstRunID      string            `json:"first_run_id"`
	Type            string            `json:"type"`
	TaskQueue       string            `json:"task_queue"`
	Status          string            `json:"status"`
	Start           snapTime          `json:"start"`
	ExecutionTime   snapTime          `json:"execution_time"`
	CloseTime       snapTime          `json:"close_time"`
	StartRequest    json.RawMessage   `json:"start_request"`
	Memo            json.RawMessage   `json:"memo,omitempty"`
	Search          json.RawMessage   `json:"search_attributes,omitempty"`
	History         []json.RawMessage `json:"history"`
	Signals         []string          `json:"signal_request_ids"`
	Cancels         []string          `json:"cancel_request_ids"`
	TaskTimeout     string            `json:"task_timeout"`
	Parent          *snapRunRef       `json:"parent,omitempty"`
	ParentInitiated int64             `json:"parent_initiated,omitempty"`
	ParentPolicy    string            `json:"parent_close_policy,omitempty"`
	Attempt         int32             `json:"attempt"`
	Expiry          snapTime          `json:"expiry"`
	ResetBy         string            `json:"reset_request_id,omitempty"`
	// Updates are the run's updates by id, so the same id sent again after
	// a restore is the same update; absent from older snapshots.
	Updates []snapUpdate `json:"updates,omitempty"`
	Engine  *snapEngine  `json:"engine,omitempty"` // open runs only
}

// snapEngine is an open run's worker side.
type snapEngine struct {
	WorkflowTask  *snapWorkflowTask `json:"workflow_task,omitempty"`
	LastStartedID int64             `json:"last_started_id"`
	TaskAttempt   int32             `json:"task_attempt"`
	NewEvents     bool              `json:"new_events"`
	// Delayed: the first workflow task waits (cron, retry backoff) until
	// the run's execution time.
	Delayed    bool            `json:"delayed"`
	Activities []snapActivity  `json:"activities"`
	Timers     []snapUserTimer `json:"timers"`
	Children   []snapChild     `json:"children"`
	// AdmittedUpdates wait, in order, for a workflow task to carry them.
	// (A snapshot of an earlier version may hold updates_missed, which
	// they say now: it is ignored.)
	AdmittedUpdates []string `json:"admitted_updates,omitempty"`
}

type snapUpdate struct {
	ID         string          `json:"id"`
	Request    json.RawMessage `json:"request"`
	Stage      string          `json:"stage"`
	Outcome    json.RawMessage `json:"outcome,omitempty"`
	Aborted    bool            `json:"aborted,omitempty"` // the run closed before it completed
	AcceptedID int64           `json:"accepted_event_id,omitempty"`
}

type snapWorkflowTask struct {
	ScheduledID int64    `json:"scheduled_id"`
	StartedID   int64    `json:"started_id"` // 0: waiting for a worker
	Attempt     int32    `json:"attempt"`
	Scheduled   snapTime `json:"scheduled"`
	Started     snapTime `json:"started"`
	Identity    string   `json:"identity"`
	RequestID   string   `json:"request_id"`
	Transient   bool     `json:"transient"`
	// Backoff: a retry waiting out its backoff (due at Scheduled plus the
	// attempt's delay) before it is queued.
	Backoff bool `json:"backoff"`
	// Updates are those handed to the started task, in order.
	Updates []string `json:"updates,omitempty"`
}

type snapActivity struct {
	ScheduledID      int64           `json:"scheduled_id"`
	ID               string          `json:"activity_id"`
	Type             string          `json:"type"`
	TaskQueue        string          `json:"task_queue"`
	Attributes       json.RawMessage `json:"attributes"`
	RetryPolicy      json.RawMessage `json:"retry_policy"`
	Attempt          int32           `json:"attempt"`
	Started          bool            `json:"started"`
	Waiting          bool            `json:"waiting"` // between attempts, until RetryAt
	Scheduled        snapTime        `json:"scheduled"`
	AttemptScheduled snapTime        `json:"attempt_scheduled"`
	StartedTime      snapTime        `json:"started_time"`
	Identity         string          `json:"identity"`
	RequestID        string          `json:"request_id"`
	Details          json.RawMessage `json:"heartbeat_details,omitempty"`
	LastBeat         snapTime        `json:"last_heartbeat"`
	LastFailure      json.RawMessage `json:"last_failure,omitempty"`
	CancelRequested  bool            `json:"cancel_requested"`
	CancelEvent      int64           `json:"cancel_event"`
	RetryAt          snapTime        `json:"retry_at"`
}

type snapUserTimer struct {
	ID        string   `json:"id"`
	StartedID int64    `json:"started_id"`
	FiresAt   snapTime `json:"fires_at"`
}

type snapChild struct {
	InitiatedID int64           `json:"initiated_id"`
	StartedID   int64           `json:"started_id"`
	Attributes  json.RawMessage `json:"attributes"`
	Child       *snapRunRef     `json:"child,omitempty"`
}

type snapTaskQueue struct {
	Name          string              `json:"name"`
	Known         bool                `json:"known"`
	WorkflowTypes []string            `json:"workflow_types"`
	ActivityTypes []string            `json:"activity_types"`
	Shutdown      map[string]snapTime `json:"shutdown_workers,omitempty"`
	Workflow      snapQueueSide       `json:"workflow"`
	Activity      snapQueueSide       `json:"activity"`
}

type snapQueueSide struct {
	Pollers []json.RawMessage `json:"pollers"`
	Rate    float64           `json:"rate"`
	Added   int64             `json:"added"`
	Handed  int64             `json:"handed"`
}

// Snapshot returns the fake's whole state as versioned JSON, which
// Restore reads back into this fake or another, for a program that keeps it across restarts (apitwin-fake -state-dir): the
// namespaces with their custom search attributes, every run with its full
// history, and the engine's pending work, so that a workflow running when
// the snapshot was taken goes on after a restore:
//
//   - a workflow or activity task waiting for a worker is queued again, in
//     the order it was queued, and a worker's next poll gets it;
//   - a task a worker had started stays started: the worker's answer, if
//     it comes, is taken (its task token still names it), and if it does
//     not come the task times out when it was due and is retried, as the
//     service does after a worker is lost;
//   - every timer (a workflow's timers, execution and run timeouts,
//     activity timeouts and heartbeats, retry backoffs, cron waits) falls
//     due when it was due: the state keeps due times, not durations, so a
//     restore onto a clock that has moved on fires what fell due since, in
//     order, at the clock's next move;
//   - child workflows, cancel requests, signals' and starts' request ids
//     (for deduplication) are kept;
//   - every run's updates are kept by id, with their stage and outcome, so
//     the same update id sent after a restore is the same update: a
//     completed one answers its outcome and does not run again, an
//     accepted one takes its worker's response, one waiting for a task is
//     carried by the next, and one handed to a started task takes that
//     worker's answer (or goes to the next task if that one times out);
//   - every namespace's schedules are kept whole: spec, action, policies
//     and state (paused, notes, remaining actions), memo and search
//     attributes, create and update times, conflict token, the request
//     ids of creates and patches, the counts, recent actions, running
//     workflows and waiting (buffered) actions, and how far the spec is
//     processed; each schedule's next action is armed at its time on the
//     restored clock, so the same runs start as without the snapshot (an
//     action that fell due meanwhile is taken, or counted missed past the
//     catch-up window, at the clock's next move). A snapshot taken before
//     the fake kept schedules restores with none.
//
// Protobuf messages (start requests, history events, payloads) are written
// in their canonical JSON (protojson). Queries waiting for an answer, long
// polls, task queue waiters, rate-limit windows, faults and the request log
// are not state and are not kept; nor are the signing key and API keys
// (WithSigningKey, AddAPIKey), which are configuration.
//
// It may be taken after Close: the state is still there.
func (s *Server) Snapshot() ([]byte, error) {
	s.mu.Lock()
	snap, err := s.snapshotLocked()
	s.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("orchfake: snapshot: %w", err)
	}
	return fakekit.EncodeSnapshot(snap)
}

// pbJSON is a message's canonical JSON; nil for none.
func pbJSON(m proto.Message) (json.RawMessage, error) {
	if m == nil || !m.ProtoReflect().IsValid() {
		return nil, nil
	}
	return protojson.Marshal(m)
}

// pbWriter writes messages, keeping the first error.
type pbWriter struct{ err error }

func (w *pbWriter) json(m proto.Message) json.RawMessage {
	b, err := pbJSON(m)
	if err != nil && w.err == nil {
		w.err = err
	}
	return b
}

func (s *Server) snapshotLocked() (*snapshot, error) {
	st := s.st
	var w pbWriter
	snap := &snapshot{
		SnapshotHeader: fakekit.SnapshotHeader{Format: SnapshotFormat, Version: SnapshotVersion},
		ClusterID:      st.clusterID, Started: snapTime(st.started), QuerySeq: st.querySeq,
		Shards: []snapShard{}, Namespaces: []snapNamespace{},
	}
	for _, sh := range st.shards {
		snap.Shards = append(snap.Shards, snapShard{ID: sh.id, RangeID: sh.rangeID, Acquired: snapTime(sh.acquired), Executions: sh.executions})
	}
	for _, name := range slices.Sorted(maps.Keys(st.namespaces)) {
		ns := st.namespaces[name]
		sn := snapNamespace{Info: w.json(ns.info), Config: w.json(ns.config), Replication: w.json(ns.replication),
			Global: ns.global, FailoverVersion: ns.failoverVersion, SearchAttrs: map[string]string{},
			Runs: []snapRun{}, TaskQueues: []snapTaskQueue{}}
		for attr, t := range ns.schema.Custom() {
			sn.SearchAttrs[attr] = t.String()
		}
		for _, id := range slices.Sorted(maps.Keys(ns.workflows)) {
			for _, e := range ns.workflows[id].runs {
				sn.Runs = append(sn.Runs, snapRunOf(&w, e))
			}
		}
		for _, qn := range slices.Sorted(maps.Keys(ns.queues)) {
			q := ns.queues[qn]
			if q.stickyKey != "" {
				continue // workers' sticky queues: a restored fake has none (see Snapshot)
			}
			sq := snapTaskQueue{Name: q.name, Known: q.known, WorkflowTypes: slices.Sorted(maps.Keys(q.workflowTypes)),
				ActivityTypes: slices.Sorted(maps.Keys(q.activityTypes))}
			if len(q.shutdown) > 0 {
				sq.Shutdown = map[string]snapTime{}
				for k, at := range q.shutdown {
					sq.Shutdown[k] = snapTime(at)
				}
			}
			for i, side := range []*snapQueueSide{&sq.Workflow, &sq.Activity} {
				sd := &q.sides[i]
				side.Pollers, side.Rate, side.Added, side.Handed = []json.RawMessage{}, sd.rate, sd.added, sd.handed
				for _, id := range slices.Sorted(maps.Keys(sd.pollers)) {
					side.Pollers = append(side.Pollers, w.json(sd.pollers[id]))
				}
			}
			sn.TaskQueues = append(sn.TaskQueues, sq)
		}
		for _, id := range slices.Sorted(maps.Keys(ns.schedules)) {
			sn.Schedules = append(sn.Schedules, snapScheduleOf(&w, ns.schedules[id]))
		}
		snap.Namespaces = append(snap.Namespaces, sn)
	}
	return snap, w.err
}

func refOf(e *execution) *snapRunRef {
	if e == nil {
		return nil
	}
	return &snapRunRef{Namespace: e.ns.info.Name, RunID: e.runID}
}

func snapRunOf(w *pbWriter, e *execution) snapRun {
	r := snapRun{WorkflowID: e.id, RunID: e.runID, FirstRunID: e.firstRunID, Type: e.typ, TaskQueue: e.queue,
		Status: e.status.String(), Start: snapTime(e.start), ExecutionTime: snapTime(e.execTime), CloseTime: snapTime(e.closeTime),
		StartRequest: w.json(e.startReq), Memo: w.json(e.memo), Search: w.json(e.search), History: []json.RawMessage{},
		Signals: slices.Sorted(maps.Keys(e.signals)), Cancels: slices.Sorted(maps.Keys(e.cancels)),
		TaskTimeout: e.taskTimeout.String(), Parent: refOf(e.parent), ParentInitiated: e.parentInitiated,
		Attempt: e.attempt, Expiry: snapTime(e.expiry), ResetBy: e.resetBy}
	if e.parent != nil {
		r.ParentPolicy = e.parentPolicy.String()
	}
	for _, ev := range e.history {
		r.History = append(r.History, w.json(ev))
	}
	for _, id := range slices.Sorted(maps.Keys(e.updates)) {
		u := e.updates[id]
		r.Updates = append(r.Updates, snapUpdate{ID: u.id, Request: w.json(u.req), Stage: u.stage.String(),
			Outcome: w.json(u.outcome), Aborted: u.aborted != nil, AcceptedID: u.acceptedID})
	}
	if !e.open() {
		return r
	}
	eng := &snapEngine{LastStartedID: e.eng.lastStartedID, TaskAttempt: e.eng.wftAttempt, NewEvents: e.eng.newEvents,
		Delayed: e.eng.delayed, Activities: []snapActivity{}, Timers: []snapUserTimer{}, Children: []snapChild{}}
	for _, u := range e.eng.admitted {
		eng.AdmittedUpdates = append(eng.AdmittedUpdates, u.id)
	}
	if t := e.eng.wft; t != nil {
		eng.WorkflowTask = &snapWorkflowTask{ScheduledID: t.scheduledID, StartedID: t.startedID, Attempt: t.attempt,
			Scheduled: snapTime(t.scheduled), Started: snapTime(t.started), Identity: t.identity, RequestID: t.requestID,
			Transient: t.transient, Backoff: t.delay != nil}
		for _, u := range t.updates {
			if u.task == t && u.stage == stageAdmitted && u.aborted == nil { // as undeliver takes them back
				eng.WorkflowTask.Updates = append(eng.WorkflowTask.Updates, u.id)
			}
		}
	}
	for _, id := range slices.Sorted(maps.Keys(e.eng.activities)) {
		a := e.eng.activities[id]
		eng.Activities = append(eng.Activities, snapActivity{ScheduledID: a.scheduledID, ID: a.id, Type: a.typ, TaskQueue: a.queue,
			Attributes: w.json(a.attrs), RetryPolicy: w.json(a.retry), Attempt: a.attempt, Started: a.started, Waiting: a.waiting,
			Scheduled: snapTime(a.scheduled), AttemptScheduled: snapTime(a.attemptSched), StartedTime: snapTime(a.startedTime),
			Identity: a.identity, RequestID: a.requestID, Details: w.json(a.details), LastBeat: snapTime(a.lastBeat),
			LastFailure: w.json(a.lastFailure), CancelRequested: a.cancelReq, CancelEvent: a.cancelEvent, RetryAt: snapTime(a.retryAt)})
	}
	for _, id := range slices.Sorted(maps.Keys(e.eng.userTimers)) {
		ut := e.eng.userTimers[id]
		eng.Timers = append(eng.Timers, snapUserTimer{ID: ut.id, StartedID: ut.startedID, FiresAt: snapTime(ut.timer.at)})
	}
	for _, id := range slices.Sorted(maps.Keys(e.eng.children)) {
		c := e.eng.children[id]
		eng.Children = append(eng.Children, snapChild{InitiatedID: c.initiatedID, StartedID: c.startedID,
			Attributes: w.json(c.attrs), Child: refOf(c.child)})
	}
	r.Engine = eng
	return r
}

// Restore replaces the fake's state with a snapshot's (see Snapshot): the
// running workflows go on from where they stood, and what fell due
// between the snapshot's time and the clock's (timeouts, timers, retries)
// happens, in order, at the clock's next move (clock.Fake.Advance(0) makes
// it happen at once). Long polls waiting on the old state end empty, as
// after Reset. A snapshot of another format or version, or one that does
// not hold together (a history whose event ids do not follow, a run named
// but missing, a message that does not read), is refused with an error
// and changes nothing. Faults, the request log, the signing key and the
// API keys stay; rate-limit windows start afresh.
func (s *Server) Restore(data []byte) error {
	var snap snapshot
	if err := fakekit.DecodeSnapshot(data, SnapshotFormat, SnapshotVersion, &snap); err != nil {
		return fmt.Errorf("orchfake: %w", err)
	}
	s.mu.Lock()
	// A restore within SchedulerOutage leaves the scheduler down.
	r := &restorer{s: s, st: &state{s: s, namespaces: map[string]*namespace{}, schedulerDown: s.st.schedulerDown, gone: make(chan struct{})}}
	err := r.build(&snap)
	if err == nil {
		s.st.stopTimers()
		s.st.endPolls()
		s.st = r.st
		s.limits.init(s.clk, s.cfg.limits)
		r.resume()
	}
	s.mu.Unlock()
	if err != nil {
		return fmt.Errorf("orchfake: snapshot: %w", err)
	}
	s.kickSkip()
	return nil
}

// restorer builds a state from a snapshot, checking what it reads.
type restorer struct {
	s  *Server
	st *state
	// engines are the open runs with their snapshot's engine, resolved
	// once every run exists (a child may be in another namespace).
	engines []restoredEngine
	// parents are the runs started as children, with their parent's
	// reference.
	parents []restoredParent
}

type restoredParent struct {
	e   *execution
	ref *snapRunRef
	at  string
}

type restoredEngine struct {
	e    *execution
	snap *snapEngine
	at   string
}

func readPB(raw json.RawMessage, m proto.Message, what string) error {
	if len(raw) == 0 || string(raw) == "null" {
		return fmt.Errorf("%s: missing", what)
	}
	if err := protojson.Unmarshal(raw, m); err != nil {
		return fmt.Errorf("%s: %v", what, err)
	}
	return nil
}

// readOptionalPB reads a message that may be absent (nil then).
func readOptionalPB[T proto.Message](raw json.RawMessage, m T, what string) (T, error) {
	var zero T
	if len(raw) == 0 || string(raw) == "null" {
		return zero, nil
	}
	if err := protojson.Unmarshal(raw, m); err != nil {
		return zero, fmt.Errorf("%s: %v", what, err)
	}
	return m, nil
}

func (r *restorer) build(snap *snapshot) error {
	st := r.st
	st.clusterID, st.started, st.querySeq = snap.ClusterID, snap.Started.Time(), snap.QuerySeq
	if len(snap.Shards) != r.s.cfg.shards {
		return fmt.Errorf("shards: %d, but this fake has %d", len(snap.Shards), r.s.cfg.shards)
	}
	for i, sh := range snap.Shards {
		if sh.ID != int32(i+1) {
			return fmt.Errorf("shards[%d]: id %d, want %d", i, sh.ID, i+1)
		}
		st.shards = append(st.shards, &shard{id: sh.ID, rangeID: sh.RangeID, acquired: sh.Acquired.Time(), executions: sh.Executions})
	}
	for i := range snap.Namespaces {
		if err := r.namespace(fmt.Sprintf("namespaces[%d]", i), &snap.Namespaces[i]); err != nil {
			return err
		}
	}
	if st.namespaces[DefaultNamespace] == nil {
		return fmt.Errorf("no %q namespace", DefaultNamespace)
	}
	// References between runs, now that every run exists.
	for _, pr := range r.parents {
		if pr.e.parent = r.run(pr.ref); pr.e.parent == nil {
			return fmt.Errorf("%s: parent %s/%s is not a run of the snapshot", pr.at, pr.ref.Namespace, pr.ref.RunID)
		}
	}
	for _, re := range r.engines {
		if err := r.engine(re); err != nil {
			return err
		}
	}
	return nil
}

// run finds a run of the state by reference; nil when there is none.
func (r *restorer) run(ref *snapRunRef) *execution {
	if ref == nil {
		return nil
	}
	ns := r.st.namespaces[ref.Namespace]
	if ns == nil {
		return nil
	}
	return ns.runs[ref.RunID]
}

func (r *restorer) namespace(where string, sn *snapNamespace) error {
	st := r.st
	ns := &namespace{st: st, info: &orchpb.NamespaceInfo{}, config: &orchpb.NamespaceConfig{}, replication: &orchpb.NamespaceReplicationConfig{},
		global: sn.Global, failoverVersion: sn.FailoverVersion, schema: visibility.NewSchema(),
		workflows: map[string]*workflow{}, runs: map[string]*execution{}, starts: map[string]*execution{}, queues: map[string]*taskQueue{}}
	if err := errors.Join(readPB(sn.Info, ns.info, where+".info"), readPB(sn.Config, ns.config, where+".config"),
		readPB(sn.Replication, ns.replication, where+".replication")); err != nil {
		return err
	}
	name := ns.info.GetName()
	if name == "" || st.namespaces[name] != nil {
		return fmt.Errorf("%s: name %q is empty or repeated", where, name)
	}
	where += " (" + name + ")"
	st.namespaces[name] = ns
	for _, attr := range slices.Sorted(maps.Keys(sn.SearchAttrs)) {
		t, err := visibility.ParseType(sn.SearchAttrs[attr])
		if err == nil {
			err = ns.schema.Register(attr, t)
		}
		if err != nil {
			return fmt.Errorf("%s.search_attributes[%s]: %v", where, attr, err)
		}
	}
	for i := range sn.Runs {
		if err := r.runOf(fmt.Sprintf("%s.runs[%d]", where, i), ns, &sn.Runs[i]); err != nil {
			return err
		}
	}
	for i, sq := range sn.TaskQueues {
		qw := fmt.Sprintf("%s.task_queues[%d]", where, i)
		if sq.Name == "" || ns.queues[sq.Name] != nil {
			return fmt.Errorf("%s: name %q is empty or repeated", qw, sq.Name)
		}
		q := ns.queue(sq.Name)
		q.known = sq.Known
		for _, t := range sq.WorkflowTypes {
			q.workflowTypes[t] = true
		}
		for _, t := range sq.ActivityTypes {
			q.activityTypes[t] = true
		}
		if len(sq.Shutdown) > 0 {
			q.shutdown = map[string]time.Time{}
			for k, at := range sq.Shutdown {
				q.shutdown[k] = at.Time()
			}
		}
		for side, ss := range []snapQueueSide{sq.Workflow, sq.Activity} {
			sd := &q.sides[side]
			sd.rate, sd.added, sd.handed = ss.Rate, ss.Added, ss.Handed
			if sd.rate < 0 || sd.added < 0 || sd.handed < 0 {
				return fmt.Errorf("%s: a negative rate or count", qw)
			}
			for j, raw := range ss.Pollers {
				p := &orchpb.PollerInfo{}
				if err := readPB(raw, p, fmt.Sprintf("%s.pollers[%d]", qw, j)); err != nil {
					return err
				}
				sd.pollers[p.GetIdentity()] = p
			}
		}
	}
	for i := range sn.Schedules {
		if err := r.scheduleOf(fmt.Sprintf("%s.schedules[%d]", where, i), ns, &sn.Schedules[i]); err != nil {
			return err
		}
	}
	return nil
}

func (r *restorer) runOf(where string, ns *namespace, sr *snapRun) error {
	status, ok := orchpb.WorkflowExecutionStatus_value[sr.Status]
	if !ok || status == int32(orchpb.WorkflowExecutionStatus_WORKFLOW_EXECUTION_STATUS_UNSPECIFIED) {
		return fmt.Errorf("%s: status %q", where, sr.Status)
	}
	if sr.WorkflowID == "" || sr.RunID == "" || ns.runs[sr.RunID] != nil {
		return fmt.Errorf("%s: workflow id or run id %q empty, or the run id repeated", where, sr.RunID)
	}
	taskTimeout, err := time.ParseDuration(sr.TaskTimeout)
	if err != nil || taskTimeout <= 0 {
		return fmt.Errorf("%s: task_timeout %q", where, sr.TaskTimeout)
	}
	e := &execution{ns: ns, id: sr.WorkflowID, runID: sr.RunID, firstRunID: sr.FirstRunID, typ: sr.Type, queue: sr.TaskQueue,
		status: orchpb.WorkflowExecutionStatus(status), start: sr.Start.Time(), execTime: sr.ExecutionTime.Time(),
		closeTime: sr.CloseTime.Time(), startReq: &orchpb.StartWorkflowExecutionRequest{}, signals: map[string]bool{},
		cancels: map[string]bool{}, wake: make(chan struct{}), taskTimeout: taskTimeout, parentInitiated: sr.ParentInitiated,
		attempt: max(sr.Attempt, 1), expiry: sr.Expiry.Time(), resetBy: sr.ResetBy}
	if err := readPB(sr.StartRequest, e.startReq, where+".start_request"); err != nil {
		return err
	}
	if e.memo, err = readOptionalPB(sr.Memo, &orchpb.Memo{}, where+".memo"); err != nil {
		return err
	}
	if e.search, err = readOptionalPB(sr.Search, &orchpb.SearchAttributes{}, where+".search_attributes"); err != nil {
		return err
	}
	e.searchVals = runSearchValues(ns, e.search) // an attribute removed since is left out, as a new list would
	if sr.Parent != nil {
		r.parents = append(r.parents, restoredParent{e: e, ref: sr.Parent, at: where})
	}
	if sr.ParentPolicy != "" {
		p, ok := orchpb.ParentClosePolicy_value[sr.ParentPolicy]
		if !ok {
			return fmt.Errorf("%s: parent_close_policy %q", where, sr.ParentPolicy)
		}
		e.parentPolicy = orchpb.ParentClosePolicy(p)
	}
	if len(sr.History) == 0 {
		return fmt.Errorf("%s: an empty history", where)
	}
	for i, raw := range sr.History {
		ev := &orchpb.HistoryEvent{}
		if err := readPB(raw, ev, fmt.Sprintf("%s.history[%d]", where, i)); err != nil {
			return err
		}
		if ev.GetEventId() != int64(i+1) {
			return fmt.Errorf("%s.history[%d]: event id %d, want %d", where, i, ev.GetEventId(), i+1)
		}
		e.history = append(e.history, ev)
	}
	if len(sr.Updates) > MaxUpdatesPerRun {
		return fmt.Errorf("%s: more than %d updates", where, MaxUpdatesPerRun)
	}
	for i, su := range sr.Updates {
		if err := restoreUpdate(fmt.Sprintf("%s.updates[%d]", where, i), e, su); err != nil {
			return err
		}
	}
	for _, id := range sr.Signals {
		e.signals[id] = true
	}
	for _, id := range sr.Cancels {
		e.cancels[id] = true
	}
	wf := ns.workflows[e.id]
	if wf == nil {
		wf = &workflow{id: e.id}
		ns.workflows[e.id] = wf
	} else if wf.latest().open() {
		return fmt.Errorf("%s: a run of %q after one still open", where, e.id)
	}
	e.wf = wf
	wf.runs = append(wf.runs, e)
	ns.runs[e.runID] = e
	ns.unfiled = append(ns.unfiled, e)
	if rid := e.startReq.GetRequestId(); rid != "" {
		ns.starts[e.id+"\x00"+rid] = e
	}
	if e.open() {
		ns.running++
		if sr.Engine == nil {
			return fmt.Errorf("%s: an open run without its engine", where)
		}
		r.engines = append(r.engines, restoredEngine{e: e, snap: sr.Engine, at: where})
	}
	return nil
}

// engine rebuilds an open run's worker side (timers are armed by resume).
func (r *restorer) engine(re restoredEngine) error {
	e, se, where := re.e, re.snap, re.at+".engine"
	last := int64(len(e.history))
	e.eng = engineState{lastStartedID: se.LastStartedID, wftAttempt: se.TaskAttempt, newEvents: se.NewEvents, delayed: se.Delayed}
	// waiting finds an update waiting for a task: admitted, once.
	handed := map[string]bool{}
	waiting := func(field, id string) (*update, error) {
		u := e.updates[id]
		if u == nil || u.stage != stageAdmitted || u.aborted != nil || handed[id] {
			return nil, fmt.Errorf("%s.%s: update %q is not one admitted and waiting, or is named twice", where, field, id)
		}
		handed[id] = true
		return u, nil
	}
	for _, id := range se.AdmittedUpdates {
		u, err := waiting("admitted_updates", id)
		if err != nil {
			return err
		}
		e.eng.admitted = append(e.eng.admitted, u)
	}
	if t := se.WorkflowTask; t != nil {
		wt := &workflowTask{e: e, scheduledID: t.ScheduledID, startedID: t.StartedID, attempt: max(t.Attempt, 1),
			scheduled: t.Scheduled.Time(), started: t.Started.Time(), identity: t.Identity, requestID: t.RequestID, transient: t.Transient}
		// A transient task's events are not in the history yet: they come
		// right after it.
		limit := last
		if wt.transient {
			limit = last + 2
		}
		if wt.scheduledID < 1 || wt.scheduledID > limit || wt.startedID < 0 || wt.startedID > limit ||
			(wt.startedID != 0 && wt.startedID <= wt.scheduledID) || (t.Backoff && wt.startedID != 0) {
			return fmt.Errorf("%s.workflow_task: events %d and %d do not fit a history of %d", where, wt.scheduledID, wt.startedID, last)
		}
		if wt.startedID != 0 {
			wt.token = encodeTaskToken(taskToken{kind: tokenWorkflow, namespace: e.ns.info.Name, workflowID: e.id, runID: e.runID,
				scheduledID: wt.scheduledID, attempt: wt.attempt})
		}
		if t.Backoff {
			wt.delay = &engineTimer{} // armed by resume
		}
		if len(t.Updates) > 0 && wt.startedID == 0 {
			return fmt.Errorf("%s.workflow_task: updates handed to a task not started", where)
		}
		for _, id := range t.Updates {
			u, err := waiting("workflow_task.updates", id)
			if err != nil {
				return err
			}
			u.task = wt
			wt.updates = append(wt.updates, u)
		}
		e.eng.wft = wt
	}
	for i, sa := range se.Activities {
		aw := fmt.Sprintf("%s.activities[%d]", where, i)
		if sa.ScheduledID < 1 || sa.ScheduledID > last || e.eng.activities[sa.ScheduledID] != nil {
			return fmt.Errorf("%s: scheduled event %d repeated or not in the history", aw, sa.ScheduledID)
		}
		a := &activity{e: e, scheduledID: sa.ScheduledID, id: sa.ID, typ: sa.Type, queue: sa.TaskQueue,
			attrs: &orchpb.ScheduleActivityTaskCommandAttributes{}, retry: &orchpb.RetryPolicy{}, attempt: max(sa.Attempt, 1),
			started: sa.Started, waiting: sa.Waiting && !sa.Started, scheduled: sa.Scheduled.Time(), attemptSched: sa.AttemptScheduled.Time(),
			startedTime: sa.StartedTime.Time(), identity: sa.Identity, requestID: sa.RequestID, lastBeat: sa.LastBeat.Time(),
			cancelReq: sa.CancelRequested, cancelEvent: sa.CancelEvent, retryAt: sa.RetryAt.Time()}
		if err := errors.Join(readPB(sa.Attributes, a.attrs, aw+".attributes"), readPB(sa.RetryPolicy, a.retry, aw+".retry_policy")); err != nil {
			return err
		}
		var err error
		if a.details, err = readOptionalPB(sa.Details, &orchpb.Payloads{}, aw+".heartbeat_details"); err != nil {
			return err
		}
		if a.lastFailure, err = readOptionalPB(sa.LastFailure, &orchpb.Failure{}, aw+".last_failure"); err != nil {
			return err
		}
		if e.eng.activities == nil {
			e.eng.activities = map[int64]*activity{}
		}
		e.eng.activities[a.scheduledID] = a
	}
	for i, su := range se.Timers {
		if su.ID == "" || e.eng.userTimers[su.ID] != nil || su.StartedID < 1 || su.StartedID > last {
			return fmt.Errorf("%s.timers[%d]: id %q empty or repeated, or started event %d not in the history", where, i, su.ID, su.StartedID)
		}
		if e.eng.userTimers == nil {
			e.eng.userTimers = map[string]*userTimer{}
		}
		e.eng.userTimers[su.ID] = &userTimer{id: su.ID, startedID: su.StartedID, timer: &engineTimer{at: su.FiresAt.Time()}}
	}
	for i, sc := range se.Children {
		cw := fmt.Sprintf("%s.children[%d]", where, i)
		if sc.InitiatedID < 1 || sc.InitiatedID > last || e.eng.children[sc.InitiatedID] != nil {
			return fmt.Errorf("%s: initiated event %d repeated or not in the history", cw, sc.InitiatedID)
		}
		ref := &childRef{initiatedID: sc.InitiatedID, startedID: sc.StartedID, attrs: &orchpb.StartChildWorkflowExecutionCommandAttributes{}}
		if err := readPB(sc.Attributes, ref.attrs, cw+".attributes"); err != nil {
			return err
		}
		if sc.Child != nil {
			if ref.child = r.run(sc.Child); ref.child == nil {
				return fmt.Errorf("%s: child %s/%s is not a run of the snapshot", cw, sc.Child.Namespace, sc.Child.RunID)
			}
		}
		if e.eng.children == nil {
			e.eng.children = map[int64]*childRef{}
		}
		e.eng.children[ref.initiatedID] = ref
	}
	for _, id := range slices.Sorted(maps.Keys(e.updates)) {
		if u := e.updates[id]; u.stage == stageAdmitted && u.aborted == nil && !handed[id] {
			return fmt.Errorf("%s: update %q is admitted but neither waiting nor handed to the task", where, id)
		}
	}
	return nil
}

// resume arms the restored state's timers at their due times and queues
// the tasks that wait for a worker, in the order they were queued. s.mu
// must be held, and s.st is the restored state.
func (r *restorer) resume() {
	s := r.s
	now := s.clk.Now()
	until := func(t time.Time) time.Duration { return t.Sub(now) }
	type queued struct {
		at   time.Time
		key  string
		side int
		e    *execution
		t    task
	}
	var waiting []queued
	for _, re := range r.engines {
		e := re.e
		if !e.expiry.IsZero() {
			s.after(e, until(e.expiry), func() { s.timeOut(e) })
		}
		if d := e.startReq.GetWorkflowRunTimeout().AsDuration(); d > 0 {
			s.after(e, until(e.start.Add(d)), func() { s.timeOut(e) })
		}
		if e.eng.delayed {
			s.after(e, until(e.execTime), func() { s.firstTaskDue(e) })
		}
		if t := e.eng.wft; t != nil {
			switch {
			case t.delay != nil:
				t.delay = s.after(e, until(t.scheduled.Add(workflowTaskRetryDelay(t.attempt))), func() { s.retryTaskDue(t) })
			case t.startedID != 0:
				t.timeout = s.after(e, until(t.started.Add(e.taskTimeout)), func() { s.workflowTaskTimedOut(t) })
			case !e.eng.delayed:
				waiting = append(waiting, queued{t.scheduled, fmt.Sprintf("%s\x00%s\x00%020d", e.ns.info.Name, e.runID, t.scheduledID), sideWorkflow, e, t})
			}
		}
		for _, a := range e.eng.activities {
			if d := a.attrs.GetScheduleToCloseTimeout().AsDuration(); d > 0 {
				a.s2c = s.after(e, until(a.scheduled.Add(d)), func() { s.activityTimedOut(a, orchpb.TimeoutType_SCHEDULE_TO_CLOSE) })
			}
			switch {
			case a.started:
				if d := a.attrs.GetStartToCloseTimeout().AsDuration(); d > 0 {
					a.st2c = s.after(e, until(a.startedTime.Add(d)), func() { s.activityTimedOut(a, orchpb.TimeoutType_START_TO_CLOSE) })
				}
				if d := a.attrs.GetHeartbeatTimeout().AsDuration(); d > 0 {
					a.beat = s.after(e, until(later(a.startedTime, a.lastBeat).Add(d)), func() { s.activityTimedOut(a, orchpb.TimeoutType_HEARTBEAT) })
				}
			case a.waiting:
				s.after(e, until(a.retryAt), func() { s.attemptDue(a) })
			default:
				if d := a.attrs.GetScheduleToStartTimeout().AsDuration(); d > 0 {
					a.s2s = s.after(e, until(a.attemptSched.Add(d)), func() { s.activityTimedOut(a, orchpb.TimeoutType_SCHEDULE_TO_START) })
				}
				waiting = append(waiting, queued{a.attemptSched, fmt.Sprintf("%s\x00%s\x00%020d", e.ns.info.Name, e.runID, a.scheduledID), sideActivity, e, a})
			}
		}
		for _, ut := range e.eng.userTimers {
			ut.timer = s.after(e, until(ut.timer.at), func() { s.timerFired(e, ut) })
		}
	}
	for _, sc := range r.st.allSchedules() {
		s.armSchedule(sc)
	}
	// Queued straight into the backlogs: the queues' counts are the
	// snapshot's.
	slices.SortFunc(waiting, func(a, b queued) int { return cmp.Or(a.at.Compare(b.at), cmp.Compare(a.key, b.key)) })
	for _, w := range waiting {
		var q *taskQueue
		switch t := w.t.(type) {
		case *workflowTask:
			q = w.e.ns.queue(w.e.queue)
		case *activity:
			q = w.e.ns.queue(t.queue)
		}
		q.sides[w.side].backlog = append(q.sides[w.side].backlog, w.t)
	}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// snapSchedule is a schedule with everything its describe answer and its
// next actions come from.
type snapSchedule struct {
	ID       string          `json:"id"`
	Schedule json.RawMessage `json:"schedule"` // spec, action, policies and state as kept
	Memo     json.RawMessage `json:"memo,omitempty"`
	Search   json.RawMessage `json:"search_attributes,omitempty"`
	Created  snapTime        `json:"created"`
	Updated  snapTime        `json:"updated"`
	Token    uint64          `json:"conflict_token"`
	Requests []string        `json:"request_ids"`
	// Cursor: the nominal times up to it are processed; the next action
	// is the spec's first time after it.
	Cursor  snapTime             `json:"cursor"`
	Buffer  []snapBufferedAction `json:"buffer"`
	Running []string             `json:"running_run_ids"`
	// Owned: the workflows whose chain is still the schedule's to follow
	// (its close may pause the schedule and start what waits).
	Owned     []string          `json:"owned_workflow_ids"`
	Canceling []string          `json:"canceling_run_ids,omitempty"`
	Recent    []json.RawMessage `json:"recent_actions"`
	Actions   int64             `json:"action_count"`
	Missed    int64             `json:"missed_catchup_window"`
	Skipped   int64             `json:"overlap_skipped"`
	Dropped   int64             `json:"buffer_dropped"`
}

type snapBufferedAction struct {
	Nominal snapTime `json:"nominal"`
	Actual  snapTime `json:"actual"`
	Policy  string   `json:"overlap_policy"` // unspecified: the schedule's when taken
	Manual  bool     `json:"manual"`
}

func snapScheduleOf(w *pbWriter, sc *schedule) snapSchedule {
	ss := snapSchedule{ID: sc.id, Schedule: w.json(sc.def), Memo: w.json(sc.memo), Search: w.json(sc.search),
		Created: snapTime(sc.created), Updated: snapTime(sc.updated), Token: sc.token,
		Requests: slices.Sorted(maps.Keys(sc.requests)), Cursor: snapTime(sc.cursor), Buffer: []snapBufferedAction{},
		Running: []string{}, Owned: []string{}, Recent: []json.RawMessage{},
		Actions: sc.actions, Missed: sc.missed, Skipped: sc.skipped, Dropped: sc.dropped}
	for _, b := range sc.buffer {
		ss.Buffer = append(ss.Buffer, snapBufferedAction{Nominal: snapTime(b.nominal), Actual: snapTime(b.actual),
			Policy: b.policy.String(), Manual: b.manual})
	}
	for _, e := range sc.running {
		ss.Running = append(ss.Running, e.runID)
	}
	for wf, owner := range sc.ns.scheduled {
		if owner == sc {
			ss.Owned = append(ss.Owned, wf.id)
		}
	}
	slices.Sort(ss.Owned)
	for e := range sc.canceling {
		ss.Canceling = append(ss.Canceling, e.runID)
	}
	slices.Sort(ss.Canceling)
	for _, r := range sc.recent {
		ss.Recent = append(ss.Recent, w.json(r))
	}
	return ss
}

// scheduleOf rebuilds a schedule of ns, whose runs are restored already
// (its timer is armed by resume).
func (r *restorer) scheduleOf(where string, ns *namespace, ss *snapSchedule) error {
	if ss.ID == "" || ns.schedules[ss.ID] != nil {
		return fmt.Errorf("%s: id %q is empty or repeated", where, ss.ID)
	}
	where += " (" + ss.ID + ")"
	if len(ns.schedules) >= MaxSchedulesPerNamespace {
		return fmt.Errorf("%s: more than %d schedules in the namespace", where, MaxSchedulesPerNamespace)
	}
	// The cursor starts at the create and only moves on: one before it
	// would have the clock's next move run through times never due.
	if ss.Created.Time().IsZero() || ss.Cursor.Time().Before(ss.Created.Time()) {
		return fmt.Errorf("%s: cursor %v before the create time %v", where, ss.Cursor.Time(), ss.Created.Time())
	}
	if ss.Token < 1 || ss.Actions < 0 || ss.Missed < 0 || ss.Skipped < 0 || ss.Dropped < 0 ||
		len(ss.Buffer) > MaxScheduleBuffer || len(ss.Recent) > scheduleRecent {
		return fmt.Errorf("%s: a conflict token below 1, a negative count, or more than %d buffered or %d recent actions",
			where, MaxScheduleBuffer, scheduleRecent)
	}
	def := &orchpb.Schedule{}
	if err := readPB(ss.Schedule, def, where+".schedule"); err != nil {
		return err
	}
	if def.GetAction().GetStartWorkflow() == nil {
		return fmt.Errorf("%s.schedule.action.start_workflow: missing", where)
	}
	var v violations
	sp := compileSpec(&v, ns.info.Name+"\x00"+ss.ID, def.GetSpec())
	if err := v.err(); err != nil {
		return fmt.Errorf("%s.schedule: %v", where, err)
	}
	sc := &schedule{ns: ns, id: ss.ID, def: kept(def), spec: sp, created: ss.Created.Time(), updated: ss.Updated.Time(),
		token: ss.Token, requests: map[string]bool{}, cursor: ss.Cursor.Time(),
		actions: ss.Actions, missed: ss.Missed, skipped: ss.Skipped, dropped: ss.Dropped}
	var err error
	if sc.memo, err = readOptionalPB(ss.Memo, &orchpb.Memo{}, where+".memo"); err != nil {
		return err
	}
	if sc.search, err = readOptionalPB(ss.Search, &orchpb.SearchAttributes{}, where+".search_attributes"); err != nil {
		return err
	}
	for _, id := range ss.Requests {
		sc.requests[id] = true
	}
	for i, b := range ss.Buffer {
		p, ok := orchpb.ScheduleOverlapPolicy_value[b.Policy]
		if !ok {
			return fmt.Errorf("%s.buffer[%d]: overlap_policy %q", where, i, b.Policy)
		}
		sc.buffer = append(sc.buffer, bufferedStart{nominal: b.Nominal.Time(), actual: b.Actual.Time(),
			policy: orchpb.ScheduleOverlapPolicy(p), manual: b.Manual})
	}
	runs := func(field string, ids []string) ([]*execution, error) {
		var out []*execution
		for i, id := range ids {
			e := ns.runs[id]
			if e == nil {
				return nil, fmt.Errorf("%s.%s[%d]: run %q is not a run of the namespace", where, field, i, id)
			}
			out = append(out, e)
		}
		return out, nil
	}
	if sc.running, err = runs("running_run_ids", ss.Running); err != nil {
		return err
	}
	canceling, err := runs("canceling_run_ids", ss.Canceling)
	if err != nil {
		return err
	}
	for _, e := range canceling {
		if sc.canceling == nil {
			sc.canceling = map[*execution]bool{}
		}
		sc.canceling[e] = true
	}
	for i, id := range ss.Owned {
		wf := ns.workflows[id]
		if wf == nil || ns.scheduled[wf] != nil {
			return fmt.Errorf("%s.owned_workflow_ids[%d]: workflow %q is not one of the namespace, or owned twice", where, i, id)
		}
		if ns.scheduled == nil {
			ns.scheduled = map[*workflow]*schedule{}
		}
		ns.scheduled[wf] = sc
	}
	for i, raw := range ss.Recent {
		a := &orchpb.ScheduleActionResult{}
		if err := readPB(raw, a, fmt.Sprintf("%s.recent_actions[%d]", where, i)); err != nil {
			return err
		}
		sc.recent = append(sc.recent, a)
	}
	if ns.schedules == nil {
		ns.schedules = map[string]*schedule{}
	}
	ns.schedules[sc.id] = sc
	return nil
}

// restoreUpdate rebuilds one of e's updates: a closed run's unfinished
// ones are aborted, as when it closed.
func restoreUpdate(where string, e *execution, su snapUpdate) error {
	stage, ok := orchpb.UpdateWorkflowExecutionLifecycleStage_value[su.Stage]
	if !ok || (stage != int32(stageAdmitted) && stage != int32(stageAccepted) && stage != int32(stageCompleted)) {
		return fmt.Errorf("%s: stage %q", where, su.Stage)
	}
	if su.ID == "" || e.updates[su.ID] != nil {
		return fmt.Errorf("%s: id %q is empty or repeated", where, su.ID)
	}
	u := &update{e: e, id: su.ID, req: &orchpb.UpdateRequest{}, stage: orchpb.UpdateWorkflowExecutionLifecycleStage(stage),
		msgID: su.ID + "/request", acceptedID: su.AcceptedID, changed: make(chan struct{})}
	if err := readPB(su.Request, u.req, where+".request"); err != nil {
		return err
	}
	if u.req.GetMeta().GetUpdateId() != u.id {
		return fmt.Errorf("%s: the request is of update %q", where, u.req.GetMeta().GetUpdateId())
	}
	if u.stage == stageCompleted {
		u.outcome = &orchpb.UpdateOutcome{}
		if err := readPB(su.Outcome, u.outcome, where+".outcome"); err != nil {
			return err
		}
	}
	switch {
	case su.Aborted && (u.done() || e.open()):
		return fmt.Errorf("%s: aborted, but completed or of an open run", where)
	case su.Aborted:
		u.aborted = completedError(e)
	case !u.done() && !e.open():
		return fmt.Errorf("%s: unfinished in a closed run, and not aborted", where)
	}
	if e.updates == nil {
		e.updates = map[string]*update{}
	}
	e.updates[u.id] = u
	return nil
}
