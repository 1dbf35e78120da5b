package orchfake

import (
	"context"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// Task queue rules (see doc.go).
const (
	// PollerTTL is how long a poller stays listed by DescribeTaskQueue
	// after its last poll, on the fake clock.
	PollerTTL = 5 * time.Minute
	// MaxPollWait ends a poll with an empty answer after this long on the
	// fake clock, as a real service ends long polls after a minute.
	MaxPollWait = 60 * time.Second
	// DefaultDispatchRate is rate_per_second when no poller set one.
	DefaultDispatchRate = 100_000.0
	// StickyScheduleToStartTimeout is how long a run's workflow task
	// waits on its worker's sticky queue, on the fake clock, before it is
	// recorded as timed out (SCHEDULE_TO_START) and a new one goes to the
	// run's task queue: the default of Temporal's SDKs (the contract's
	// sticky_attributes is a flag, so the worker cannot choose it).
	StickyScheduleToStartTimeout = 5 * time.Second
	// StickyPollerUnavailable: a sticky queue nobody polls now and nobody
	// polled within this long, on the fake clock, has lost its worker;
	// the run's next task goes to its task queue at once (Temporal's
	// matching service waits the same 10 s).
	StickyPollerUnavailable = 10 * time.Second
)

const (
	sideWorkflow = 0
	sideActivity = 1
)

// taskQueue is one named queue of a namespace, with a workflow side and an
// activity side.
type taskQueue struct {
	ns    *namespace
	name  string
	known bool // polled, or named by RegisterWorker
	sides [2]queueSide

	workflowTypes map[string]bool
	activityTypes map[string]bool
	// shutdown holds the worker instance keys ShutdownWorker named, with
	// when: their polls answer empty at once (kept PollerTTL).
	shutdown map[string]time.Time

	// stickyKey is set on a worker's sticky queue: the worker instance
	// whose STICKY polls created it.
	stickyKey string
	lastPoll  time.Time // the last poll's start, on the fake clock
}

type queueSide struct {
	pollers map[string]*orchpb.PollerInfo // by identity
	backlog []task                        // tasks waiting for a poller, oldest first
	waiters []*waiter                     // polls waiting for a task, oldest first
	rate    float64                       // max_tasks_per_second from the pollers, 0 if none
	added   int64                         // tasks ever added (read_level)
	handed  int64                         // tasks ever handed out (ack_level)
	// inFlight counts tasks handed to a waiting poll that its goroutine has
	// not taken yet: neither in the backlog nor started, but not idle either
	// (time skipping must not jump over them).
	inFlight int
	// The dispatch rate (rate > 0): a token bucket of burst max(1, rate) on
	// the fake clock; a task waits in the backlog while it is empty, and
	// wakeup hands it out when a token is due.
	tokens float64
	filled time.Time
	wakeup *clock.Timer
}

// take spends a dispatch token, or says how long until one is due.
func (sd *queueSide) take(now time.Time) (bool, time.Duration) {
	if sd.rate <= 0 {
		return true, 0
	}
	burst := math.Max(1, sd.rate)
	if sd.filled.IsZero() {
		sd.tokens = burst
	} else {
		sd.tokens = math.Min(burst, sd.tokens+now.Sub(sd.filled).Seconds()*sd.rate)
	}
	sd.filled = now
	if sd.tokens >= 1 {
		sd.tokens--
		return true, 0
	}
	return false, max(time.Duration((1-sd.tokens)/sd.rate*float64(time.Second)), time.Millisecond)
}

// dispatchLater hands backlog tasks to waiting polls once the rate allows.
// s.mu must be held.
func (q *taskQueue) dispatchLater(side int, wait time.Duration) {
	sd := &q.sides[side]
	if sd.wakeup != nil {
		return
	}
	s := q.ns.st.s
	sd.wakeup = s.afterFunc(wait, func() {
		sd.wakeup = nil
		for len(sd.waiters) > 0 {
			t := q.pop(side)
			if t == nil {
				return
			}
			w := sd.waiters[0]
			sd.waiters = sd.waiters[1:]
			sd.inFlight++
			w.ch <- t
		}
	})
}

// task is what a poll hands out: a workflow task of an execution, or an
// activity task.
type task interface {
	// live reports whether the task can still be handed out (its execution
	// is open and it was not withdrawn).
	live() bool
}

// waiter is one poll waiting for a task.
type waiter struct {
	ch  chan task     // buffered 1; receives the task handed to this poll
	key string        // the poller's worker_instance_key
	end chan struct{} // closed by ShutdownWorker: the poll ends empty
}

// queue returns ns's queue name, creating it (unknown until polled).
func (ns *namespace) queue(name string) *taskQueue {
	q := ns.queues[name]
	if q == nil {
		q = &taskQueue{ns: ns, name: name, workflowTypes: map[string]bool{}, activityTypes: map[string]bool{}}
		for i := range q.sides {
			q.sides[i].pollers = map[string]*orchpb.PollerInfo{}
		}
		ns.queues[name] = q
	}
	return q
}

// push gives t to the oldest waiting poll, or queues it. s.mu must be held.
func (q *taskQueue) push(side int, t task) {
	sd := &q.sides[side]
	sd.added++
	if len(sd.waiters) > 0 && sd.rate > 0 {
		if ok, wait := sd.take(q.ns.st.s.clk.Now()); !ok {
			sd.backlog = append(sd.backlog, t)
			q.dispatchLater(side, wait)
			return
		}
	}
	for len(sd.waiters) > 0 {
		w := sd.waiters[0]
		sd.waiters = sd.waiters[1:]
		sd.handed++
		sd.inFlight++
		w.ch <- t
		return
	}
	sd.backlog = append(sd.backlog, t)
}

// pop takes the oldest live task from the backlog. s.mu must be held.
func (q *taskQueue) pop(side int) task {
	sd := &q.sides[side]
	if sd.rate > 0 && q.backlogCount(side) > 0 {
		if ok, wait := sd.take(q.ns.st.s.clk.Now()); !ok {
			q.dispatchLater(side, wait)
			return nil
		}
	}
	for len(sd.backlog) > 0 {
		t := sd.backlog[0]
		sd.backlog[0] = nil
		sd.backlog = sd.backlog[1:]
		if t.live() {
			sd.handed++
			return t
		}
	}
	return nil
}

// withdraw takes t out of the backlog (a task answered before any poll
// took it). s.mu must be held.
func (q *taskQueue) withdraw(side int, t task) {
	sd := &q.sides[side]
	sd.backlog = slices.DeleteFunc(sd.backlog, func(x task) bool { return x == t })
}

// backlogCount counts the live tasks waiting. s.mu must be held.
func (q *taskQueue) backlogCount(side int) int64 {
	n := int64(0)
	for _, t := range q.sides[side].backlog {
		if t.live() {
			n++
		}
	}
	return n
}

// poll waits for a task on one side of a queue: it records the poller,
// then takes a task from the backlog or waits for one until the caller's
// deadline (less a margin, so the empty answer arrives in time), the fake
// clock's MaxPollWait, Reset or Close. It hands the task to start, under
// s.mu, and reports whether there was one.
func (s *Server) poll(ctx context.Context, nsName, queueName, identity, key string, side int, meta *orchpb.TaskQueueMetadata, start func(task)) (bool, error) {
	var v violations
	checkName(&v, "task_queue", queueName, true)
	checkName(&v, "identity", identity, false)
	checkName(&v, "worker_instance_key", key, false)
	if r := meta.GetMaxTasksPerSecond(); r != nil && r.GetValue() <= 0 {
		v.add("task_queue_metadata.max_tasks_per_second", "must be positive")
	}
	if err := v.err(); err != nil {
		return false, err
	}
	w, q, gone, got, err := s.enterPoll(nsName, queueName, identity, key, side, meta, start)
	if err != nil || w == nil {
		return got, err
	}
	sd := &q.sides[side]

	pollCtx, cancel := pollContext(ctx)
	defer cancel()
	expired, stop := s.waitCap(ctx)
	defer stop()
	for {
		select {
		case t := <-w.ch:
			if s.takeHanded(sd, w, t, start) {
				return true, nil
			}
			continue // a task withdrawn while on its way: wait again
		case <-pollCtx.Done():
		case <-w.end:
		case <-expired:
		case <-s.done:
		case <-gone:
		}
		return s.leavePoll(ctx, q, sd, w, start), nil
	}
}

// enterPoll records the poller and hands it a task of the backlog at once
// (got), or queues it as a waiter; a poll of a worker instance that was
// shut down gets neither (w nil, got false).
func (s *Server) enterPoll(nsName, queueName, identity, key string, side int, meta *orchpb.TaskQueueMetadata, start func(task)) (w *waiter, q *taskQueue, gone chan struct{}, got bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ns, err := s.st.namespace(nsName)
	if err != nil {
		return nil, nil, nil, false, err
	}
	if err := s.roomForQueue(ns, queueName); err != nil {
		return nil, nil, nil, false, err
	}
	q = ns.queue(queueName)
	q.known = true
	if _, down := q.shutdown[key]; down && key != "" {
		return nil, nil, nil, false, nil
	}
	q.lastPoll = s.clk.Now()
	sd := &q.sides[side]
	sd.pollers[identity] = &orchpb.PollerInfo{LastAccessTime: timestamppb.New(s.clk.Now()), Identity: identity, RatePerSecond: DefaultDispatchRate}
	if r := meta.GetMaxTasksPerSecond(); r != nil {
		sd.rate = r.GetValue()
		sd.pollers[identity].RatePerSecond = r.GetValue()
	}
	if t := q.pop(side); t != nil {
		// A workflow task makes the worker owe its next poll again; an
		// activity taken at once leaves the debt of its workflow pollers
		// as it was (they may be between polls).
		start(t)
		return nil, nil, nil, true, nil
	}
	if side == sideWorkflow {
		// A workflow poll of it waits now: it owes none. An activity poll
		// says nothing of its workflow pollers, which may be between polls.
		delete(ns.owed, key)
	}
	w = &waiter{ch: make(chan task, 1), key: key, end: make(chan struct{})}
	sd.waiters = append(sd.waiters, w)
	return w, q, s.st.gone, false, nil
}

// maxShutdownKeys bounds the worker instance keys a queue remembers.
const maxShutdownKeys = 1000

func (s *Server) shutdownWorker(ctx context.Context, req *orchpb.ShutdownWorkerRequest) (*orchpb.ShutdownWorkerResponse, error) {
	var v violations
	checkName(&v, "task_queue", req.GetTaskQueue(), true)
	checkName(&v, "identity", req.GetIdentity(), false)
	checkName(&v, "worker_instance_key", req.GetWorkerInstanceKey(), true)
	v.check(len(req.GetReason()) <= 4096, "reason", "longer than 4096 bytes")
	if err := v.err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ns, err := s.st.namespace(req.GetNamespace())
	if err != nil {
		return nil, err
	}
	if err := s.roomForQueue(ns, req.GetTaskQueue()); err != nil {
		return nil, err
	}
	q := ns.queue(req.GetTaskQueue())
	now := s.clk.Now()
	if q.shutdown == nil {
		q.shutdown = map[string]time.Time{}
	}
	for k, at := range q.shutdown {
		if now.Sub(at) > PollerTTL || len(q.shutdown) >= maxShutdownKeys {
			delete(q.shutdown, k)
		}
	}
	key := req.GetWorkerInstanceKey()
	q.shutdown[key] = now
	for i := range q.sides {
		q.endPolls(i, key)
	}
	s.stickyWorkerGone(ns, key)
	return &orchpb.ShutdownWorkerResponse{}, nil
}

// endPolls ends the waiting polls of worker instance key on one side: they
// answer empty. s.mu must be held.
func (q *taskQueue) endPolls(side int, key string) {
	sd := &q.sides[side]
	sd.waiters = slices.DeleteFunc(sd.waiters, func(w *waiter) bool {
		if w.key != key {
			return false
		}
		close(w.end)
		return true
	})
}

// endAllPolls ends every waiting poll of q: they answer empty (its
// namespace is gone). s.mu must be held.
func (q *taskQueue) endAllPolls() {
	for i := range q.sides {
		sd := &q.sides[i]
		for _, w := range sd.waiters {
			close(w.end)
		}
		sd.waiters = nil
	}
}

// stickyOwedPoll bounds, in real time, how long time skipping waits for
// a sticky worker that owes a poll (see workerAlive) and makes none: a
// worker whose process died between two polls ends no poll, so no event
// says it is gone. Only that case waits this long; a worker whose poll
// ended because its caller went away is gone at once. It is the window
// Temporal's matching service gives a sticky poller (StickyPollerUnavailable,
// there in real time); a second left too little room for a worker on a
// loaded machine (race detector, two cores) between its answer and its
// next poll.
const stickyOwedPoll = StickyPollerUnavailable

// workerAlive reports whether sticky worker instance key is alive, for
// time skipping: a poll of it waits on one of ns's queues, or it owes one
// (it took a workflow task or a poll of it ended empty at its deadline,
// and no workflow poll of it has waited since) and owed it for less than
// stickyOwedPoll of real time. When it is alive only by the poll it owes,
// skipping looks again once that runs out, should no poll come. s.mu must
// be held.
func (s *Server) workerAlive(ns *namespace, key string) bool {
	if ns.polling(key) {
		return true
	}
	since, ok := ns.owed[key]
	if left := stickyOwedPoll - time.Since(since); ok && left > 0 {
		s.recheckSkipAfter(left)
		return true
	}
	return false
}

// startedByGoneWorker reports, for time skipping, whether a task started
// by worker instance key was handed to a worker that is gone: one with a
// sticky queue (the only workers whose polls the fake follows) that is not
// alive (workerAlive). Such a task, handed over just as its worker died
// (the poll's answer was on its way when its caller left), is never
// answered; the real service times it out, and skipping must let the clock
// reach that timeout rather than wait for it for ever. A task of any other
// worker holds the clock while it is worked on. s.mu must be held.
func (s *Server) startedByGoneWorker(ns *namespace, key string) bool {
	return key != "" && ns.sticky[key] != nil && !s.workerAlive(ns, key)
}

// owesPoll records that worker instance key will poll again: it took a
// workflow task, or its poll ended empty at the deadline. Only sticky
// workers are recorded, so the set is bounded by the sticky queues. s.mu
// must be held.
func (ns *namespace) owesPoll(key string) {
	if ns.sticky[key] == nil {
		return
	}
	if ns.owed == nil {
		ns.owed = map[string]time.Time{}
	}
	ns.owed[key] = time.Now()
}

// polling reports whether worker instance key has a poll waiting on one of
// ns's queues. s.mu must be held.
func (ns *namespace) polling(key string) bool {
	for _, q := range ns.queues {
		for i := range q.sides {
			for _, w := range q.sides[i].waiters {
				if w.key == key {
					return true
				}
			}
		}
	}
	return false
}

// checkQueueKind checks a workflow task poll's task_queue_kind, and makes
// a STICKY poll's queue the sticky queue of its worker instance.
func (s *Server) checkQueueKind(req *orchpb.PollWorkflowTaskQueueRequest) error {
	kind := req.GetTaskQueueKind()
	switch kind {
	case orchpb.TaskQueueKind_TASK_QUEUE_KIND_UNSPECIFIED, orchpb.TaskQueueKind_NORMAL, orchpb.TaskQueueKind_STICKY:
	default:
		return badField("task_queue_kind", "unknown kind %d", kind)
	}
	name, key := req.GetTaskQueue(), req.GetWorkerInstanceKey()
	if kind == orchpb.TaskQueueKind_STICKY && key == "" {
		return badField("worker_instance_key", "required to poll a STICKY task queue")
	}
	var v violations
	checkName(&v, "task_queue", name, true)
	checkName(&v, "worker_instance_key", key, false)
	if err := v.err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ns, err := s.st.namespace(req.GetNamespace())
	if err != nil {
		return err
	}
	q := ns.queues[name]
	if kind != orchpb.TaskQueueKind_STICKY {
		if q != nil && q.stickyKey != "" {
			return badField("task_queue", "%q is a worker's sticky queue: poll it with task_queue_kind STICKY", name)
		}
		return nil
	}
	switch {
	case q != nil && q.stickyKey == "" && q.known:
		return badField("task_queue", "%q is a task queue of the namespace, not a sticky queue", name)
	case q != nil && q.stickyKey != "" && q.stickyKey != key:
		return badField("task_queue", "%q is the sticky queue of another worker instance", name)
	case ns.sticky[key] != nil && ns.sticky[key].name != name:
		return badField("task_queue", "worker instance %q polls sticky queue %q already", key, ns.sticky[key].name)
	}
	if err := s.roomForQueue(ns, name); err != nil {
		return err
	}
	q = ns.queue(name)
	q.stickyKey = key
	if ns.sticky == nil {
		ns.sticky = map[string]*taskQueue{}
	}
	ns.sticky[key] = q
	return nil
}

// stickyWorkerGone forgets worker instance key's sticky queue: its polls
// end, the runs sticky to it are not any more, and the tasks waiting on it
// go to their runs' task queues at once (as Temporal's server does when a
// worker shuts down or ResetStickyTaskQueue is called), with the whole
// history. s.mu must be held.
func (s *Server) stickyWorkerGone(ns *namespace, key string) {
	q := ns.sticky[key]
	if q == nil {
		return
	}
	delete(ns.sticky, key)
	delete(ns.owed, key)
	delete(ns.queues, q.name) // a restarted worker polls a new one: no queue record piles up
	q.endPolls(sideWorkflow, key)
	sd := &q.sides[sideWorkflow]
	backlog := sd.backlog
	sd.backlog = nil
	for _, t := range backlog {
		wt, ok := t.(*workflowTask)
		if !ok || !wt.live() {
			continue
		}
		e := wt.e
		s.cancelTimer(e, wt.stickyTimeout)
		wt.stickyTimeout, wt.onSticky = nil, nil
		e.ns.queue(e.queue).push(sideWorkflow, wt)
	}
	for _, e := range ns.runs {
		if e.eng.sticky == q {
			e.eng.sticky = nil
		}
	}
}

// takeHanded starts a task handed to a waiting poll, unless it was
// withdrawn on its way; then the poll waits again.
func (s *Server) takeHanded(sd *queueSide, w *waiter, t task, start func(task)) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	sd.inFlight--
	if t.live() {
		start(t)
		return true
	}
	sd.waiters = append(sd.waiters, w)
	return false
}

// leavePoll ends a poll that stopped waiting. A task handed over as it
// ended is started after all, unless the caller is gone: then it goes back
// to the queue's front. A poll that ends empty tells time skipping about
// its worker (see workerAlive): one whose caller went away is gone, one
// that reached its deadline polls again.
func (s *Server) leavePoll(ctx context.Context, q *taskQueue, sd *queueSide, w *waiter, start func(task)) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i := slices.Index(sd.waiters, w); i >= 0 {
		sd.waiters = slices.Delete(sd.waiters, i, i+1)
		if context.Cause(ctx) != nil {
			delete(q.ns.owed, w.key)
			s.kickSkip() // nobody may be left to take a sticky task: look again
		} else {
			q.ns.owesPoll(w.key)
		}
		return false
	}
	var t task
	select {
	case t = <-w.ch: // handed under s.mu, so already in the buffer
	default: // ended by ShutdownWorker, which took it off the waiters
		return false
	}
	sd.inFlight--
	if ctx.Err() == nil && t.live() {
		start(t)
		return true
	}
	sd.handed--
	sd.backlog = append([]task{t}, sd.backlog...)
	delete(q.ns.owed, w.key)
	s.kickSkip()
	return false
}

// waitCap bounds a server-side wait (a task poll, a history long poll, a
// query): its channel closes after MaxPollWait on the fake clock, or, for a
// caller who set no deadline, after MaxPollWait of real time, whichever
// comes first, so no call waits for ever even on a clock nobody moves.
func (s *Server) waitCap(ctx context.Context) (<-chan struct{}, func()) {
	expired := make(chan struct{})
	var once sync.Once
	end := func() { once.Do(func() { close(expired) }) }
	timer := s.clk.AfterFunc(MaxPollWait, end)
	var wall *time.Timer
	if _, ok := ctx.Deadline(); !ok {
		wall = time.AfterFunc(MaxPollWait, end)
	}
	return expired, func() {
		timer.Stop()
		if wall != nil {
			wall.Stop()
		}
	}
}

// pollContext ends a poll a little before the caller's deadline, so its
// empty answer reaches the caller before the deadline does.
func pollContext(ctx context.Context) (context.Context, context.CancelFunc) {
	dl, ok := ctx.Deadline()
	if !ok {
		return context.WithCancel(ctx)
	}
	margin := min(500*time.Millisecond, time.Until(dl)/10)
	return context.WithDeadline(ctx, dl.Add(-margin))
}

func taskQueueNotFound(ns, name string) *apiError {
	return errorf(orchwire.TaskQueueNotFound, "Task queue not found: no worker has polled task queue %q in namespace %q", name, ns)
}

// knownQueue finds a queue that was polled or registered. s.mu must be held.
func (s *Server) knownQueue(nsName, name string) (*taskQueue, error) {
	if name == "" {
		return nil, badField("task_queue", "required")
	}
	ns, err := s.st.namespace(nsName)
	if err != nil {
		return nil, err
	}
	q := ns.queues[name]
	if q == nil || !q.known {
		return nil, taskQueueNotFound(nsName, name)
	}
	return q, nil
}

func (s *Server) describeTaskQueue(ctx context.Context, req *orchpb.DescribeTaskQueueRequest) (*orchpb.DescribeTaskQueueResponse, error) {
	side := sideWorkflow
	switch req.GetTaskQueueType() {
	case orchpb.TaskQueueType_TASK_QUEUE_TYPE_UNSPECIFIED, orchpb.TaskQueueType_WORKFLOW:
	case orchpb.TaskQueueType_ACTIVITY:
		side = sideActivity
	default:
		return nil, badField("task_queue_type", "unknown type %d", req.GetTaskQueueType())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	q, err := s.knownQueue(req.GetNamespace(), req.GetTaskQueue())
	if err != nil {
		return nil, err
	}
	sd := &q.sides[side]
	now := s.clk.Now()
	resp := &orchpb.DescribeTaskQueueResponse{}
	ids := make([]string, 0, len(sd.pollers))
	for id, p := range sd.pollers {
		if now.Sub(p.GetLastAccessTime().AsTime()) > PollerTTL {
			delete(sd.pollers, id)
			continue
		}
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		p := sd.pollers[id]
		resp.Pollers = append(resp.Pollers, &orchpb.PollerInfo{LastAccessTime: p.GetLastAccessTime(), Identity: p.GetIdentity(), RatePerSecond: p.GetRatePerSecond()})
	}
	if req.GetIncludeTaskQueueStatus() {
		rate := sd.rate
		if rate == 0 {
			rate = DefaultDispatchRate
		}
		resp.TaskQueueStatus = &orchpb.TaskQueueStatus{
			BacklogCountHint: q.backlogCount(side), ReadLevel: sd.added, AckLevel: sd.handed, RatePerSecond: rate,
		}
	}
	return resp, nil
}

func (s *Server) listPartitions(ctx context.Context, req *orchpb.ListTaskQueuePartitionsRequest) (*orchpb.ListTaskQueuePartitionsResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q, err := s.knownQueue(req.GetNamespace(), req.GetTaskQueue())
	if err != nil {
		return nil, err
	}
	owner := members[3].address()
	return &orchpb.ListTaskQueuePartitionsResponse{
		ActivityTaskQueuePartitions: []*orchpb.TaskQueuePartitionMetadata{{Key: q.name, OwnerHostName: owner}},
		WorkflowTaskQueuePartitions: []*orchpb.TaskQueuePartitionMetadata{{Key: q.name, OwnerHostName: owner}},
	}, nil
}

func (s *Server) registerWorker(ctx context.Context, req *orchpb.RegisterWorkerRequest) (*orchpb.RegisterWorkerResponse, error) {
	var v violations
	checkName(&v, "task_queue", req.GetTaskQueue(), true)
	checkName(&v, "identity", req.GetIdentity(), false)
	for i, t := range req.GetWorkflowTypes() {
		v.check(t != "" && len(t) <= MaxIDLength, "workflow_types", "entry %d: empty or longer than %d bytes", i, MaxIDLength)
	}
	for i, t := range req.GetActivityTypes() {
		v.check(t != "" && len(t) <= MaxIDLength, "activity_types", "entry %d: empty or longer than %d bytes", i, MaxIDLength)
	}
	if err := v.err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ns, err := s.st.namespace(req.GetNamespace())
	if err != nil {
		return nil, err
	}
	if err := s.roomForQueue(ns, req.GetTaskQueue()); err != nil {
		return nil, err
	}
	q := ns.queue(req.GetTaskQueue())
	q.known = true
	for _, t := range req.GetWorkflowTypes() {
		q.workflowTypes[t] = true
	}
	for _, t := range req.GetActivityTypes() {
		q.activityTypes[t] = true
	}
	return &orchpb.RegisterWorkerResponse{}, nil
}
