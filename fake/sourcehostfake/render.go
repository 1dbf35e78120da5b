package sourcehostfake

import (
	"encoding/base64"
	"encoding/json"
	"time"

	"github.com/apitwin/apitwin/internal/jsonw"
)

// The JSON shapes the fake answers with. They are the fake's own, written
// from the real API's documentation, not the client's types, so that the
// client's tests against the fake check the client's field names.

// stamp is a time as the real API writes it: UTC with milliseconds.
type stamp time.Time

func (t stamp) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 26)
	b = append(b, '"')
	b = time.Time(t).UTC().AppendFormat(b, "2006-01-02T15:04:05.000Z")
	return append(b, '"'), nil
}

func stampPtr(t *time.Time) *stamp {
	if t == nil {
		return nil
	}
	s := stamp(*t)
	return &s
}

// appendUser appends a user as the API shows one inside other records,
// or null.
func (c *call) appendUser(b []byte, u *user) []byte {
	if u == nil {
		return append(b, "null"...)
	}
	b = append(b, '{')
	b = c.appendUserFields(b, u)
	return append(b, '}')
}

// appendUserFields appends a user's fields without the braces, for the
// records that add their own after them (members, the current user).
func (c *call) appendUserFields(b []byte, u *user) []byte {
	b = append(b, `"id":`...)
	b = appendInt(b, u.id)
	b = append(b, `,"username":`...)
	b = jsonw.AppendString(b, u.username)
	b = append(b, `,"name":`...)
	b = jsonw.AppendString(b, u.name)
	b = append(b, `,"state":`...)
	b = jsonw.AppendString(b, u.state)
	b = append(b, `,"locked":false,"avatar_url":"`...)
	b = jsonw.AppendEscaped(b, c.base)
	b = append(b, "/uploads/-/system/user/avatar/"...)
	b = appendInt(b, u.id)
	b = append(b, `/avatar.png","web_url":`...)
	return appendJoined(b, c.base, "/", u.username)
}

// appendUsers appends a list of users.
func (c *call) appendUsers(b []byte, us []*user) []byte {
	return appendList(b, us, c.appendUser)
}

// userDoc is a user as a JSON value, for the records still encoded from
// structs (jobs, releases).
func (c *call) userDoc(u *user) json.RawMessage { return c.appendUser(nil, u) }

// appendProject appends a project, with its statistics when withStats.
func (c *call) appendProject(b []byte, p *project, withStats bool) []byte {
	open := 0
	for _, is := range p.issues {
		if is.state == "opened" {
			open++
		}
	}
	ns := p.ns
	b = append(b, `{"id":`...)
	b = appendInt(b, p.id)
	b = append(b, `,"description":`...)
	b = jsonw.AppendString(b, p.description)
	b = append(b, `,"name":`...)
	b = jsonw.AppendString(b, p.name)
	b = append(b, `,"name_with_namespace":`...)
	b = appendJoined(b, ns.name, " / ", p.name)
	b = append(b, `,"path":`...)
	b = jsonw.AppendString(b, p.path)
	b = append(b, `,"path_with_namespace":`...)
	b = appendJoined(b, ns.fullPath, "/", p.path)
	b = append(b, `,"created_at":`...)
	b = appendStamp(b, p.createdAt)
	b = append(b, `,"default_branch":`...)
	b = jsonw.AppendString(b, p.defaultBranch)
	b = append(b, `,"tag_list":`...)
	b = appendStrings(b, p.topics)
	b = append(b, `,"topics":`...)
	b = appendStrings(b, p.topics)
	b = append(b, `,"ssh_url_to_repo":`...)
	b = appendJoined(b, "git@", hostOf(c.base), ":", ns.fullPath, "/", p.path, ".git")
	b = append(b, `,"http_url_to_repo":`...)
	b = appendJoined(b, c.base, "/", ns.fullPath, "/", p.path, ".git")
	b = append(b, `,"web_url":`...)
	b = appendJoined(b, c.base, "/", ns.fullPath, "/", p.path)
	b = append(b, `,"avatar_url":null,"forks_count":0,"star_count":`...)
	b = appendInt(b, int64(p.starCount))
	b = append(b, `,"last_activity_at":`...)
	b = appendStamp(b, p.lastActivity)
	b = append(b, `,"namespace":{"id":`...)
	b = appendInt(b, ns.id)
	b = append(b, `,"name":`...)
	b = jsonw.AppendString(b, ns.name)
	b = append(b, `,"path":`...)
	b = jsonw.AppendString(b, ns.path)
	b = append(b, `,"kind":`...)
	b = jsonw.AppendString(b, ns.kind)
	b = append(b, `,"full_path":`...)
	b = jsonw.AppendString(b, ns.fullPath)
	b = append(b, `,"parent_id":null,"avatar_url":null,"web_url":`...)
	b = appendJoined(b, c.base, "/", ns.fullPath)
	b = append(b, `},"visibility":`...)
	b = jsonw.AppendString(b, p.visibility)
	if ns.kind == "user" && ns.owner != nil {
		b = append(b, `,"owner":`...)
		b = c.appendUser(b, ns.owner)
	}
	b = append(b, `,"empty_repo":`...)
	b = appendBool(b, len(p.repo.branches) == 0)
	b = append(b, `,"archived":false,"issues_enabled":true,"merge_requests_enabled":true,"open_issues_count":`...)
	b = appendInt(b, int64(open))
	b = append(b, `,"creator_id":`...)
	var creator int64
	if p.creator != nil {
		creator = p.creator.id
	}
	b = appendInt(b, creator)
	if withStats {
		var size int64
		seen := map[string]bool{}
		for _, cm := range p.repo.commits {
			for _, f := range cm.files {
				if !seen[f.sha] {
					seen[f.sha] = true
					size += int64(len(f.data))
				}
			}
		}
		b = append(b, `,"statistics":{"commit_count":`...)
		b = appendInt(b, int64(countCommits(p.repo.branches[p.defaultBranch])))
		b = append(b, `,"storage_size":`...)
		b = appendInt(b, size)
		b = append(b, `,"repository_size":`...)
		b = appendInt(b, size)
		b = append(b, '}')
	}
	return append(b, '}')
}

func hostOf(base string) string {
	for _, prefix := range []string{"https://", "http://"} {
		if len(base) > len(prefix) && base[:len(prefix)] == prefix {
			return base[len(prefix):]
		}
	}
	return base
}

// appendReferences appends the references of an issue (sigil '#') or a
// merge request ('!').
func appendReferences(b []byte, p *project, sigil byte, iid int64) []byte {
	b = append(b, `,"references":{"short":"`...)
	b = append(b, sigil)
	b = appendInt(b, iid)
	b = append(b, `","relative":"`...)
	b = append(b, sigil)
	b = appendInt(b, iid)
	b = append(b, `","full":"`...)
	b = jsonw.AppendEscaped(b, p.ns.fullPath)
	b = append(b, '/')
	b = jsonw.AppendEscaped(b, p.path)
	b = append(b, sigil)
	b = appendInt(b, iid)
	return append(b, `"}`...)
}

// appendWebURL appends the web_url of a project's record: the project's
// page, then kind ("/-/issues/") and the record's number.
func (c *call) appendWebURL(b []byte, p *project, kind string, n int64) []byte {
	b = append(b, `,"web_url":"`...)
	b = jsonw.AppendEscaped(b, c.base)
	b = append(b, '/')
	b = jsonw.AppendEscaped(b, p.ns.fullPath)
	b = append(b, '/')
	b = jsonw.AppendEscaped(b, p.path)
	b = append(b, kind...)
	b = appendInt(b, n)
	return append(b, '"')
}

// appendIssue appends an issue.
func (c *call) appendIssue(b []byte, is *issue) []byte {
	b = append(b, `{"id":`...)
	b = appendInt(b, is.id)
	b = append(b, `,"iid":`...)
	b = appendInt(b, is.iid)
	b = append(b, `,"project_id":`...)
	b = appendInt(b, is.project.id)
	b = append(b, `,"title":`...)
	b = jsonw.AppendString(b, is.title)
	b = append(b, `,"description":`...)
	b = jsonw.AppendString(b, is.description)
	b = append(b, `,"state":`...)
	b = jsonw.AppendString(b, is.state)
	b = append(b, `,"created_at":`...)
	b = appendStamp(b, is.createdAt)
	b = append(b, `,"updated_at":`...)
	b = appendStamp(b, is.updatedAt)
	b = append(b, `,"closed_at":`...)
	b = appendStampPtr(b, is.closedAt)
	b = append(b, `,"closed_by":`...)
	b = c.appendUser(b, is.closedBy)
	b = append(b, `,"labels":`...)
	b = appendStrings(b, is.labels)
	b = append(b, `,"milestone":`...)
	b = c.appendMilestone(b, is.milestone)
	b = append(b, `,"assignees":`...)
	b = c.appendUsers(b, is.assignees)
	b = append(b, `,"author":`...)
	b = c.appendUser(b, is.author)
	b = append(b, `,"type":"ISSUE","assignee":`...)
	b = c.appendUser(b, first(is.assignees))
	b = append(b, `,"user_notes_count":`...)
	b = appendInt(b, int64(userNotes(is.notes)))
	b = append(b, `,"upvotes":0,"downvotes":0,"due_date":null,"confidential":`...)
	b = appendBool(b, is.confidential)
	b = c.appendWebURL(b, is.project, "/-/issues/", is.iid)
	b = appendReferences(b, is.project, '#', is.iid)
	return append(b, '}')
}

// first is a list's first user, nil for none.
func first(us []*user) *user {
	if len(us) == 0 {
		return nil
	}
	return us[0]
}

// appendMR appends a merge request.
func (c *call) appendMR(b []byte, mr *mergeRequest) []byte {
	b = append(b, `{"id":`...)
	b = appendInt(b, mr.id)
	b = append(b, `,"iid":`...)
	b = appendInt(b, mr.iid)
	b = append(b, `,"project_id":`...)
	b = appendInt(b, mr.project.id)
	b = append(b, `,"title":`...)
	b = jsonw.AppendString(b, mr.title)
	b = append(b, `,"description":`...)
	b = jsonw.AppendString(b, mr.description)
	b = append(b, `,"state":`...)
	b = jsonw.AppendString(b, mr.state)
	b = append(b, `,"created_at":`...)
	b = appendStamp(b, mr.createdAt)
	b = append(b, `,"updated_at":`...)
	b = appendStamp(b, mr.updatedAt)
	b = append(b, `,"merged_by":`...)
	b = c.appendUser(b, mr.mergedBy)
	b = append(b, `,"merged_at":`...)
	b = appendStampPtr(b, mr.mergedAt)
	b = append(b, `,"closed_by":`...)
	b = c.appendUser(b, mr.closedBy)
	b = append(b, `,"closed_at":`...)
	b = appendStampPtr(b, mr.closedAt)
	b = append(b, `,"target_branch":`...)
	b = jsonw.AppendString(b, mr.targetBranch)
	b = append(b, `,"source_branch":`...)
	b = jsonw.AppendString(b, mr.sourceBranch)
	b = append(b, `,"user_notes_count":`...)
	b = appendInt(b, int64(userNotes(mr.notes)))
	b = append(b, `,"author":`...)
	b = c.appendUser(b, mr.author)
	b = append(b, `,"assignees":`...)
	b = c.appendUsers(b, mr.assignees)
	b = append(b, `,"assignee":`...)
	b = c.appendUser(b, first(mr.assignees))
	b = append(b, `,"reviewers":[],"source_project_id":`...)
	b = appendInt(b, mr.project.id)
	b = append(b, `,"target_project_id":`...)
	b = appendInt(b, mr.project.id)
	b = append(b, `,"labels":`...)
	b = appendStrings(b, mr.labels)
	b = append(b, `,"milestone":`...)
	b = c.appendMilestone(b, mr.milestone)
	b = append(b, `,"draft":false,"work_in_progress":false,"merge_when_pipeline_succeeds":false,"merge_status":"can_be_merged","detailed_merge_status":`...)
	if mr.state != "opened" {
		b = append(b, `"not_open"`...)
	} else {
		b = append(b, `"mergeable"`...)
	}
	b = append(b, `,"sha":`...)
	sha := ""
	if head := mr.project.repo.branches[mr.sourceBranch]; head != nil {
		sha = head.sha
	}
	b = jsonw.AppendString(b, sha)
	b = append(b, `,"merge_commit_sha":`...)
	if mr.mergeCommitSHA != "" {
		b = jsonw.AppendString(b, mr.mergeCommitSHA)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"force_remove_source_branch":`...)
	b = appendBool(b, mr.removeSourceBranch)
	b = c.appendWebURL(b, mr.project, "/-/merge_requests/", mr.iid)
	b = appendReferences(b, mr.project, '!', mr.iid)
	return append(b, '}')
}

type hookJSON struct {
	ID                       int64  `json:"id"`
	URL                      string `json:"url"`
	ProjectID                int64  `json:"project_id"`
	PushEvents               bool   `json:"push_events"`
	PushEventsBranchFilter   string `json:"push_events_branch_filter"`
	IssuesEvents             bool   `json:"issues_events"`
	ConfidentialIssuesEvents bool   `json:"confidential_issues_events"`
	MergeRequestsEvents      bool   `json:"merge_requests_events"`
	TagPushEvents            bool   `json:"tag_push_events"`
	NoteEvents               bool   `json:"note_events"`
	ConfidentialNoteEvents   bool   `json:"confidential_note_events"`
	JobEvents                bool   `json:"job_events"`
	PipelineEvents           bool   `json:"pipeline_events"`
	WikiPageEvents           bool   `json:"wiki_page_events"`
	DeploymentEvents         bool   `json:"deployment_events"`
	ReleasesEvents           bool   `json:"releases_events"`
	EnableSSLVerification    bool   `json:"enable_ssl_verification"`
	AlertStatus              string `json:"alert_status"`
	CreatedAt                stamp  `json:"created_at"`
}

func renderHook(h *hook) *hookJSON {
	e := h.events
	return &hookJSON{ID: h.id, URL: h.url, ProjectID: h.project.id, PushEvents: e["push_events"],
		PushEventsBranchFilter: h.pushBranchFilter, IssuesEvents: e["issues_events"],
		ConfidentialIssuesEvents: e["confidential_issues_events"], MergeRequestsEvents: e["merge_requests_events"],
		TagPushEvents: e["tag_push_events"], NoteEvents: e["note_events"], ConfidentialNoteEvents: e["confidential_note_events"],
		JobEvents: e["job_events"], PipelineEvents: e["pipeline_events"], WikiPageEvents: e["wiki_page_events"],
		DeploymentEvents: e["deployment_events"], ReleasesEvents: e["releases_events"], EnableSSLVerification: h.sslVerify,
		AlertStatus: "executable", CreatedAt: stamp(h.createdAt)}
}

// appendPipeline appends a pipeline: as lists show it, or with its
// detail (before_sha, tag, user, start, finish, duration) as the pipeline's
// own route shows it.
func (c *call) appendPipeline(b []byte, pl *pipeline, detail bool) []byte {
	b = append(b, `{"id":`...)
	b = appendInt(b, pl.id)
	b = append(b, `,"iid":`...)
	b = appendInt(b, pl.iid)
	b = append(b, `,"project_id":`...)
	b = appendInt(b, pl.project.id)
	b = append(b, `,"sha":`...)
	b = jsonw.AppendString(b, pl.sha)
	b = append(b, `,"ref":`...)
	b = jsonw.AppendString(b, pl.ref)
	b = append(b, `,"status":`...)
	b = jsonw.AppendString(b, pl.status)
	b = append(b, `,"source":`...)
	b = jsonw.AppendString(b, pl.source)
	b = append(b, `,"created_at":`...)
	b = appendStamp(b, pl.createdAt)
	b = append(b, `,"updated_at":`...)
	b = appendStamp(b, pl.updatedAt)
	b = c.appendWebURL(b, pl.project, "/-/pipelines/", pl.id)
	if detail {
		b = append(b, `,"before_sha":"0000000000000000000000000000000000000000","tag":false`...)
		if pl.user != nil {
			b = append(b, `,"user":`...)
			b = c.appendUser(b, pl.user)
		}
		if pl.startedAt != nil {
			b = append(b, `,"started_at":`...)
			b = appendStamp(b, *pl.startedAt)
		}
		if pl.finishedAt != nil {
			b = append(b, `,"finished_at":`...)
			b = appendStamp(b, *pl.finishedAt)
		}
		if d := pl.duration(); d != nil {
			b = append(b, `,"duration":`...)
			b = appendInt(b, int64(*d))
		}
	}
	return append(b, '}')
}

func (c *call) appendPipelineSummary(b []byte, pl *pipeline) []byte {
	return c.appendPipeline(b, pl, false)
}

func (c *call) appendPipelineDetail(b []byte, pl *pipeline) []byte {
	return c.appendPipeline(b, pl, true)
}

func (pl *pipeline) duration() *int {
	if pl.startedAt == nil || pl.finishedAt == nil {
		return nil
	}
	d := int(pl.finishedAt.Sub(*pl.startedAt) / time.Second)
	return &d
}

type commitJSON struct {
	ID             string            `json:"id"`
	ShortID        string            `json:"short_id"`
	CreatedAt      stamp             `json:"created_at"`
	ParentIDs      []string          `json:"parent_ids"`
	Title          string            `json:"title"`
	Message        string            `json:"message"`
	AuthorName     string            `json:"author_name"`
	AuthorEmail    string            `json:"author_email"`
	AuthoredDate   stamp             `json:"authored_date"`
	CommitterName  string            `json:"committer_name"`
	CommitterEmail string            `json:"committer_email"`
	CommittedDate  stamp             `json:"committed_date"`
	Trailers       map[string]string `json:"trailers"`
	WebURL         string            `json:"web_url"`
}

func (c *call) renderCommit(p *project, cm *commit) *commitJSON {
	parents := make([]string, 0, len(cm.parents))
	for _, pa := range cm.parents {
		parents = append(parents, pa.sha)
	}
	return &commitJSON{ID: cm.sha, ShortID: cm.sha[:8], CreatedAt: stamp(cm.at), ParentIDs: parents, Title: firstLine(cm.message),
		Message: cm.message, AuthorName: cm.authorName, AuthorEmail: cm.authorEmail, AuthoredDate: stamp(cm.at),
		CommitterName: cm.authorName, CommitterEmail: cm.authorEmail, CommittedDate: stamp(cm.at), Trailers: map[string]string{},
		WebURL: c.base + "/" + p.fullPath() + "/-/commit/" + cm.sha}
}

type fileJSON struct {
	FileName        string `json:"file_name"`
	FilePath        string `json:"file_path"`
	Size            int    `json:"size"`
	Encoding        string `json:"encoding"`
	ContentSHA256   string `json:"content_sha256"`
	Ref             string `json:"ref"`
	BlobID          string `json:"blob_id"`
	CommitID        string `json:"commit_id"`
	LastCommitID    string `json:"last_commit_id"`
	ExecuteFilemode bool   `json:"execute_filemode"`
	Content         string `json:"content"`
}

func encodeContent(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

type treeJSON struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Type string `json:"type"`
	Path string `json:"path"`
	Mode string `json:"mode"`
}

type branchJSON struct {
	Name               string      `json:"name"`
	Commit             *commitJSON `json:"commit"`
	Merged             bool        `json:"merged"`
	Protected          bool        `json:"protected"`
	DevelopersCanPush  bool        `json:"developers_can_push"`
	DevelopersCanMerge bool        `json:"developers_can_merge"`
	CanPush            bool        `json:"can_push"`
	Default            bool        `json:"default"`
	WebURL             string      `json:"web_url"`
}

func firstLine(s string) string {
	for i, r := range s {
		if r == '\n' {
			return s[:i]
		}
	}
	return s
}
