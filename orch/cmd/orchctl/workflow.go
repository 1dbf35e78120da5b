package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
)

func (a *app) workflowCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "workflow",
		Aliases: []string{"wf"},
		Short:   "Start, list, describe, follow, signal, query, update, cancel, terminate, reset and delete workflows",
		Args:    noArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(a.startCommand(), a.listCommand(), a.countCommand(), a.describeCommand(), a.showCommand(),
		a.resultCommand(), a.signalCommand(), a.queryCommand(), a.cancelCommand(), a.terminateCommand(),
		a.updateCommand(), a.resetCommand(), a.deleteCommand())
	return cmd
}

func (a *app) startCommand() *cobra.Command {
	var (
		wfType, queue, id, input, inputFile, cron, reuse string
		signal, signalInput, conflict                    string
		execTimeout, runTimeout, taskTimeout             time.Duration
		memo, search                                     []string
		wait                                             bool
	)
	cmd := &cobra.Command{
		Use:   "start --type TYPE --task-queue QUEUE [--workflow-id ID] [--input JSON]",
		Short: "Start a workflow",
		Long: `Start a workflow of --type on --task-queue with --input (one JSON value; or
--input-file, "-" for standard input). The workflow id is --workflow-id, or a
random one. With --wait, wait for the workflow to close and print its result
(exit status 3 when it did not complete).

With --signal (and --signal-input), signal-with-start: send the signal to the
running workflow of --workflow-id, or start it and send the signal, as one
operation.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			in, err := a.inputValue("input", input, inputFile)
			if err != nil {
				return err
			}
			opts := &orch.StartWorkflowOptions{ID: id, ExecutionTimeout: execTimeout, RunTimeout: runTimeout, TaskTimeout: taskTimeout, CronSchedule: cron}
			if opts.Memo, err = keyValues("--memo", memo); err != nil {
				return err
			}
			if opts.SearchAttributes, err = keyValues("--search-attribute", search); err != nil {
				return err
			}
			if reuse != "" {
				v, ok := orchpb.WorkflowIdReusePolicy_value[strings.ToUpper(reuse)]
				if !ok {
					return usagef("--id-reuse-policy %q: want allow_duplicate, allow_duplicate_failed_only, reject_duplicate or terminate_if_running", reuse)
				}
				opts.ReusePolicy = orchpb.WorkflowIdReusePolicy(v)
			}
			if conflict != "" {
				v, ok := orchpb.WorkflowIdConflictPolicy_value["WORKFLOW_ID_CONFLICT_POLICY_"+strings.ToUpper(conflict)]
				if !ok || v == 0 {
					return usagef("--id-conflict-policy %q: want fail, use_existing or terminate_existing", conflict)
				}
				opts.ConflictPolicy = orchpb.WorkflowIdConflictPolicy(v)
			}
			c, err := a.connect()
			if err != nil {
				return err
			}
			ctx, cancel := a.call(cmd)
			defer cancel()
			var run *orch.WorkflowRun
			if signal != "" {
				if id == "" {
					return usagef("--signal needs --workflow-id: the workflow to signal, or to start")
				}
				sig, err := a.inputValue("signal-input", signalInput, "")
				if err != nil {
					return err
				}
				run, err = c.SignalWithStartWorkflow(ctx, id, signal, sig, wfType, queue, in, opts)
				if err != nil {
					return err
				}
			} else {
				if signalInput != "" {
					return usagef("--signal-input needs --signal")
				}
				if run, err = c.StartWorkflow(ctx, wfType, queue, in, opts); err != nil {
					return err
				}
			}
			if wait {
				return a.printResult(cmd.Context(), c, run.ID, run.RunID)
			}
			if a.json() {
				return a.printJSON(map[string]any{"workflow_id": run.ID, "run_id": run.RunID, "started": run.Started})
			}
			a.fields([][2]string{{"Workflow ID", run.ID}, {"Run ID", run.RunID}, {"Type", wfType}, {"Task queue", queue}, {"Namespace", c.Namespace()}})
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&wfType, "type", "t", "", "workflow type (required)")
	f.StringVarP(&queue, "task-queue", "q", "", "task queue (required)")
	f.StringVarP(&id, "workflow-id", "w", "", "workflow id (default: a random one)")
	f.StringVarP(&input, "input", "i", "", "input, one JSON value")
	f.StringVar(&inputFile, "input-file", "", `file holding the input ("-": standard input)`)
	f.DurationVar(&execTimeout, "execution-timeout", 0, "bound on the whole execution (default: the server's)")
	f.DurationVar(&runTimeout, "run-timeout", 0, "bound on one run")
	f.DurationVar(&taskTimeout, "task-timeout", 0, "bound on one workflow task")
	f.StringVar(&cron, "cron", "", `cron schedule ("0 * * * *", "@hourly", "@every 10m")`)
	f.StringVar(&reuse, "id-reuse-policy", "", "allow_duplicate, allow_duplicate_failed_only, reject_duplicate or terminate_if_running")
	f.StringVar(&conflict, "id-conflict-policy", "", "when the id's workflow is running: fail, use_existing or terminate_existing")
	f.StringArrayVar(&memo, "memo", nil, "memo entry KEY=JSON (repeatable)")
	f.StringArrayVar(&search, "search-attribute", nil, "search attribute KEY=JSON (repeatable)")
	f.BoolVar(&wait, "wait", false, "wait for the workflow to close and print its result")
	f.StringVar(&signal, "signal", "", "signal-with-start: send this signal, starting the workflow if it is not running")
	f.StringVar(&signalInput, "signal-input", "", "the signal's value, one JSON value")
	_ = cmd.MarkFlagRequired("type")
	_ = cmd.MarkFlagRequired("task-queue")
	return cmd
}

// keyValues reads KEY=JSON flags.
func keyValues(flag string, list []string) (map[string]any, error) {
	if len(list) == 0 {
		return nil, nil
	}
	out := map[string]any{}
	for _, kv := range list {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || !json.Valid([]byte(v)) {
			return nil, usagef("%s %q: want KEY=JSON, as in region='\"eu\"' or count=3", flag, kv)
		}
		out[k] = json.RawMessage(v)
	}
	return out, nil
}

func (a *app) listCommand() *cobra.Command {
	var query string
	var limit int
	cmd := &cobra.Command{
		Use:   "list [--query QUERY] [--limit N]",
		Short: "List workflows, newest first, with the service's query language",
		Long: `List workflow executions matching --query, in the service's query language:

  ExecutionStatus = 'Running' AND WorkflowType = 'OrderFulfilment'
  WorkflowId STARTS_WITH 'order-' ORDER BY StartTime ASC
  StartTime > '2026-03-01T00:00:00Z' AND TaskQueue IN ('a', 'b')

At most --limit rows (default 100; 0 for all).`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if limit < 0 {
				return usagef("--limit %d: want 0 (all) or more", limit)
			}
			c, err := a.connect()
			if err != nil {
				return err
			}
			ctx, cancel := a.call(cmd)
			defer cancel()
			var list []*orchpb.WorkflowExecutionInfo
			for info, err := range c.AllWorkflows(ctx, query, nil) {
				if err != nil {
					return err
				}
				list = append(list, info)
				if limit > 0 && len(list) == limit {
					break
				}
			}
			if a.json() {
				raw, err := messages(list)
				if err != nil {
					return err
				}
				return a.printJSON(raw)
			}
			rows := [][]string{{"STATUS", "WORKFLOW ID", "RUN ID", "TYPE", "TASK QUEUE", "START TIME", "CLOSE TIME"}}
			for _, i := range list {
				rows = append(rows, []string{status(i.GetStatus()), i.GetExecution().GetWorkflowId(), i.GetExecution().GetRunId(),
					i.GetType().GetName(), i.GetTaskQueue(), when(i.GetStartTime()), when(i.GetCloseTime())})
			}
			a.table(rows)
			return nil
		},
	}
	cmd.Flags().StringVar(&query, "query", "", "query (default: every workflow)")
	cmd.Flags().IntVar(&limit, "limit", 100, "at most this many rows (0: all)")
	return cmd
}

func (a *app) countCommand() *cobra.Command {
	var query string
	cmd := &cobra.Command{
		Use:   "count [--query QUERY]",
		Short: "Count workflows matching a query",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.connect()
			if err != nil {
				return err
			}
			ctx, cancel := a.call(cmd)
			defer cancel()
			n, err := c.CountWorkflows(ctx, query)
			if err != nil {
				return err
			}
			if a.json() {
				return a.printJSON(map[string]int64{"count": n})
			}
			a.printf("%d", n)
			return nil
		},
	}
	cmd.Flags().StringVar(&query, "query", "", "query (default: every workflow)")
	return cmd
}

// status is an execution status as a person writes it: Running, Completed…
func status(s orchpb.WorkflowExecutionStatus) string {
	name := strings.ToLower(s.String())
	parts := strings.Split(name, "_")
	for i, p := range parts {
		if p != "" {
			parts[i] = strings.ToUpper(p[:1]) + p[1:]
		}
	}
	return strings.Join(parts, "")
}

func (a *app) describeCommand() *cobra.Command {
	var runID string
	cmd := &cobra.Command{
		Use:   "describe WORKFLOW_ID [--run-id RUN]",
		Short: "Describe a workflow: status, times, pending task, children and activities",
		Args:  exactArgs("a workflow id"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			c, err := a.connect()
			if err != nil {
				return err
			}
			ctx, cancel := a.call(cmd)
			defer cancel()
			resp, err := c.GetWorkflow(ctx, argv[0], runID, 1)
			if err != nil {
				return err
			}
			if a.json() {
				return a.printJSON(&orchpb.GetWorkflowExecutionResponse{ExecutionInfo: resp.GetExecutionInfo(), PendingActivities: resp.GetPendingActivities(),
					PendingChildren: resp.GetPendingChildren(), PendingWorkflowTask: resp.GetPendingWorkflowTask()})
			}
			i := resp.GetExecutionInfo()
			rows := [][2]string{
				{"Workflow ID", i.GetExecution().GetWorkflowId()},
				{"Run ID", i.GetExecution().GetRunId()},
				{"Type", i.GetType().GetName()},
				{"Status", status(i.GetStatus())},
				{"Task queue", i.GetTaskQueue()},
				{"Start time", when(i.GetStartTime())},
			}
			if ct := when(i.GetCloseTime()); ct != "" {
				rows = append(rows, [2]string{"Close time", ct})
			}
			rows = append(rows, [2]string{"History length", strconv.FormatInt(i.GetHistoryLength(), 10)})
			if p := i.GetParentExecution(); p.GetWorkflowId() != "" {
				rows = append(rows, [2]string{"Parent", p.GetWorkflowId() + " (run " + p.GetRunId() + ")"})
			}
			if et := when(i.GetExecutionTime()); et != "" && et != when(i.GetStartTime()) {
				rows = append(rows, [2]string{"Execution time", et})
			}
			if first := i.GetFirstExecutionRunId(); first != "" && first != i.GetExecution().GetRunId() {
				rows = append(rows, [2]string{"First run ID", first})
			}
			for _, k := range sortedKeys(i.GetMemo().GetFields()) {
				rows = append(rows, [2]string{"Memo " + k, payloadText(i.GetMemo().GetFields()[k])})
			}
			for _, k := range sortedKeys(i.GetSearchAttributes().GetIndexedFields()) {
				rows = append(rows, [2]string{"Search attribute " + k, payloadText(i.GetSearchAttributes().GetIndexedFields()[k])})
			}
			if t := resp.GetPendingWorkflowTask(); t != nil {
				state := strings.ToLower(strings.TrimPrefix(t.GetState().String(), "PENDING_WORKFLOW_TASK_STATE_"))
				rows = append(rows, [2]string{"Workflow task", state + ", attempt " + strconv.Itoa(int(t.GetAttempt())) + ", scheduled " + when(t.GetScheduledTime())})
			}
			a.fields(rows)
			if kids := resp.GetPendingChildren(); len(kids) > 0 {
				a.printf("\nPending children:")
				table := [][]string{{"WORKFLOW ID", "RUN ID", "TYPE", "INITIATED BY", "PARENT CLOSE POLICY"}}
				for _, k := range kids {
					table = append(table, []string{k.GetWorkflowId(), k.GetRunId(), k.GetWorkflowTypeName(), strconv.FormatInt(k.GetInitiatedId(), 10),
						strings.ToLower(k.GetParentClosePolicy().String())})
				}
				a.table(table)
			}
			if pending := resp.GetPendingActivities(); len(pending) > 0 {
				a.printf("\nPending activities:")
				table := [][]string{{"ACTIVITY ID", "TYPE", "ATTEMPT", "SCHEDULED", "LAST STARTED", "LAST FAILURE"}}
				for _, p := range pending {
					table = append(table, []string{p.GetActivityId(), p.GetActivityType().GetName(), strconv.Itoa(int(p.GetAttempt())),
						when(p.GetScheduledTime()), when(p.GetLastStartedTime()), p.GetLastFailure().GetMessage()})
				}
				a.table(table)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&runID, "run-id", "r", "", "run id (default: the latest run)")
	return cmd
}

func (a *app) showCommand() *cobra.Command {
	var runID string
	var follow bool
	cmd := &cobra.Command{
		Use:     "show WORKFLOW_ID [--run-id RUN] [--follow]",
		Aliases: []string{"history"},
		Short:   "Show a workflow's history, event by event",
		Long: `Show a workflow's history. With --follow, keep printing events as they are
recorded until the workflow closes (Ctrl-C stops). --output json prints
{"history":[...]}, the shape of the service's GetWorkflowExecutionHistory.`,
		Args: exactArgs("a workflow id"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			c, err := a.connect()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			if !follow {
				var cancel context.CancelFunc
				ctx, cancel = a.call(cmd)
				defer cancel()
			}
			var events []*orchpb.HistoryEvent
			var tw eventTable
			if !a.json() {
				tw = a.eventTable()
			}
			for ev, err := range c.History(ctx, argv[0], runID, &orch.HistoryOptions{Wait: follow}) {
				if err != nil {
					return err
				}
				if a.json() {
					events = append(events, ev)
					continue
				}
				tw.row(ev)
			}
			if a.json() {
				return a.printJSON(&orchpb.GetWorkflowExecutionHistoryResponse{History: events})
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&runID, "run-id", "r", "", "run id (default: the latest run)")
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "wait for new events until the workflow closes")
	return cmd
}

// eventTable prints events as rows, each as it comes (a followed history
// shows at once), with widths fixed by the header.
type eventTable struct{ a *app }

func (a *app) eventTable() eventTable {
	a.printf("%-5s  %-20s  %-40s  %s", "ID", "TIME", "TYPE", "DETAILS")
	return eventTable{a}
}

func (t eventTable) row(ev *orchpb.HistoryEvent) {
	t.a.printf("%-5d  %-20s  %-40s  %s", ev.GetEventId(), when(ev.GetEventTime()), ev.GetEventType().String(), eventDetails(ev))
}

// eventDetails is the gist of an event's attributes.
func eventDetails(ev *orchpb.HistoryEvent) string {
	switch x := ev.GetAttributes().(type) {
	case *orchpb.HistoryEvent_WorkflowExecutionStartedEventAttributes:
		a := x.WorkflowExecutionStartedEventAttributes
		return fmt.Sprintf("type=%s queue=%s input=%s", a.GetWorkflowType().GetName(), a.GetTaskQueue(), payloadsText(a.GetInput()))
	case *orchpb.HistoryEvent_WorkflowExecutionCompletedEventAttributes:
		return "result=" + payloadsText(x.WorkflowExecutionCompletedEventAttributes.GetResult())
	case *orchpb.HistoryEvent_WorkflowExecutionFailedEventAttributes:
		return "failure=" + strconv.Quote(x.WorkflowExecutionFailedEventAttributes.GetFailure().GetMessage())
	case *orchpb.HistoryEvent_WorkflowExecutionTerminatedEventAttributes:
		return "reason=" + strconv.Quote(x.WorkflowExecutionTerminatedEventAttributes.GetReason())
	case *orchpb.HistoryEvent_WorkflowExecutionCancelRequestedEventAttributes:
		return "cause=" + strconv.Quote(x.WorkflowExecutionCancelRequestedEventAttributes.GetCause())
	case *orchpb.HistoryEvent_WorkflowExecutionContinuedAsNewEventAttributes:
		return "new_run=" + x.WorkflowExecutionContinuedAsNewEventAttributes.GetNewExecutionRunId()
	case *orchpb.HistoryEvent_WorkflowTaskFailedEventAttributes:
		a := x.WorkflowTaskFailedEventAttributes
		return fmt.Sprintf("cause=%s failure=%q", a.GetCause(), a.GetFailure().GetMessage())
	case *orchpb.HistoryEvent_WorkflowTaskCompletedEventAttributes:
		return "identity=" + x.WorkflowTaskCompletedEventAttributes.GetIdentity()
	case *orchpb.HistoryEvent_ActivityTaskScheduledEventAttributes:
		a := x.ActivityTaskScheduledEventAttributes
		return fmt.Sprintf("type=%s id=%s input=%s", a.GetActivityType().GetName(), a.GetActivityId(), payloadsText(a.GetInput()))
	case *orchpb.HistoryEvent_ActivityTaskStartedEventAttributes:
		a := x.ActivityTaskStartedEventAttributes
		return fmt.Sprintf("scheduled=%d attempt=%d", a.GetScheduledEventId(), a.GetAttempt())
	case *orchpb.HistoryEvent_ActivityTaskCompletedEventAttributes:
		a := x.ActivityTaskCompletedEventAttributes
		return fmt.Sprintf("scheduled=%d result=%s", a.GetScheduledEventId(), payloadsText(a.GetResult()))
	case *orchpb.HistoryEvent_ActivityTaskFailedEventAttributes:
		a := x.ActivityTaskFailedEventAttributes
		return fmt.Sprintf("scheduled=%d failure=%q", a.GetScheduledEventId(), a.GetFailure().GetMessage())
	case *orchpb.HistoryEvent_ActivityTaskTimedOutEventAttributes:
		return fmt.Sprintf("scheduled=%d", x.ActivityTaskTimedOutEventAttributes.GetScheduledEventId())
	case *orchpb.HistoryEvent_TimerStartedEventAttributes:
		a := x.TimerStartedEventAttributes
		return fmt.Sprintf("id=%s after=%s", a.GetTimerId(), a.GetStartToFireTimeout().AsDuration())
	case *orchpb.HistoryEvent_TimerFiredEventAttributes:
		return "id=" + x.TimerFiredEventAttributes.GetTimerId()
	case *orchpb.HistoryEvent_TimerCanceledEventAttributes:
		return "id=" + x.TimerCanceledEventAttributes.GetTimerId()
	case *orchpb.HistoryEvent_WorkflowExecutionSignaledEventAttributes:
		a := x.WorkflowExecutionSignaledEventAttributes
		if from := a.GetExternalWorkflowExecution(); from != nil {
			return fmt.Sprintf("name=%s input=%s from=%s", a.GetSignalName(), payloadsText(a.GetInput()), from.GetWorkflowId())
		}
		return fmt.Sprintf("name=%s input=%s", a.GetSignalName(), payloadsText(a.GetInput()))
	case *orchpb.HistoryEvent_MarkerRecordedEventAttributes:
		return "name=" + x.MarkerRecordedEventAttributes.GetMarkerName()
	case *orchpb.HistoryEvent_WorkflowExecutionUpdateAcceptedEventAttributes:
		a := x.WorkflowExecutionUpdateAcceptedEventAttributes
		return fmt.Sprintf("id=%s name=%s input=%s", a.GetProtocolInstanceId(), a.GetAcceptedRequest().GetInput().GetName(), payloadsText(a.GetAcceptedRequest().GetInput().GetArgs()))
	case *orchpb.HistoryEvent_WorkflowExecutionUpdateCompletedEventAttributes:
		a := x.WorkflowExecutionUpdateCompletedEventAttributes
		if f := a.GetOutcome().GetFailure(); f != nil {
			return fmt.Sprintf("id=%s accepted=%d failure=%q", a.GetMeta().GetUpdateId(), a.GetAcceptedEventId(), f.GetMessage())
		}
		return fmt.Sprintf("id=%s accepted=%d result=%s", a.GetMeta().GetUpdateId(), a.GetAcceptedEventId(), payloadsText(a.GetOutcome().GetSuccess()))
	case *orchpb.HistoryEvent_StartChildWorkflowExecutionInitiatedEventAttributes:
		a := x.StartChildWorkflowExecutionInitiatedEventAttributes
		return fmt.Sprintf("type=%s id=%s input=%s", a.GetWorkflowType().GetName(), a.GetWorkflowId(), payloadsText(a.GetInput()))
	case *orchpb.HistoryEvent_StartChildWorkflowExecutionFailedEventAttributes:
		a := x.StartChildWorkflowExecutionFailedEventAttributes
		return fmt.Sprintf("initiated=%d id=%s cause=%s", a.GetInitiatedEventId(), a.GetWorkflowId(), a.GetCause())
	case *orchpb.HistoryEvent_ChildWorkflowExecutionStartedEventAttributes:
		a := x.ChildWorkflowExecutionStartedEventAttributes
		return fmt.Sprintf("initiated=%d id=%s run=%s", a.GetInitiatedEventId(), a.GetWorkflowExecution().GetWorkflowId(), a.GetWorkflowExecution().GetRunId())
	case *orchpb.HistoryEvent_ChildWorkflowExecutionCompletedEventAttributes:
		a := x.ChildWorkflowExecutionCompletedEventAttributes
		return fmt.Sprintf("initiated=%d result=%s", a.GetInitiatedEventId(), payloadsText(a.GetResult()))
	case *orchpb.HistoryEvent_ChildWorkflowExecutionFailedEventAttributes:
		a := x.ChildWorkflowExecutionFailedEventAttributes
		return fmt.Sprintf("initiated=%d failure=%q", a.GetInitiatedEventId(), a.GetFailure().GetMessage())
	case *orchpb.HistoryEvent_ChildWorkflowExecutionCanceledEventAttributes:
		return fmt.Sprintf("initiated=%d", x.ChildWorkflowExecutionCanceledEventAttributes.GetInitiatedEventId())
	case *orchpb.HistoryEvent_ChildWorkflowExecutionTimedOutEventAttributes:
		return fmt.Sprintf("initiated=%d", x.ChildWorkflowExecutionTimedOutEventAttributes.GetInitiatedEventId())
	case *orchpb.HistoryEvent_ChildWorkflowExecutionTerminatedEventAttributes:
		return fmt.Sprintf("initiated=%d", x.ChildWorkflowExecutionTerminatedEventAttributes.GetInitiatedEventId())
	case *orchpb.HistoryEvent_RequestCancelExternalWorkflowExecutionInitiatedEventAttributes:
		return "id=" + x.RequestCancelExternalWorkflowExecutionInitiatedEventAttributes.GetWorkflowExecution().GetWorkflowId()
	case *orchpb.HistoryEvent_SignalExternalWorkflowExecutionInitiatedEventAttributes:
		a := x.SignalExternalWorkflowExecutionInitiatedEventAttributes
		return fmt.Sprintf("id=%s name=%s input=%s", a.GetWorkflowExecution().GetWorkflowId(), a.GetSignalName(), payloadsText(a.GetInput()))
	case *orchpb.HistoryEvent_SignalExternalWorkflowExecutionFailedEventAttributes:
		a := x.SignalExternalWorkflowExecutionFailedEventAttributes
		return fmt.Sprintf("initiated=%d id=%s cause=%s", a.GetInitiatedEventId(), a.GetWorkflowExecution().GetWorkflowId(), a.GetCause())
	case *orchpb.HistoryEvent_ExternalWorkflowExecutionSignaledEventAttributes:
		a := x.ExternalWorkflowExecutionSignaledEventAttributes
		return fmt.Sprintf("initiated=%d id=%s run=%s", a.GetInitiatedEventId(), a.GetWorkflowExecution().GetWorkflowId(), a.GetWorkflowExecution().GetRunId())
	case *orchpb.HistoryEvent_WorkflowPropertiesModifiedEventAttributes:
		m := x.WorkflowPropertiesModifiedEventAttributes.GetUpsertedMemo().GetFields()
		parts := make([]string, 0, len(m))
		for _, k := range sortedKeys(m) {
			parts = append(parts, "memo."+k+"="+payloadText(m[k]))
		}
		return strings.Join(parts, " ")
	}
	return ""
}

func (a *app) resultCommand() *cobra.Command {
	var runID string
	cmd := &cobra.Command{
		Use:   "result WORKFLOW_ID [--run-id RUN]",
		Short: "Wait for a workflow to close and print its result",
		Long: `Wait for a workflow to close (Ctrl-C stops waiting) and print its result as
JSON. A run that continued as new is followed to the next. Exit status 3
when it did not complete: failed, canceled, terminated or timed out.`,
		Args: exactArgs("a workflow id"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			c, err := a.connect()
			if err != nil {
				return err
			}
			return a.printResult(cmd.Context(), c, argv[0], runID)
		},
	}
	cmd.Flags().StringVarP(&runID, "run-id", "r", "", "run id (default: the latest run)")
	return cmd
}

func (a *app) printResult(ctx context.Context, c *orch.Client, id, runID string) error {
	var result json.RawMessage
	err := c.GetResult(ctx, id, runID, &result)
	var werr *orch.WorkflowExecutionError
	switch {
	case errors.As(err, &werr):
		if a.json() {
			out := map[string]any{"workflow_id": id, "status": status(werr.Status)}
			if f := werr.Failure; f != nil {
				out["failure"] = f.GetMessage()
			}
			if perr := a.printJSON(out); perr != nil {
				return perr
			}
			return &exitError{code: exitNotCompleted}
		}
		msg := fmt.Sprintf("workflow %s %s", id, strings.ToLower(strings.ReplaceAll(werr.Status.String(), "_", " ")))
		if m := werr.Failure.GetMessage(); m != "" {
			msg += ": " + m
		}
		if r := werr.Event.GetWorkflowExecutionTerminatedEventAttributes().GetReason(); r != "" {
			msg += ": " + r
		}
		return &exitError{code: exitNotCompleted, err: errors.New(msg)}
	case errors.Is(err, orch.ErrNoPayload):
		result = json.RawMessage("null")
	case err != nil:
		return err
	}
	if len(result) == 0 {
		result = json.RawMessage("null")
	}
	return a.printJSON(result)
}

func (a *app) signalCommand() *cobra.Command {
	var runID, name, input, inputFile string
	cmd := &cobra.Command{
		Use:   "signal WORKFLOW_ID --name SIGNAL [--input JSON]",
		Short: "Send a signal to a workflow",
		Args:  exactArgs("a workflow id"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			in, err := a.inputValue("input", input, inputFile)
			if err != nil {
				return err
			}
			c, err := a.connect()
			if err != nil {
				return err
			}
			ctx, cancel := a.call(cmd)
			defer cancel()
			if err := c.SignalWorkflow(ctx, argv[0], runID, name, in, nil); err != nil {
				return err
			}
			return a.done(map[string]any{"workflow_id": argv[0], "signal": name}, "Signaled workflow %s: %s", argv[0], name)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&runID, "run-id", "r", "", "run id (default: the latest run)")
	f.StringVar(&name, "name", "", "signal name (required)")
	f.StringVarP(&input, "input", "i", "", "the signal's value, one JSON value")
	f.StringVar(&inputFile, "input-file", "", `file holding the value ("-": standard input)`)
	_ = cmd.MarkFlagRequired("name")
	return cmd
}

// done says what a command did that shows nothing else.
func (a *app) done(v any, format string, args ...any) error {
	if a.json() {
		return a.printJSON(v)
	}
	a.printf(format, args...)
	return nil
}

func (a *app) queryCommand() *cobra.Command {
	var runID, queryType, input, inputFile, reject string
	cmd := &cobra.Command{
		Use:   "query WORKFLOW_ID --type QUERY [--input JSON]",
		Short: "Ask a workflow a query and print the answer",
		Long: `Ask a workflow a query (answered by a worker from the workflow's state) and
print the answer as JSON. --reject-condition not_open or not_completed_cleanly
refuses the query for a workflow in such a state.`,
		Args: exactArgs("a workflow id"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			in, err := a.inputValue("input", input, inputFile)
			if err != nil {
				return err
			}
			var opts *orch.QueryOptions
			if reject != "" {
				v, ok := orchpb.QueryRejectCondition_value[strings.ToUpper(reject)]
				if !ok {
					return usagef("--reject-condition %q: want not_open or not_completed_cleanly", reject)
				}
				opts = &orch.QueryOptions{RejectCondition: orchpb.QueryRejectCondition(v)}
			}
			c, err := a.connect()
			if err != nil {
				return err
			}
			ctx, cancel := a.call(cmd)
			defer cancel()
			var answer json.RawMessage
			err = c.QueryWorkflow(ctx, argv[0], runID, queryType, in, &answer, opts)
			if errors.Is(err, orch.ErrNoPayload) {
				answer, err = json.RawMessage("null"), nil
			}
			if err != nil {
				return err
			}
			return a.printJSON(answer)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&runID, "run-id", "r", "", "run id (default: the latest run)")
	f.StringVarP(&queryType, "type", "t", "", "query type (required)")
	f.StringVarP(&input, "input", "i", "", "the query's argument, one JSON value")
	f.StringVar(&inputFile, "input-file", "", `file holding the argument ("-": standard input)`)
	f.StringVar(&reject, "reject-condition", "", "not_open or not_completed_cleanly")
	_ = cmd.MarkFlagRequired("type")
	return cmd
}

func (a *app) cancelCommand() *cobra.Command {
	var runID, reason string
	cmd := &cobra.Command{
		Use:   "cancel WORKFLOW_ID [--reason TEXT]",
		Short: "Ask a workflow to cancel (its code decides how)",
		Args:  exactArgs("a workflow id"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			c, err := a.connect()
			if err != nil {
				return err
			}
			ctx, cancel := a.call(cmd)
			defer cancel()
			if err := c.RequestCancelWorkflow(ctx, argv[0], runID, &orch.CancelOptions{Reason: reason}); err != nil {
				return err
			}
			return a.done(map[string]any{"workflow_id": argv[0], "cancel_requested": true}, "Requested cancellation of workflow %s", argv[0])
		},
	}
	cmd.Flags().StringVarP(&runID, "run-id", "r", "", "run id (default: the latest run)")
	cmd.Flags().StringVar(&reason, "reason", "", "why, recorded in the history")
	return cmd
}

func (a *app) terminateCommand() *cobra.Command {
	var runID, reason string
	cmd := &cobra.Command{
		Use:   "terminate WORKFLOW_ID [--reason TEXT]",
		Short: "End a workflow at once, without running its code",
		Args:  exactArgs("a workflow id"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			c, err := a.connect()
			if err != nil {
				return err
			}
			ctx, cancel := a.call(cmd)
			defer cancel()
			if err := c.TerminateWorkflow(ctx, argv[0], runID, &orch.TerminateOptions{Reason: reason}); err != nil {
				return err
			}
			return a.done(map[string]any{"workflow_id": argv[0], "terminated": true}, "Terminated workflow %s", argv[0])
		},
	}
	cmd.Flags().StringVarP(&runID, "run-id", "r", "", "run id (default: the latest run)")
	cmd.Flags().StringVar(&reason, "reason", "", "why, recorded in the history")
	return cmd
}

func (a *app) updateCommand() *cobra.Command {
	var runID, name, input, inputFile, updateID, wait string
	cmd := &cobra.Command{
		Use:   "update WORKFLOW_ID --name UPDATE [--input JSON]",
		Short: "Send an update to a workflow and print its result",
		Long: `Send an update to a workflow (a request its code handles and answers) and
print the result as JSON once the update completed. The workflow's validator
may reject the update: nothing is then recorded, and the command fails with
the rejection. --wait accepted returns as soon as the workflow accepted it.
--update-id names the update: sent again with the same id, an update is the
same update (the same result; it never runs twice).`,
		Args: exactArgs("a workflow id"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			in, err := a.inputValue("input", input, inputFile)
			if err != nil {
				return err
			}
			opts := &orch.UpdateOptions{UpdateID: updateID, WaitForStage: orch.UpdateCompleted}
			switch strings.ToLower(wait) {
			case "completed":
			case "accepted":
				opts.WaitForStage = orch.UpdateAccepted
			default:
				return usagef("--wait %q: want accepted or completed", wait)
			}
			c, err := a.connect()
			if err != nil {
				return err
			}
			ctx, cancel := a.call(cmd)
			defer cancel()
			u, err := c.UpdateWorkflow(ctx, argv[0], runID, name, in, opts)
			if err != nil {
				return err
			}
			if u.Stage < orch.UpdateCompleted {
				return a.done(map[string]any{"workflow_id": argv[0], "run_id": u.RunID, "update_id": u.UpdateID, "stage": "accepted"},
					"Update %s of workflow %s accepted", u.UpdateID, argv[0])
			}
			var result json.RawMessage
			err = u.Get(ctx, &result)
			if errors.Is(err, orch.ErrNoPayload) {
				result, err = json.RawMessage("null"), nil
			}
			if err != nil {
				return err
			}
			if result == nil {
				result = json.RawMessage("null")
			}
			return a.printJSON(result)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&runID, "run-id", "r", "", "run id (default: the latest run)")
	f.StringVar(&name, "name", "", "update name (required)")
	f.StringVarP(&input, "input", "i", "", "the update's argument, one JSON value")
	f.StringVar(&inputFile, "input-file", "", `file holding the argument ("-": standard input)`)
	f.StringVar(&updateID, "update-id", "", "the update's id (default: a random one)")
	f.StringVar(&wait, "wait", "completed", "accepted or completed")
	_ = cmd.MarkFlagRequired("name")
	return cmd
}

func (a *app) resetCommand() *cobra.Command {
	var runID, reason, reapply string
	var eventID int64
	cmd := &cobra.Command{
		Use:   "reset WORKFLOW_ID --event-id N [--reason TEXT] [--reapply signal|none]",
		Short: "Start a new run of a workflow from one of its workflow tasks",
		Long: `Start a new run of a workflow from one of its workflow tasks: --event-id is the
event just after that task's WorkflowTaskStarted (its WorkflowTaskCompleted,
as "workflow show" lists them). The new run keeps the history up to the task
and, unless --reapply none, the signals recorded after it; the workflow's
running run, if any, is terminated with --reason.`,
		Args: exactArgs("a workflow id"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			opts := &orch.ResetOptions{Reason: reason}
			switch reapply {
			case "signal":
				opts.ReapplyType = orchpb.ResetReapplyType_RESET_REAPPLY_TYPE_SIGNAL
			case "none":
				opts.ReapplyType = orchpb.ResetReapplyType_RESET_REAPPLY_TYPE_NONE
			default:
				return usagef("--reapply %q: want signal or none", reapply)
			}
			if eventID <= 0 {
				return usagef("--event-id %d: want the id of the event that finished a workflow task", eventID)
			}
			c, err := a.connect()
			if err != nil {
				return err
			}
			ctx, cancel := a.call(cmd)
			defer cancel()
			run, err := c.ResetWorkflow(ctx, argv[0], runID, eventID, opts)
			if err != nil {
				return err
			}
			return a.done(map[string]any{"workflow_id": run.ID, "run_id": run.RunID}, "Reset workflow %s: new run %s", run.ID, run.RunID)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&runID, "run-id", "r", "", "the run to reset (default: the latest run)")
	f.Int64Var(&eventID, "event-id", 0, "the event that finished the workflow task to go back to (required)")
	f.StringVar(&reason, "reason", "", "why, recorded in both runs' histories")
	f.StringVar(&reapply, "reapply", "signal", "the events after the point the new run gets again: signal or none")
	_ = cmd.MarkFlagRequired("event-id")
	_ = cmd.RegisterFlagCompletionFunc("reapply", cobra.FixedCompletions([]string{"signal", "none"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func (a *app) deleteCommand() *cobra.Command {
	var runID string
	cmd := &cobra.Command{
		Use:   "delete WORKFLOW_ID [--run-id RUN]",
		Short: "Remove a workflow run and its history (a running one is terminated first)",
		Args:  exactArgs("a workflow id"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			c, err := a.connect()
			if err != nil {
				return err
			}
			ctx, cancel := a.call(cmd)
			defer cancel()
			if err := c.DeleteWorkflow(ctx, argv[0], runID); err != nil {
				return err
			}
			return a.done(map[string]any{"workflow_id": argv[0], "deleted": true}, "Deleted workflow %s", argv[0])
		},
	}
	cmd.Flags().StringVarP(&runID, "run-id", "r", "", "run id (default: the latest run)")
	return cmd
}
