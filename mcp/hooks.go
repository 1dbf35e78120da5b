package mcp

import (
	"context"
	"time"
)

// The event names configure_webhook accepts.
const (
	EventPush          = "push"
	EventIssues        = "issues"
	EventMergeRequests = "merge_requests"
	EventPipelines     = "pipelines"
	EventWiki          = "wiki"
)

// ConfigureWebhookParams are the params of configure_webhook. Events default
// to push alone; every event not named is switched off. A call is
// idempotent: when the project already has a hook to the same URL with
// the same events, that hook is the result (Created false) and none is
// added; Token is not compared (the server never shows it).
type ConfigureWebhookParams struct {
	ProjectID int64    `json:"project_id"`
	URL       string   `json:"url"` // absolute http or https; the gateway refuses the local network unless configured to allow it
	Events    []string `json:"events,omitempty"`
	// Token is sent back with every delivery (header X-Sourcehost-Token), so
	// the receiver can tell deliveries are genuine. It is never shown again.
	Token string `json:"token,omitempty"`
}

// Webhook is the result of configure_webhook.
type Webhook struct {
	ID                  int64     `json:"id"`
	URL                 string    `json:"url"`
	ProjectID           int64     `json:"project_id"`
	PushEvents          bool      `json:"push_events"`
	IssuesEvents        bool      `json:"issues_events"`
	MergeRequestsEvents bool      `json:"merge_requests_events"`
	PipelineEvents      bool      `json:"pipeline_events"`
	WikiPageEvents      bool      `json:"wiki_page_events"`
	CreatedAt           time.Time `json:"created_at"`
	// Created is true when configure_webhook added the hook, false when it
	// found it already there (and in list_hooks).
	Created bool `json:"created"`
}

// ConfigureWebhook calls configure_webhook.
func (c *Client) ConfigureWebhook(ctx context.Context, p *ConfigureWebhookParams) (*Webhook, error) {
	return call[Webhook](ctx, c, "configure_webhook", p)
}

// ListHooksParams are the params of list_hooks.
type ListHooksParams struct {
	ProjectID int64 `json:"project_id"`
	Page      int   `json:"page,omitempty"`
	PerPage   int   `json:"per_page,omitempty"`
	CacheOptions
}

// ListHooks calls list_hooks: a project's webhooks, a page at a time.
func (c *Client) ListHooks(ctx context.Context, p *ListHooksParams) (*Paged[Webhook], error) {
	return call[Paged[Webhook]](ctx, c, "list_hooks", p)
}

// DeleteHookParams are the params of delete_hook.
type DeleteHookParams struct {
	ProjectID int64 `json:"project_id"`
	HookID    int64 `json:"hook_id"`
}

// DeletedHook is the result of delete_hook.
type DeletedHook struct {
	ProjectID int64 `json:"project_id"`
	HookID    int64 `json:"hook_id"`
	Deleted   bool  `json:"deleted"` // always true: a hook that is not there is -32000 with status 404
}

// DeleteHook calls delete_hook.
func (c *Client) DeleteHook(ctx context.Context, p *DeleteHookParams) (*DeletedHook, error) {
	return call[DeletedHook](ctx, c, "delete_hook", p)
}
