package orch

import (
	"context"
	"iter"
	"time"

	"github.com/apitwin/apitwin/orch/orchpb"
)

// RegisterNamespaceOptions are the optional settings of RegisterNamespace.
type RegisterNamespaceOptions struct {
	Description string
	OwnerEmail  string
	// Retention is how long closed executions are kept (0: the server's
	// default).
	Retention time.Duration
	Data      map[string]string
	IsGlobal  bool
	// Clusters and ActiveClusterName place a global namespace.
	Clusters           []string
	ActiveClusterName  string
	HistoryArchival    *orchpb.ArchivalConfig
	VisibilityArchival *orchpb.ArchivalConfig
}

// RegisterNamespace creates a namespace, usable at once. A name in use is
// ALREADY_EXISTS (ErrAlreadyExists).
func (c *Client) RegisterNamespace(ctx context.Context, name string, opts *RegisterNamespaceOptions) error {
	req := &orchpb.RegisterNamespaceRequest{Namespace: name}
	if opts != nil {
		req.Description = opts.Description
		req.OwnerEmail = opts.OwnerEmail
		req.WorkflowExecutionRetentionPeriod = durationOrNil(opts.Retention)
		req.Data = opts.Data
		req.IsGlobalNamespace = opts.IsGlobal
		req.ActiveClusterName = opts.ActiveClusterName
		req.HistoryArchivalConfig = opts.HistoryArchival
		req.VisibilityArchivalConfig = opts.VisibilityArchival
		for _, cl := range opts.Clusters {
			req.Clusters = append(req.Clusters, &orchpb.ClusterReplicationConfig{ClusterName: cl})
		}
	}
	_, err := c.Raw().RegisterNamespace(ctx, req)
	return err
}

// DescribeNamespace returns a namespace (name "" for the client's own). An
// unknown name is NAMESPACE_NOT_FOUND (ErrNamespaceNotFound).
func (c *Client) DescribeNamespace(ctx context.Context, name string) (*orchpb.DescribeNamespaceResponse, error) {
	if name == "" {
		name = c.namespace
	}
	return c.Raw().DescribeNamespace(ctx, &orchpb.DescribeNamespaceRequest{Namespace: name})
}

// ListNamespaces returns one page of namespaces.
func (c *Client) ListNamespaces(ctx context.Context, opts *ListOptions) (*Page[*orchpb.DescribeNamespaceResponse], error) {
	return pageCall(ctx, func(ctx context.Context) (*Page[*orchpb.DescribeNamespaceResponse], error) {
		o := listOpts(opts)
		resp, err := c.Raw().ListNamespaces(ctx, &orchpb.ListNamespacesRequest{PageSize: o.PageSize, NextPageToken: o.PageToken})
		if err != nil {
			return nil, err
		}
		return &Page[*orchpb.DescribeNamespaceResponse]{Items: resp.GetNamespaces(), NextPageToken: resp.GetNextPageToken()}, nil
	})
}

// AllNamespaces iterates over every namespace, page by page.
func (c *Client) AllNamespaces(ctx context.Context, opts *ListOptions) iter.Seq2[*orchpb.DescribeNamespaceResponse, error] {
	return all(ctx, opts, c.ListNamespaces)
}
