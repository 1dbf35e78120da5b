// Package sourcehostfake is a stateful, in-process twin of the
// source-hosting REST API v4, for testing code that uses package
// sourcehost (or any GitLab-v4 client) without a real server.
//
//	srv := sourcehostfake.Start(t)                 // on loopback, closed when the test ends
//	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Visibility: "public"})
//	c := srv.Client()                              // a sourcehost client, signed in as root
//	c.CreateIssue(ctx, sourcehost.ProjectID(id), &sourcehost.CreateIssueRequest{Title: "bug"})
//	srv.WaitDeliveries(ctx)                        // the webhooks are delivered
//	srv.Clock().Advance(time.Minute)               // pipelines move on, rate-limit windows end
//
// What it keeps: users with personal access tokens and scopes (api,
// read_api, read_user, read_repository, …), the current user (GET /user),
// the release it follows (GET /version answers [APIVersion] to any
// signed-in caller),
// groups and members with access levels (a project's members through
// /projects/:id/members and /members/all, added, changed and removed by
// maintainers, owners only for the Owner level; a personal project's owner
// cannot be removed: 403), projects (by id or path, visibility, owned,
// starred and archived; changed by maintainers, a default branch that is
// not there 400 "Could not set the default branch"; starred and unstarred,
// 304 when there is nothing to do; archived and unarchived by owners, an
// archived project reading as before but refusing with 403 every write to
// what it holds, except its settings, members, hooks, protected branches,
// stars and forks; transferred by owners to a namespace they may make
// projects in, else 400 "Failed to transfer project
// {:new_namespace=>[...]}" with the real service's reason, the owner of a
// personal project staying its member as Owner; forked by
// anyone who reads its code, into their namespace or one they may make
// projects in (404 "Target Namespace Not Found" otherwise, 409 with the
// fields for a name or path taken there), the fork holding a copy of the
// repository, at most as visible as its source and as the group it goes
// in, naming it in
// forked_from_project and listed in GET /projects/:id/forks; deleted by
// owners, 202 {"message":"202 Accepted"}, at once, with all it holds, or
// marked for deletion with delayed deletion on: see below),
// issues with per-project iids, merge requests (open, close,
// reopen, merge with a real three-way file merge), notes on issues and
// merge requests (internal ones seen by reporters and above only; a note's
// author edits it, a maintainer may delete it; the system notes the fake
// writes itself when an issue or merge request is closed, reopened or
// merged, "closed", "reopened", "merged", cannot be changed), labels
// (names unique in any case, without commas or control characters, at most
// 255 characters; colors "#RGB", "#RRGGBB" or a basic CSS name; made on
// the fly, in "#6699cc", when an issue or merge request names one the
// project lacks; renamed and deleted on their issues and merge requests
// too; managed by reporters; edited and deleted also by the older PUT and
// DELETE /projects/:id/labels, which name the label in the body, label_id
// or name), milestones (titles unique per project, dates
// YYYY-MM-DD, listed soonest due first; deleting one takes it off its
// issues and merge requests), protected branches (the default branch is
// protected from its creation: maintainers push, developers merge; a rule
// may name a wildcard such as "release/*"; a push to a protected branch
// by a level below its rule, or to a branch whose rule is "No one" (0),
// by anyone, the administrator too, is 403 "403 Forbidden - You are not
// allowed to push into this branch", a merge 403; deleting a protected branch is 405
// "Protected branch cant be removed", the default branch 405 "Cannot
// remove HEAD branch"), tags (lightweight or annotated, names as branch
// names, ordered by updated, name or version; deleting one deletes its
// release), releases tied to tags (creating one for a missing tag makes
// the tag from ref, 422 "Ref is not specified" without one; 409 "Release
// already exists"; deleting answers the release as it was), commits (a
// ref's history newest first, narrowed by path, since and until; the
// commits a merge request brings, kept when it is merged), repository
// files created, updated and deleted each as a commit on a branch (a
// last_commit_id that is not the file's last commit is 409 "You are
// attempting to update a file that has changed since you started editing
// it."), webhooks and their deliveries, pipelines, a project's CI/CD
// variables (managed by maintainers; keys of letters, digits and "_", at
// most 255, unique per environment scope: 400 "(KEY) has already been
// taken"; values of at most 10,000 characters; a masked value is at
// least 8 characters of the Base64 alphabet and @ : . ~ -, or any 8 but
// spaces when raw, else 400 {"message":{"value":["is invalid"]}}, as the
// real service refuses a value it could not mask in a job's log; a
// masked and hidden value is never answered again; a key in several
// scopes needs filter[environment_scope], else 409), and
// repositories of branches and commits with files. A merge request's
// changes (GET .../changes, and .../diffs a page at a time) are its
// source head's files against the merge base with its target (once
// merged, what its merge commit changed), each a unified diff as the real
// service writes it, hunks with three lines of context, without the
// "---"/"+++" lines; a comparison of two refs (GET .../repository/compare)
// lists the commits of "to" that "from" lacks, oldest first, and the diff
// from their merge base (from "from" itself with straight=true); an
// unknown ref is 404 "404 Ref Not Found". A blob's bytes are served by its
// id (GET .../repository/blobs/:sha/raw). An archive of a commit's files
// (GET .../repository/archive, or archive.zip and the like, as the real
// service also serves it; sha a branch, tag or commit, default the
// default branch; path a directory) is a tar.gz (also tgz, gz), tar or
// zip, read by whoever reads the code, its entries under one directory
// named, as its file in Content-Disposition, project path, ref (its "/"
// made "-"), commit id and path; an unknown ref is 404 "404 File Not
// Found". A file's blame (GET
// .../files/:file_path/blame, ref required) is runs of its lines, each
// with the commit that last changed them, found by walking back through
// the commits that changed the file along first parents. Approvals are as the real
// service's free edition has them: any developer or above (the author
// too) approves, once (again is 304 Not Modified, as unapproving without
// an approval), one approval makes a merge request approved, none is
// required to merge; a sha that is not the source head is 409; each
// approval and its withdrawal is a merge request hook ("approved",
// "unapproved").
//
// A merge request is rebased (PUT .../rebase, by whoever may push to its
// source branch, 403 otherwise; 409 "409 Conflict" when it is not open)
// as the real service's worker does it: the source branch's commits that
// the target lacks, merges left out, are replayed oldest first onto the
// target's head, each with its message and author (one whose change is
// already there dropped), and the branch is pushed (its push hook, and
// its pipeline unless skip_ci). A commit that changes a file the target
// changed otherwise stops it: the branch stays as it was, and the merge
// request's merge_error is "Rebase failed: Rebase locally, resolve all
// conflicts, then push the branch." (cleared by the next rebase that
// works). The answer is 202 {"rebase_in_progress":true}; GET
// .../merge_requests/:iid sends merge_error, and rebase_in_progress with
// include_rebase_in_progress=true.
//
// A merge request's notes are threads (GET, POST .../discussions, GET
// and PUT .../discussions/:discussion_id, POST .../notes under it): a
// note made through the notes API, or a system note, is a thread of its
// own (individual_note); one started through the discussions API is a
// thread of "DiscussionNote"s, which takes replies and is resolved and
// reopened whole (resolved=true or false) by the merge request's author
// or a developer and above (403 otherwise, and for a thread that cannot
// be resolved). A reply to a note of its own makes it a thread, as the
// real service converts it; a system note's thread is 400 "Discussion
// can not be replied to."; an unknown thread 404 "404 Discussion Not
// Found". Thread ids are 40 hexadecimal digits, as the real service's.
//
// Search (GET /search, GET /groups/:id/search and GET
// /projects/:id/search, the last two also at .../-/search) needs a
// signed-in caller and finds what the caller may see, with the scopes of
// the real service's free edition at each level: the instance projects,
// issues, merge_requests, milestones, snippet_titles and users; a group
// (its subgroups' projects too) the same but snippet_titles, its users
// being its members and its ancestors'; a project issues, merge_requests, milestones, notes, wiki_blobs,
// commits (messages, at ref or the default branch), blobs (file contents
// and paths there, each file once: the lines around its first match, two
// before and after) and users (its members). Another scope is 400
// {"error":"scope does not have a valid value"}, a missing term 400
// "search is missing". Results are newest first, a page at a time with
// the real service's limited pagination headers for searches: no
// X-Total, X-Total-Pages or last link. The fake holds no snippets or
// wikis, so snippet_titles and wiki_blobs find nothing.
//
// Access levels are enforced as the real service enforces them: a guest
// of a private project sees it and its issues but not its code (403), a
// reporter reads the code and manages issues but cannot merge (403), a
// developer pushes and merges, a maintainer manages hooks and members.
//
// What it checks as the real service does: a missing or unknown token is
// 401, a token lacking the scope is 403 insufficient_scope, too little
// access is 403, an invisible project is 404 "404 Project Not Found",
// missing parameters are 400 "title is missing", a number that is not a
// 64-bit integer is 400 "page is invalid" (by its parameter's name; an id
// in a path that is not one is the usual 404), validation failures are 400
// with messages by field (titles of at most 255 characters, descriptions of
// at most 1,048,576, a project's of at most 2,000), branch problems on merge
// requests are 422 and a duplicate open merge request 409. It reads
// parameters from the query, a form or a JSON body; caps per_page at 100;
// and sends the pagination headers exactly (leaving out totals past 10,000
// items). A page past the end is an empty page, however far past; a list
// of projects refuses page × per_page past 50,000 with 405 "Offset
// pagination has a maximum allowed offset of 50000 for requests that return
// objects of type Project. Remaining records can be retrieved using keyset
// pagination." (keyset pagination, below, has no such limit). It limits each token
// to 600 requests a minute (WithRateLimit), sending X-RateLimit-* headers on
// every answer and 429 "Retry later" with Retry-After.
//
// # Users, tokens, sudo and groups
//
// Users are listed (GET /users, in id order, by username exactly and
// case-insensitively, by search in username and name, and for
// administrators email, by active or blocked) and read (GET
// /users/:user_id, 404 "404 User Not Found"); administrators see their
// email and is_admin, others do not. An administrator makes a user a
// personal access token with exactly the scopes named (POST
// /users/:user_id/personal_access_tokens; others 403; an unknown scope 400
// "scopes does not have a valid value"; expires_at a day in the future),
// whose secret is in that answer alone (the request log masks it). A
// user lists their own tokens (GET /personal_access_tokens; an
// administrator everyone's, narrowed by user_id; another user naming
// someone else is 401), by revoked, state (active or inactive) and search;
// reads one (another's is 401, and only administrators learn of a token
// that does not exist, 404); revokes one (DELETE
// /personal_access_tokens/:token_id, 204; another user's is 400 "400 Bad
// request - Not permitted to revoke", none 404 "404 Not found"), or the
// one they call with (DELETE /personal_access_tokens/self). A token is
// held to its scopes on every route as the real service holds it: api
// writes, read_api reads, read_user reads users, read_repository reads
// code, and a route's other scopes are 403 insufficient_scope naming
// those it takes. The token may come in PRIVATE-TOKEN, as an OAuth
// "Authorization: Bearer" token, or in the private_token parameter. A
// running job's CI/CD job token ([Server.JobToken], sent in JOB-TOKEN or
// the job_token parameter) signs in as the user who ran the pipeline, on
// the endpoints the real service opens to job tokens that the fake
// serves (GET /job, the branches, commits and tags lists, the releases
// API), for the job's own project (another is 404); elsewhere it is not
// looked at, and the request is anonymous. Before the job runs and once
// it is over, the token is 401.
//
// Sudo: an administrator's token with the sudo scope acts as the user
// the sudo parameter (query, form or JSON body) or the Sudo header names,
// by id or by username (case-insensitively), with that user's permissions;
// the request log names that user as the Caller. Anyone else is 403 "403
// Forbidden - Must be admin to use sudo", an administrator's token
// without the sudo scope 403 insufficient_scope (scope "sudo"), an
// anonymous request 401, and a user that does not exist 404 "404 User
// with ID or username 'x' Not Found".
//
// Delayed deletion ([WithDeletionAdjournedPeriod], the real service's
// "deletion adjourned period"; off by default, so DELETE deletes at once):
// DELETE /projects/:id marks the project for deletion, 202, and it is
// archived and renamed, name and path, "<old>-deletion_scheduled-<id>"
// (so its path is free), showing marked_for_deletion_at and
// marked_for_deletion_on (the day); DELETE /groups/:id marks a group so
// (marked_for_deletion_on), its subgroups and projects moving with its
// new path. Marked again is 400 "Project has been already marked for
// deletion" ("Group …"). POST /projects/:id/restore and /groups/:id/restore
// (owners) give the name and path back (400 "Project has not been marked
// for deletion", or {"message":{"path":["has already been taken"]}} when
// taken meanwhile). Once the fake's clock has passed the period, the next
// request finds the project or group, and all it holds, deleted. DELETE
// with permanently_remove=true deletes a marked one at once, with
// full_path its full path as marked (else 400 "`full_path` is incorrect.
// You must enter the complete path for the project." or "… group."; one
// not marked 400 "Project must be marked for deletion first.").
//
// Groups are namespaces that hold projects and subgroups, at most 20
// levels deep (400 {"message":{"parent_id":["has too deep level of
// nesting"]}} past it), named by id or by full path wherever a group is
// ("group%2Fsub" on the wire), as projects are by "group%2Fsub%2Fproject".
// A group is public, internal or private (the default), never more
// visible than its parent nor less than its subgroups and projects (400
// {"message":{"visibility_level":[…]}} with the real service's words).
// A project in a group is never more visible than the group: creating or
// updating one so is 400 {"message":{"visibility_level":["public is not
// allowed in a private group."]}}, a seed so an error, and a project
// transferred into a less visible group takes the group's visibility, as
// the real service's transfer lowers it.
// Its members' access levels reach its subgroups and all their projects.
// Any signed-in user makes a top-level group and becomes its owner; a
// subgroup takes a maintainer of the parent (403); a path that is taken
// in the parent, by a group or a user, is 400 {"message":{"path":["has
// already been taken"]}}. An owner updates it (name, path, description,
// visibility; a new path moves its subgroups and projects with it) and
// deletes it: 202 {"message":"202 Accepted"}, and the group, its
// subgroups and all their projects are gone at once (marked for deletion
// with delayed deletion on: below). GET /groups lists
// what the caller sees: anonymous callers the public ones, administrators
// all, other users the groups they are a member of (and below), or with
// all_available every one they see; by search, owned, min_access_level,
// top_level_only and visibility, ordered by name (the default), path or
// id, ascending by default. A group's subgroups, its projects (with
// include_subgroups, its subgroups' too, ordered as GET /projects) and its
// members (/members direct, /members/all with its parents') are listed
// too. GET /groups/:id sends the projects directly in the group the
// caller sees, at most 100, as the real service still does by default.
//
// Known differences of users, tokens and groups: users are all active
// (none can be blocked, so blocked=true lists none); a token made without
// expires_at never expires (the real service may give it its maximum
// lifetime); groups share no projects with other groups, have no invited
// groups, and their members are listed since the group's creation;
// admin_mode is not required of administrators; a job token reaches its
// own project alone (there is no allowlist of other projects).
//
// # OAuth
//
// The fake is an OAuth 2.1 authorization server as GitLab's (Doorkeeper)
// is one, so that an MCP client can log in to a gateway in front of it
// offline (oauth.go, oauth_page.go):
//
//   - GET /.well-known/oauth-authorization-server (RFC 8414): issuer (the
//     fake's URL), the endpoints below, scopes_supported,
//     code_challenge_methods_supported ["S256"], grant types
//     authorization_code and refresh_token. GET
//     /.well-known/openid-configuration answers the same document, as
//     GitLab does, without GitLab's OpenID Connect members (jwks_uri,
//     userinfo_endpoint, ID token algorithms, claims): the fake issues no
//     ID tokens.
//   - POST /oauth/register (RFC 7591), public clients only
//     (token_endpoint_auth_method none, 201 with client_id): redirect_uris
//     (an array, or a lone string as GitLab takes it; 1 to 10, each at
//     most 2,000 bytes, absolute, no fragment; https, http to loopback
//     only, or a native app's private scheme, never javascript: or data:),
//     client_name (at most 200 characters, shown as "[Unverified Dynamic
//     Application] <name>" as GitLab shows it), scope (the scopes the
//     fake knows of those asked, others such as openid left out; none:
//     api read_api read_user read_repository write_repository). A
//     body past 64 KiB is refused. Applications count against
//     WithMaxRecords ("OAuth applications"). [Server.AddOAuthApplication]
//     adds one from Go, confidential (with a secret) or not.
//   - GET /oauth/authorize: the login-and-consent page (plain HTML, no
//     JavaScript, nothing loaded from elsewhere; a CSRF token in the form
//     that a SameSite=Strict cookie must repeat, else 422). The request
//     needs response_type code, a code_challenge with method S256 (plain
//     is refused, as OAuth 2.1 asks), scopes the client registered, at
//     most one resource (RFC 8707: absolute, no fragment), and a
//     redirect_uri the client registered: the same string, or for http to
//     127.0.0.1, [::1] or localhost any port (RFC 8252 §7.3). An unknown
//     client or redirect URI is an error page; other errors are sent back
//     to the redirect URI with error and state. POST /oauth/authorize is
//     the form: approve sends a code (ten minutes, once) and the state
//     back, deny error=access_denied. At most 1,000 pages and codes wait
//     at once; past that the oldest goes.
//   - POST /oauth/token: authorization_code (code, code_verifier,
//     redirect_uri, client_id; a resource, if named, must be the one
//     authorized) and refresh_token. An access token works on the whole
//     API with its scopes, as a personal access token does, for two hours
//     on the fake's clock (OAuthTokenLifetime; expires_in 7200). A refresh
//     gives a new access token and refresh token and revokes the old pair
//     (Doorkeeper keeps them as one row); a refresh token used again after
//     it was rotated is taken for stolen, as OAuth 2.1 recommends: the
//     family's live pair is revoked too, and the answer is invalid_grant.
//     Of each family the live pair and the one before are kept; older ones
//     are dropped. Errors are Doorkeeper's: invalid_request,
//     invalid_client (401), invalid_grant, unsupported_grant_type,
//     invalid_scope, invalid_target.
//   - POST /oauth/revoke (RFC 7009): an access or refresh token of the
//     client, with its pair; 200 {} also for an unknown token; another
//     client's 403 unauthorized_client.
//   - GET /oauth/token/info: GitLab's answer (resource_owner_id, scope,
//     scopes, expires_in, expires_in_seconds, application.uid,
//     created_at) and resource, the resource the token was issued for
//     (null when none was named): what a resource server checks the
//     audience by. 401 invalid_token for a token unknown, expired,
//     revoked, or no OAuth token.
//   - POST /oauth/introspect (RFC 7662), authenticated as Doorkeeper has it:
//     a confidential client (its secret) about its own tokens, or a bearer
//     OAuth token about itself and its client's; answers active, scope,
//     client_id, username, token_type, exp, iat, sub, aud (the resource),
//     iss, or {"active":false}.
//
// The fake keeps no passwords: on the login page a user signs in with the
// username and, as the password, one of the user's active personal access
// tokens (IssueToken; apitwin-fake prints root's). Tests approve without a
// browser with [Server.Authorize](username, authorizeURL), which checks
// the request as the page does and returns the redirect with the code: it
// is Go only, so nothing on the wire signs a user in without credentials.
// GET /personal_access_tokens/self and DELETE of it are 404 for an OAuth
// token, and OAuth tokens are not listed among personal access tokens.
//
// Known differences: GitLab also offers plain PKCE, the password, client
// credentials and device grants, OpenID Connect, and confidential dynamic
// clients; the fake has none of them. GitLab does not record the resource
// indicator or show it in /oauth/token/info; the fake does, since a
// resource server must learn a token's audience somewhere. Snapshots do
// not keep OAuth applications, codes or tokens.
//
// # Webhooks
//
// When an issue or merge request is created or changes state, a note is
// made or edited ("Note Hook"; internal notes and notes on confidential
// issues go to confidential_note_events; the system notes the fake writes
// deliver nothing), a pipeline or one of its jobs changes status
// ("Pipeline Hook", "Job Hook"), a tag is pushed or deleted ("Tag Push
// Hook"), a release is created or updated ("Release Hook"), or a push
// lands (PushFiles, AddBranch, or the files and branches API), the fake
// POSTs the event, in the real service's payload shape, to every hook that
// takes it, with
// the hook's token in X-Sourcehost-Token, the event's name in
// X-Sourcehost-Event, and its chain in X-Sourcehost-Event-UUID.
//
// Deliveries are asynchronous, as the real service's background jobs: the
// call that triggers them queues them and answers at once, whatever the
// receiver does. Each hook has a queue of its own, delivered in order, one
// delivery at a time; different hooks are delivered concurrently (16 at
// most). A receiver has 10 s to answer (WithHookTimeout). Every delivery is
// recorded with its state (sent, failed, blocked or dropped), the
// receiver's status, how long it took and what went wrong
// ([Server.Deliveries]). [Server.WaitDeliveries] waits until every queued
// delivery is done, including those that deliveries trigger in turn: call
// it before reading what a receiver got. A deleted hook's waiting
// deliveries are not sent.
//
// Where hooks may go is the real service's application setting "Allow
// requests to the local network from webhooks and integrations"
// (allow_local_requests_from_web_hooks_and_services), which an
// administrator reads and changes with GET and PUT
// /api/v4/application/settings, a Go program with
// [Server.SetAllowLocalRequests] ([WithAllowLocalRequests] when it is
// built), and a seed under "settings". The fake allows them by default,
// since tests receive their hooks on loopback; turned off, a hook to the
// machine itself, loopback, a private, link-local or shared address (or a
// name resolving to one) is refused when it is made or edited with the
// real service's answer, 422 {"message":"Invalid url given"}, and a
// delivery to one is not sent (recorded blocked, with the real service's
// reason: "URL is blocked: Requests to the local network are not
// allowed"). Whatever the setting, the fake never sends anything to the
// clouds' metadata services: link-local addresses (169.254.0.0/16, which
// holds 169.254.169.254, and fe80::/10), fd00:ec2::254 and
// 100.100.100.200, however written (::ffff:169.254.169.254 too). The
// address is checked again at each delivery, against what the hook's host
// name resolves to then, and only the addresses checked are dialed, each
// delivery on a connection of its own: a name rebound to the metadata
// service after the hook was made, or a receiver redirecting there, is
// refused ([WithHookResolver] replaces the resolver, for tests).
//
// Recursion is stopped as the real service stops it. A request that
// arrives without X-Sourcehost-Event-UUID (a user's call, a seeding method,
// a pipeline moving on the clock) gives each hook it triggers a new chain
// UUID, and is never blocked. A request that arrives with one (a receiver
// calling the fake back) belongs to that chain: the hooks it triggers are
// sent with the same UUID, unless the hook already fired in the chain, or
// the chain already fired 100 hooks; such a delivery is not sent, and is
// recorded as blocked with the reason. So a hook that creates an issue in
// its own project each time it hears of one creates one issue, not an
// endless stream. Chains are remembered for 30 minutes on the fake clock.
//
// # Pipelines
//
// Pipelines run when a branch holding the CI definition file
// (".sourcehost-ci.yml") is pushed to or triggered through the API (on a
// branch, or on a tag: "tag": true on the pipeline, its jobs and their
// hooks; a name that is both is 400 "Ref is ambiguous"): pending,
// running after 5 s, success after 60 s more on the fake clock, or any
// status at once with [Server.SetPipelineStatus].
//
// A pipeline's jobs are the top-level keys of its CI definition that are
// neither keywords (stages, variables, default, include, workflow, image,
// services, before_script, after_script, cache, spec) nor hidden
// (".name"), each in its "stage:" (default "test"), at most 100; the file
// is read line by line, not as YAML. Jobs follow their pipeline's status
// on the clock and write a log (GET .../jobs/:job_id/trace) as they go. A
// job canceled through the API, or set to a status with
// [Server.SetJobStatus], stays so; a pipeline ends failed if one of its
// jobs failed, else canceled if one was canceled, and ends at once when
// all its jobs have; retrying a finished job (403 "403 Forbidden -
// Job is not retryable" otherwise) adds a new job of that name and runs
// the pipeline again, from running. Each job status change is a "Job Hook".
// Retrying a pipeline (POST .../pipelines/:pipeline_id/retry) retries its
// failed and canceled jobs so, and answers a pipeline with none as it is.
// Deleting a pipeline (owners and administrators only, 403 otherwise, as
// the real service's destroy_pipeline) deletes its jobs and stops its
// clock. A pipeline's variables (GET .../variables) are shown to the
// developer who started it and to maintainers, in key order, each an
// env_var.
//
// Pipeline triggers (GET, POST, PUT, DELETE /projects/:id/triggers;
// maintainers; a trigger's description is its owner's to edit) hold a
// token ("shptt-" and 40 hex digits) answered whole to its owner and by
// its first 4 characters to others. POST /projects/:id/trigger/pipeline
// with token, ref and variables (JSON, or variables[KEY]=value in a form
// or query) needs no other credentials: it runs a pipeline as the
// trigger's owner, with source "trigger", on a branch or tag; an unknown
// token is 404 "404 Not Found", an owner below developer 403. A running
// job's CI/CD job token is taken as the token too, as the real service
// takes it: the pipeline is the job's user's, with source "pipeline"
// (downstream of the job's); a job that is not running is 401 "Job is not
// running", a project other than the job's 404.
//
// Pipeline schedules (GET, POST, PUT, DELETE
// /projects/:id/pipeline_schedules; developers make them, their owner or a
// maintainer changes them) keep a description, a ref, a cron line (5 or 6
// fields of cron's characters, or @hourly, @daily, …) and an IANA time
// zone (default UTC), else 400 {"message":{"cron":["is invalid
// syntax"]}}. POST .../play runs one at once, as its owner, with source
// "schedule", answering 201 {"message":"201 Created"}; the schedule's
// last_pipeline names the pipeline. An active schedule also runs on the
// fake clock, so, at its next_run_at, which is set as the real service
// sets it: the cron line's next time in its time zone, unless that is a
// run of the real service's schedule worker (minutes 3, 13, … 53 of each
// hour, its default pipeline_schedule_worker_cron), the worker's first
// run after it ("0 1 * * *" in UTC runs at 01:03); then the next one is
// set from then. A run whose owner is no longer a developer, or whose ref
// or CI definition is gone, makes no pipeline. An inactive schedule has
// next_run_at null and does not run. Runs missed while the fake was down
// (a snapshot restored later) are not made up, as the worker does not.
//
// # Serving and controls
//
// Like every apitwin fake: [New] builds one that serves nothing yet (it is
// an http.Handler); [Start] serves it on loopback until the
// test ends (over TLS with [control.WithTLS]; with [WithServeOnDemand] from
// the first time its address or a client is asked for, for a fake reached
// in-process first); [Server.Serve] and [Server.Listen] serve it for programs until
// [Server.Close]. Every listener has header and idle timeouts, and Close
// gives running requests two seconds before it closes their connections;
// Close also stops the pipelines' timers and the webhook queues. The
// controls are the same on every fake ([control.Controls]):
// [Server.InjectFault] per route (an http.ServeMux pattern as the fake
// registers it, "POST /api/v4/projects/{id}/issues", or "" for all: a
// status, a body, latency on the wall or the fake clock, a dropped
// connection, for the next N requests), [Server.Faults],
// [Server.ClearFaults], the request log ([Server.Requests],
// [Server.RequestsTo], [Server.ResetRequests]; each entry names the caller
// by username), [Server.Reset], and [Server.Clock] (shared with the client
// from [Server.Client], so a client's retry waits move it instead of
// sleeping). Seeding and reading back: [Server.Load] with a [Seed], AddUser,
// AddToken, AddGroup, AddProject (with members, files, branches, labels,
// milestones, tags, releases, issues, merge requests and hooks), AddIssue, AddMergeRequest, AddHook, AddBranch,
// PushFiles; Project, Issues, MergeRequests, Pipelines, Jobs, IssueNotes,
// MergeRequestNotes, Labels, Milestones, Releases, Hooks, Deliveries.
// Reset leaves root and its token as New made them.
//
// # Bounds
//
//   - Request bodies: at most 4 MiB ([control.WithMaxBody]); a larger one is
//     refused with 413 {"message":"413 Request Entity Too Large"} before it
//     is read.
//   - Numbers: every integer parameter must fit in 64 bits (400 "<name> is
//     invalid" otherwise, answered without scanning more than 20
//     characters); per_page is at most 100; pages are computed without
//     overflow, and a page past the end is empty.
//   - The request log: the newest 10,000 requests, the first 64 KiB of
//     each body and 16 KiB of each header, 32 MiB in all
//     ([control.WithRequestLog]). It keeps no secret: PRIVATE-TOKEN, JOB-TOKEN and
//     the private_token, job_token and access_token parameters are
//     "[REDACTED]" in it, Authorization "Bearer [REDACTED]", and so are the
//     values of [SecretFields] (a hook's token, …) in JSON, form and
//     multipart bodies and queries, and a hook URL's password; every
//     CI/CD variable's value ("value"), masked or not, in requests and
//     in the answers the log keeps, a pipeline's variables (whole, and
//     each variables[KEY] of a form), and a trigger's token. Who a
//     request was authenticated as is its Caller.
//   - Webhooks: at most 100 per project (422 "Maximum number of project
//     hooks (100) exceeded", as the real service's default limit); a
//     receiver has 10 s to answer ([WithHookTimeout]); at most 1,000
//     deliveries wait per hook and 64 MiB of payloads in all queues
//     ([WithHookQueue]), past which a delivery is dropped and recorded so;
//     a hook's host name is looked up in at most 10 s, when it is made
//     (with local requests off) and at each delivery;
//     16 deliveries in flight at once; a chain of at most 100 hooks;
//     10,000 chains remembered, each for 30 minutes.
//   - Records: at most 100,000 of each kind ([control.WithMaxRecords],
//     [DefaultMaxRecords]): users, namespaces, tokens, projects, members,
//     stars, issues, merge requests, notes, labels, milestones, hooks,
//     pipelines, jobs, releases, protected branches, branches, tags,
//     commits and CI/CD variables; and 256 MiB of repositories in all, file contents and each
//     commit's snapshot of its files (64 bytes a file), as the bound
//     counts them ([WithMaxRepositoryBytes]). A request that could add
//     records past a bound (the most its route can add, or what the
//     request names: its labels, its file, the jobs of the CI definition
//     it runs) is refused before it runs, as the real service refuses a
//     record past one of its limits, 400 {"message":{"base":["Maximum
//     number of issues (100000) exceeded"]}} (a commit: "Your changes
//     could not be committed, because the repositories have exceeded
//     their size limit of 256 MiB"), and changes nothing; a seeding method
//     returns the same refusal, and a project seeded past a bound is not
//     added. Deleting records makes room. Measured: an issue takes about
//     300 bytes, a note 150, a label 100; a commit 45 bytes a file of its
//     snapshot, besides its new contents.
//   - Search: a term over 4,096 characters finds nothing, as the real
//     service's abuse detection answers it.
//   - Diffs: a file whose old or new content is over 200 KiB (the real
//     service's default max_patch_bytes) or 5,000 lines is shown
//     "too_large", without its diff; a diff shows at most 1,000 files
//     ("overflow" past them, changes_count "1000+"); a comparison lists at
//     most 1,000 commits, the newest. Lines are matched exactly (longest
//     common subsequence) between the first and last changed lines while
//     that table is at most 1 Mi cells (4 MiB) and the request has filled
//     fewer than 16 Mi in all; past either the changed middle is shown
//     removed then added whole, a correct diff but not the shortest. A
//     blame walks back through at most 1,000 commits; lines still
//     unexplained there are the last one's. A rebase replays at most
//     1,000 commits; past them it fails with the conflict's merge_error.
//   - Archives: written to the connection as they are made, after the
//     state is unlocked, never whole in memory; an archive holds at most
//     a commit's files, so at most the repositories' bound.
//   - The delivery log: the newest 10,000 deliveries, the first 64 KiB of
//     each payload, 32 MiB in all ([WithDeliveryLog]).
//   - Listeners: 10 s to send the headers, 64 KiB of headers in at most
//     100 fields, 30 s to send the body, 2 minutes to read the answer, 2
//     minutes idle; a request with both Content-Length and
//     Transfer-Encoding, or more fields, is refused with 400 and its
//     connection closed. Each listener holds at most a tenth of the
//     process's limit on open files in connections, between 64 and 4,096
//     (2,000 at `ulimit -n` 20,000); one more is closed at once.
//
// Bodies are parsed, and new files' contents hashed, before the state is
// locked; the records lists answer with (projects, issues, merge requests,
// pipelines, notes, members) are written straight from the state into the
// answer's bytes, at most a page of 100, and the other answers encoded
// after it is unlocked; the answer goes out after it is unlocked; no
// delivery runs under it. A handler that panics is answered 500 {"message":"500 Internal Server
// Error"} and the panic is in the request log (Request.Panic): it is a bug
// of the fake's, please report it.
//
// Keyset pagination (pagination=keyset) is served for projects, ordered by
// id: pages follow id_after (ascending) or id_before (descending), each
// with a Link to the next, without page numbers, totals or the offset
// limit; another order_by is 405 {"error":"Keyset pagination is not yet
// available for this type of request"}, as the real service answers it. A project's jobs are served so too,
// newest first by id, each page's Link carrying a cursor (base64 of
// {"id":"<last id>","_kd":"n"}, as the real service writes it); another
// order_by or sort is 405 "Keyset pagination is not yet available for
// this type of request", and a cursor the fake did not write 400
// "cursor is invalid". Users are served so in every order GET /users
// takes, as the real service walks them: order_by id (the default), name,
// username, created_at or updated_at, sort desc (the default) or asc, ties
// broken by id the same way, names and usernames compared
// case-insensitively, each page's Link carrying a cursor of the order's
// value and the id ({"name":…,"id":…,"_kd":"n"}; the id alone by id); an
// order_by or sort outside those is 400 "<name> does not have a valid
// value", the real service's parameter check, and a cursor without the
// order's value 400 "cursor is invalid"; a repository's tree in its order, each page's
// Link carrying a page_token, the id of the page's last entry (400
// "page_token is invalid" for one the tree lacks). GET /groups is served
// so to anonymous callers, as the real service serves it (signed in, it
// pages by offset whatever pagination says): by name ascending alone
// (another order_by or sort is 405), each page's Link carrying a cursor,
// base64 of {"name":…,"id":…,"_kd":"n"}.
//
// Known differences from the real service: local webhook URLs are allowed
// by default (the real service's default is to refuse them: turn
// allow_local_requests_from_web_hooks_and_services off for its
// behaviour), link-local and metadata addresses are refused whatever the
// setting, the application settings kept are that one alone (a PUT of
// another changes nothing), and deliveries go through no proxy;
// a project's ssh_url_to_repo names the fake's host on SSH's port 22
// (git@host:namespace/path.git), or on the port [WithSSHPort] gives
// (ssh://git@host:port/namespace/path.git), though the fake serves no SSH;
// a pipeline schedule's cron with seconds (6 fields) runs to the minute,
// one with names (MON, JAN) is not run on the clock (next_run_at null;
// the real service reads names), a time in a daylight-saving gap is
// skipped that day,
// a play whose ref or CI definition is gone is refused with the
// pipeline's 400 (the real service answers 201 and fails the pipeline;
// on the clock the fake makes no pipeline), and Rails' time zone names
// are not taken (IANA names only); a pipeline's iid after the newest's, so the newest's
// deleted is given again;
// keyset pagination covers projects, project jobs, users (by updated_at
// as by created_at: the fake never edits a user; offset pages of users
// stay in id order whatever order_by says), groups (by name, for anonymous callers, as the real
// service) and the tree; delayed deletion is off unless
// WithDeletionAdjournedPeriod turns it on (the real service's default is
// on, for 7 days), a project shows marked_for_deletion_at and _on only
// once marked (the real service sends them null before), and a mark
// falls due on the first request after its period; a PUT /projects/:id with
// nothing to change names the six settings the fake keeps, not the real
// service's eighty;
// there are no wiki, group
// labels or milestones, protected tags, release asset links, job
// artifacts or runners; a CI definition is read for its job names and
// stages only (every job of a pipeline runs at once, and succeeds unless
// canceled or set otherwise); label colors are hex codes or CSS's basic
// names; label and milestone changes write no system notes (the real
// service records them as resource events); a merge by a user below the
// target branch's merge level is 403 (the real service answers 401);
// search is a case-insensitive substring match (the real service's basic
// search also matches an issue by its #iid, and ranks projects by
// relevance); diffs detect no renames
// (a renamed file is deleted and added) and show every file as mode
// 100644; approvals have no rules, and a merge needs none; threads are
// on merge requests only and on no line of a diff (a position is not
// read), and an unresolved thread does not block a merge; blame takes no
// range and attributes a line a merge brought to the merge commit; a
// rebase is over by the time its 202 is answered (rebase_in_progress is
// false from then on), so a second one is never refused as in progress;
// merge_error is sent by GET .../merge_requests/:iid alone (the real
// service also sends it in the other answers about one merge request);
// archives are not written in bzip2 (tar.bz2, tbz, tbz2, tb2, bz2 are 400:
// Go's standard library has no bzip2 writer), exclude_paths and
// include_lfs_blobs are not read, and the real service's limit of archive
// requests per user and project is not applied.
package sourcehostfake
