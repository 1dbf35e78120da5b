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
// to push alone; every event not named is switched off.
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
}

// ConfigureWebhook calls configure_webhook.
func (c *Client) ConfigureWebhook(ctx context.Context, p *ConfigureWebhookParams) (*Webhook, error) {
	return call[Webhook](ctx, c, "configure_webhook", p)
}
