// Package sourcehostfake is a stateful, in-process twin of the
// source-hosting REST API v4, for testing code that uses package
// sourcehost (or any GitLab-v4 client) without a real server.
//
//	srv := sourcehostfake.Start(t)                 // on loopback, closed when the test ends
//	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Visibility: "public"})
//	c := srv.Client()                              // a sourcehost client, signed in as root
//	c.CreateIssue(ctx, sourcehost.ProjectID(id), &sourcehost.CreateIssueRequest{Title: "bug"})
//	srv.Clock().Advance(time.Minute)               // pipelines move on, rate-limit windows end
//
// What it keeps: users with personal access tokens and scopes (api,
// read_api, read_user, read_repository), groups and members with access
// levels, projects (by id or path, visibility, owned and starred), issues
// with per-project iids, merge requests (open, close, reopen, merge with a
// real three-way file merge), webhooks, pipelines, and repositories of
// branches and commits with files.
//
// What it checks as the real service does: a missing or unknown token is
// 401, a token lacking the scope is 403 insufficient_scope, too little
// access is 403, an invisible project is 404 "404 Project Not Found",
// missing parameters are 400 "title is missing", validation failures are
// 400 with messages by field, branch problems on merge requests are 422 and
// a duplicate open merge request 409. It reads parameters from the query,
// a form or a JSON body; caps per_page at 100; and sends the pagination
// headers exactly (leaving out totals past 10,000 items). It limits each
// token to 600 requests a minute (WithRateLimit), sending X-RateLimit-*
// headers on every answer and 429 "Retry later" with Retry-After.
//
// Webhooks are real: when an issue or merge request is created or changes
// state, a pipeline changes status, or a push lands (PushFiles, or the
// files and branches API), the fake POSTs the event to every hook that
// takes it, with the hook's token in X-Sourcehost-Token, before answering
// the call that caused it. [Server.Deliveries] shows what was sent and
// what the receiver answered.
//
// Pipelines run when a branch holding the CI definition file
// (".sourcehost-ci.yml") is pushed to or triggered through the API: pending,
// running after 5 s, success after 60 s more on the fake clock, or any
// status at once with [Server.SetPipelineStatus].
//
// Controls: [Server.Clock] (shared with the client from [Server.Client],
// so a client's retry waits move it instead of sleeping),
// [Server.InjectFault] per route, [Server.Requests], seeding (AddUser,
// CreateToken, AddGroup, AddProject, PushFiles, …) and reading back
// (Project, Issues, MergeRequests, Pipelines, Hooks).
//
// Known differences from the real service: webhook deliveries happen
// before the causing call answers, not in the background; local webhook
// URLs are allowed; there are no tags, forks, notes, jobs or wiki; search is
// a case-insensitive substring match.
package sourcehostfake
