package orch_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
)

func TestListScanCount(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		srv := e.fake(t)
		if err := srv.RegisterSearchAttribute("default", "CustomerId", orchfake.Keyword); err != nil {
			t.Fatal(err)
		}
		c := e.client(t)
		var runs []*orch.WorkflowRun
		for i, typ := range []string{"Order", "Order", "Order", "Refund"} {
			run, err := c.StartWorkflow(t.Context(), typ, "q", nil, &orch.StartWorkflowOptions{
				SearchAttributes: map[string]any{"CustomerId": []string{"c-1", "c-1", "c-2", "c-1"}[i]},
			})
			if err != nil {
				t.Fatal(err)
			}
			runs = append(runs, run)
			srv.Clock().Advance(time.Second) // distinct start times
		}
		if err := runs[0].Terminate(t.Context(), nil); err != nil {
			t.Fatal(err)
		}
		query := "WorkflowType = 'Order' AND ExecutionStatus = 'Running' AND CustomerId = 'c-1'"
		n, err := c.CountWorkflows(t.Context(), query)
		if err != nil || n != 1 {
			t.Errorf("count %d, %v", n, err)
		}
		page, err := c.ListWorkflows(t.Context(), query, nil)
		if err != nil || len(page.Items) != 1 || page.Items[0].GetExecution().GetWorkflowId() != runs[1].ID {
			t.Errorf("list %v, %v", page, err)
		}
		var ids []string
		for info, err := range c.AllWorkflows(t.Context(), "WorkflowType IN ('Order', 'Refund') ORDER BY StartTime ASC", &orch.ListOptions{PageSize: 1}) {
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, info.GetExecution().GetWorkflowId())
		}
		if len(ids) != 4 || ids[0] != runs[0].ID {
			t.Errorf("all: %v", ids)
		}
		scanned := 0
		for info, err := range c.ScanAllWorkflows(t.Context(), "ExecutionStatus = 'Running'", &orch.ListOptions{PageSize: 2}) {
			if err != nil {
				t.Fatal(err)
			}
			if info.GetStatus() != orchpb.WorkflowExecutionStatus_RUNNING {
				t.Errorf("scanned %v", info)
			}
			scanned++
		}
		if scanned != 3 {
			t.Errorf("scanned %d, want 3", scanned)
		}
		if total, err := c.CountWorkflows(t.Context(), ""); err != nil || total != 4 {
			t.Errorf("count all: %d, %v", total, err)
		}
		_, err = c.ListWorkflows(t.Context(), "WorkflowType = ", nil)
		if !errors.Is(err, orch.ErrInvalidArgument) || !strings.Contains(err.Error(), "position") {
			t.Errorf("malformed query: %v", err)
		}
	})
}
