package orch

import (
	"context"
	"iter"

	"github.com/apitwin/apitwin/orch/orchpb"
)

// ListWorkflows returns one page of the executions matching query, the
// SQL-like filter of the service ("WorkflowType = 'Order' AND
// ExecutionStatus = 'Running' ORDER BY StartTime DESC"; empty for all). A
// malformed query is INVALID_ARGUMENT (ErrInvalidArgument).
func (c *Client) ListWorkflows(ctx context.Context, query string, opts *ListOptions) (*Page[*orchpb.WorkflowExecutionInfo], error) {
	return pageCall(ctx, func(ctx context.Context) (*Page[*orchpb.WorkflowExecutionInfo], error) {
		o := listOpts(opts)
		resp, err := c.Raw().ListWorkflowExecutions(ctx, &orchpb.ListWorkflowExecutionsRequest{
			Namespace: c.namespace, Query: query, PageSize: o.PageSize, NextPageToken: o.PageToken,
		})
		if err != nil {
			return nil, err
		}
		return &Page[*orchpb.WorkflowExecutionInfo]{Items: resp.GetExecutions(), NextPageToken: resp.GetNextPageToken()}, nil
	})
}

// AllWorkflows iterates over every execution matching query, page by page.
func (c *Client) AllWorkflows(ctx context.Context, query string, opts *ListOptions) iter.Seq2[*orchpb.WorkflowExecutionInfo, error] {
	return all(ctx, opts, func(ctx context.Context, o *ListOptions) (*Page[*orchpb.WorkflowExecutionInfo], error) {
		return c.ListWorkflows(ctx, query, o)
	})
}

// ScanWorkflows returns one page of the executions matching query, without
// requiring an index and in no order (ORDER BY is refused).
func (c *Client) ScanWorkflows(ctx context.Context, query string, opts *ListOptions) (*Page[*orchpb.WorkflowExecutionInfo], error) {
	return pageCall(ctx, func(ctx context.Context) (*Page[*orchpb.WorkflowExecutionInfo], error) {
		o := listOpts(opts)
		resp, err := c.Raw().ScanWorkflowExecutions(ctx, &orchpb.ScanWorkflowExecutionsRequest{
			Namespace: c.namespace, Query: query, PageSize: o.PageSize, NextPageToken: o.PageToken,
		})
		if err != nil {
			return nil, err
		}
		return &Page[*orchpb.WorkflowExecutionInfo]{Items: resp.GetExecutions(), NextPageToken: resp.GetNextPageToken()}, nil
	})
}

// ScanAllWorkflows iterates over every execution matching query, page by
// page, as ScanWorkflows reads them.
func (c *Client) ScanAllWorkflows(ctx context.Context, query string, opts *ListOptions) iter.Seq2[*orchpb.WorkflowExecutionInfo, error] {
	return all(ctx, opts, func(ctx context.Context, o *ListOptions) (*Page[*orchpb.WorkflowExecutionInfo], error) {
		return c.ScanWorkflows(ctx, query, o)
	})
}

// CountWorkflows returns how many executions match query (empty: all).
func (c *Client) CountWorkflows(ctx context.Context, query string) (int64, error) {
	resp, err := c.Raw().CountWorkflowExecutions(ctx, &orchpb.CountWorkflowExecutionsRequest{Namespace: c.namespace, Query: query})
	if err != nil {
		return 0, err
	}
	return resp.GetCount(), nil
}

// SearchAttributes are a namespace's search attributes and their types:
// the custom ones registered with AddSearchAttributes, and the system ones
// every namespace has.
type SearchAttributes struct {
	Custom map[string]orchpb.IndexedValueType
	System map[string]orchpb.IndexedValueType
}

// AddSearchAttributes registers custom search attributes in the client's
// namespace, name to type (KEYWORD, TEXT, INT, DOUBLE, BOOL, DATETIME,
// KEYWORD_LIST), all or none. Queries then compare them by their type, and
// starts may set them. A name registered already with the same type is
// accepted; with another type the call is ALREADY_EXISTS
// (ErrAlreadyExists). It calls AdminService.AddSearchAttributes.
func (c *Client) AddSearchAttributes(ctx context.Context, attrs map[string]orchpb.IndexedValueType) error {
	_, err := c.Raw().AddSearchAttributes(ctx, &orchpb.AddSearchAttributesRequest{Namespace: c.namespace, SearchAttributes: attrs})
	return err
}

// RemoveSearchAttributes removes custom search attributes, all or none; an
// unknown name is NOT_FOUND, a system one INVALID_ARGUMENT. It calls
// AdminService.RemoveSearchAttributes.
func (c *Client) RemoveSearchAttributes(ctx context.Context, names ...string) error {
	_, err := c.Raw().RemoveSearchAttributes(ctx, &orchpb.RemoveSearchAttributesRequest{Namespace: c.namespace, SearchAttributes: names})
	return err
}

// ListSearchAttributes returns the search attributes of the client's
// namespace. It calls AdminService.ListSearchAttributes.
func (c *Client) ListSearchAttributes(ctx context.Context) (*SearchAttributes, error) {
	resp, err := c.Raw().ListSearchAttributes(ctx, &orchpb.ListSearchAttributesRequest{Namespace: c.namespace})
	if err != nil {
		return nil, err
	}
	return &SearchAttributes{Custom: resp.GetCustomAttributes(), System: resp.GetSystemAttributes()}, nil
}
