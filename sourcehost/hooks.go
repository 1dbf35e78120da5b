package sourcehost

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"time"

	"github.com/google/go-querystring/query"

	"github.com/apitwin/apitwin/internal/rest"
)

// ProjectHook is a webhook: a URL the server POSTs events of a project to.
type ProjectHook struct {
	ID                       int64     `json:"id"`
	URL                      string    `json:"url"`
	ProjectID                int64     `json:"project_id"`
	PushEvents               bool      `json:"push_events"`
	PushEventsBranchFilter   string    `json:"push_events_branch_filter"`
	TagPushEvents            bool      `json:"tag_push_events"`
	IssuesEvents             bool      `json:"issues_events"`
	ConfidentialIssuesEvents bool      `json:"confidential_issues_events"`
	MergeRequestsEvents      bool      `json:"merge_requests_events"`
	NoteEvents               bool      `json:"note_events"`
	JobEvents                bool      `json:"job_events"`
	PipelineEvents           bool      `json:"pipeline_events"`
	WikiPageEvents           bool      `json:"wiki_page_events"`
	ReleasesEvents           bool      `json:"releases_events"`
	EnableSSLVerification    bool      `json:"enable_ssl_verification"`
	CreatedAt                time.Time `json:"created_at"`
}

// AddProjectHookRequest is the form of POST /projects/:id/hooks. An event
// flag left nil takes the server's default: push events on, the rest off.
type AddProjectHookRequest struct {
	URL                      string `url:"url"`
	PushEvents               *bool  `url:"push_events,omitempty"`
	PushEventsBranchFilter   string `url:"push_events_branch_filter,omitempty"`
	TagPushEvents            *bool  `url:"tag_push_events,omitempty"`
	IssuesEvents             *bool  `url:"issues_events,omitempty"`
	ConfidentialIssuesEvents *bool  `url:"confidential_issues_events,omitempty"`
	MergeRequestsEvents      *bool  `url:"merge_requests_events,omitempty"`
	NoteEvents               *bool  `url:"note_events,omitempty"`
	JobEvents                *bool  `url:"job_events,omitempty"`
	PipelineEvents           *bool  `url:"pipeline_events,omitempty"`
	WikiPageEvents           *bool  `url:"wiki_page_events,omitempty"`
	ReleasesEvents           *bool  `url:"releases_events,omitempty"`
	EnableSSLVerification    *bool  `url:"enable_ssl_verification,omitempty"`
	// Token is sent with every delivery in the HookTokenHeader header, so the
	// receiver can tell the deliveries are genuine. It is never shown again.
	Token string `url:"token,omitempty"`
}

// AddProjectHook registers a webhook. The request travels as form fields.
//
// GitLab API: [POST /projects/{id}/hooks]
//
// [POST /projects/{id}/hooks]: https://docs.gitlab.com/api/project_webhooks/#add-a-webhook-to-a-project
func (c *Client) AddProjectHook(ctx context.Context, pid ProjectRef, req *AddProjectHookRequest) (*ProjectHook, error) {
	if req == nil || req.URL == "" {
		return nil, errors.New("sourcehost: AddProjectHook needs a URL")
	}
	if err := checkHookURL("AddProjectHook", req.URL); err != nil {
		return nil, err
	}
	path, err := projectPath(pid, "/hooks")
	if err != nil {
		return nil, err
	}
	form, err := query.Values(req)
	if err != nil {
		return nil, fmt.Errorf("sourcehost: encoding hook: %w", err)
	}
	var h ProjectHook
	// The hook's token is the receiver's secret: an error answer or a log
	// line that quotes the form must not show it.
	if _, err := c.send(ctx, &rest.Request{Method: http.MethodPost, Path: path, Form: form, Secrets: []string{req.Token}}, &h); err != nil {
		return nil, err
	}
	return &h, nil
}

// ListProjectHooks returns one page of a project's webhooks.
//
// GitLab API: [GET /projects/{id}/hooks]
//
// [GET /projects/{id}/hooks]: https://docs.gitlab.com/api/project_webhooks/#list-webhooks-for-a-project
func (c *Client) ListProjectHooks(ctx context.Context, pid ProjectRef, opts *ListOptions) (*Page[ProjectHook], error) {
	return listIn[ProjectHook](ctx, c, pid, "/hooks", opts)
}

// AllProjectHooks iterates a project's webhooks a page at a time.
//
// GitLab API: [GET /projects/{id}/hooks]
//
// [GET /projects/{id}/hooks]: https://docs.gitlab.com/api/project_webhooks/#list-webhooks-for-a-project
func (c *Client) AllProjectHooks(ctx context.Context, pid ProjectRef, opts *ListOptions) iter.Seq2[*ProjectHook, error] {
	return allIn[ProjectHook](ctx, c, pid, "/hooks", opts)
}

// GetProjectHook returns one webhook.
//
// GitLab API: [GET /projects/{id}/hooks/{hook_id}]
//
// [GET /projects/{id}/hooks/{hook_id}]: https://docs.gitlab.com/api/project_webhooks/#get-a-project-webhook
func (c *Client) GetProjectHook(ctx context.Context, pid ProjectRef, hookID int64) (*ProjectHook, error) {
	path, err := projectPath(pid, fmt.Sprintf("/hooks/%d", hookID))
	if err != nil {
		return nil, err
	}
	return do[ProjectHook](ctx, c, http.MethodGet, path, nil, nil)
}

// EditProjectHookRequest is the form of PUT /projects/:id/hooks/:hook_id:
// what is set changes, what is left empty or nil stays.
type EditProjectHookRequest struct {
	URL                      string `url:"url,omitempty"`
	PushEvents               *bool  `url:"push_events,omitempty"`
	PushEventsBranchFilter   string `url:"push_events_branch_filter,omitempty"`
	TagPushEvents            *bool  `url:"tag_push_events,omitempty"`
	IssuesEvents             *bool  `url:"issues_events,omitempty"`
	ConfidentialIssuesEvents *bool  `url:"confidential_issues_events,omitempty"`
	MergeRequestsEvents      *bool  `url:"merge_requests_events,omitempty"`
	NoteEvents               *bool  `url:"note_events,omitempty"`
	JobEvents                *bool  `url:"job_events,omitempty"`
	PipelineEvents           *bool  `url:"pipeline_events,omitempty"`
	WikiPageEvents           *bool  `url:"wiki_page_events,omitempty"`
	ReleasesEvents           *bool  `url:"releases_events,omitempty"`
	EnableSSLVerification    *bool  `url:"enable_ssl_verification,omitempty"`
	// Token replaces the secret sent with every delivery in the
	// HookTokenHeader header.
	Token string `url:"token,omitempty"`
}

// EditProjectHook changes a webhook and returns it. The request travels as
// form fields; one that sets nothing is refused by the server with 400.
//
// GitLab API: [PUT /projects/{id}/hooks/{hook_id}]
//
// [PUT /projects/{id}/hooks/{hook_id}]: https://docs.gitlab.com/api/project_webhooks/#edit-a-project-webhook
func (c *Client) EditProjectHook(ctx context.Context, pid ProjectRef, hookID int64, req *EditProjectHookRequest) (*ProjectHook, error) {
	if req == nil {
		return nil, errors.New("sourcehost: EditProjectHook needs a request")
	}
	if req.URL != "" {
		if err := checkHookURL("EditProjectHook", req.URL); err != nil {
			return nil, err
		}
	}
	path, err := projectPath(pid, fmt.Sprintf("/hooks/%d", hookID))
	if err != nil {
		return nil, err
	}
	form, err := query.Values(req)
	if err != nil {
		return nil, fmt.Errorf("sourcehost: encoding hook: %w", err)
	}
	var h ProjectHook
	if _, err := c.send(ctx, &rest.Request{Method: http.MethodPut, Path: path, Form: form, Secrets: []string{req.Token}}, &h); err != nil {
		return nil, err
	}
	return &h, nil
}

// DeleteProjectHook removes a webhook.
//
// GitLab API: [DELETE /projects/{id}/hooks/{hook_id}]
//
// [DELETE /projects/{id}/hooks/{hook_id}]: https://docs.gitlab.com/api/project_webhooks/#delete-project-webhook
func (c *Client) DeleteProjectHook(ctx context.Context, pid ProjectRef, hookID int64) error {
	path, err := projectPath(pid, fmt.Sprintf("/hooks/%d", hookID))
	if err != nil {
		return err
	}
	_, err = c.call(ctx, http.MethodDelete, path, nil, nil, nil)
	return err
}

// checkHookURL refuses, before anything is sent, a hook URL the service
// would refuse: one that is not an absolute http or https URL.
func checkHookURL(method, raw string) error {
	if u, err := url.Parse(raw); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("sourcehost: %s: %q is not an absolute http or https URL", method, raw)
	}
	return nil
}
