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
	name:  "configure_webhook",
	title: "Add a webhook",
	// Idempotent: the same project, URL and events find the hook made
	// before.
	effects:     &effects{idempotent: true, openWorld: true}, // the server then sends requests to any URL
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
		pid := sourcehost.ProjectID(p.ProjectID)
		want := hookEvents{*on(mcp.EventPush), *on(mcp.EventIssues), *on(mcp.EventMergeRequests), *on(mcp.EventPipelines), *on(mcp.EventWiki)}
		if h, err := findHook(ctx, up, pid, p.URL, want); err != nil || h != nil {
			if err != nil {
				return nil, err
			}
			return webhook(h, false), nil
		}
		h, err := up.AddProjectHook(ctx, pid, &sourcehost.AddProjectHookRequest{
			URL: p.URL, Token: p.Token,
			PushEvents: on(mcp.EventPush), IssuesEvents: on(mcp.EventIssues), MergeRequestsEvents: on(mcp.EventMergeRequests),
			PipelineEvents: on(mcp.EventPipelines), WikiPageEvents: on(mcp.EventWiki),
		})
		if err != nil {
			return nil, err
		}
		return webhook(h, true), nil
	},
})

func webhook(h *sourcehost.ProjectHook, created bool) *mcp.Webhook {
	return &mcp.Webhook{
		ID: h.ID, URL: h.URL, ProjectID: h.ProjectID, PushEvents: h.PushEvents, IssuesEvents: h.IssuesEvents,
		MergeRequestsEvents: h.MergeRequestsEvents, PipelineEvents: h.PipelineEvents, WikiPageEvents: h.WikiPageEvents,
		CreatedAt: h.CreatedAt, Created: created,
	}
}

// hookEvents are the event flags configure_webhook sets: push, issues,
// merge requests, pipelines, wiki.
type hookEvents [5]bool

func eventsOf(h *sourcehost.ProjectHook) hookEvents {
	return hookEvents{h.PushEvents, h.IssuesEvents, h.MergeRequestsEvents, h.PipelineEvents, h.WikiPageEvents}
}

// maxHookPages bounds the pages of hooks findHook reads: GitLab allows
// 100 hooks a project by default, one page of 100.
const maxHookPages = 10

// findHook is the project's hook to url with the events want, or nil.
// (Two calls at once may both find none and both add one: the check is
// for retries, not a lock.)
func findHook(ctx context.Context, up *sourcehost.Client, pid sourcehost.ProjectRef, url string, want hookEvents) (*sourcehost.ProjectHook, error) {
	for page := 1; page <= maxHookPages; page++ {
		p, err := up.ListProjectHooks(ctx, pid, &sourcehost.ListOptions{Page: page, PerPage: maxPerPage})
		if err != nil {
			return nil, err
		}
		for _, h := range p.Items {
			if h.URL == url && eventsOf(h) == want {
				return h, nil
			}
		}
		if p.NextPage == 0 {
			break
		}
	}
	return nil, nil
}

var listHooksTool = define(tool{
	name:        "list_hooks",
	title:       "List webhooks",
	description: "List a project's webhooks with the events each sends.",
	params:      []param{projectParam, pageParam, perPageParam},
}, calls[mcp.ListHooksParams, *mcp.Paged[mcp.Webhook]]{
	cache: func(p *mcp.ListHooksParams) *mcp.CacheOptions { return &p.CacheOptions },
	tags:  func(p *mcp.ListHooksParams) []string { return projectTags(p.ProjectID) },
	run: func(ctx context.Context, up *sourcehost.Client, p *mcp.ListHooksParams) (*mcp.Paged[mcp.Webhook], error) {
		page, err := up.ListProjectHooks(ctx, sourcehost.ProjectID(p.ProjectID), sourcehost.Ptr(listOptions(p.Page, p.PerPage)))
		if err != nil {
			return nil, err
		}
		return paged(page, func(h *sourcehost.ProjectHook) mcp.Webhook { return *webhook(h, false) }), nil
	},
})

var deleteHookTool = define(tool{
	name:        "delete_hook",
	title:       "Delete a webhook",
	description: "Remove one of a project's webhooks by its id (from list_hooks or configure_webhook).",
	params: []param{
		projectParam,
		{name: "hook_id", kind: kindInteger, required: true, min: 1, max: 1 << 62, description: "ID of the webhook."},
	},
	// Deleting again changes nothing more (it is 404).
	effects: &effects{destructive: true, idempotent: true},
}, calls[mcp.DeleteHookParams, *mcp.DeletedHook]{
	tags: func(p *mcp.DeleteHookParams) []string { return projectTags(p.ProjectID) },
	run: func(ctx context.Context, up *sourcehost.Client, p *mcp.DeleteHookParams) (*mcp.DeletedHook, error) {
		if err := up.DeleteProjectHook(ctx, sourcehost.ProjectID(p.ProjectID), p.HookID); err != nil {
			return nil, err
		}
		return &mcp.DeletedHook{ProjectID: p.ProjectID, HookID: p.HookID, Deleted: true}, nil
	},
})
