package main

import (
	"strings"
	"time"

	"github.com/spf13/cobra"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
)

func (a *app) scheduleCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "schedule",
		Aliases: []string{"sched"},
		Short:   "Create, list, describe, update, pause, unpause, trigger, backfill and delete schedules",
		Args:    noArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(a.schedCreateCommand(false), a.schedCreateCommand(true), a.schedListCommand(), a.schedDescribeCommand(),
		a.schedPatchCommand("pause"), a.schedPatchCommand("unpause"), a.schedPatchCommand("trigger"),
		a.schedBackfillCommand(), a.schedDeleteCommand())
	return cmd
}

// scheduleFlags are the flags of create and update: the spec, the action,
// the policies and the state.
type scheduleFlags struct {
	crons                                 []string
	intervals                             []string
	start, end                            string
	jitter, catchup                       time.Duration
	wfType, queue, wfID, input, inputFile string
	overlap, notes                        string
	paused, pauseOnFailure                bool
	remaining                             int64
	execTimeout, runTimeout, taskTimeout  time.Duration
}

func (sf *scheduleFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringArrayVar(&sf.crons, "cron", nil, `cron string ("0 * * * *", "@hourly"; repeatable)`)
	f.StringArrayVar(&sf.intervals, "interval", nil, `interval, with an optional phase: "1h" or "1h/15m" (repeatable)`)
	f.StringVar(&sf.start, "start-time", "", "no action before this time (RFC 3339)")
	f.StringVar(&sf.end, "end-time", "", "no action after this time (RFC 3339)")
	f.DurationVar(&sf.jitter, "jitter", 0, "delay each action by up to this much")
	f.StringVarP(&sf.wfType, "type", "t", "", "workflow type (required)")
	f.StringVarP(&sf.queue, "task-queue", "q", "", "task queue (required)")
	f.StringVarP(&sf.wfID, "workflow-id", "w", "", "workflow id of the runs, before \"-\" and the time (default: the schedule id)")
	f.StringVarP(&sf.input, "input", "i", "", "input, one JSON value")
	f.StringVar(&sf.inputFile, "input-file", "", `file holding the input ("-": standard input)`)
	f.DurationVar(&sf.execTimeout, "execution-timeout", 0, "bound on each run's whole execution")
	f.DurationVar(&sf.runTimeout, "run-timeout", 0, "bound on one run")
	f.DurationVar(&sf.taskTimeout, "task-timeout", 0, "bound on one workflow task")
	f.StringVar(&sf.overlap, "overlap-policy", "", "skip, buffer_one, buffer_all, cancel_other, terminate_other or allow_all (default skip)")
	f.DurationVar(&sf.catchup, "catchup-window", 0, "how late an action may still be taken (default: the service's, 1 year)")
	f.BoolVar(&sf.pauseOnFailure, "pause-on-failure", false, "pause when a run fails or times out")
	f.BoolVar(&sf.paused, "paused", false, "create or leave the schedule paused")
	f.StringVar(&sf.notes, "notes", "", "notes kept with the schedule's state")
	f.Int64Var(&sf.remaining, "remaining-actions", 0, "take this many scheduled actions and then none")
	_ = cmd.MarkFlagRequired("type")
	_ = cmd.MarkFlagRequired("task-queue")
}

// overlapPolicy reads an overlap policy's name ("" is unspecified).
func overlapPolicy(name string) (orchpb.ScheduleOverlapPolicy, error) {
	if name == "" {
		return 0, nil
	}
	v, ok := orchpb.ScheduleOverlapPolicy_value["SCHEDULE_OVERLAP_POLICY_"+strings.ToUpper(name)]
	if !ok {
		return 0, usagef("--overlap-policy %q: want skip, buffer_one, buffer_all, cancel_other, terminate_other or allow_all", name)
	}
	return orchpb.ScheduleOverlapPolicy(v), nil
}

func timeFlag(flag, text string) (*timestamppb.Timestamp, error) {
	if text == "" {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339, text)
	if err != nil {
		return nil, usagef("%s %q: want an RFC 3339 time such as 2026-03-01T12:00:00Z", flag, text)
	}
	return timestamppb.New(t), nil
}

// schedule builds the schedule the flags describe.
func (a *app) schedule(cmd *cobra.Command, id string, sf *scheduleFlags) (*orchpb.Schedule, error) {
	in, err := a.inputValue("input", sf.input, sf.inputFile)
	if err != nil {
		return nil, err
	}
	wfID := sf.wfID
	if wfID == "" {
		wfID = id
	}
	action, err := orch.ScheduleWorkflow(wfID, sf.wfType, sf.queue, in)
	if err != nil {
		return nil, err
	}
	sw := action.GetStartWorkflow()
	sw.WorkflowExecutionTimeout, sw.WorkflowRunTimeout, sw.WorkflowTaskTimeout = durationOrNil(sf.execTimeout), durationOrNil(sf.runTimeout), durationOrNil(sf.taskTimeout)
	spec := &orchpb.ScheduleSpec{CronString: sf.crons, Jitter: durationOrNil(sf.jitter)}
	for _, iv := range sf.intervals {
		every, phase, _ := strings.Cut(iv, "/")
		e, err := time.ParseDuration(every)
		if err != nil {
			return nil, usagef("--interval %q: want a duration such as 1h, or 1h/15m with a phase", iv)
		}
		is := &orchpb.IntervalSpec{Interval: durationpb.New(e)}
		if phase != "" {
			p, err := time.ParseDuration(phase)
			if err != nil {
				return nil, usagef("--interval %q: want a duration such as 1h, or 1h/15m with a phase", iv)
			}
			is.Phase = durationpb.New(p)
		}
		spec.Interval = append(spec.Interval, is)
	}
	if spec.StartTime, err = timeFlag("--start-time", sf.start); err != nil {
		return nil, err
	}
	if spec.EndTime, err = timeFlag("--end-time", sf.end); err != nil {
		return nil, err
	}
	policy, err := overlapPolicy(sf.overlap)
	if err != nil {
		return nil, err
	}
	return &orchpb.Schedule{
		Spec: spec, Action: action,
		Policies: &orchpb.SchedulePolicies{OverlapPolicy: policy, CatchupWindow: durationOrNil(sf.catchup), PauseOnFailure: sf.pauseOnFailure},
		State: &orchpb.ScheduleState{Paused: sf.paused, Notes: sf.notes, LimitedActions: cmd.Flags().Changed("remaining-actions"),
			RemainingActions: sf.remaining},
	}, nil
}

func durationOrNil(d time.Duration) *durationpb.Duration {
	if d == 0 {
		return nil
	}
	return durationpb.New(d)
}

// schedCreateCommand is create, or update (which replaces the schedule
// whole with what its flags say).
func (a *app) schedCreateCommand(update bool) *cobra.Command {
	var sf scheduleFlags
	verb, short := "create", "Create a schedule"
	if update {
		verb, short = "update", "Replace a schedule's spec, action, policies and state"
	}
	cmd := &cobra.Command{
		Use:   verb + " SCHEDULE_ID --type TYPE --task-queue QUEUE [--cron SPEC | --interval EVERY[/PHASE]]...",
		Short: short,
		Long: short + `: start a workflow of --type on --task-queue at the
times of every --cron and --interval (between --start-time and --end-time,
each delayed by up to --jitter). Each run's workflow id is --workflow-id (the
schedule id by default), "-" and the action's time. --overlap-policy says what
to do when an action is due while a run is still running.`,
		Args: exactArgs("a schedule id"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			sch, err := a.schedule(cmd, argv[0], &sf)
			if err != nil {
				return err
			}
			c, err := a.connect()
			if err != nil {
				return err
			}
			ctx, cancel := a.call(cmd)
			defer cancel()
			if update {
				if err := c.UpdateSchedule(ctx, argv[0], sch, nil); err != nil {
					return err
				}
				return a.done(map[string]any{"schedule_id": argv[0], "updated": true}, "Updated schedule %s", argv[0])
			}
			if _, err := c.CreateSchedule(ctx, argv[0], sch, nil); err != nil {
				return err
			}
			return a.done(map[string]any{"schedule_id": argv[0], "created": true}, "Created schedule %s", argv[0])
		},
	}
	sf.register(cmd)
	return cmd
}

func firstTime(ts []*timestamppb.Timestamp) string {
	if len(ts) == 0 {
		return ""
	}
	return when(ts[0])
}

func (a *app) schedListCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the namespace's schedules",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.connect()
			if err != nil {
				return err
			}
			ctx, cancel := a.call(cmd)
			defer cancel()
			var list []*orchpb.ScheduleListEntry
			for e, err := range c.AllSchedules(ctx, nil) {
				if err != nil {
					return err
				}
				list = append(list, e)
			}
			if a.json() {
				raw, err := messages(list)
				if err != nil {
					return err
				}
				return a.printJSON(raw)
			}
			rows := [][]string{{"SCHEDULE ID", "WORKFLOW TYPE", "SPEC", "PAUSED", "NEXT"}}
			for _, e := range list {
				i := e.GetInfo()
				rows = append(rows, []string{e.GetScheduleId(), i.GetWorkflowType().GetName(), orchwire.ScheduleSpecText(i.GetSpec()),
					map[bool]string{true: "yes", false: "no"}[i.GetPaused()], firstTime(i.GetFutureActionTimes())})
			}
			a.table(rows)
			return nil
		},
	}
}

func (a *app) schedDescribeCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "describe SCHEDULE_ID",
		Short: "Describe a schedule: its spec, state, recent actions and next times",
		Args:  exactArgs("a schedule id"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			c, err := a.connect()
			if err != nil {
				return err
			}
			ctx, cancel := a.call(cmd)
			defer cancel()
			d, err := c.DescribeSchedule(ctx, argv[0])
			if err != nil {
				return err
			}
			if a.json() {
				return a.printJSON(d)
			}
			sch, info := d.GetSchedule(), d.GetInfo()
			sw := sch.GetAction().GetStartWorkflow()
			rows := [][2]string{
				{"Schedule ID", argv[0]},
				{"Spec", orchwire.ScheduleSpecText(sch.GetSpec())},
				{"Workflow type", sw.GetWorkflowType().GetName()},
				{"Task queue", sw.GetTaskQueue()},
				{"Workflow ID", sw.GetWorkflowId()},
				{"Overlap policy", strings.ToLower(orchwire.OverlapPolicyName(sch.GetPolicies().GetOverlapPolicy()))},
				{"Paused", map[bool]string{true: "yes", false: "no"}[sch.GetState().GetPaused()]},
				{"Notes", sch.GetState().GetNotes()},
				{"Actions", itoa(info.GetActionCount())},
				{"Overlaps skipped", itoa(info.GetOverlapSkipped())},
				{"Missed (catch-up window)", itoa(info.GetMissedCatchupWindow())},
				{"Buffered", itoa(info.GetBufferSize())},
				{"Created", when(info.GetCreateTime())},
			}
			if st := sch.GetState(); st.GetLimitedActions() {
				rows = append(rows, [2]string{"Remaining actions", itoa(st.GetRemainingActions())})
			}
			for _, t := range info.GetFutureActionTimes() {
				rows = append(rows, [2]string{"Next", when(t)})
			}
			a.fields(rows)
			if ra := info.GetRecentActions(); len(ra) > 0 {
				a.printf("")
				table := [][]string{{"SCHEDULED", "STARTED", "WORKFLOW ID", "STATUS"}}
				for _, r := range ra {
					table = append(table, []string{when(r.GetScheduleTime()), when(r.GetActualTime()),
						r.GetStartWorkflowResult().GetWorkflowId(), strings.ToLower(r.GetStartWorkflowStatus().String())})
				}
				a.table(table)
			}
			return nil
		},
	}
}

// schedPatchCommand is pause, unpause or trigger.
func (a *app) schedPatchCommand(verb string) *cobra.Command {
	var note, overlap string
	short := map[string]string{"pause": "Pause a schedule", "unpause": "Unpause a schedule", "trigger": "Take a schedule's action now"}[verb]
	cmd := &cobra.Command{
		Use:   verb + " SCHEDULE_ID",
		Short: short,
		Args:  exactArgs("a schedule id"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			policy, err := overlapPolicy(overlap)
			if err != nil {
				return err
			}
			c, err := a.connect()
			if err != nil {
				return err
			}
			ctx, cancel := a.call(cmd)
			defer cancel()
			switch verb {
			case "pause":
				err = c.PauseSchedule(ctx, argv[0], note)
			case "unpause":
				err = c.UnpauseSchedule(ctx, argv[0], note)
			default:
				err = c.TriggerSchedule(ctx, argv[0], policy)
			}
			if err != nil {
				return err
			}
			return a.done(map[string]any{"schedule_id": argv[0], verb: true}, "%s schedule %s", map[string]string{
				"pause": "Paused", "unpause": "Unpaused", "trigger": "Triggered"}[verb], argv[0])
		},
	}
	if verb == "trigger" {
		cmd.Flags().StringVar(&overlap, "overlap-policy", "", "overlap policy of this action (default: the schedule's)")
	} else {
		cmd.Flags().StringVar(&note, "reason", "", "notes kept with the schedule's state")
	}
	return cmd
}

func (a *app) schedBackfillCommand() *cobra.Command {
	var start, end, overlap string
	cmd := &cobra.Command{
		Use:   "backfill SCHEDULE_ID --start-time TIME --end-time TIME",
		Short: "Take now every action a schedule's spec gives in a range of times",
		Args:  exactArgs("a schedule id"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			from, err := timeFlag("--start-time", start)
			if err != nil {
				return err
			}
			to, err := timeFlag("--end-time", end)
			if err != nil {
				return err
			}
			policy, err := overlapPolicy(overlap)
			if err != nil {
				return err
			}
			c, err := a.connect()
			if err != nil {
				return err
			}
			ctx, cancel := a.call(cmd)
			defer cancel()
			if err := c.BackfillSchedule(ctx, argv[0], from.AsTime(), to.AsTime(), policy); err != nil {
				return err
			}
			return a.done(map[string]any{"schedule_id": argv[0], "backfilled": true}, "Backfilled schedule %s from %s to %s", argv[0], start, end)
		},
	}
	f := cmd.Flags()
	f.StringVar(&start, "start-time", "", "first time of the range (RFC 3339, required)")
	f.StringVar(&end, "end-time", "", "last time of the range (RFC 3339, required)")
	f.StringVar(&overlap, "overlap-policy", "", "overlap policy of these actions (default: the schedule's)")
	_ = cmd.MarkFlagRequired("start-time")
	_ = cmd.MarkFlagRequired("end-time")
	return cmd
}

func (a *app) schedDeleteCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "delete SCHEDULE_ID",
		Short: "Delete a schedule (the workflows it started run on)",
		Args:  exactArgs("a schedule id"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			c, err := a.connect()
			if err != nil {
				return err
			}
			ctx, cancel := a.call(cmd)
			defer cancel()
			if err := c.DeleteSchedule(ctx, argv[0]); err != nil {
				return err
			}
			return a.done(map[string]any{"schedule_id": argv[0], "deleted": true}, "Deleted schedule %s", argv[0])
		},
	}
}
