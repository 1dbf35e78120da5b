package sourcehostfake

import (
	"encoding/base64"
	"slices"
	"strconv"
	"time"
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

type userJSON struct {
	ID        int64  `json:"id"`
	Username  string `json:"username"`
	Name      string `json:"name"`
	State     string `json:"state"`
	Locked    bool   `json:"locked"`
	AvatarURL string `json:"avatar_url"`
	WebURL    string `json:"web_url"`
}

func (c *call) renderUser(u *user) *userJSON {
	if u == nil {
		return nil
	}
	return &userJSON{ID: u.id, Username: u.username, Name: u.name, State: u.state,
		AvatarURL: c.base + "/uploads/-/system/user/avatar/" + strconv.FormatInt(u.id, 10) + "/avatar.png",
		WebURL:    c.base + "/" + u.username}
}

func (c *call) renderUsers(us []*user) []*userJSON {
	out := make([]*userJSON, 0, len(us))
	for _, u := range us {
		out = append(out, c.renderUser(u))
	}
	return out
}

type namespaceJSON struct {
	ID        int64   `json:"id"`
	Name      string  `json:"name"`
	Path      string  `json:"path"`
	Kind      string  `json:"kind"`
	FullPath  string  `json:"full_path"`
	ParentID  *int64  `json:"parent_id"`
	AvatarURL *string `json:"avatar_url"`
	WebURL    string  `json:"web_url"`
}

type statisticsJSON struct {
	CommitCount    int64 `json:"commit_count"`
	StorageSize    int64 `json:"storage_size"`
	RepositorySize int64 `json:"repository_size"`
}

type projectJSON struct {
	ID                   int64           `json:"id"`
	Description          string          `json:"description"`
	Name                 string          `json:"name"`
	NameWithNamespace    string          `json:"name_with_namespace"`
	Path                 string          `json:"path"`
	PathWithNamespace    string          `json:"path_with_namespace"`
	CreatedAt            stamp           `json:"created_at"`
	DefaultBranch        string          `json:"default_branch"`
	TagList              []string        `json:"tag_list"`
	Topics               []string        `json:"topics"`
	SSHURLToRepo         string          `json:"ssh_url_to_repo"`
	HTTPURLToRepo        string          `json:"http_url_to_repo"`
	WebURL               string          `json:"web_url"`
	AvatarURL            *string         `json:"avatar_url"`
	ForksCount           int             `json:"forks_count"`
	StarCount            int             `json:"star_count"`
	LastActivityAt       stamp           `json:"last_activity_at"`
	Namespace            namespaceJSON   `json:"namespace"`
	Visibility           string          `json:"visibility"`
	Owner                *userJSON       `json:"owner,omitempty"`
	EmptyRepo            bool            `json:"empty_repo"`
	Archived             bool            `json:"archived"`
	IssuesEnabled        bool            `json:"issues_enabled"`
	MergeRequestsEnabled bool            `json:"merge_requests_enabled"`
	OpenIssuesCount      int             `json:"open_issues_count"`
	CreatorID            int64           `json:"creator_id"`
	Statistics           *statisticsJSON `json:"statistics,omitempty"`
}

func (c *call) renderProject(p *project, withStats bool) *projectJSON {
	web := c.base + "/" + p.fullPath()
	open := 0
	for _, is := range p.issues {
		if is.state == "opened" {
			open++
		}
	}
	out := &projectJSON{
		ID: p.id, Description: p.description, Name: p.name, NameWithNamespace: p.fullName(), Path: p.path,
		PathWithNamespace: p.fullPath(), CreatedAt: stamp(p.createdAt), DefaultBranch: p.defaultBranch,
		TagList: slices.Clone(p.topics), Topics: slices.Clone(p.topics),
		SSHURLToRepo: "git@" + hostOf(c.base) + ":" + p.fullPath() + ".git", HTTPURLToRepo: web + ".git", WebURL: web,
		StarCount: p.starCount, LastActivityAt: stamp(p.lastActivity),
		Namespace: namespaceJSON{ID: p.ns.id, Name: p.ns.name, Path: p.ns.path, Kind: p.ns.kind, FullPath: p.ns.fullPath,
			WebURL: c.base + "/" + p.ns.fullPath},
		Visibility: p.visibility, EmptyRepo: len(p.repo.branches) == 0, IssuesEnabled: true, MergeRequestsEnabled: true,
		OpenIssuesCount: open,
	}
	if out.TagList == nil {
		out.TagList, out.Topics = []string{}, []string{}
	}
	if p.creator != nil {
		out.CreatorID = p.creator.id
	}
	if p.ns.kind == "user" {
		out.Owner = c.renderUser(p.ns.owner)
	}
	if withStats {
		var size int64
		seen := map[string]bool{}
		for _, cm := range p.repo.commits {
			for _, b := range cm.files {
				if !seen[b.sha] {
					seen[b.sha] = true
					size += int64(len(b.data))
				}
			}
		}
		out.Statistics = &statisticsJSON{CommitCount: countCommits(p.repo.branches[p.defaultBranch]), StorageSize: size, RepositorySize: size}
	}
	return out
}

func hostOf(base string) string {
	for _, prefix := range []string{"https://", "http://"} {
		if len(base) > len(prefix) && base[:len(prefix)] == prefix {
			return base[len(prefix):]
		}
	}
	return base
}

type referencesJSON struct {
	Short    string `json:"short"`
	Relative string `json:"relative"`
	Full     string `json:"full"`
}

type issueJSON struct {
	ID             int64          `json:"id"`
	IID            int64          `json:"iid"`
	ProjectID      int64          `json:"project_id"`
	Title          string         `json:"title"`
	Description    string         `json:"description"`
	State          string         `json:"state"`
	CreatedAt      stamp          `json:"created_at"`
	UpdatedAt      stamp          `json:"updated_at"`
	ClosedAt       *stamp         `json:"closed_at"`
	ClosedBy       *userJSON      `json:"closed_by"`
	Labels         []string       `json:"labels"`
	Milestone      any            `json:"milestone"`
	Assignees      []*userJSON    `json:"assignees"`
	Author         *userJSON      `json:"author"`
	Type           string         `json:"type"`
	Assignee       *userJSON      `json:"assignee"`
	UserNotesCount int            `json:"user_notes_count"`
	Upvotes        int            `json:"upvotes"`
	Downvotes      int            `json:"downvotes"`
	DueDate        *string        `json:"due_date"`
	Confidential   bool           `json:"confidential"`
	WebURL         string         `json:"web_url"`
	References     referencesJSON `json:"references"`
}

func (c *call) renderIssue(is *issue) *issueJSON {
	ref := "#" + strconv.FormatInt(is.iid, 10)
	out := &issueJSON{
		ID: is.id, IID: is.iid, ProjectID: is.project.id, Title: is.title, Description: is.description, State: is.state,
		CreatedAt: stamp(is.createdAt), UpdatedAt: stamp(is.updatedAt), ClosedAt: stampPtr(is.closedAt),
		ClosedBy: c.renderUser(is.closedBy), Labels: append([]string{}, is.labels...), Assignees: c.renderUsers(is.assignees),
		Author: c.renderUser(is.author), Type: "ISSUE", Confidential: is.confidential, UserNotesCount: userNotes(is.notes),
		Milestone:  c.renderMilestone(is.milestone),
		WebURL:     c.base + "/" + is.project.fullPath() + "/-/issues/" + strconv.FormatInt(is.iid, 10),
		References: referencesJSON{Short: ref, Relative: ref, Full: is.project.fullPath() + ref},
	}
	if len(is.assignees) > 0 {
		out.Assignee = c.renderUser(is.assignees[0])
	}
	return out
}

type mergeRequestJSON struct {
	ID                        int64          `json:"id"`
	IID                       int64          `json:"iid"`
	ProjectID                 int64          `json:"project_id"`
	Title                     string         `json:"title"`
	Description               string         `json:"description"`
	State                     string         `json:"state"`
	CreatedAt                 stamp          `json:"created_at"`
	UpdatedAt                 stamp          `json:"updated_at"`
	MergedBy                  *userJSON      `json:"merged_by"`
	MergedAt                  *stamp         `json:"merged_at"`
	ClosedBy                  *userJSON      `json:"closed_by"`
	ClosedAt                  *stamp         `json:"closed_at"`
	TargetBranch              string         `json:"target_branch"`
	SourceBranch              string         `json:"source_branch"`
	UserNotesCount            int            `json:"user_notes_count"`
	Author                    *userJSON      `json:"author"`
	Assignees                 []*userJSON    `json:"assignees"`
	Assignee                  *userJSON      `json:"assignee"`
	Reviewers                 []*userJSON    `json:"reviewers"`
	SourceProjectID           int64          `json:"source_project_id"`
	TargetProjectID           int64          `json:"target_project_id"`
	Labels                    []string       `json:"labels"`
	Milestone                 *milestoneJSON `json:"milestone"`
	Draft                     bool           `json:"draft"`
	WorkInProgress            bool           `json:"work_in_progress"`
	MergeWhenPipelineSucceeds bool           `json:"merge_when_pipeline_succeeds"`
	MergeStatus               string         `json:"merge_status"`
	DetailedMergeStatus       string         `json:"detailed_merge_status"`
	SHA                       string         `json:"sha"`
	MergeCommitSHA            *string        `json:"merge_commit_sha"`
	ForceRemoveSourceBranch   bool           `json:"force_remove_source_branch"`
	WebURL                    string         `json:"web_url"`
	References                referencesJSON `json:"references"`
}

func (c *call) renderMR(mr *mergeRequest) *mergeRequestJSON {
	ref := "!" + strconv.FormatInt(mr.iid, 10)
	out := &mergeRequestJSON{
		ID: mr.id, IID: mr.iid, ProjectID: mr.project.id, Title: mr.title, Description: mr.description, State: mr.state,
		CreatedAt: stamp(mr.createdAt), UpdatedAt: stamp(mr.updatedAt), MergedBy: c.renderUser(mr.mergedBy),
		MergedAt: stampPtr(mr.mergedAt), ClosedBy: c.renderUser(mr.closedBy), ClosedAt: stampPtr(mr.closedAt),
		TargetBranch: mr.targetBranch, SourceBranch: mr.sourceBranch, Author: c.renderUser(mr.author), UserNotesCount: userNotes(mr.notes),
		Assignees: c.renderUsers(mr.assignees), Reviewers: []*userJSON{}, SourceProjectID: mr.project.id,
		TargetProjectID: mr.project.id, Labels: append([]string{}, mr.labels...), Milestone: c.renderMilestone(mr.milestone), MergeStatus: "can_be_merged",
		DetailedMergeStatus: "mergeable", ForceRemoveSourceBranch: mr.removeSourceBranch,
		WebURL:     c.base + "/" + mr.project.fullPath() + "/-/merge_requests/" + strconv.FormatInt(mr.iid, 10),
		References: referencesJSON{Short: ref, Relative: ref, Full: mr.project.fullPath() + ref},
	}
	if mr.state != "opened" {
		out.DetailedMergeStatus = "not_open"
	}
	if head := mr.project.repo.branches[mr.sourceBranch]; head != nil {
		out.SHA = head.sha
	}
	if mr.mergeCommitSHA != "" {
		out.MergeCommitSHA = &mr.mergeCommitSHA
	}
	if len(mr.assignees) > 0 {
		out.Assignee = c.renderUser(mr.assignees[0])
	}
	return out
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

type pipelineJSON struct {
	ID         int64     `json:"id"`
	IID        int64     `json:"iid"`
	ProjectID  int64     `json:"project_id"`
	SHA        string    `json:"sha"`
	Ref        string    `json:"ref"`
	Status     string    `json:"status"`
	Source     string    `json:"source"`
	CreatedAt  stamp     `json:"created_at"`
	UpdatedAt  stamp     `json:"updated_at"`
	WebURL     string    `json:"web_url"`
	BeforeSHA  string    `json:"before_sha,omitempty"`
	Tag        *bool     `json:"tag,omitempty"`
	User       *userJSON `json:"user,omitempty"`
	StartedAt  *stamp    `json:"started_at,omitempty"`
	FinishedAt *stamp    `json:"finished_at,omitempty"`
	Duration   *int      `json:"duration,omitempty"`
}

func (c *call) renderPipeline(pl *pipeline, detail bool) *pipelineJSON {
	out := &pipelineJSON{ID: pl.id, IID: pl.iid, ProjectID: pl.project.id, SHA: pl.sha, Ref: pl.ref, Status: pl.status,
		Source: pl.source, CreatedAt: stamp(pl.createdAt), UpdatedAt: stamp(pl.updatedAt),
		WebURL: c.base + "/" + pl.project.fullPath() + "/-/pipelines/" + strconv.FormatInt(pl.id, 10)}
	if detail {
		f := false
		out.Tag = &f
		out.BeforeSHA = "0000000000000000000000000000000000000000"
		out.User = c.renderUser(pl.user)
		out.StartedAt, out.FinishedAt = stampPtr(pl.startedAt), stampPtr(pl.finishedAt)
		out.Duration = pl.duration()
	}
	return out
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
