package main

import (
	"github.com/spf13/cobra"

	"github.com/apitwin/apitwin/orch"
)

// The activity commands answer an activity from outside its worker (one
// whose function said its result is pending, or one stuck), by workflow
// id and activity id, as Temporal's CLI does (temporal activity complete
// and fail).
func (a *app) activityCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "activity",
		Short: "Complete or fail a workflow's activity from outside its worker",
		Args:  noArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(a.activityCompleteCommand(), a.activityFailCommand())
	return cmd
}

// activityTarget is the flags naming an activity.
type activityTarget struct{ workflowID, runID, activityID string }

func (t *activityTarget) flags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVarP(&t.workflowID, "workflow-id", "w", "", "id of the workflow that scheduled the activity (required)")
	f.StringVarP(&t.runID, "run-id", "r", "", "run id (default: the latest run)")
	f.StringVar(&t.activityID, "activity-id", "", "the activity's id (required)")
	_ = cmd.MarkFlagRequired("workflow-id")
	_ = cmd.MarkFlagRequired("activity-id")
}

func (a *app) activityCompleteCommand() *cobra.Command {
	var t activityTarget
	var result, resultFile string
	cmd := &cobra.Command{
		Use:   "complete --workflow-id ID --activity-id ID [--result JSON]",
		Short: "Complete an activity with a result",
		Long: `Complete an activity with a result (one JSON value; none by default), as
its worker would. The service starts an activity no worker took yet.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v, err := a.inputValue("result", result, resultFile)
			if err != nil {
				return err
			}
			c, err := a.connect()
			if err != nil {
				return err
			}
			ctx, cancel := a.call(cmd)
			defer cancel()
			if err := c.CompleteActivityByID(ctx, t.workflowID, t.runID, t.activityID, v, nil); err != nil {
				return err
			}
			return a.done(map[string]any{"workflow_id": t.workflowID, "activity_id": t.activityID, "status": "completed"},
				"Completed activity %s of workflow %s", t.activityID, t.workflowID)
		},
	}
	t.flags(cmd)
	cmd.Flags().StringVar(&result, "result", "", "the activity's result, one JSON value")
	cmd.Flags().StringVar(&resultFile, "result-file", "", `file holding the result ("-": standard input)`)
	return cmd
}

func (a *app) activityFailCommand() *cobra.Command {
	var t activityTarget
	var reason, detail string
	var nonRetryable bool
	cmd := &cobra.Command{
		Use:   "fail --workflow-id ID --activity-id ID [--reason TEXT] [--detail JSON] [--non-retryable]",
		Short: "Fail an activity's attempt",
		Long: `Fail an activity's current attempt with a reason and details (one JSON
value), as its worker would: the service retries the activity per its retry
policy unless --non-retryable.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			details, err := a.inputValue("detail", detail, "")
			if err != nil {
				return err
			}
			if reason == "" {
				reason = "failed with orchctl"
			}
			c, err := a.connect()
			if err != nil {
				return err
			}
			ctx, cancel := a.call(cmd)
			defer cancel()
			failure := &orch.ApplicationError{Message: reason, Type: "ActivityFailedFromCLI", NonRetryable: nonRetryable, Details: details}
			if err := c.CompleteActivityByID(ctx, t.workflowID, t.runID, t.activityID, nil, failure); err != nil {
				return err
			}
			return a.done(map[string]any{"workflow_id": t.workflowID, "activity_id": t.activityID, "status": "failed"},
				"Failed activity %s of workflow %s: %s", t.activityID, t.workflowID, reason)
		},
	}
	t.flags(cmd)
	f := cmd.Flags()
	f.StringVar(&reason, "reason", "", "why it failed (the failure's message)")
	f.StringVar(&detail, "detail", "", "details of the failure, one JSON value")
	f.BoolVar(&nonRetryable, "non-retryable", false, "end the activity failed instead of letting the service retry it")
	return cmd
}
