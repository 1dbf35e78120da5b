// Package sourcehost is a client for a source-hosting REST API v4 (modelled
// on GitLab's), authenticated by a personal access token: the current user,
// projects and their members ([AccessLevel]), issues and merge requests
// with their notes, labels and milestones, the repository (branches and
// their protection, tags, commits, files and the tree), releases,
// pipelines and their jobs, and webhooks with typed events.
//
//	c, err := sourcehost.New("https://git.example.com", sourcehost.WithToken(os.Getenv("TOKEN")))
//	if err != nil { … }
//	p, err := c.CreateProject(ctx, &sourcehost.CreateProjectRequest{Name: "shop", Visibility: sourcehost.Private})
//	issue, err := c.CreateIssue(ctx, sourcehost.ProjectID(p.ID), &sourcehost.CreateIssueRequest{Title: "Ship it"})
//	for p, err := range c.AllProjects(ctx, &sourcehost.ListProjectsOptions{Owned: sourcehost.Ptr(true)}) { … }
//
// A project is named by id ([ProjectID]) or by path ([ProjectPath]);
// paths are escaped for the URL as the API wants ("group%2Fproject").
//
// # Pages
//
// ListX methods return one [Page] with its [PageInfo], read from the
// X-Page, X-Next-Page, X-Total, … headers (or Link). AllX methods return an
// iterator that fetches the next page only when the loop needs it, so
// memory holds one page; breaking out of the loop fetches nothing more.
//
// # Errors, rate limits and retries
//
// An error answer is an [*Error] with the status and the server's message,
// including the field-by-field messages of validation failures; match it
// with errors.Is against [ErrNotFound], [ErrUnauthorized], [ErrForbidden],
// [ErrUnprocessable], [ErrRateLimited] and the rest.
//
// Every response's rate-limit headers are read ([Client.RateLimit]). A 429
// is retried for every method after the longer of the backoff (1 s
// doubling: 1, 2, 4 s) and the wait the server asks for (Retry-After, else
// the reset time), at most 3 times by default, never past the context's
// deadline nor after a server's wait over MaxWait (60 s by default); when it gives up the error is
// a [*RateLimitError]. A 5xx or a network failure is retried only for
// GET, PUT, DELETE and the like, or when the connection was never made: a
// POST that may have reached the server is never sent twice. See
// [WithRetry].
//
// # OAuth tokens
//
// [WithOAuthToken] calls the API with an OAuth access token of the
// server's authorization server. A resource server that is handed such a
// token (an MCP gateway in front of the API) asks that server what it is
// with [Client.OAuthTokenInfo], through the same client (its transport,
// TLS settings, retries): GET /oauth/token/info, which lives at the
// server's root rather than under /api/v4, with the token as its bearer.
//
// # Webhooks
//
// [ParseWebhook] reads a delivery in your receiver, checking its secret
// token, into a typed event.
//
// # Choices where the specification is silent
//
// Error bodies, pagination headers, the 10,000-item limit on counted
// totals, access levels and token scopes follow GitLab's API v4. Pipelines
// are started with POST /projects/:id/pipeline (GitLab's), and refuse a ref
// that lacks the CI definition file. Webhook deliveries carry the headers
// X-Sourcehost-Event, X-Sourcehost-Token and X-Sourcehost-Event-UUID.
//
// Beyond the specification's endpoints the client follows GitLab's API v4
// paths, fields and statuses: members at /projects/:id/members (409 for a
// member added twice), notes at .../issues/:iid/notes and
// .../merge_requests/:iid/notes (the server writes system notes such as
// "closed" and "merged" itself), labels (409 for a name in use, in any
// case; [CheckLabelName] says what a server refuses) and milestones,
// protected branches (deleting one is 405), tags and releases (a release
// of a missing tag makes it from Ref; 409 for a second release, 422 for a
// missing tag without Ref), commits, files updated and deleted with an
// optional last_commit_id (409 when the file changed since), and jobs
// (retrying an unfinished job is 403). Milestones and jobs are named by
// their ids, labels by name or [LabelID], tags and branches by name.
//
// The fake in fake/sourcehostfake keeps this contract for tests.
package sourcehost
