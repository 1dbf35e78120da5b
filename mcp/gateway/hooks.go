package gateway

import (
	"context"
	"net/url"
	"slices"

	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/sourcehost"
)

// webhookEvents are the event names configure_webhook accepts.
var webhookEvents = []string{mcp.EventPush, mcp.EventIssues, mcp.EventMergeRequests, mcp.EventPipelines, mcp.EventWiki}

var configureWebhookTool = define(tool{
	name:        "configure_webhook",
	title:       "Add a webhook",
	effects:     &effects{openWorld: true}, // the server then sends requests to any URL
	description: "Add a webhook to a project that notifies a URL of the named events: push, issues, merge_requests, pipelines, wiki.",
	params: []param{
		projectParam,
		{name: "url", kind: kindString, required: true, description: "http or https URL to notify."},
		{name: "events", kind: kindStrings, enum: webhookEvents, description: "Events to send (default: push)."},
		{name: "token", kind: kindString, description: "Secret sent back with every delivery."},
	},
}, calls[mcp.ConfigureWebhookParams, *mcp.Webhook]{
	tags: func(p *mcp.ConfigureWebhookParams) []string { return projectTags(p.ProjectID) },
	check: func(p *mcp.ConfigureWebhookParams) *mcp.Error {
		u, err := url.Parse(p.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return paramError("url", "must be an absolute http or https URL")
		}
		if p.Events != nil && len(p.Events) == 0 {
			return paramError("events", "must name at least one event")
		}
		return nil
	},
	// The source-hosting API will send requests there: hookGuard decides
	// whether it may.
	hookURL: func(p *mcp.ConfigureWebhookParams) string { return p.URL },
	run: func(ctx context.Context, up *sourcehost.Client, p *mcp.ConfigureWebhookParams) (*mcp.Webhook, error) {
		events := p.Events
		if events == nil {
			events = []string{mcp.EventPush}
		}
		on := func(name string) *bool { return sourcehost.Ptr(slices.Contains(events, name)) }
		h, err := up.AddProjectHook(ctx, sourcehost.ProjectID(p.ProjectID), &sourcehost.AddProjectHookRequest{
			URL: p.URL, Token: p.Token,
			PushEvents: on(mcp.EventPush), IssuesEvents: on(mcp.EventIssues), MergeRequestsEvents: on(mcp.EventMergeRequests),
			PipelineEvents: on(mcp.EventPipelines), WikiPageEvents: on(mcp.EventWiki),
		})
		if err != nil {
			return nil, err
		}
		return &mcp.Webhook{
			ID: h.ID, URL: h.URL, ProjectID: h.ProjectID, PushEvents: h.PushEvents, IssuesEvents: h.IssuesEvents,
			MergeRequestsEvents: h.MergeRequestsEvents, PipelineEvents: h.PipelineEvents, WikiPageEvents: h.WikiPageEvents,
			CreatedAt: h.CreatedAt,
		}, nil
	},
})
