package mcp

import (
	"context"
	"net/url"
	"slices"
	"time"

	"github.com/apitwin/apitwin/sourcehost"
)

// The event names configure_webhook accepts.
const (
	EventPush          = "push"
	EventIssues        = "issues"
	EventMergeRequests = "merge_requests"
	EventPipelines     = "pipelines"
	EventWiki          = "wiki"
)

var webhookEvents = []string{EventPush, EventIssues, EventMergeRequests, EventPipelines, EventWiki}

// ConfigureWebhookParams are the params of configure_webhook. Events default
// to push alone; every event not named is switched off.
type ConfigureWebhookParams struct {
	ProjectID int64    `json:"project_id"`
	URL       string   `json:"url"`
	Events    []string `json:"events,omitempty"`
	// Token is sent back with every delivery (header X-Sourcehost-Token), so
	// the receiver can tell deliveries are genuine. It is never shown again.
	Token string `json:"token,omitempty"`
	writeCall
}

func (p *ConfigureWebhookParams) tags() []string { return []string{projectTag(p.ProjectID)} }

// hookURL is where the call has the source-hosting API send requests,
// which the gateway's hookGuard checks before the call runs.
func (p *ConfigureWebhookParams) hookURL() string { return p.URL }

func (p *ConfigureWebhookParams) validate() *Error {
	u, err := url.Parse(p.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return paramError("url", "must be an absolute http or https URL")
	}
	if p.Events != nil && len(p.Events) == 0 {
		return paramError("events", "must name at least one event")
	}
	return nil
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

var configureWebhookTool = define(tool{
	name:        "configure_webhook",
	description: "Add a webhook to a project that notifies a URL of the named events: push, issues, merge_requests, pipelines, wiki.",
	params: []param{
		projectParam,
		{name: "url", kind: kindString, required: true, description: "http or https URL to notify."},
		{name: "events", kind: kindStrings, enum: webhookEvents, description: "Events to send (default: push)."},
		{name: "token", kind: kindString, description: "Secret sent back with every delivery."},
	},
}, func(ctx context.Context, up *sourcehost.Client, p *ConfigureWebhookParams) (*Webhook, error) {
	events := p.Events
	if events == nil {
		events = []string{EventPush}
	}
	on := func(name string) *bool { return sourcehost.Ptr(slices.Contains(events, name)) }
	h, err := up.AddProjectHook(ctx, sourcehost.ProjectID(p.ProjectID), &sourcehost.AddProjectHookRequest{
		URL: p.URL, Token: p.Token,
		PushEvents: on(EventPush), IssuesEvents: on(EventIssues), MergeRequestsEvents: on(EventMergeRequests),
		PipelineEvents: on(EventPipelines), WikiPageEvents: on(EventWiki),
	})
	if err != nil {
		return nil, err
	}
	return &Webhook{
		ID: h.ID, URL: h.URL, ProjectID: h.ProjectID, PushEvents: h.PushEvents, IssuesEvents: h.IssuesEvents,
		MergeRequestsEvents: h.MergeRequestsEvents, PipelineEvents: h.PipelineEvents, WikiPageEvents: h.WikiPageEvents,
		CreatedAt: h.CreatedAt,
	}, nil
})

// ConfigureWebhook calls configure_webhook.
func (c *Client) ConfigureWebhook(ctx context.Context, p *ConfigureWebhookParams) (*Webhook, error) {
	return call[Webhook](ctx, c, "configure_webhook", p)
}
