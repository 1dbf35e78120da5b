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

// UpdateNamespaceOptions are the changes UpdateNamespace makes; a zero
// field leaves its setting as it is.
type UpdateNamespaceOptions struct {
	Description string
	OwnerEmail  string
	// Retention is how long closed executions are kept.
	Retention time.Duration
	// Data is merged into the namespace's data: a key given replaces its
	// value, the others stay.
	Data map[string]string
	// State may be DEPRECATED (as DeprecateNamespace); a deprecated
	// namespace never becomes REGISTERED again.
	State              orchpb.NamespaceState
	HistoryArchival    *orchpb.ArchivalConfig
	VisibilityArchival *orchpb.ArchivalConfig
}

// UpdateNamespace changes a namespace (name "" for the client's own) and
// returns it as it is now. An unknown name is NAMESPACE_NOT_FOUND
// (ErrNamespaceNotFound); a bad value is INVALID_ARGUMENT and changes
// nothing.
func (c *Client) UpdateNamespace(ctx context.Context, name string, opts *UpdateNamespaceOptions) (*orchpb.UpdateNamespaceResponse, error) {
	if name == "" {
		name = c.namespace
	}
	req := &orchpb.UpdateNamespaceRequest{Namespace: name}
	if opts != nil {
		req.UpdateInfo = &orchpb.UpdateNamespaceInfo{Description: opts.Description, OwnerEmail: opts.OwnerEmail, Data: opts.Data, State: opts.State}
		cfg := &orchpb.NamespaceConfig{WorkflowExecutionRetentionTtl: durationOrNil(opts.Retention)}
		if a := opts.HistoryArchival; a != nil {
			cfg.HistoryArchivalState, cfg.HistoryArchivalUri = a.GetState(), a.GetUri()
		}
		if a := opts.VisibilityArchival; a != nil {
			cfg.VisibilityArchivalState, cfg.VisibilityArchivalUri = a.GetState(), a.GetUri()
		}
		req.Config = cfg
	}
	return c.Raw().UpdateNamespace(ctx, req)
}

// DeprecateNamespace sets a namespace's state to DEPRECATED: its
// executions go on, new starts are refused (FAILED_PRECONDITION).
func (c *Client) DeprecateNamespace(ctx context.Context, name string) error {
	if name == "" {
		name = c.namespace
	}
	_, err := c.Raw().DeprecateNamespace(ctx, &orchpb.DeprecateNamespaceRequest{Namespace: name})
	return err
}

// DeleteNamespace removes a namespace and every execution in it (the open
// ones are terminated first).
func (c *Client) DeleteNamespace(ctx context.Context, name string) error {
	if name == "" {
		name = c.namespace
	}
	_, err := c.Raw().DeleteNamespace(ctx, &orchpb.DeleteNamespaceRequest{Namespace: name})
	return err
}
