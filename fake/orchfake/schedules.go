package orchfake

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/orchfake/internal/visibility"
	"github.com/apitwin/apitwin/internal/cron"
	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// Schedule bounds and defaults (see doc.go).
const (
	// MaxSchedulesPerNamespace bounds the schedules of one namespace.
	MaxSchedulesPerNamespace = 1000
	// MaxScheduleSpecItems bounds each list of a spec (calendars, cron
	// strings, intervals, excluded calendars) and each field's ranges.
	MaxScheduleSpecItems = 100
	// MaxBackfillActions bounds the actions one patch's backfills may
	// take together; a larger range is INVALID_ARGUMENT.
	MaxBackfillActions = 1000
	// MaxScheduleBuffer bounds the actions waiting for a running workflow,
	// as Temporal's 1,000; one more is dropped (buffer_dropped).
	MaxScheduleBuffer = 1000
	// DefaultCatchupWindow is the catch-up window when the policies give
	// none; MinCatchupWindow is the least one may give.
	DefaultCatchupWindow = 365 * 24 * time.Hour
	MinCatchupWindow     = 10 * time.Second
	// scheduleRecent and scheduleFuture are how many recent actions and
	// future action times a describe or list shows.
	scheduleRecent = 10
	scheduleFuture = 10
	// scheduleIdentity is the identity of the starts a schedule makes.
	scheduleIdentity = "orch-scheduler"
)

// The search attributes a schedule's runs carry: the schedule's id and
// the action's nominal time. Temporal names them TemporalScheduledById
// and TemporalScheduledStartTime; the specification names none, so these
// are the fake's, system attributes (set by the service only).
const (
	AttrScheduledByID      = visibility.AttrScheduledByID
	AttrScheduledStartTime = visibility.AttrScheduledStartTime
)

// schedule is one schedule of a namespace. s.mu guards it.
type schedule struct {
	ns        *namespace
	id        string
	def       *orchpb.Schedule // as created or last updated, state included
	memo      *orchpb.Memo
	search    *orchpb.SearchAttributes
	spec      *scheduleSpec
	created   time.Time
	updated   time.Time
	token     uint64          // the conflict token: bumped by every change of def
	requests  map[string]bool // request ids of creates and patches applied
	cursor    time.Time       // nominal times up to this one are processed
	timer     *clock.Timer
	buffer    []bufferedStart
	running   []*execution // the runs started and maybe still open (their chains)
	recent    []*orchpb.ScheduleActionResult
	actions   int64
	missed    int64
	skipped   int64
	dropped   int64
	canceling map[*execution]bool // running runs asked to cancel by CANCEL_OTHER
	busy      bool                // processing: a run closing meanwhile asks again
	again     bool
}

// bufferedStart is an action waiting to be taken.
type bufferedStart struct {
	nominal, actual time.Time
	policy          orchpb.ScheduleOverlapPolicy // unspecified: the schedule's at the time
	manual          bool                         // a trigger or backfill
}

// scheduleSpec is a spec read and checked once.
type scheduleSpec struct {
	key        string // namespace and schedule id, the jitter's seed
	calendars  []*cron.Schedule
	intervals  []interval
	excludes   []*cron.Schedule
	start, end time.Time
	jitter     time.Duration
}

type interval struct{ every, phase time.Duration }

// nextNominal is the first nominal time strictly after t; zero when none.
func (sp *scheduleSpec) nextNominal(t time.Time) time.Time {
	if !sp.start.IsZero() && t.Before(sp.start) {
		t = sp.start.Add(-time.Nanosecond)
	}
	for range 10000 { // excluded times are skipped, a bounded number of them
		var best time.Time
		for _, c := range sp.calendars {
			if n := c.Next(t); !n.IsZero() && (best.IsZero() || n.Before(best)) {
				best = n
			}
		}
		for _, iv := range sp.intervals {
			k := t.Add(-iv.phase).UnixNano()
			n := k/int64(iv.every) + 1
			if k < 0 && k%int64(iv.every) != 0 {
				n--
			}
			if at := time.Unix(0, n*int64(iv.every)).Add(iv.phase).UTC(); best.IsZero() || at.Before(best) {
				best = at
			}
		}
		if best.IsZero() || (!sp.end.IsZero() && best.After(sp.end)) {
			return time.Time{}
		}
		if !slices.ContainsFunc(sp.excludes, func(c *cron.Schedule) bool { return c.Matches(best) }) {
			return best
		}
		t = best
	}
	return time.Time{}
}

// actual is when the action of nominal time n is taken: n plus a jitter
// that is the same for the same schedule and time (an FNV-1a hash of
// them), so tests are stable, never past the next nominal time.
func (sp *scheduleSpec) actual(n time.Time) time.Time {
	if sp.jitter <= 0 {
		return n
	}
	limit := sp.jitter
	if next := sp.nextNominal(n); !next.IsZero() && next.Sub(n) < limit {
		limit = next.Sub(n)
	}
	h := fnv.New64a()
	h.Write([]byte(sp.key))
	h.Write(binary.BigEndian.AppendUint64(nil, uint64(n.UnixNano())))
	return n.Add(time.Duration(h.Sum64() % uint64(limit)))
}

// compileSpec checks a spec and reads it; the violations name the fields.
func compileSpec(v *violations, key string, spec *orchpb.ScheduleSpec) *scheduleSpec {
	sp := &scheduleSpec{key: key}
	field := "schedule.spec."
	calendars := func(name string, list []*orchpb.StructuredCalendarSpec) []*cron.Schedule {
		var out []*cron.Schedule
		v.check(len(list) <= MaxScheduleSpecItems, field+name, "more than %d calendars", MaxScheduleSpecItems)
		for i, c := range list {
			f := field + name + "[" + strconv.Itoa(i) + "]"
			if len(c.GetComment()) > MaxIDLength {
				v.add(f+".comment", "longer than %d bytes", MaxIDLength)
			}
			ranges := func(name string, rs []*orchpb.Range) []cron.Range {
				v.check(len(rs) <= MaxScheduleSpecItems, f+"."+name, "more than %d ranges", MaxScheduleSpecItems)
				out := make([]cron.Range, 0, len(rs))
				for _, r := range rs {
					out = append(out, cron.Range{Start: int(r.GetStart()), End: int(r.GetEnd()), Step: int(r.GetStep())})
				}
				return out
			}
			sch, err := cron.NewCalendar(cron.Calendar{
				Second: ranges("second", c.GetSecond()), Minute: ranges("minute", c.GetMinute()), Hour: ranges("hour", c.GetHour()),
				DayOfMonth: ranges("day_of_month", c.GetDayOfMonth()), Month: ranges("month", c.GetMonth()),
				Year: ranges("year", c.GetYear()), DayOfWeek: ranges("day_of_week", c.GetDayOfWeek()),
			})
			if err != nil {
				v.add(f, "%v", err)
				continue
			}
			out = append(out, sch)
		}
		return out
	}
	sp.calendars = calendars("structured_calendar", spec.GetStructuredCalendar())
	sp.excludes = calendars("exclude_structured_calendar", spec.GetExcludeStructuredCalendar())
	v.check(len(spec.GetCronString()) <= MaxScheduleSpecItems, field+"cron_string", "more than %d cron strings", MaxScheduleSpecItems)
	for i, line := range spec.GetCronString() {
		sch, err := cron.Parse(line)
		if err != nil {
			v.add(field+"cron_string["+strconv.Itoa(i)+"]", "%v", err)
			continue
		}
		sp.calendars = append(sp.calendars, sch)
	}
	v.check(len(spec.GetInterval()) <= MaxScheduleSpecItems, field+"interval", "more than %d intervals", MaxScheduleSpecItems)
	for i, iv := range spec.GetInterval() {
		f := field + "interval[" + strconv.Itoa(i) + "]"
		checkDuration(v, f+".interval", iv.GetInterval())
		checkDuration(v, f+".phase", iv.GetPhase())
		every, phase := iv.GetInterval().AsDuration(), iv.GetPhase().AsDuration()
		switch {
		case every < time.Second:
			v.add(f+".interval", "must be at least 1s")
		case phase < 0 || phase >= every:
			v.add(f+".phase", "must be at least 0 and less than the interval")
		default:
			sp.intervals = append(sp.intervals, interval{every: every, phase: phase})
		}
	}
	if t := spec.GetStartTime(); t != nil {
		v.check(t.IsValid(), field+"start_time", "not a valid time")
		sp.start = t.AsTime()
	}
	if t := spec.GetEndTime(); t != nil {
		v.check(t.IsValid(), field+"end_time", "not a valid time")
		sp.end = t.AsTime()
		v.check(sp.start.IsZero() || !sp.end.Before(sp.start), field+"end_time", "before start_time")
	}
	checkDuration(v, field+"jitter", spec.GetJitter())
	sp.jitter = spec.GetJitter().AsDuration()
	return sp
}

// checkSchedule checks a schedule definition and reads its spec.
func checkSchedule(v *violations, ns *namespace, id string, def *orchpb.Schedule) *scheduleSpec {
	if def == nil {
		v.add("schedule", "required")
		return nil
	}
	sp := compileSpec(v, ns.info.Name+"\x00"+id, def.GetSpec())
	sw := def.GetAction().GetStartWorkflow()
	if sw == nil {
		v.add("schedule.action.start_workflow", "required")
	} else {
		// The start the action makes, checked as a start is, with the
		// longest workflow id a nominal time gives.
		checkName(v, "schedule.action.start_workflow.workflow_id", sw.GetWorkflowId(), true)
		req := startRequest(ns.info.Name, sw, time.Date(2006, 1, 2, 15, 4, 5, 0, time.UTC))
		if _, err := validateStart(req, ns); err != nil {
			if ae, ok := err.(*apiError); ok {
				for _, d := range ae.details {
					if d.Field != "workflow_id" || sw.GetWorkflowId() != "" {
						v.add("schedule.action.start_workflow."+d.Field, "%s", d.Description)
					}
				}
			}
		}
	}
	p := def.GetPolicies()
	if _, ok := orchpb.ScheduleOverlapPolicy_name[int32(p.GetOverlapPolicy())]; !ok {
		v.add("schedule.policies.overlap_policy", "unknown policy %d", p.GetOverlapPolicy())
	}
	if cw := p.GetCatchupWindow(); cw != nil {
		checkDuration(v, "schedule.policies.catchup_window", cw)
		v.check(cw.AsDuration() >= MinCatchupWindow, "schedule.policies.catchup_window", "at least %s", MinCatchupWindow)
	}
	st := def.GetState()
	v.check(len(st.GetNotes()) <= MaxIDLength, "schedule.state.notes", "longer than %d bytes", MaxIDLength)
	v.check(st.GetRemainingActions() >= 0, "schedule.state.remaining_actions", "must not be negative")
	return sp
}

// startRequest is the start an action of nominal time n makes.
func startRequest(ns string, sw *orchpb.NewWorkflowExecutionInfo, n time.Time) *orchpb.StartWorkflowExecutionRequest {
	return &orchpb.StartWorkflowExecutionRequest{
		Namespace: ns, WorkflowId: sw.GetWorkflowId() + "-" + n.UTC().Format(time.RFC3339),
		WorkflowType: sw.GetWorkflowType(), TaskQueue: sw.GetTaskQueue(), Input: sw.GetInput(),
		WorkflowExecutionTimeout: sw.GetWorkflowExecutionTimeout(), WorkflowRunTimeout: sw.GetWorkflowRunTimeout(),
		WorkflowTaskTimeout: sw.GetWorkflowTaskTimeout(), Identity: scheduleIdentity,
		WorkflowIdReusePolicy: sw.GetWorkflowIdReusePolicy(), RetryPolicy: sw.GetRetryPolicy(),
		Memo: sw.GetMemo(), SearchAttributes: sw.GetSearchAttributes(), Header: sw.GetHeader(),
	}
}

func checkScheduleID(v *violations, id string) {
	checkName(v, "schedule_id", id, true)
}

// lookupSchedule finds a schedule. s.mu must be held.
func (s *Server) lookupSchedule(nsName, id string) (*schedule, error) {
	ns, err := s.st.namespace(nsName)
	if err != nil {
		return nil, err
	}
	if id == "" {
		return nil, badField("schedule_id", "required")
	}
	sc := ns.schedules[id]
	if sc == nil {
		return nil, errorf(orchwire.NotFound, "schedule not found: schedule_id %q", id)
	}
	return sc, nil
}

func (s *Server) createSchedule(ctx context.Context, req *orchpb.CreateScheduleRequest) (*orchpb.CreateScheduleResponse, error) {
	var v violations
	checkScheduleID(&v, req.GetScheduleId())
	checkName(&v, "identity", req.GetIdentity(), false)
	checkName(&v, "request_id", req.GetRequestId(), false)
	if err := v.err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ns, err := s.st.namespace(req.GetNamespace())
	if err != nil {
		return nil, err
	}
	if sc := ns.schedules[req.GetScheduleId()]; sc != nil {
		if rid := req.GetRequestId(); rid != "" && sc.requests[rid] {
			return &orchpb.CreateScheduleResponse{ConflictToken: sc.conflictToken()}, nil
		}
		return nil, errorf(orchwire.AlreadyExists, "schedule already exists: schedule_id %q", req.GetScheduleId())
	}
	sp := checkSchedule(&v, ns, req.GetScheduleId(), req.GetSchedule())
	searchValues(&v, ns, req.GetSearchAttributes())
	now := s.clk.Now()
	patchActions := checkPatch(&v, "initial_patch", req.GetInitialPatch(), sp)
	if err := v.err(); err != nil {
		return nil, err
	}
	if len(ns.schedules) >= MaxSchedulesPerNamespace {
		return nil, &apiError{code: orchwire.ResourceExhausted,
			msg: "namespace " + strconv.Quote(ns.info.Name) + " holds " + strconv.Itoa(MaxSchedulesPerNamespace) + " schedules, the most it may; delete one first"}
	}
	def := kept(req.GetSchedule())
	sc := &schedule{ns: ns, id: req.GetScheduleId(), def: def, spec: sp, created: now, cursor: now, token: 1,
		requests: map[string]bool{}}
	if m := req.GetMemo(); m != nil {
		sc.memo = proto.Clone(m).(*orchpb.Memo)
	}
	if sa := req.GetSearchAttributes(); len(sa.GetIndexedFields()) > 0 {
		sc.search = proto.Clone(sa).(*orchpb.SearchAttributes)
	}
	if rid := req.GetRequestId(); rid != "" {
		sc.requests[rid] = true
	}
	if ns.schedules == nil {
		ns.schedules = map[string]*schedule{}
	}
	ns.schedules[sc.id] = sc
	s.applyPatch(sc, req.GetInitialPatch(), patchActions)
	s.armSchedule(sc)
	return &orchpb.CreateScheduleResponse{ConflictToken: sc.conflictToken()}, nil
}

// kept is a copy of a schedule as the fake keeps it: with policies and a
// state, which it changes (pause, remaining actions).
func kept(sch *orchpb.Schedule) *orchpb.Schedule {
	def := proto.Clone(sch).(*orchpb.Schedule)
	if def.Policies == nil {
		def.Policies = &orchpb.SchedulePolicies{}
	}
	if def.State == nil {
		def.State = &orchpb.ScheduleState{}
	}
	return def
}

func (sc *schedule) conflictToken() []byte { return binary.BigEndian.AppendUint64(nil, sc.token) }

func (s *Server) describeSchedule(ctx context.Context, req *orchpb.DescribeScheduleRequest) (*orchpb.DescribeScheduleResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sc, err := s.lookupSchedule(req.GetNamespace(), req.GetScheduleId())
	if err != nil {
		return nil, err
	}
	sc.prune()
	info := &orchpb.ScheduleInfo{
		ActionCount: sc.actions, MissedCatchupWindow: sc.missed, OverlapSkipped: sc.skipped,
		BufferDropped: sc.dropped, BufferSize: int64(len(sc.buffer)),
		RecentActions: sc.recentActions(), FutureActionTimes: sc.futureTimes(),
		CreateTime: timestamppb.New(sc.created),
	}
	for _, e := range sc.running {
		info.RunningWorkflows = append(info.RunningWorkflows, &orchpb.WorkflowExecution{WorkflowId: e.id, RunId: e.runID})
	}
	if !sc.updated.IsZero() {
		info.UpdateTime = timestamppb.New(sc.updated)
	}
	resp := &orchpb.DescribeScheduleResponse{Schedule: proto.Clone(sc.def).(*orchpb.Schedule), Info: info, ConflictToken: sc.conflictToken()}
	if sc.memo != nil {
		resp.Memo = proto.Clone(sc.memo).(*orchpb.Memo)
	}
	if sc.search != nil {
		resp.SearchAttributes = proto.Clone(sc.search).(*orchpb.SearchAttributes)
	}
	return resp, nil
}

func (s *Server) updateSchedule(ctx context.Context, req *orchpb.UpdateScheduleRequest) (*orchpb.UpdateScheduleResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sc, repeated, err := s.scheduleToChange(req.GetNamespace(), req.GetScheduleId(), req.GetIdentity(), req.GetRequestId())
	if err != nil || repeated {
		return &orchpb.UpdateScheduleResponse{}, err
	}
	var v violations
	sp := checkSchedule(&v, sc.ns, sc.id, req.GetSchedule())
	if req.GetSearchAttributes() != nil {
		searchValues(&v, sc.ns, req.GetSearchAttributes())
	}
	if err := v.err(); err != nil {
		return nil, err
	}
	if tok := req.GetConflictToken(); len(tok) > 0 && !bytes.Equal(tok, sc.conflictToken()) {
		return nil, errorf(orchwire.FailedPrecondition, "mismatched conflict token: the schedule changed since it was described")
	}
	now := s.clk.Now()
	def := kept(req.GetSchedule())
	sc.def, sc.spec, sc.updated = def, sp, now
	sc.cursor = now // the new spec runs from now on, as Temporal's does
	sc.token++
	if sa := req.GetSearchAttributes(); sa != nil {
		sc.search = nil
		if len(sa.GetIndexedFields()) > 0 {
			sc.search = proto.Clone(sa).(*orchpb.SearchAttributes)
		}
	}
	if rid := req.GetRequestId(); rid != "" {
		sc.requests[rid] = true
	}
	s.processBuffer(sc) // a new overlap policy may free what waits
	s.armSchedule(sc)
	return &orchpb.UpdateScheduleResponse{}, nil
}

// scheduleToChange checks an update's or patch's identity and request id
// and finds its schedule; repeated says the request id was applied
// already. s.mu must be held.
func (s *Server) scheduleToChange(ns, id, identity, requestID string) (sc *schedule, repeated bool, err error) {
	var v violations
	checkName(&v, "identity", identity, false)
	checkName(&v, "request_id", requestID, false)
	if err := v.err(); err != nil {
		return nil, false, err
	}
	if sc, err = s.lookupSchedule(ns, id); err != nil {
		return nil, false, err
	}
	return sc, requestID != "" && sc.requests[requestID], nil
}

// checkPatch checks a patch and returns the backfills' actions.
func checkPatch(v *violations, field string, p *orchpb.SchedulePatch, sp *scheduleSpec) []bufferedStart {
	if p == nil {
		return nil
	}
	v.check(len(p.GetPause()) <= MaxIDLength, field+".pause", "longer than %d bytes", MaxIDLength)
	v.check(len(p.GetUnpause()) <= MaxIDLength, field+".unpause", "longer than %d bytes", MaxIDLength)
	v.check(p.GetPause() == "" || p.GetUnpause() == "", field, "pause and unpause at once")
	if tr := p.GetTriggerImmediately(); tr != nil {
		if _, ok := orchpb.ScheduleOverlapPolicy_name[int32(tr.GetOverlapPolicy())]; !ok {
			v.add(field+".trigger_immediately.overlap_policy", "unknown policy %d", tr.GetOverlapPolicy())
		}
	}
	if sp == nil {
		return nil
	}
	var out []bufferedStart
	for i, b := range p.GetBackfillRequest() {
		f := field + ".backfill_request[" + strconv.Itoa(i) + "]"
		if _, ok := orchpb.ScheduleOverlapPolicy_name[int32(b.GetOverlapPolicy())]; !ok {
			v.add(f+".overlap_policy", "unknown policy %d", b.GetOverlapPolicy())
		}
		if b.GetStartTime() == nil || b.GetEndTime() == nil || !b.GetStartTime().IsValid() || !b.GetEndTime().IsValid() {
			v.add(f, "start_time and end_time are required")
			continue
		}
		from, to := b.GetStartTime().AsTime(), b.GetEndTime().AsTime()
		if to.Before(from) {
			v.add(f+".end_time", "before start_time")
			continue
		}
		for n := sp.nextNominal(from.Add(-time.Nanosecond)); !n.IsZero() && !n.After(to); n = sp.nextNominal(n) {
			if len(out) == MaxBackfillActions {
				v.add(f, "the backfills would take more than %d actions; backfill a shorter range", MaxBackfillActions)
				return nil
			}
			out = append(out, bufferedStart{nominal: n, policy: b.GetOverlapPolicy(), manual: true})
		}
	}
	return out
}

func (s *Server) patchSchedule(ctx context.Context, req *orchpb.PatchScheduleRequest) (*orchpb.PatchScheduleResponse, error) {
	if req.GetPatch() == nil {
		return nil, badField("patch", "required")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sc, repeated, err := s.scheduleToChange(req.GetNamespace(), req.GetScheduleId(), req.GetIdentity(), req.GetRequestId())
	if err != nil || repeated {
		return &orchpb.PatchScheduleResponse{}, err
	}
	var v violations
	backfills := checkPatch(&v, "patch", req.GetPatch(), sc.spec)
	if err := v.err(); err != nil {
		return nil, err
	}
	if rid := req.GetRequestId(); rid != "" {
		sc.requests[rid] = true
	}
	s.applyPatch(sc, req.GetPatch(), backfills)
	s.armSchedule(sc)
	return &orchpb.PatchScheduleResponse{}, nil
}

// applyPatch pauses or unpauses, then triggers, then backfills. s.mu must
// be held.
func (s *Server) applyPatch(sc *schedule, p *orchpb.SchedulePatch, backfills []bufferedStart) {
	if p == nil {
		return
	}
	now := s.clk.Now()
	switch {
	case p.GetPause() != "":
		sc.def.State.Paused, sc.def.State.Notes = true, p.GetPause()
		sc.token++
	case p.GetUnpause() != "":
		sc.def.State.Paused, sc.def.State.Notes = false, p.GetUnpause()
		sc.cursor = now // the paused times are not caught up
		sc.token++
	}
	if tr := p.GetTriggerImmediately(); tr != nil {
		sc.enqueue(bufferedStart{nominal: now.Truncate(time.Second), actual: now, policy: tr.GetOverlapPolicy(), manual: true})
	}
	for _, b := range backfills {
		b.actual = now
		sc.enqueue(b)
	}
	s.processBuffer(sc)
}

func (s *Server) deleteSchedule(ctx context.Context, req *orchpb.DeleteScheduleRequest) (*orchpb.DeleteScheduleResponse, error) {
	var v violations
	checkName(&v, "identity", req.GetIdentity(), false)
	if err := v.err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sc, err := s.lookupSchedule(req.GetNamespace(), req.GetScheduleId())
	if err != nil {
		return nil, err
	}
	sc.stop()
	delete(sc.ns.schedules, sc.id)
	return &orchpb.DeleteScheduleResponse{}, nil
}

func (s *Server) listSchedules(ctx context.Context, req *orchpb.ListSchedulesRequest) (*orchpb.ListSchedulesResponse, error) {
	size, err := pageSize(req.GetMaximumPageSize(), 100, 1000, "maximum_page_size")
	if err != nil {
		return nil, err
	}
	after := ""
	if tok := req.GetNextPageToken(); len(tok) > 0 {
		p, ok := unseal(tagSchedules, tok)
		if !ok || len(p) == 0 {
			return nil, badToken()
		}
		after = string(p)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ns, err := s.st.namespace(req.GetNamespace())
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(ns.schedules))
	for id := range ns.schedules {
		if id > after {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	resp := &orchpb.ListSchedulesResponse{}
	if len(ids) > size {
		ids = ids[:size]
		resp.NextPageToken = seal(tagSchedules, []byte(ids[len(ids)-1]))
	}
	for _, id := range ids {
		sc := ns.schedules[id]
		sc.prune()
		entry := &orchpb.ScheduleListEntry{ScheduleId: id, Info: &orchpb.ScheduleListInfo{
			Spec: proto.Clone(sc.def.GetSpec()).(*orchpb.ScheduleSpec), WorkflowType: proto.Clone(sc.def.GetAction().GetStartWorkflow().GetWorkflowType()).(*orchpb.WorkflowType),
			Notes: sc.def.GetState().GetNotes(), Paused: sc.def.GetState().GetPaused(),
			RecentActions: sc.recentActions(), FutureActionTimes: sc.futureTimes(),
		}}
		if entry.Info.Spec == nil {
			entry.Info.Spec = &orchpb.ScheduleSpec{}
		}
		if sc.memo != nil {
			entry.Memo = proto.Clone(sc.memo).(*orchpb.Memo)
		}
		if sc.search != nil {
			entry.SearchAttributes = proto.Clone(sc.search).(*orchpb.SearchAttributes)
		}
		resp.Schedules = append(resp.Schedules, entry)
	}
	return resp, nil
}

// recentActions is the last actions with their runs' status now.
func (sc *schedule) recentActions() []*orchpb.ScheduleActionResult {
	out := make([]*orchpb.ScheduleActionResult, 0, len(sc.recent))
	for _, r := range sc.recent {
		r = proto.Clone(r).(*orchpb.ScheduleActionResult)
		if e := sc.ns.runs[r.GetStartWorkflowResult().GetRunId()]; e != nil {
			r.StartWorkflowStatus = e.wf.latest().status // the chain's: retries and continue-as-new followed
		}
		out = append(out, r)
	}
	return out
}

// futureTimes is when the next actions will be taken (jitter included).
func (sc *schedule) futureTimes() []*timestamppb.Timestamp {
	n := scheduleFuture
	if st := sc.def.GetState(); st.GetLimitedActions() {
		n = int(min(int64(n), st.GetRemainingActions()))
	}
	var out []*timestamppb.Timestamp
	for t := sc.cursor; len(out) < n; {
		t = sc.spec.nextNominal(t)
		if t.IsZero() {
			break
		}
		out = append(out, timestamppb.New(sc.spec.actual(t)))
	}
	return out
}

// armSchedule sets the schedule's timer to its next action's time. s.mu
// must be held.
func (s *Server) armSchedule(sc *schedule) {
	sc.stopTimer()
	if sc.ns.schedules[sc.id] != sc || s.st.schedulerDown {
		return
	}
	n := sc.spec.nextNominal(sc.cursor)
	if n.IsZero() {
		return
	}
	d := sc.spec.actual(n).Sub(s.clk.Now())
	var t *clock.Timer
	t = s.afterFunc(d, func() {
		if sc.timer != t { // stopped, or replaced, while it waited to fire
			return
		}
		sc.timer = nil
		s.runDue(sc)
		s.armSchedule(sc)
	})
	sc.timer = t
}

// runDue takes the actions due by now: those older than the catch-up
// window are counted missed, those while paused (or past the limited
// actions) are passed over. s.mu must be held.
func (s *Server) runDue(sc *schedule) {
	now := s.clk.Now()
	window := DefaultCatchupWindow
	if cw := sc.def.GetPolicies().GetCatchupWindow(); cw != nil {
		window = cw.AsDuration()
	}
	st := sc.def.GetState()
	for {
		n := sc.spec.nextNominal(sc.cursor)
		if n.IsZero() {
			break
		}
		at := sc.spec.actual(n)
		if at.After(now) {
			break
		}
		sc.cursor = n
		switch {
		case st.GetPaused() || (st.GetLimitedActions() && st.GetRemainingActions() <= 0):
		case now.Sub(at) > window:
			sc.missed++
		default:
			if st.GetLimitedActions() {
				st.RemainingActions--
			}
			sc.enqueue(bufferedStart{nominal: n, actual: at})
		}
	}
	s.processBuffer(sc)
}

// enqueue buffers an action, or drops it when the buffer is full.
func (sc *schedule) enqueue(b bufferedStart) {
	if len(sc.buffer) >= MaxScheduleBuffer {
		sc.dropped++
		return
	}
	sc.buffer = append(sc.buffer, b)
}

// prune forgets the runs whose chain has closed.
func (sc *schedule) prune() {
	sc.running = slices.DeleteFunc(sc.running, func(e *execution) bool { return !e.wf.latest().open() })
}

// processBuffer takes what the buffer allows now, as Temporal's
// scheduler does: ALLOW_ALL starts whatever runs; otherwise one action
// starts when nothing of the schedule runs, and an action that overlaps a
// running workflow is skipped (SKIP; BUFFER_ONE past the first waiting),
// waits (BUFFER_ONE, BUFFER_ALL), or waits while the running workflow is
// asked to cancel (CANCEL_OTHER) or is terminated (TERMINATE_OTHER).
// s.mu must be held.
func (s *Server) processBuffer(sc *schedule) {
	if sc.busy { // a run closed while this schedule was starting or ending runs
		sc.again = true
		return
	}
	sc.busy = true
	defer func() { sc.busy = false }()
	for range MaxScheduleBuffer + 2 {
		sc.again = false
		sc.prune()
		running := len(sc.running) > 0
		var (
			keep            []bufferedStart
			now             *bufferedStart
			all             []bufferedStart
			cancel, killRun bool
		)
		for i := range sc.buffer {
			b := sc.buffer[i]
			policy := b.policy
			if policy == orchpb.ScheduleOverlapPolicy_SCHEDULE_OVERLAP_POLICY_UNSPECIFIED {
				policy = sc.def.GetPolicies().GetOverlapPolicy()
			}
			if policy == orchpb.ScheduleOverlapPolicy_SCHEDULE_OVERLAP_POLICY_ALLOW_ALL {
				all = append(all, b)
				continue
			}
			if !running && now == nil {
				now = &b
				continue
			}
			switch policy {
			case orchpb.ScheduleOverlapPolicy_SCHEDULE_OVERLAP_POLICY_BUFFER_ONE:
				if len(keep) == 0 {
					keep = append(keep, b)
				} else {
					sc.skipped++
				}
			case orchpb.ScheduleOverlapPolicy_SCHEDULE_OVERLAP_POLICY_BUFFER_ALL:
				keep = append(keep, b)
			case orchpb.ScheduleOverlapPolicy_SCHEDULE_OVERLAP_POLICY_CANCEL_OTHER, orchpb.ScheduleOverlapPolicy_SCHEDULE_OVERLAP_POLICY_TERMINATE_OTHER:
				if !running {
					now = &b // the one to start is replaced by the newer one
					continue
				}
				cancel = cancel || policy == orchpb.ScheduleOverlapPolicy_SCHEDULE_OVERLAP_POLICY_CANCEL_OTHER
				killRun = killRun || policy == orchpb.ScheduleOverlapPolicy_SCHEDULE_OVERLAP_POLICY_TERMINATE_OTHER
				keep = append(keep, b)
			default: // SKIP, and unspecified
				sc.skipped++
			}
		}
		if cancel || killRun {
			all = nil // they would be canceled or terminated at once
		}
		sc.buffer = keep
		for _, b := range all {
			s.takeAction(sc, b)
		}
		if now != nil {
			s.takeAction(sc, *now)
		}
		switch {
		case killRun:
			for _, e := range slices.Clone(sc.running) {
				if cur := e.wf.latest(); cur.open() {
					s.terminateLocked(cur, "terminated by schedule "+sc.id+" (overlap policy TERMINATE_OTHER)", nil, scheduleIdentity)
				}
			}
			continue // what waited may start now
		case cancel:
			for _, e := range sc.running {
				if cur := e.wf.latest(); cur.open() && !sc.canceling[cur] {
					if sc.canceling == nil {
						sc.canceling = map[*execution]bool{}
					}
					sc.canceling[cur] = true
					if s.historyFull(cur) == nil {
						s.cancelRequested(cur, &orchpb.WorkflowExecutionCancelRequestedEventAttributes{
							Cause: "canceled by schedule " + sc.id + " (overlap policy CANCEL_OTHER)", Identity: scheduleIdentity})
					}
				}
			}
		}
		if !sc.again {
			return
		}
	}
}

// takeAction starts the action's workflow. A start the service refuses
// (its id in use, a limit, no room) is not an action and not retried.
// s.mu must be held.
func (s *Server) takeAction(sc *schedule, b bufferedStart) {
	sw := sc.def.GetAction().GetStartWorkflow()
	req := startRequest(sc.ns.info.Name, sw, b.nominal)
	e, started, err := s.startLocked(req, true)
	if err != nil || !started {
		return
	}
	// The run's system search attributes: who scheduled it and when.
	byID, _ := orch.EncodePayload(sc.id)
	startTime, _ := orch.EncodePayload(b.nominal.UTC().Format(time.RFC3339Nano))
	e.mergeSearch(map[string]*orchpb.Payload{AttrScheduledByID: byID, AttrScheduledStartTime: startTime},
		map[string]visibility.Value{AttrScheduledByID: visibility.StringValue(sc.id), AttrScheduledStartTime: visibility.TimeValue(b.nominal)})
	if sc.ns.scheduled == nil {
		sc.ns.scheduled = map[*workflow]*schedule{}
	}
	sc.ns.scheduled[e.wf] = sc
	sc.running = append(sc.running, e)
	sc.actions++
	sc.recent = append(sc.recent, &orchpb.ScheduleActionResult{
		ScheduleTime: timestamppb.New(b.nominal), ActualTime: timestamppb.New(s.clk.Now()),
		StartWorkflowResult: &orchpb.WorkflowExecution{WorkflowId: e.id, RunId: e.runID},
	})
	if len(sc.recent) > scheduleRecent {
		sc.recent = slices.Delete(sc.recent, 0, len(sc.recent)-scheduleRecent)
	}
}

// scheduledRunClosed tells the schedule that started e's chain that it
// closed: pause_on_failure may pause it, and what waited may start.
// s.mu must be held.
func (s *Server) scheduledRunClosed(e *execution) {
	sc := e.ns.scheduled[e.wf]
	if sc == nil {
		return
	}
	delete(e.ns.scheduled, e.wf)
	delete(sc.canceling, e)
	if sc.ns.schedules[sc.id] != sc {
		return // deleted
	}
	if (e.status == orchpb.WorkflowExecutionStatus_FAILED || e.status == orchpb.WorkflowExecutionStatus_TIMED_OUT) &&
		sc.def.GetPolicies().GetPauseOnFailure() && !sc.def.GetState().GetPaused() {
		sc.def.State.Paused = true
		sc.def.State.Notes = "paused: workflow " + e.id + " " + strings.ToLower(statusName(e.status))
		sc.token++
	}
	s.processBuffer(sc)
}

// stopTimer stops the timer of the schedule's next action, if armed.
func (sc *schedule) stopTimer() {
	if sc.timer != nil {
		sc.timer.Stop()
		sc.timer = nil
	}
}

// stop stops the schedule's timer (at delete, Reset and Close).
func (sc *schedule) stop() {
	sc.stopTimer()
	for wf, owner := range sc.ns.scheduled {
		if owner == sc {
			delete(sc.ns.scheduled, wf)
		}
	}
}

// SchedulerOutage runs fn (which moves the clock: Advance, Set) with the
// schedules' timers stopped, as if the service's scheduler were down, and
// then lets every schedule catch up: the actions due meanwhile are taken
// at once when they are within the schedule's catch-up window and counted
// missed (missed_catchup_window) when older. Outside an outage the fake
// clock fires every action at its time, however far Advance moves it, as
// the service does while it is up.
func (s *Server) SchedulerOutage(fn func()) {
	s.mu.Lock()
	s.st.schedulerDown = true
	for _, sc := range s.st.allSchedules() {
		sc.stopTimer()
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.st.schedulerDown = false
		for _, sc := range s.st.allSchedules() {
			s.runDue(sc)
			s.armSchedule(sc)
		}
	}()
	fn()
}

// allSchedules is every schedule, in namespace and id order.
func (st *state) allSchedules() []*schedule {
	var out []*schedule
	names := make([]string, 0, len(st.namespaces))
	for name := range st.namespaces {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		ns := st.namespaces[name]
		ids := make([]string, 0, len(ns.schedules))
		for id := range ns.schedules {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for _, id := range ids {
			out = append(out, ns.schedules[id])
		}
	}
	return out
}
