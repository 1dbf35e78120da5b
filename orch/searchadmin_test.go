package orch_test

import (
	"errors"
	"testing"

	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// Custom search attributes are administered over both transports, and the
// query language checks comparisons against their types.
func TestSearchAttributeAdmin(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		e.fake(t) // a real server's attributes are not ours to change
		c := e.client(t)
		ctx := t.Context()
		must(t, c.AddSearchAttributes(ctx, map[string]orchpb.IndexedValueType{"CustomerId": orchpb.IndexedValueType_KEYWORD, "Priority": orchpb.IndexedValueType_INT}))
		must(t, c.AddSearchAttributes(ctx, map[string]orchpb.IndexedValueType{"Priority": orchpb.IndexedValueType_INT})) // again: fine
		sa, err := c.ListSearchAttributes(ctx)
		if err != nil || sa.Custom["Priority"] != orchpb.IndexedValueType_INT || sa.Custom["CustomerId"] != orchpb.IndexedValueType_KEYWORD ||
			sa.System["StartTime"] != orchpb.IndexedValueType_DATETIME {
			t.Fatalf("list: %+v, %v", sa, err)
		}
		if _, err := c.StartWorkflow(ctx, "W", "q", nil, &orch.StartWorkflowOptions{ID: "vip",
			SearchAttributes: map[string]any{"CustomerId": "acme-1", "Priority": 3}}); err != nil {
			t.Fatal(err)
		}
		if n, err := c.CountWorkflows(ctx, "Priority > 2 AND CustomerId = 'acme-1'"); err != nil || n != 1 {
			t.Errorf("count: %d, %v", n, err)
		}
		if _, err := c.CountWorkflows(ctx, "Priority = 'high'"); !errors.Is(err, orch.ErrInvalidArgument) {
			t.Errorf("a string against an INT: %v", err)
		}
		if _, err := c.StartWorkflow(ctx, "W", "q", nil, &orch.StartWorkflowOptions{SearchAttributes: map[string]any{"Priority": "high"}}); !errors.Is(err, orch.ErrInvalidArgument) {
			t.Errorf("a start with a string for an INT: %v", err)
		}
		if err := c.AddSearchAttributes(ctx, map[string]orchpb.IndexedValueType{"Priority": orchpb.IndexedValueType_TEXT}); !errors.Is(err, orch.ErrAlreadyExists) {
			t.Errorf("another type: %v", err)
		}
		for _, bad := range []map[string]orchpb.IndexedValueType{{"WorkflowId": orchpb.IndexedValueType_KEYWORD}, {"Bad": 0}, {"": orchpb.IndexedValueType_INT}} {
			if err := c.AddSearchAttributes(ctx, bad); !errors.Is(err, orch.ErrInvalidArgument) {
				t.Errorf("add %v: %v", bad, err)
			}
		}
		must(t, c.RemoveSearchAttributes(ctx, "Priority"))
		if _, err := c.CountWorkflows(ctx, "Priority > 2"); !errors.Is(err, orch.ErrInvalidArgument) {
			t.Errorf("query on a removed attribute: %v", err)
		}
		if err := c.RemoveSearchAttributes(ctx, "Priority"); !errors.Is(err, orch.ErrNotFound) {
			t.Errorf("remove twice: %v", err)
		}
		if err := c.RemoveSearchAttributes(ctx, "StartTime"); !errors.Is(err, orch.ErrInvalidArgument) {
			t.Errorf("remove a system attribute: %v", err)
		}
	})
}
