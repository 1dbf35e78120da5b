package sourcehostfake

import (
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	"github.com/apitwin/apitwin/internal/jsonw"
)

//go:generate go run ../../internal/cmd/jsongen -type projectJSON,issueJSON,mergeRequestJSON,pipelineJSON,pipelineDetailJSON,milestoneJSON,noteJSON,memberJSON,currentUserJSON,userJSON

// The JSON shapes the fake answers with. They are the fake's own, written
// from the real API's documentation, not the client's types, so that the
// client's tests against the fake check the client's field names (and the
// records carry the fields the client does not model, as the real API's
// do). Each is declared once, here or beside its resource, as a tagged
// struct: encoding/json writes the rarer answers from them, and the ones
// lists are made of (projects, issues, merge requests, pipelines,
// milestones, notes, members, users) have appendJSON methods that
// internal/cmd/jsongen generates from the same structs (json_gen.go, by
// go generate; CI fails when it is out of date), which write the same
// bytes without reflection: the list benchmarks
// (BenchmarkListVersusPlainHandler) hold them to a plain handler's time.
//
// A record's view is filled in place from the state, under the lock, and
// written out at once (appendIssue and the like), so a page costs one
// growing buffer, not a struct per record kept until the end; the users
// and milestones records show are written once per call and shared
// (userRef, milestoneRef).

// stamp is a time as the real API writes it: UTC with milliseconds.
type stamp time.Time

func (t stamp) appendJSON(b []byte) []byte { return jsonw.AppendTimeMillis(b, time.Time(t)) }

// MarshalJSON writes t as appendJSON does.
func (t stamp) MarshalJSON() ([]byte, error) { return t.appendJSON(make([]byte, 0, 26)), nil }

// stampPtr is a copy of *t, nil for none, for what is written once the
// state is unlocked.
func stampPtr(t *time.Time) *stamp {
	if t == nil {
		return nil
	}
	s := stamp(*t)
	return &s
}

// stampAt is t itself, for views written with the state locked.
func stampAt(t *time.Time) *stamp { return (*stamp)(t) }

// joined is a string the API makes of the fake's URL and a record's names
// (a web_url, a path with its namespace, a reference): up to three parts,
// then a number when withNum, then tail, written without joining them
// first. Parts meet where one of them has an ASCII byte (a "/", a "#"),
// as jsonw.AppendEscaped requires. It is set in place (v.WebURL.join(…)),
// as a record's view is filled.
type joined struct {
	parts   [3]string
	n       int // parts used
	num     int64
	withNum bool
	tail    string // after the number
}

// join sets j to the parts joined.
func (j *joined) join(parts ...string) *joined {
	if len(parts) > len(j.parts) {
		panic("sourcehostfake: a join of more than three parts")
	}
	j.n = copy(j.parts[:], parts)
	return j
}

// number has n follow the parts.
func (j *joined) number(n int64) *joined {
	j.num, j.withNum = n, true
	return j
}

// then has tail end j.
func (j *joined) then(tail string) *joined {
	j.tail = tail
	return j
}

func (j *joined) appendJSON(b []byte) []byte {
	b = append(b, '"')
	b = jsonw.AppendJoined(b, j.parts[:j.n])
	if j.withNum {
		b = strconv.AppendInt(b, j.num, 10)
	}
	if j.tail != "" {
		b = jsonw.AppendEscaped(b, j.tail)
	}
	return append(b, '"')
}

// MarshalJSON writes j as appendJSON does.
func (j joined) MarshalJSON() ([]byte, error) { return j.appendJSON(nil), nil }

// numbered is a string that ends in a record's number: prefix, infix,
// then n ("http://…/shop/-/issues/" 12, "shop" "#" 12). Record lists hold
// several a record, so it is kept smaller than joined. Its prefix and
// infix are JSON string contents, escaped already: the prefix is a
// project's (projectPathsJSON, escaped once for the records of a page),
// the infix one of the package's constants.
type numbered struct {
	prefix, infix string
	n             int64
}

func (u *numbered) appendJSON(b []byte) []byte {
	b = append(b, '"')
	b = append(b, u.prefix...)
	b = append(b, u.infix...)
	b = strconv.AppendInt(b, u.n, 10)
	return append(b, '"')
}

// MarshalJSON writes u as appendJSON does.
func (u numbered) MarshalJSON() ([]byte, error) { return u.appendJSON(nil), nil }

// userJSON is a user as the API shows one inside other records.
type userJSON struct {
	ID        int64  `json:"id"`
	Username  string `json:"username"`
	Name      string `json:"name"`
	State     string `json:"state"`
	Locked    bool   `json:"locked"`
	AvatarURL joined `json:"avatar_url"`
	WebURL    joined `json:"web_url"`
}

func (c *call) userView(v *userJSON, u *user) {
	*v = userJSON{ID: u.id, Username: u.username, Name: u.name, State: u.state}
	v.AvatarURL.join(c.base, "/uploads/-/system/user/avatar/").number(u.id).then("/avatar.png")
	v.WebURL.join(c.base, "/", u.username)
}

// written is JSON written once per call for the records of a page to
// share (a page of issues shows the same few users and milestones again
// and again); nil is null. userRef and milestoneRef make them.
type written []byte

func (w written) appendJSON(b []byte) []byte {
	if w == nil {
		return append(b, "null"...)
	}
	return append(b, w...)
}

// MarshalJSON writes w as appendJSON does.
func (w written) MarshalJSON() ([]byte, error) { return w.appendJSON(nil), nil }

// writtenRecord is a user or a milestone a call has written, by id.
type writtenRecord struct {
	id   int64
	json written
}

// maxWritten bounds the users (and the milestones) a call keeps written:
// past it, each record writes its own.
const maxWritten = 64

// userRef is u's userJSON, written once per call; nil for none.
func (c *call) userRef(u *user) written {
	if u == nil {
		return nil
	}
	for _, r := range c.users {
		if r.id == u.id {
			return r.json
		}
	}
	var v userJSON
	c.userView(&v, u)
	w := written(v.appendJSON(make([]byte, 0, 256)))
	if c.users == nil {
		c.users = make([]writtenRecord, 0, 8)
	}
	if len(c.users) < maxWritten {
		c.users = append(c.users, writtenRecord{u.id, w})
	}
	return w
}

// usersOf is us as records show them: [] for none.
func (c *call) usersOf(us []*user) []written {
	out := make([]written, len(us))
	for i, u := range us {
		out[i] = c.userRef(u)
	}
	return out
}

// milestoneRef is m's milestoneJSON, written once per call; nil for none.
func (c *call) milestoneRef(m *milestone) written {
	if m == nil {
		return nil
	}
	for _, r := range c.milestones {
		if r.id == m.id {
			return r.json
		}
	}
	var v milestoneJSON
	c.milestoneView(&v, m)
	w := written(v.appendJSON(make([]byte, 0, 512)))
	if c.milestones == nil {
		c.milestones = make([]writtenRecord, 0, 8)
	}
	if len(c.milestones) < maxWritten {
		c.milestones = append(c.milestones, writtenRecord{m.id, w})
	}
	return w
}

// currentUserJSON is GET /user.
type currentUserJSON struct {
	userJSON
	CreatedAt stamp  `json:"created_at"`
	Email     string `json:"email"`
	IsAdmin   bool   `json:"is_admin"`
	Bio       string `json:"bio"`
}

// memberJSON is a member as GET /projects/:id/members shows one.
type memberJSON struct {
	userJSON
	AccessLevel     int     `json:"access_level"`
	CreatedAt       stamp   `json:"created_at"`
	ExpiresAt       *string `json:"expires_at"`
	MembershipState string  `json:"membership_state"`
}

func (c *call) appendMember(b []byte, p *project, m member) []byte {
	v := memberJSON{AccessLevel: m.level, CreatedAt: stamp(m.since), MembershipState: "active"}
	c.userView(&v.userJSON, m.u)
	if d, ok := p.memberExpires[m.u.id]; ok && m.direct {
		v.ExpiresAt = &d
	}
	return v.appendJSON(b)
}

type namespaceJSON struct {
	ID        int64   `json:"id"`
	Name      string  `json:"name"`
	Path      string  `json:"path"`
	Kind      string  `json:"kind"`
	FullPath  string  `json:"full_path"`
	ParentID  *int64  `json:"parent_id"`
	AvatarURL *string `json:"avatar_url"`
	WebURL    joined  `json:"web_url"`
}

type projectStatisticsJSON struct {
	CommitCount    int64 `json:"commit_count"`
	StorageSize    int64 `json:"storage_size"`
	RepositorySize int64 `json:"repository_size"`
}

// projectJSON is a project; owner only in a user's namespace, statistics
// only when asked for.
type projectJSON struct {
	ID                   int64                  `json:"id"`
	Description          string                 `json:"description"`
	Name                 string                 `json:"name"`
	NameWithNamespace    joined                 `json:"name_with_namespace"`
	Path                 string                 `json:"path"`
	PathWithNamespace    joined                 `json:"path_with_namespace"`
	CreatedAt            stamp                  `json:"created_at"`
	DefaultBranch        string                 `json:"default_branch"`
	TagList              []string               `json:"tag_list"`
	Topics               []string               `json:"topics"`
	SSHURLToRepo         joined                 `json:"ssh_url_to_repo"`
	HTTPURLToRepo        joined                 `json:"http_url_to_repo"`
	WebURL               joined                 `json:"web_url"`
	AvatarURL            *string                `json:"avatar_url"`
	ForksCount           int                    `json:"forks_count"`
	StarCount            int                    `json:"star_count"`
	LastActivityAt       stamp                  `json:"last_activity_at"`
	Namespace            namespaceJSON          `json:"namespace"`
	Visibility           string                 `json:"visibility"`
	Owner                written                `json:"owner,omitempty"`
	EmptyRepo            bool                   `json:"empty_repo"`
	Archived             bool                   `json:"archived"`
	IssuesEnabled        bool                   `json:"issues_enabled"`
	MergeRequestsEnabled bool                   `json:"merge_requests_enabled"`
	OpenIssuesCount      int                    `json:"open_issues_count"`
	CreatorID            int64                  `json:"creator_id"`
	ForkedFromProject    *forkedFromJSON        `json:"forked_from_project,omitempty"`
	MarkedForDeletionAt  *string                `json:"marked_for_deletion_at,omitempty"`
	MarkedForDeletionOn  *string                `json:"marked_for_deletion_on,omitempty"`
	Statistics           *projectStatisticsJSON `json:"statistics,omitempty"`
}

// forkedFromJSON is the project a fork was made from, in the real
// service's basic project details.
type forkedFromJSON struct {
	ID                int64         `json:"id"`
	Description       string        `json:"description"`
	Name              string        `json:"name"`
	NameWithNamespace string        `json:"name_with_namespace"`
	Path              string        `json:"path"`
	PathWithNamespace string        `json:"path_with_namespace"`
	CreatedAt         stamp         `json:"created_at"`
	DefaultBranch     string        `json:"default_branch"`
	TagList           []string      `json:"tag_list"`
	Topics            []string      `json:"topics"`
	SSHURLToRepo      string        `json:"ssh_url_to_repo"`
	HTTPURLToRepo     string        `json:"http_url_to_repo"`
	WebURL            string        `json:"web_url"`
	AvatarURL         *string       `json:"avatar_url"`
	ForksCount        int           `json:"forks_count"`
	StarCount         int           `json:"star_count"`
	LastActivityAt    stamp         `json:"last_activity_at"`
	Namespace         namespaceJSON `json:"namespace"`
}

// appendProject appends p as the API shows it, with its statistics when
// withStats.
func (c *call) appendProject(b []byte, p *project, withStats bool) []byte {
	ns := p.ns
	nsWeb, nsSSH := c.namespacePaths(ns)
	v := projectJSON{ID: p.id, Description: p.description, Name: p.name, Path: p.path, CreatedAt: stamp(p.createdAt),
		DefaultBranch: p.defaultBranch, TagList: nonNil(p.topics), Topics: nonNil(p.topics), StarCount: p.starCount,
		ForksCount: p.forks, Archived: p.archived, LastActivityAt: stamp(p.lastActivity),
		Namespace:  namespaceJSON{ID: ns.id, Name: ns.name, Path: ns.path, Kind: ns.kind, FullPath: ns.fullPath},
		Visibility: p.visibility, EmptyRepo: len(p.repo.branches) == 0, IssuesEnabled: true, MergeRequestsEnabled: true}
	v.NameWithNamespace.join(ns.fullName(), " / ", p.name)
	if ns.parent != nil {
		v.Namespace.ParentID = &ns.parent.id
	}
	v.PathWithNamespace.join(ns.fullPath, "/", p.path)
	v.SSHURLToRepo.join(nsSSH, "/", p.path).then(".git")
	v.HTTPURLToRepo.join(nsWeb, "/", p.path).then(".git")
	v.WebURL.join(nsWeb, "/", p.path)
	v.Namespace.WebURL.join(nsWeb)
	if ns.kind == "user" && ns.owner != nil {
		v.Owner = c.userRef(ns.owner)
	}
	for _, is := range p.issues {
		if is.state == "opened" {
			v.OpenIssuesCount++
		}
	}
	if p.creator != nil {
		v.CreatorID = p.creator.id
	}
	if from := c.st.forkSource(p); from != nil && c.st.canSee(c.user, from) {
		v.ForkedFromProject = c.forkedFrom(from)
	}
	if pr := p.markedForDeletion; pr != nil {
		v.MarkedForDeletionAt = markedOn(pr)
		v.MarkedForDeletionOn = v.MarkedForDeletionAt
	}
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
		v.Statistics = &projectStatisticsJSON{CommitCount: countCommits(p.repo.branches[p.defaultBranch]), StorageSize: size, RepositorySize: size}
	}
	return v.appendJSON(b)
}

// sshHost is the host of the fake's URL base as an ssh URL names it:
// without scheme, port or path ("[::1]" for IPv6). The port of the fake's
// URL is its HTTP port, never an SSH port: the real service writes
// git@host:ns/p.git for SSH on port 22, and the fake serves no SSH.
func sshHost(base string) string {
	for _, prefix := range []string{"https://", "http://"} {
		if len(base) > len(prefix) && base[:len(prefix)] == prefix {
			base = base[len(prefix):]
			break
		}
	}
	if i := strings.IndexByte(base, '/'); i >= 0 {
		base = base[:i]
	}
	if i := strings.LastIndexByte(base, '@'); i >= 0 { // user information
		base = base[i+1:]
	}
	if strings.HasPrefix(base, "[") {
		if i := strings.IndexByte(base, ']'); i >= 0 {
			return base[:i+1]
		}
		return base
	}
	if i := strings.LastIndexByte(base, ':'); i >= 0 {
		base = base[:i]
	}
	return base
}

// sshNamespace is the start of ssh_url_to_repo for the projects of the
// namespace at path: git@host:path for SSH on port 22 (or 0, unset), else
// the URL form the real service writes for another port,
// ssh://git@host:port/path. One concatenation: it is made for each
// namespace of every page of projects.
func sshNamespace(base string, port int, path string) string {
	if port == 0 || port == 22 {
		return "git@" + sshHost(base) + ":" + path
	}
	return "ssh://git@" + sshHost(base) + ":" + strconv.Itoa(port) + "/" + path
}

// projectPathsJSON are p's page and its path with its namespace, as JSON
// string contents, made and escaped once per call for the numbered
// strings of a page's records, of one project mostly.
func (c *call) projectPathsJSON(p *project) (web, path string) {
	if c.pathsOf != p {
		path := p.ns.fullPath + "/" + p.path
		c.pathsOf = p
		c.projectWeb, c.projectPath = escapedJSON(c.base+"/"+path), escapedJSON(path)
	}
	return c.projectWeb, c.projectPath
}

// escapedJSON is s as JSON string contents: s itself when it needs no
// escaping, as a project's paths mostly do not.
func escapedJSON(s string) string {
	if jsonw.Plain(s) {
		return s
	}
	return string(jsonw.AppendEscaped(nil, s))
}

// nsPaths are a namespace's page and the start of its projects' ssh URLs.
type nsPaths struct {
	ns       *namespace
	web, ssh string
}

// maxNamespacePaths bounds the namespaces a call keeps the paths of.
const maxNamespacePaths = 16

// namespacePaths are ns's page and the start of its projects' ssh URLs,
// made once per call for the projects of a page, in a few namespaces
// mostly, to share.
func (c *call) namespacePaths(ns *namespace) (web, ssh string) {
	for _, p := range c.namespaces {
		if p.ns == ns {
			return p.web, p.ssh
		}
	}
	p := nsPaths{ns: ns, web: c.base + "/" + ns.fullPath, ssh: sshNamespace(c.base, c.s.cfg.sshPort, ns.fullPath)}
	if c.namespaces == nil {
		c.namespaces = make([]nsPaths, 0, 8)
	}
	if len(c.namespaces) < maxNamespacePaths {
		c.namespaces = append(c.namespaces, p)
	}
	return p.web, p.ssh
}

// webURL is the web_url of a project's record: the project's page, then
// kind ("/-/issues/") and the record's number.
func (c *call) webURL(p *project, kind string, n int64) numbered {
	web, _ := c.projectPathsJSON(p)
	return numbered{web, kind, n}
}

// referencesJSON are the references of an issue ('#') or a merge request
// ('!').
type referencesJSON struct {
	Short    numbered `json:"short"`
	Relative numbered `json:"relative"`
	Full     numbered `json:"full"`
}

func (c *call) references(p *project, sigil string, iid int64) referencesJSON {
	_, path := c.projectPathsJSON(p)
	return referencesJSON{Short: numbered{"", sigil, iid}, Relative: numbered{"", sigil, iid}, Full: numbered{path, sigil, iid}}
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
	ClosedBy       written        `json:"closed_by"`
	Labels         []string       `json:"labels"`
	Milestone      written        `json:"milestone"`
	Assignees      []written      `json:"assignees"`
	Author         written        `json:"author"`
	Type           string         `json:"type"`
	Assignee       written        `json:"assignee"`
	UserNotesCount int            `json:"user_notes_count"`
	Upvotes        int            `json:"upvotes"`
	Downvotes      int            `json:"downvotes"`
	DueDate        *string        `json:"due_date"`
	Confidential   bool           `json:"confidential"`
	WebURL         numbered       `json:"web_url"`
	References     referencesJSON `json:"references"`
}

func (c *call) appendIssue(b []byte, is *issue) []byte {
	v := issueJSON{ID: is.id, IID: is.iid, ProjectID: is.project.id, Title: is.title, Description: is.description,
		State: is.state, CreatedAt: stamp(is.createdAt), UpdatedAt: stamp(is.updatedAt), ClosedAt: stampAt(is.closedAt),
		ClosedBy: c.userRef(is.closedBy), Labels: nonNil(is.labels), Milestone: c.milestoneRef(is.milestone),
		Assignees: c.usersOf(is.assignees), Author: c.userRef(is.author), Type: "ISSUE", Assignee: c.userRef(first(is.assignees)),
		UserNotesCount: userNotes(is.notes), Confidential: is.confidential,
		WebURL: c.webURL(is.project, "/-/issues/", is.iid), References: c.references(is.project, "#", is.iid)}
	return v.appendJSON(b)
}

// first is a list's first user, nil for none.
func first(us []*user) *user {
	if len(us) == 0 {
		return nil
	}
	return us[0]
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
	MergedBy                  written        `json:"merged_by"`
	MergedAt                  *stamp         `json:"merged_at"`
	ClosedBy                  written        `json:"closed_by"`
	ClosedAt                  *stamp         `json:"closed_at"`
	TargetBranch              string         `json:"target_branch"`
	SourceBranch              string         `json:"source_branch"`
	UserNotesCount            int            `json:"user_notes_count"`
	Author                    written        `json:"author"`
	Assignees                 []written      `json:"assignees"`
	Assignee                  written        `json:"assignee"`
	Reviewers                 []written      `json:"reviewers"`
	SourceProjectID           int64          `json:"source_project_id"`
	TargetProjectID           int64          `json:"target_project_id"`
	Labels                    []string       `json:"labels"`
	Milestone                 written        `json:"milestone"`
	Draft                     bool           `json:"draft"`
	WorkInProgress            bool           `json:"work_in_progress"`
	MergeWhenPipelineSucceeds bool           `json:"merge_when_pipeline_succeeds"`
	MergeStatus               string         `json:"merge_status"`
	DetailedMergeStatus       string         `json:"detailed_merge_status"`
	SHA                       string         `json:"sha"`
	MergeCommitSHA            *string        `json:"merge_commit_sha"`
	ForceRemoveSourceBranch   bool           `json:"force_remove_source_branch"`
	WebURL                    numbered       `json:"web_url"`
	References                referencesJSON `json:"references"`
}

func (c *call) appendMR(b []byte, mr *mergeRequest) []byte {
	v := c.mrView(mr)
	return v.appendJSON(b)
}

// mrView is a merge request as its answers show it; it holds nothing of
// the state, so it may be encoded after the state is unlocked.
func (c *call) mrView(mr *mergeRequest) mergeRequestJSON {
	v := mergeRequestJSON{ID: mr.id, IID: mr.iid, ProjectID: mr.project.id, Title: mr.title, Description: mr.description,
		State: mr.state, CreatedAt: stamp(mr.createdAt), UpdatedAt: stamp(mr.updatedAt),
		MergedBy: c.userRef(mr.mergedBy), MergedAt: stampAt(mr.mergedAt), ClosedBy: c.userRef(mr.closedBy), ClosedAt: stampAt(mr.closedAt),
		TargetBranch: mr.targetBranch, SourceBranch: mr.sourceBranch, UserNotesCount: userNotes(mr.notes),
		Author: c.userRef(mr.author), Assignees: c.usersOf(mr.assignees), Assignee: c.userRef(first(mr.assignees)),
		Reviewers: []written{}, SourceProjectID: mr.project.id, TargetProjectID: mr.project.id, Labels: nonNil(mr.labels),
		Milestone: c.milestoneRef(mr.milestone), MergeStatus: "can_be_merged", DetailedMergeStatus: "mergeable",
		ForceRemoveSourceBranch: mr.removeSourceBranch,
		WebURL:                  c.webURL(mr.project, "/-/merge_requests/", mr.iid), References: c.references(mr.project, "!", mr.iid)}
	if mr.state != "opened" {
		v.DetailedMergeStatus = "not_open"
	}
	if head := mr.project.repo.branches[mr.sourceBranch]; head != nil {
		v.SHA = head.sha
	}
	if mr.mergeCommitSHA != "" {
		sha := mr.mergeCommitSHA
		v.MergeCommitSHA = &sha
	}
	return v
}

// pipelineJSON is a pipeline as lists show it.
type pipelineJSON struct {
	ID        int64    `json:"id"`
	IID       int64    `json:"iid"`
	ProjectID int64    `json:"project_id"`
	SHA       string   `json:"sha"`
	Ref       string   `json:"ref"`
	Status    string   `json:"status"`
	Source    string   `json:"source"`
	CreatedAt stamp    `json:"created_at"`
	UpdatedAt stamp    `json:"updated_at"`
	WebURL    numbered `json:"web_url"`
}

// pipelineDetailJSON is a pipeline as its own route shows it.
type pipelineDetailJSON struct {
	pipelineJSON
	BeforeSHA  string  `json:"before_sha"`
	Tag        bool    `json:"tag"`
	User       written `json:"user,omitempty"`
	StartedAt  *stamp  `json:"started_at,omitempty"`
	FinishedAt *stamp  `json:"finished_at,omitempty"`
	Duration   *int    `json:"duration,omitempty"`
}

func (c *call) pipelineView(pl *pipeline) pipelineJSON {
	return pipelineJSON{ID: pl.id, IID: pl.iid, ProjectID: pl.project.id, SHA: pl.sha, Ref: pl.ref, Status: pl.status,
		Source: pl.source, CreatedAt: stamp(pl.createdAt), UpdatedAt: stamp(pl.updatedAt), WebURL: c.webURL(pl.project, "/-/pipelines/", pl.id)}
}

func (c *call) appendPipelineSummary(b []byte, pl *pipeline) []byte {
	v := c.pipelineView(pl)
	return v.appendJSON(b)
}

func (c *call) appendPipelineDetail(b []byte, pl *pipeline) []byte {
	v := pipelineDetailJSON{BeforeSHA: "0000000000000000000000000000000000000000", Tag: pl.tag,
		User: c.userRef(pl.user), StartedAt: stampAt(pl.startedAt), FinishedAt: stampAt(pl.finishedAt), Duration: pl.duration()}
	v.pipelineJSON = c.pipelineView(pl)
	return v.appendJSON(b)
}

func (pl *pipeline) duration() *int {
	if pl.startedAt == nil || pl.finishedAt == nil {
		return nil
	}
	d := int(pl.finishedAt.Sub(*pl.startedAt) / time.Second)
	return &d
}

type milestoneJSON struct {
	ID          int64    `json:"id"`
	IID         int64    `json:"iid"`
	ProjectID   int64    `json:"project_id"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	DueDate     *string  `json:"due_date"`
	StartDate   *string  `json:"start_date"`
	State       string   `json:"state"`
	UpdatedAt   stamp    `json:"updated_at"`
	CreatedAt   stamp    `json:"created_at"`
	Expired     bool     `json:"expired"`
	WebURL      numbered `json:"web_url"`
}

func (c *call) milestoneView(v *milestoneJSON, m *milestone) {
	*v = milestoneJSON{ID: m.id, IID: m.iid, ProjectID: m.project.id, Title: m.title, Description: m.description,
		DueDate: date(&m.dueDate), StartDate: date(&m.startDate), State: m.state, UpdatedAt: stamp(m.updatedAt),
		CreatedAt: stamp(m.createdAt), Expired: m.dueDate != "" && m.dueDate < c.today(),
		WebURL: c.webURL(m.project, "/-/milestones/", m.iid)}
}

func (c *call) appendMilestone(b []byte, m *milestone) []byte {
	var v milestoneJSON
	c.milestoneView(&v, m)
	return v.appendJSON(b)
}

// date is a YYYY-MM-DD date, nil (null) for "".
func date(d *string) *string {
	if *d == "" {
		return nil
	}
	return d
}

type noteJSON struct {
	ID           int64   `json:"id"`
	Type         *string `json:"type"`
	Body         string  `json:"body"`
	Attachment   *string `json:"attachment"`
	Author       written `json:"author"`
	CreatedAt    stamp   `json:"created_at"`
	UpdatedAt    stamp   `json:"updated_at"`
	System       bool    `json:"system"`
	NoteableID   int64   `json:"noteable_id"`
	NoteableType string  `json:"noteable_type"`
	ProjectID    int64   `json:"project_id"`
	NoteableIID  int64   `json:"noteable_iid"`
	Resolvable   bool    `json:"resolvable"`
	// Resolved, ResolvedBy and ResolvedAt are shown for resolvable notes
	// only, as the real service shows them.
	Resolved     *bool   `json:"resolved,omitempty"`
	ResolvedBy   written `json:"resolved_by,omitempty"`
	ResolvedAt   *stamp  `json:"resolved_at,omitempty"`
	Confidential bool    `json:"confidential"`
	Internal     bool    `json:"internal"`
	Imported     bool    `json:"imported"`
	ImportedFrom string  `json:"imported_from"`
}

func (c *call) appendNote(b []byte, n *note) []byte {
	v := noteJSON{ID: n.id, Body: n.body, Author: c.userRef(n.author), CreatedAt: stamp(n.createdAt), UpdatedAt: stamp(n.updatedAt),
		System: n.system, NoteableID: n.noteableID, NoteableType: n.noteableType, ProjectID: n.project.id,
		NoteableIID: n.noteableIID, Confidential: n.internal, Internal: n.internal, ImportedFrom: "none"}
	if n.discussionNote {
		typ, resolved := "DiscussionNote", n.resolved
		v.Type, v.Resolvable, v.Resolved, v.ResolvedBy = &typ, n.resolvable(), &resolved, c.userRef(n.resolvedBy)
		if n.resolvedAt != nil {
			at := stamp(*n.resolvedAt)
			v.ResolvedAt = &at
		}
	}
	return v.appendJSON(b)
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

// forkedFrom is the project a fork was made from, as the fork shows it.
func (c *call) forkedFrom(p *project) *forkedFromJSON {
	ns := p.ns
	nsWeb, nsSSH := c.namespacePaths(ns)
	v := &forkedFromJSON{ID: p.id, Description: p.description, Name: p.name, NameWithNamespace: p.fullName(), Path: p.path,
		PathWithNamespace: p.fullPath(), CreatedAt: stamp(p.createdAt), DefaultBranch: p.defaultBranch,
		TagList: nonNil(p.topics), Topics: nonNil(p.topics), SSHURLToRepo: nsSSH + "/" + p.path + ".git",
		HTTPURLToRepo: nsWeb + "/" + p.path + ".git", WebURL: nsWeb + "/" + p.path, ForksCount: p.forks,
		StarCount: p.starCount, LastActivityAt: stamp(p.lastActivity),
		Namespace: namespaceJSON{ID: ns.id, Name: ns.name, Path: ns.path, Kind: ns.kind, FullPath: ns.fullPath}}
	v.Namespace.WebURL.join(nsWeb)
	if ns.parent != nil {
		v.Namespace.ParentID = &ns.parent.id
	}
	return v
}
