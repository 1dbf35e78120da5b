package sourcehostfake

import (
	"cmp"
	"encoding/base64"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// SnapshotFormat and SnapshotVersion name the shape of the fake's
// snapshots; Restore reads this version only.
const (
	SnapshotFormat  = "sourcehostfake"
	SnapshotVersion = 1
)

type snapTime = fakekit.SnapshotTime

type snapshot struct {
	fakekit.SnapshotHeader
	Sequences map[string]int64 `json:"sequences"`
	// AllowLocalRequests is the application setting
	// allow_local_requests_from_web_hooks_and_services.
	AllowLocalRequests bool            `json:"allow_local_requests_from_web_hooks_and_services"`
	Root               int64           `json:"root"`       // the administrator the fake was made with
	RootToken          int64           `json:"root_token"` // its token, which Token returns
	Users              []snapUser      `json:"users"`
	Tokens             []snapToken     `json:"tokens"`
	Namespaces         []snapNamespace `json:"namespaces"`
	Projects           []snapProject   `json:"projects"`
	// JobTokens are the CI/CD job tokens handed out, by secret.
	JobTokens []snapJobToken `json:"job_tokens,omitempty"`
}

// snapJobToken is a job token: its secret, and its job by project and id.
type snapJobToken struct {
	Secret  string `json:"secret"`
	Project int64  `json:"project"`
	Job     int64  `json:"job"`
}

type snapUser struct {
	ID        int64    `json:"id"`
	Username  string   `json:"username"`
	Name      string   `json:"name"`
	Email     string   `json:"email"`
	Admin     bool     `json:"admin"`
	State     string   `json:"state"`
	CreatedAt snapTime `json:"created_at"`
	Namespace int64    `json:"namespace"`
	Starred   []int64  `json:"starred"`
}

type snapToken struct {
	ID        int64     `json:"id"`
	Secret    string    `json:"secret"`
	Name      string    `json:"name"`
	User      int64     `json:"user"`
	Scopes    []string  `json:"scopes"`
	CreatedAt snapTime  `json:"created_at"`
	ExpiresAt *snapTime `json:"expires_at,omitempty"`
	Revoked   bool      `json:"revoked"`
	LastUsed  *snapTime `json:"last_used,omitempty"`
}

type snapNamespace struct {
	ID       int64        `json:"id"`
	Name     string       `json:"name"`
	Path     string       `json:"path"`
	Kind     string       `json:"kind"`
	FullPath string       `json:"full_path"`
	Owner    int64        `json:"owner"` // a user namespace's user
	Members  []snapMember `json:"members"`
	// A group's parent (its id; 0 for none), visibility, description and
	// creation time.
	Parent      int64     `json:"parent,omitempty"`
	Visibility  string    `json:"visibility,omitempty"`
	Description string    `json:"description,omitempty"`
	CreatedAt   *snapTime `json:"created_at,omitempty"`
	// MarkedForDeletion is when a group was marked for deletion.
	MarkedForDeletion *snapTime `json:"marked_for_deletion,omitempty"`
}

type snapMember struct {
	User    int64     `json:"user"`
	Level   int       `json:"level"`
	Since   *snapTime `json:"since,omitempty"`   // a project's direct members
	Expires string    `json:"expires,omitempty"` // a project member's expires_at date
}

type snapProject struct {
	ID                int64        `json:"id"`
	Name              string       `json:"name"`
	Path              string       `json:"path"`
	Description       string       `json:"description"`
	Namespace         int64        `json:"namespace"`
	Visibility        string       `json:"visibility"`
	DefaultBranch     string       `json:"default_branch"`
	Topics            []string     `json:"topics"`
	Creator           int64        `json:"creator"` // 0: none
	Members           []snapMember `json:"members"`
	StarCount         int          `json:"star_count"`
	CreatedAt         snapTime     `json:"created_at"`
	LastActivity      snapTime     `json:"last_activity"`
	Archived          bool         `json:"archived,omitempty"`
	MarkedForDeletion *snapTime    `json:"marked_for_deletion,omitempty"`
	ForkedFrom        int64        `json:"forked_from,omitempty"` // a project's id; 0: not a fork (or its source is gone)

	Issues        []snapIssue     `json:"issues"`
	MergeRequests []snapMR        `json:"merge_requests"`
	Labels        []snapLabel     `json:"labels"`
	Milestones    []snapMilestone `json:"milestones"`
	Protected     []snapProtected `json:"protected_branches"`
	Releases      []snapRelease   `json:"releases"`
	Hooks         []snapHook      `json:"hooks"`
	Pipelines     []snapPipeline  `json:"pipelines"`
	Variables     []snapVariable  `json:"variables,omitempty"`
	Triggers      []snapTrigger   `json:"triggers,omitempty"`
	Schedules     []snapSchedule  `json:"pipeline_schedules,omitempty"`
	Repository    snapRepo        `json:"repository"`
}

// snapSchedule is a pipeline schedule; LastPipeline is the id of the
// pipeline it last ran (0: none).
type snapSchedule struct {
	ID           int64    `json:"id"`
	Description  string   `json:"description"`
	Ref          string   `json:"ref"`
	Cron         string   `json:"cron"`
	Timezone     string   `json:"cron_timezone"`
	Active       bool     `json:"active"`
	Owner        int64    `json:"owner"`
	CreatedAt    snapTime `json:"created_at"`
	UpdatedAt    snapTime `json:"updated_at"`
	LastPipeline int64    `json:"last_pipeline,omitempty"`
}

// snapTrigger is a pipeline trigger, with its token as a personal access
// token's is kept.
type snapTrigger struct {
	ID          int64     `json:"id"`
	Token       string    `json:"token"`
	Description string    `json:"description"`
	Owner       int64     `json:"owner"`
	CreatedAt   snapTime  `json:"created_at"`
	UpdatedAt   snapTime  `json:"updated_at"`
	LastUsed    *snapTime `json:"last_used,omitempty"`
}

// snapVariable is a CI/CD variable; its value is in the snapshot as the
// state holds it, as a hook's token is.
type snapVariable struct {
	ID          int64  `json:"id"`
	Key         string `json:"key"`
	Value       string `json:"value"`
	Type        string `json:"variable_type"`
	Scope       string `json:"environment_scope"`
	Description string `json:"description,omitempty"`
	Protected   bool   `json:"protected,omitempty"`
	Masked      bool   `json:"masked,omitempty"`
	Hidden      bool   `json:"hidden,omitempty"`
	Raw         bool   `json:"raw,omitempty"`
}

type snapIssue struct {
	ID           int64      `json:"id"`
	IID          int64      `json:"iid"`
	Title        string     `json:"title"`
	Description  string     `json:"description"`
	State        string     `json:"state"`
	Labels       []string   `json:"labels"`
	Author       int64      `json:"author"`
	Assignees    []int64    `json:"assignees"`
	Confidential bool       `json:"confidential"`
	CreatedAt    snapTime   `json:"created_at"`
	UpdatedAt    snapTime   `json:"updated_at"`
	ClosedAt     *snapTime  `json:"closed_at,omitempty"`
	ClosedBy     int64      `json:"closed_by"`
	Notes        []snapNote `json:"notes"`
	Milestone    int64      `json:"milestone"`
}

type snapMR struct {
	ID                 int64          `json:"id"`
	IID                int64          `json:"iid"`
	Title              string         `json:"title"`
	Description        string         `json:"description"`
	State              string         `json:"state"`
	SourceBranch       string         `json:"source_branch"`
	TargetBranch       string         `json:"target_branch"`
	Labels             []string       `json:"labels"`
	Author             int64          `json:"author"`
	Assignees          []int64        `json:"assignees"`
	RemoveSourceBranch bool           `json:"remove_source_branch"`
	MergeCommitSHA     string         `json:"merge_commit_sha"`
	CreatedAt          snapTime       `json:"created_at"`
	UpdatedAt          snapTime       `json:"updated_at"`
	MergedAt           *snapTime      `json:"merged_at,omitempty"`
	MergedBy           int64          `json:"merged_by"`
	ClosedAt           *snapTime      `json:"closed_at,omitempty"`
	ClosedBy           int64          `json:"closed_by"`
	Notes              []snapNote     `json:"notes"`
	Milestone          int64          `json:"milestone"`
	Commits            []string       `json:"commits"` // SHAs, of the repository's commits
	Approvals          []snapApproval `json:"approvals,omitempty"`
	MergeError         string         `json:"merge_error,omitempty"`
}

// snapApproval is a user's approval of a merge request.
type snapApproval struct {
	User int64    `json:"user"`
	At   snapTime `json:"at"`
}

type snapNote struct {
	ID           int64    `json:"id"`
	Body         string   `json:"body"`
	Author       int64    `json:"author"`
	System       bool     `json:"system"`
	Internal     bool     `json:"internal"`
	CreatedAt    snapTime `json:"created_at"`
	UpdatedAt    snapTime `json:"updated_at"`
	NoteableType string   `json:"noteable_type"`
	NoteableID   int64    `json:"noteable_id"`
	NoteableIID  int64    `json:"noteable_iid"`
	// The thread: empty for a note's own (individual) thread.
	DiscussionID   string    `json:"discussion_id,omitempty"`
	DiscussionNote bool      `json:"discussion_note,omitempty"`
	Resolved       bool      `json:"resolved,omitempty"`
	ResolvedBy     int64     `json:"resolved_by,omitempty"`
	ResolvedAt     *snapTime `json:"resolved_at,omitempty"`
}

type snapLabel struct {
	ID          int64  `json:"id"`
	Name        string `json:"name"`
	Color       string `json:"color"`
	Description string `json:"description"`
	Priority    *int64 `json:"priority,omitempty"`
}

type snapMilestone struct {
	ID          int64    `json:"id"`
	IID         int64    `json:"iid"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	State       string   `json:"state"`
	DueDate     string   `json:"due_date"`
	StartDate   string   `json:"start_date"`
	CreatedAt   snapTime `json:"created_at"`
	UpdatedAt   snapTime `json:"updated_at"`
}

type snapProtected struct {
	ID             int64  `json:"id"`
	Name           string `json:"name"`
	Push           int    `json:"push"`
	Merge          int    `json:"merge"`
	AllowForcePush bool   `json:"allow_force_push"`
}

type snapRelease struct {
	ID          int64    `json:"id"`
	TagName     string   `json:"tag_name"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Author      int64    `json:"author"`
	SHA         string   `json:"sha"`
	Milestones  []int64  `json:"milestones"`
	CreatedAt   snapTime `json:"created_at"`
	ReleasedAt  snapTime `json:"released_at"`
}

type snapHook struct {
	ID               int64    `json:"id"`
	URL              string   `json:"url"`
	Token            string   `json:"token"`
	Events           []string `json:"events"` // the flags set: push_events, …
	PushBranchFilter string   `json:"push_branch_filter"`
	SSLVerify        bool     `json:"ssl_verify"`
	CreatedAt        snapTime `json:"created_at"`
}

type snapPipeline struct {
	ID         int64             `json:"id"`
	IID        int64             `json:"iid"`
	Ref        string            `json:"ref"`
	Tag        bool              `json:"tag,omitempty"` // Ref is a tag
	SHA        string            `json:"sha"`
	Status     string            `json:"status"`
	Source     string            `json:"source"`
	User       int64             `json:"user"`
	Variables  map[string]string `json:"variables,omitempty"`
	CreatedAt  snapTime          `json:"created_at"`
	UpdatedAt  snapTime          `json:"updated_at"`
	StartedAt  *snapTime         `json:"started_at,omitempty"`
	FinishedAt *snapTime         `json:"finished_at,omitempty"`
	// Moving says the pipeline moves on by itself on the clock (pending to
	// running, running to success), its next change due its phase's time
	// after UpdatedAt.
	Moving bool      `json:"moving"`
	Jobs   []snapJob `json:"jobs"`
}

type snapJob struct {
	ID         int64     `json:"id"`
	Name       string    `json:"name"`
	Stage      string    `json:"stage"`
	Status     string    `json:"status"`
	User       int64     `json:"user"`
	Retried    bool      `json:"retried"`
	CreatedAt  snapTime  `json:"created_at"`
	StartedAt  *snapTime `json:"started_at,omitempty"`
	FinishedAt *snapTime `json:"finished_at,omitempty"`
	Trace      string    `json:"trace"`
}

// snapRepo is a repository: each file content once (Blobs, base64 by its
// git id), then the commits, each naming its files' blobs by id, oldest
// first so that a commit's parents come before it.
type snapRepo struct {
	Blobs    map[string]string `json:"blobs"`
	Commits  []snapCommit      `json:"commits"`
	Branches map[string]string `json:"branches"` // name → commit SHA
	Tags     []snapTag         `json:"tags"`
}

type snapCommit struct {
	SHA         string            `json:"sha"`
	Parents     []string          `json:"parents"`
	Message     string            `json:"message"`
	AuthorName  string            `json:"author_name"`
	AuthorEmail string            `json:"author_email"`
	At          snapTime          `json:"at"`
	Files       map[string]string `json:"files"` // path → blob id
	Added       []string          `json:"added"`
	Modified    []string          `json:"modified"`
	Removed     []string          `json:"removed"`
}

type snapTag struct {
	Name      string   `json:"name"`
	Commit    string   `json:"commit"`
	Message   string   `json:"message"`
	SHA       string   `json:"sha"`
	CreatedAt snapTime `json:"created_at"`
}

// Snapshot returns the fake's whole state as versioned JSON, which
// Restore reads back into this fake or another, for a program that keeps it across restarts (apitwin-fake -state-dir): users
// and their tokens, groups and members, projects with their issues, merge
// requests, notes, labels, milestones, releases, hooks, pipelines and jobs
// (their logs too), and each repository: its commits with their files,
// branches, tags and protected branches; and the application setting
// allow_local_requests_from_web_hooks_and_services. Ids go on where they
// stopped. A pipeline that was moving on the clock (pending, then running, then
// success) moves on from where it stood, its next change due when it was
// due. Webhook deliveries still queued, the delivery log, faults, the
// request log and rate-limit windows are not state and are not kept. A
// snapshot holds every token's secret and every hook's secret token: keep
// it private.
//
// It may be taken after Close: a pipeline stopped by Close still counts
// as moving.
func (s *Server) Snapshot() ([]byte, error) {
	s.mu.Lock()
	snap := s.snapshotLocked()
	s.mu.Unlock()
	return fakekit.EncodeSnapshot(snap)
}

func (s *Server) snapshotLocked() *snapshot {
	st := s.st
	snap := &snapshot{
		SnapshotHeader:     fakekit.SnapshotHeader{Format: SnapshotFormat, Version: SnapshotVersion},
		Sequences:          maps.Clone(st.seq),
		AllowLocalRequests: s.localHooks.Load(),
		Root:               s.root.id,
		Users:              []snapUser{}, Tokens: []snapToken{}, Namespaces: []snapNamespace{}, Projects: []snapProject{},
	}
	for _, u := range st.users {
		su := snapUser{ID: u.id, Username: u.username, Name: u.name, Email: u.email, Admin: u.admin, State: u.state,
			CreatedAt: snapTime(u.createdAt), Namespace: u.ns.id, Starred: []int64{}}
		for id, on := range u.starred {
			if on {
				su.Starred = append(su.Starred, id)
			}
		}
		slices.Sort(su.Starred)
		snap.Users = append(snap.Users, su)
	}
	slices.SortFunc(snap.Users, func(a, b snapUser) int { return cmp.Compare(a.ID, b.ID) })
	for _, t := range st.tokens {
		if t.oauth != nil { // OAuth applications and their tokens are not kept in snapshots (doc.go)
			continue
		}
		if t.secret == s.rootT && t.user == s.root {
			snap.RootToken = t.id
		}
		snap.Tokens = append(snap.Tokens, snapToken{ID: t.id, Secret: t.secret, Name: t.name, User: t.user.id,
			Scopes: slices.Clone(t.scopes), CreatedAt: snapTime(t.createdAt), ExpiresAt: fakekit.SnapshotTimePtr(t.expiresAt),
			Revoked: t.revoked, LastUsed: fakekit.SnapshotTimePtr(t.lastUsed)})
	}
	slices.SortFunc(snap.Tokens, func(a, b snapToken) int { return cmp.Compare(a.ID, b.ID) })
	for _, ns := range st.nss {
		sn := snapNamespace{ID: ns.id, Name: ns.name, Path: ns.path, Kind: ns.kind, FullPath: ns.fullPath,
			Members: snapMembers(ns.members, nil, nil)}
		if ns.owner != nil {
			sn.Owner = ns.owner.id
		}
		if ns.kind == "group" {
			sn.MarkedForDeletion = fakekit.SnapshotTimePtr(ns.markedForDeletion)
			created := snapTime(ns.createdAt)
			sn.Visibility, sn.Description, sn.CreatedAt = ns.visibility, ns.description, &created
			if ns.parent != nil {
				sn.Parent = ns.parent.id
			}
		}
		snap.Namespaces = append(snap.Namespaces, sn)
	}
	slices.SortFunc(snap.Namespaces, func(a, b snapNamespace) int { return cmp.Compare(a.ID, b.ID) })
	for _, p := range st.projects {
		sp := snapProjectOf(p)
		if from := st.forkSource(p); from != nil {
			sp.ForkedFrom = from.id
		}
		snap.Projects = append(snap.Projects, sp)
	}
	for secret, j := range st.jobTokens {
		snap.JobTokens = append(snap.JobTokens, snapJobToken{Secret: secret, Project: j.pipeline.project.id, Job: j.id})
	}
	slices.SortFunc(snap.JobTokens, func(a, b snapJobToken) int { return cmp.Compare(a.Job, b.Job) })
	return snap
}

// snapMembers lists members by user id; since and expires are a project's.
func snapMembers(levels map[int64]int, since map[int64]time.Time, expires map[int64]string) []snapMember {
	out := []snapMember{}
	for _, id := range slices.Sorted(maps.Keys(levels)) {
		m := snapMember{User: id, Level: levels[id], Expires: expires[id]}
		if t, ok := since[id]; ok {
			m.Since = fakekit.SnapshotTimePtr(&t)
		}
		out = append(out, m)
	}
	return out
}

func idOf(u *user) int64 {
	if u == nil {
		return 0
	}
	return u.id
}

func idsOf(us []*user) []int64 {
	out := []int64{}
	for _, u := range us {
		out = append(out, idOf(u))
	}
	return out
}

func milestoneID(m *milestone) int64 {
	if m == nil {
		return 0
	}
	return m.id
}

func snapNotes(notes []*note) []snapNote {
	out := []snapNote{}
	for _, n := range notes {
		out = append(out, snapNote{ID: n.id, Body: n.body, Author: idOf(n.author), System: n.system, Internal: n.internal,
			CreatedAt: snapTime(n.createdAt), UpdatedAt: snapTime(n.updatedAt), NoteableType: n.noteableType,
			NoteableID: n.noteableID, NoteableIID: n.noteableIID, DiscussionNote: n.discussionNote, Resolved: n.resolved,
			ResolvedBy: idOf(n.resolvedBy), ResolvedAt: fakekit.SnapshotTimePtr(n.resolvedAt)})
		if n.discussionID != individualDiscussionID(n) {
			out[len(out)-1].DiscussionID = n.discussionID
		}
	}
	return out
}

func snapProjectOf(p *project) snapProject {
	sp := snapProject{ID: p.id, Name: p.name, Path: p.path, Description: p.description, Namespace: p.ns.id,
		Visibility: p.visibility, DefaultBranch: p.defaultBranch, Topics: slices.Clone(p.topics), Creator: idOf(p.creator),
		Members: snapMembers(p.members, p.memberSince, p.memberExpires), StarCount: p.starCount,
		CreatedAt: snapTime(p.createdAt), LastActivity: snapTime(p.lastActivity), Archived: p.archived, MarkedForDeletion: fakekit.SnapshotTimePtr(p.markedForDeletion),
		Issues: []snapIssue{}, MergeRequests: []snapMR{}, Labels: []snapLabel{}, Milestones: []snapMilestone{},
		Protected: []snapProtected{}, Releases: []snapRelease{}, Hooks: []snapHook{}, Pipelines: []snapPipeline{}}
	for _, is := range p.issues {
		sp.Issues = append(sp.Issues, snapIssue{ID: is.id, IID: is.iid, Title: is.title, Description: is.description,
			State: is.state, Labels: slices.Clone(is.labels), Author: idOf(is.author), Assignees: idsOf(is.assignees),
			Confidential: is.confidential, CreatedAt: snapTime(is.createdAt), UpdatedAt: snapTime(is.updatedAt),
			ClosedAt: fakekit.SnapshotTimePtr(is.closedAt), ClosedBy: idOf(is.closedBy), Notes: snapNotes(is.notes),
			Milestone: milestoneID(is.milestone)})
	}
	for _, mr := range p.mrs {
		smr := snapMR{ID: mr.id, IID: mr.iid, Title: mr.title, Description: mr.description, State: mr.state,
			SourceBranch: mr.sourceBranch, TargetBranch: mr.targetBranch, Labels: slices.Clone(mr.labels),
			Author: idOf(mr.author), Assignees: idsOf(mr.assignees), RemoveSourceBranch: mr.removeSourceBranch,
			MergeCommitSHA: mr.mergeCommitSHA, MergeError: mr.mergeError, CreatedAt: snapTime(mr.createdAt), UpdatedAt: snapTime(mr.updatedAt),
			MergedAt: fakekit.SnapshotTimePtr(mr.mergedAt), MergedBy: idOf(mr.mergedBy), ClosedAt: fakekit.SnapshotTimePtr(mr.closedAt),
			ClosedBy: idOf(mr.closedBy), Notes: snapNotes(mr.notes), Milestone: milestoneID(mr.milestone), Commits: []string{}}
		for _, c := range mr.commits {
			smr.Commits = append(smr.Commits, c.sha)
		}
		for _, a := range mr.approvals {
			smr.Approvals = append(smr.Approvals, snapApproval{User: idOf(a.user), At: snapTime(a.at)})
		}
		sp.MergeRequests = append(sp.MergeRequests, smr)
	}
	for _, l := range p.labels {
		sp.Labels = append(sp.Labels, snapLabel{ID: l.id, Name: l.name, Color: l.color, Description: l.description, Priority: l.priority})
	}
	for _, m := range p.milestones {
		sp.Milestones = append(sp.Milestones, snapMilestone{ID: m.id, IID: m.iid, Title: m.title, Description: m.description,
			State: m.state, DueDate: m.dueDate, StartDate: m.startDate, CreatedAt: snapTime(m.createdAt), UpdatedAt: snapTime(m.updatedAt)})
	}
	for _, pb := range p.protected {
		sp.Protected = append(sp.Protected, snapProtected{ID: pb.id, Name: pb.name, Push: pb.push, Merge: pb.merge, AllowForcePush: pb.allowForcePush})
	}
	for _, r := range p.releases {
		sr := snapRelease{ID: r.id, TagName: r.tagName, Name: r.name, Description: r.description, Author: idOf(r.author),
			SHA: r.sha, Milestones: []int64{}, CreatedAt: snapTime(r.createdAt), ReleasedAt: snapTime(r.releasedAt)}
		for _, m := range r.milestones {
			sr.Milestones = append(sr.Milestones, m.id)
		}
		sp.Releases = append(sp.Releases, sr)
	}
	for _, h := range p.hooks {
		sh := snapHook{ID: h.id, URL: h.url, Token: h.token, Events: []string{}, PushBranchFilter: h.pushBranchFilter,
			SSLVerify: h.sslVerify, CreatedAt: snapTime(h.createdAt)}
		for _, name := range slices.Sorted(maps.Keys(h.events)) {
			if h.events[name] {
				sh.Events = append(sh.Events, name)
			}
		}
		sp.Hooks = append(sp.Hooks, sh)
	}
	for _, pl := range p.pipelines {
		spl := snapPipeline{ID: pl.id, IID: pl.iid, Ref: pl.ref, Tag: pl.tag, SHA: pl.sha, Status: pl.status, Source: pl.source,
			User: idOf(pl.user), Variables: maps.Clone(pl.variables), CreatedAt: snapTime(pl.createdAt),
			UpdatedAt: snapTime(pl.updatedAt), StartedAt: fakekit.SnapshotTimePtr(pl.startedAt),
			FinishedAt: fakekit.SnapshotTimePtr(pl.finishedAt), Moving: pl.timer != nil, Jobs: []snapJob{}}
		for _, j := range pl.jobs {
			spl.Jobs = append(spl.Jobs, snapJob{ID: j.id, Name: j.name, Stage: j.stage, Status: j.status, User: idOf(j.user),
				Retried: j.retried, CreatedAt: snapTime(j.createdAt), StartedAt: fakekit.SnapshotTimePtr(j.startedAt),
				FinishedAt: fakekit.SnapshotTimePtr(j.finishedAt), Trace: j.trace.String()})
		}
		sp.Pipelines = append(sp.Pipelines, spl)
	}
	for _, v := range p.variables {
		sp.Variables = append(sp.Variables, snapVariable{ID: v.id, Key: v.key, Value: v.value, Type: v.varType, Scope: v.scope,
			Description: v.description, Protected: v.protected, Masked: v.masked, Hidden: v.hidden, Raw: v.raw})
	}
	for _, t := range p.triggers {
		sp.Triggers = append(sp.Triggers, snapTrigger{ID: t.id, Token: t.token, Description: t.description, Owner: idOf(t.owner),
			CreatedAt: snapTime(t.createdAt), UpdatedAt: snapTime(t.updatedAt), LastUsed: fakekit.SnapshotTimePtr(t.lastUsed)})
	}
	for _, s := range p.schedules {
		ss := snapSchedule{ID: s.id, Description: s.description, Ref: s.ref, Cron: s.cron, Timezone: s.timezone, Active: s.active,
			Owner: idOf(s.owner), CreatedAt: snapTime(s.createdAt), UpdatedAt: snapTime(s.updatedAt)}
		if s.last != nil {
			ss.LastPipeline = s.last.id
		}
		sp.Schedules = append(sp.Schedules, ss)
	}
	sp.Repository = snapRepoOf(&p.repo)
	return sp
}

func snapRepoOf(r *repo) snapRepo {
	sr := snapRepo{Blobs: map[string]string{}, Commits: []snapCommit{}, Branches: map[string]string{}, Tags: []snapTag{}}
	// Parents first: a commit's parents are older, and ties are broken by
	// putting each commit after everything it descends from.
	for _, c := range commitsParentsFirst(r.commits) {
		sc := snapCommit{SHA: c.sha, Parents: []string{}, Message: c.message, AuthorName: c.authorName, AuthorEmail: c.authorEmail,
			At: snapTime(c.at), Files: map[string]string{}, Added: slices.Clone(c.added), Modified: slices.Clone(c.modified),
			Removed: slices.Clone(c.removed)}
		for _, parent := range c.parents {
			sc.Parents = append(sc.Parents, parent.sha)
		}
		for path, b := range c.files {
			sc.Files[path] = b.sha
			sr.Blobs[b.sha] = base64.StdEncoding.EncodeToString(b.data)
		}
		sr.Commits = append(sr.Commits, sc)
	}
	for name, c := range r.branches {
		sr.Branches[name] = c.sha
	}
	for _, name := range slices.Sorted(maps.Keys(r.tags)) {
		t := r.tags[name]
		sr.Tags = append(sr.Tags, snapTag{Name: t.name, Commit: t.commit.sha, Message: t.message, SHA: t.sha, CreatedAt: snapTime(t.createdAt)})
	}
	return sr
}

// commitsParentsFirst orders commits so that each comes after its parents:
// by time, then by SHA, then fixed up by a walk for commits of one time.
func commitsParentsFirst(commits map[string]*commit) []*commit {
	all := slices.SortedFunc(maps.Values(commits), func(a, b *commit) int {
		return cmp.Or(a.at.Compare(b.at), cmp.Compare(a.sha, b.sha))
	})
	out := make([]*commit, 0, len(all))
	placed := map[string]bool{}
	var place func(c *commit)
	place = func(c *commit) {
		if placed[c.sha] {
			return
		}
		placed[c.sha] = true
		for _, p := range c.parents {
			place(p)
		}
		out = append(out, c)
	}
	for _, c := range all {
		place(c)
	}
	return out
}

// Restore replaces the fake's state with a snapshot's (see Snapshot).
// Root's token keeps the secret of this fake (Token), whatever the
// snapshot says, so that the token a program prints is the one that works.
// A pipeline that was moving on the clock moves on, its next change due
// when it was due (at once, at the next move of the clock, if that time
// has passed). A snapshot of another format or version, or one that does
// not hold together (an id named but missing, a file whose content is not
// its id's, a path or username twice), is refused with an error and
// changes nothing. Faults, the request log and webhook queues stay as they
// are; rate-limit windows start afresh.
func (s *Server) Restore(data []byte) error {
	var snap snapshot
	if err := fakekit.DecodeSnapshot(data, SnapshotFormat, SnapshotVersion, &snap); err != nil {
		return fmt.Errorf("sourcehostfake: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r := restorer{s: s, snap: &snap, st: newState(s.cfg.clock)}
	if err := r.build(); err != nil {
		return fmt.Errorf("sourcehostfake: snapshot: %w", err)
	}
	s.st.stopTimers()
	s.limiter.Store(fakekit.NewRateLimiter(s.cfg.clock, s.cfg.rateLimit, s.cfg.rateWindow, ""))
	s.st, s.root = r.st, r.root
	s.localHooks.Store(snap.AllowLocalRequests)
	for _, pl := range r.moving {
		due := pl.updatedAt.Add(s.cfg.pipelineQueue)
		next := "running"
		if pl.status == "running" {
			due, next = pl.updatedAt.Add(s.cfg.pipelineRun), "success"
		}
		s.schedulePipeline(pl, due.Sub(s.cfg.clock.Now()), next)
	}
	for _, p := range s.st.projects {
		for _, sc := range p.schedules {
			s.arm(p, sc) // next_run_at from now: runs missed while down are not made up, as the real service's worker does not
		}
	}
	return nil
}

// restorer builds a state from a snapshot, checking each reference.
type restorer struct {
	s      *Server
	snap   *snapshot
	st     *state
	root   *user
	moving []*pipeline
}

func (r *restorer) user(where string, id int64, optional bool) (*user, error) {
	if id == 0 && optional {
		return nil, nil
	}
	if u := r.st.users[id]; u != nil {
		return u, nil
	}
	return nil, fmt.Errorf("%s: no user %d", where, id)
}

func (r *restorer) users(where string, ids []int64) ([]*user, error) {
	var out []*user
	for _, id := range ids {
		u, err := r.user(where, id, false)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, nil
}

func (r *restorer) build() error {
	st, snap := r.st, r.snap
	for k, v := range snap.Sequences {
		if v < 0 {
			return fmt.Errorf("sequence %q is negative", k)
		}
		st.seq[k] = v
	}
	// Namespaces first, without owners; users then, each with its own.
	for i, sn := range snap.Namespaces {
		key := strings.ToLower(sn.FullPath)
		if sn.ID <= 0 || st.nss[sn.ID] != nil || sn.FullPath == "" || st.nsByPath[key] != nil || (sn.Kind != "user" && sn.Kind != "group") {
			return fmt.Errorf("namespaces[%d]: id %d repeated, path %q empty or repeated, or kind %q unknown", i, sn.ID, sn.FullPath, sn.Kind)
		}
		ns := &namespace{id: sn.ID, name: sn.Name, path: sn.Path, kind: sn.Kind, fullPath: sn.FullPath, members: map[int64]int{},
			visibility: sn.Visibility, description: sn.Description}
		if sn.Kind == "group" {
			ns.visibility = firstNonEmpty(sn.Visibility, "private")
			if !slices.Contains(visibilities, ns.visibility) {
				return fmt.Errorf("namespaces[%d]: visibility %q unknown", i, sn.Visibility)
			}
			if sn.CreatedAt != nil {
				ns.createdAt = sn.CreatedAt.Time()
			}
			if ns.markedForDeletion = sn.MarkedForDeletion.TimePtr(); ns.markedForDeletion != nil {
				st.marked++ // deleteDue looks at it (deletion.go)
			}
		}
		st.nss[ns.id] = ns
		st.nsByPath[key] = ns
	}
	for i, sn := range snap.Namespaces { // parents, once every namespace is there
		if sn.Parent == 0 {
			continue
		}
		ns, parent := st.nss[sn.ID], st.nss[sn.Parent]
		if ns.kind != "group" || parent == nil || parent.kind != "group" {
			return fmt.Errorf("namespaces[%d]: parent %d is no group, or the namespace is none", i, sn.Parent)
		}
		ns.parent = parent
		if ns.depth() > maxGroupDepth { // also what a cycle comes to
			return fmt.Errorf("namespaces[%d]: groups nest deeper than %d levels", i, maxGroupDepth)
		}
		if want := groupFullPath(parent, ns.path); !strings.EqualFold(ns.fullPath, want) {
			return fmt.Errorf("namespaces[%d]: full path %q is not its parent's and its path, %q", i, ns.fullPath, want)
		}
	}
	for i, su := range snap.Users {
		name := strings.ToLower(su.Username)
		if su.ID <= 0 || st.users[su.ID] != nil || su.Username == "" || st.userByName[name] != nil {
			return fmt.Errorf("users[%d]: id %d or username %q empty or repeated", i, su.ID, su.Username)
		}
		ns := st.nss[su.Namespace]
		if ns == nil || ns.kind != "user" || ns.owner != nil {
			return fmt.Errorf("users[%d]: namespace %d is not a user namespace of its own", i, su.Namespace)
		}
		u := &user{id: su.ID, username: su.Username, name: su.Name, email: su.Email, admin: su.Admin, state: su.State,
			createdAt: su.CreatedAt.Time(), ns: ns, starred: map[int64]bool{}}
		for _, id := range su.Starred {
			u.starred[id] = true
		}
		ns.owner = u
		st.users[u.id] = u
		st.userByName[name] = u
	}
	for i, sn := range snap.Namespaces {
		ns := st.nss[sn.ID]
		if sn.Owner != 0 && (ns.owner == nil || ns.owner.id != sn.Owner) {
			return fmt.Errorf("namespaces[%d]: owner %d is not the user whose namespace it is", i, sn.Owner)
		}
		if ns.kind == "user" && ns.owner == nil {
			return fmt.Errorf("namespaces[%d]: a user namespace of no user", i)
		}
		for _, m := range sn.Members {
			if _, err := r.user(fmt.Sprintf("namespaces[%d].members", i), m.User, false); err != nil {
				return err
			}
			ns.members[m.User] = m.Level
		}
	}
	if r.root = st.users[snap.Root]; r.root == nil {
		return fmt.Errorf("root: no user %d", snap.Root)
	}

	var rootToken *token
	for i, stok := range snap.Tokens {
		where := fmt.Sprintf("tokens[%d]", i)
		u, err := r.user(where, stok.User, false)
		if err != nil {
			return err
		}
		if stok.Secret == "" || st.tokens[stok.Secret] != nil {
			return fmt.Errorf("%s: its secret is empty or another token's", where)
		}
		t := &token{id: stok.ID, secret: stok.Secret, name: stok.Name, user: u, scopes: slices.Clone(stok.Scopes),
			createdAt: stok.CreatedAt.Time(), expiresAt: stok.ExpiresAt.TimePtr(), revoked: stok.Revoked, lastUsed: stok.LastUsed.TimePtr()}
		st.tokens[t.secret] = t
		if sn := r.snap.RootToken; sn != 0 && sn == t.id {
			rootToken = t
		}
	}
	// Root's token is this fake's, so that Token works.
	if rootToken == nil || rootToken.user != r.root {
		return fmt.Errorf("root_token: no token %d of root", snap.RootToken)
	}
	if rootToken.secret != r.s.rootT {
		if other := st.tokens[r.s.rootT]; other != nil {
			return fmt.Errorf("tokens: token %d holds this fake's root token", other.id)
		}
		delete(st.tokens, rootToken.secret)
		rootToken.secret = r.s.rootT
		st.tokens[rootToken.secret] = rootToken
	}

	for i := range snap.Projects {
		if err := r.project(i, &snap.Projects[i]); err != nil {
			return err
		}
	}
	// Forks, once every project is there: a fork may be older than its
	// source's id suggests, or its own source.
	for i, sp := range snap.Projects {
		if sp.ForkedFrom == 0 {
			continue
		}
		from := st.projByID[sp.ForkedFrom]
		if from == nil {
			return fmt.Errorf("projects[%d].forked_from: no project %d", i, sp.ForkedFrom)
		}
		p := st.projByID[sp.ID]
		p.forkedFrom = from
		from.forks++
	}
	for i, jt := range snap.JobTokens {
		j := st.jobByID(jt.Project, jt.Job)
		if j == nil || jt.Secret == "" || st.jobTokens[jt.Secret] != nil {
			return fmt.Errorf("job_tokens[%d]: no job %d in project %d, or a secret empty or repeated", i, jt.Job, jt.Project)
		}
		if st.jobTokens == nil {
			st.jobTokens = map[string]*ciJob{}
		}
		st.jobTokens[jt.Secret] = j
	}
	return nil
}

func (r *restorer) project(i int, sp *snapProject) error {
	st := r.st
	where := fmt.Sprintf("projects[%d]", i)
	ns := st.nss[sp.Namespace]
	if ns == nil {
		return fmt.Errorf("%s: no namespace %d", where, sp.Namespace)
	}
	if sp.ID <= 0 || st.projByID[sp.ID] != nil || (len(st.projects) > 0 && st.projects[len(st.projects)-1].id >= sp.ID) {
		return fmt.Errorf("%s: id %d is repeated or out of order", where, sp.ID)
	}
	creator, err := r.user(where+".creator", sp.Creator, true)
	if err != nil {
		return err
	}
	p := &project{id: sp.ID, name: sp.Name, path: sp.Path, description: sp.Description, ns: ns, visibility: sp.Visibility,
		defaultBranch: sp.DefaultBranch, topics: slices.Clone(sp.Topics), creator: creator, members: map[int64]int{},
		memberSince: map[int64]time.Time{}, memberExpires: map[int64]string{}, starCount: sp.StarCount,
		createdAt: sp.CreatedAt.Time(), lastActivity: sp.LastActivity.Time(), archived: sp.Archived, markedForDeletion: sp.MarkedForDeletion.TimePtr(),
		repo: repo{branches: map[string]*commit{}, commits: map[string]*commit{}, tags: map[string]*tag{}}}
	if st.projByPath[strings.ToLower(p.fullPath())] != nil || sp.Path == "" {
		return fmt.Errorf("%s: path %q is empty or another project's", where, p.fullPath())
	}
	if p.markedForDeletion != nil {
		st.marked++ // deleteDue looks at it (deletion.go)
	}
	for _, m := range sp.Members {
		if _, err := r.user(where+".members", m.User, false); err != nil {
			return err
		}
		p.members[m.User] = m.Level
		if m.Since != nil {
			p.memberSince[m.User] = m.Since.Time()
		}
		if m.Expires != "" {
			p.memberExpires[m.User] = m.Expires
		}
	}
	if err := r.repository(where, p, &sp.Repository); err != nil {
		return err
	}

	milestones := map[int64]*milestone{}
	for j, sm := range sp.Milestones {
		if milestones[sm.ID] != nil || (j > 0 && sp.Milestones[j-1].ID >= sm.ID) {
			return fmt.Errorf("%s.milestones[%d]: id %d repeated or out of order", where, j, sm.ID)
		}
		m := &milestone{id: sm.ID, iid: sm.IID, project: p, title: sm.Title, description: sm.Description, state: sm.State,
			dueDate: sm.DueDate, startDate: sm.StartDate, createdAt: sm.CreatedAt.Time(), updatedAt: sm.UpdatedAt.Time()}
		milestones[m.id] = m
		p.milestones = append(p.milestones, m)
	}
	milestoneRef := func(w string, id int64) (*milestone, error) {
		if id == 0 {
			return nil, nil
		}
		if m := milestones[id]; m != nil {
			return m, nil
		}
		return nil, fmt.Errorf("%s: no milestone %d in the project", w, id)
	}
	notes := func(w string, sns []snapNote) ([]*note, error) {
		var out []*note
		for k, sn := range sns {
			author, err := r.user(fmt.Sprintf("%s.notes[%d]", w, k), sn.Author, true)
			if err != nil {
				return nil, err
			}
			resolvedBy, err := r.user(fmt.Sprintf("%s.notes[%d].resolved_by", w, k), sn.ResolvedBy, true)
			if err != nil {
				return nil, err
			}
			n := &note{id: sn.ID, body: sn.Body, author: author, system: sn.System, internal: sn.Internal,
				createdAt: sn.CreatedAt.Time(), updatedAt: sn.UpdatedAt.Time(), noteableType: sn.NoteableType,
				noteableID: sn.NoteableID, noteableIID: sn.NoteableIID, project: p, discussionID: sn.DiscussionID,
				discussionNote: sn.DiscussionNote, resolved: sn.Resolved, resolvedBy: resolvedBy, resolvedAt: sn.ResolvedAt.TimePtr()}
			if n.discussionID == "" {
				n.discussionID = individualDiscussionID(n)
			}
			out = append(out, n)
		}
		return out, nil
	}
	for j, si := range sp.Issues {
		w := fmt.Sprintf("%s.issues[%d]", where, j)
		is := &issue{id: si.ID, iid: si.IID, project: p, title: si.Title, description: si.Description, state: si.State,
			labels: slices.Clone(si.Labels), confidential: si.Confidential, createdAt: si.CreatedAt.Time(),
			updatedAt: si.UpdatedAt.Time(), closedAt: si.ClosedAt.TimePtr()}
		if is.author, err = r.user(w+".author", si.Author, true); err != nil {
			return err
		}
		if is.assignees, err = r.users(w+".assignees", si.Assignees); err != nil {
			return err
		}
		if is.closedBy, err = r.user(w+".closed_by", si.ClosedBy, true); err != nil {
			return err
		}
		if is.notes, err = notes(w, si.Notes); err != nil {
			return err
		}
		if is.milestone, err = milestoneRef(w, si.Milestone); err != nil {
			return err
		}
		p.issues = append(p.issues, is)
	}
	for j, sm := range sp.MergeRequests {
		w := fmt.Sprintf("%s.merge_requests[%d]", where, j)
		mr := &mergeRequest{id: sm.ID, iid: sm.IID, project: p, title: sm.Title, description: sm.Description, state: sm.State,
			sourceBranch: sm.SourceBranch, targetBranch: sm.TargetBranch, labels: slices.Clone(sm.Labels),
			removeSourceBranch: sm.RemoveSourceBranch, mergeCommitSHA: sm.MergeCommitSHA, mergeError: sm.MergeError, createdAt: sm.CreatedAt.Time(),
			updatedAt: sm.UpdatedAt.Time(), mergedAt: sm.MergedAt.TimePtr(), closedAt: sm.ClosedAt.TimePtr()}
		if mr.author, err = r.user(w+".author", sm.Author, true); err != nil {
			return err
		}
		if mr.assignees, err = r.users(w+".assignees", sm.Assignees); err != nil {
			return err
		}
		if mr.mergedBy, err = r.user(w+".merged_by", sm.MergedBy, true); err != nil {
			return err
		}
		if mr.closedBy, err = r.user(w+".closed_by", sm.ClosedBy, true); err != nil {
			return err
		}
		if mr.notes, err = notes(w, sm.Notes); err != nil {
			return err
		}
		if mr.milestone, err = milestoneRef(w, sm.Milestone); err != nil {
			return err
		}
		for _, sha := range sm.Commits {
			c := p.repo.commits[sha]
			if c == nil {
				return fmt.Errorf("%s: no commit %s in the repository", w, sha)
			}
			mr.commits = append(mr.commits, c)
		}
		for k, sa := range sm.Approvals {
			u, err := r.user(fmt.Sprintf("%s.approvals[%d].user", w, k), sa.User, false)
			if err != nil {
				return err
			}
			mr.approvals = append(mr.approvals, approval{user: u, at: sa.At.Time()})
		}
		p.mrs = append(p.mrs, mr)
	}
	labels := map[string]bool{}
	for j, sl := range sp.Labels {
		if labels[strings.ToLower(sl.Name)] {
			return fmt.Errorf("%s.labels[%d]: %q twice", where, j, sl.Name)
		}
		labels[strings.ToLower(sl.Name)] = true
		p.labels = append(p.labels, &label{id: sl.ID, name: sl.Name, color: sl.Color, description: sl.Description, priority: sl.Priority})
	}
	for _, sb := range sp.Protected {
		p.protected = append(p.protected, &protectedBranch{id: sb.ID, name: sb.Name, push: sb.Push, merge: sb.Merge, allowForcePush: sb.AllowForcePush})
	}
	for j, sr := range sp.Releases {
		w := fmt.Sprintf("%s.releases[%d]", where, j)
		rel := &release{id: sr.ID, tagName: sr.TagName, name: sr.Name, description: sr.Description, sha: sr.SHA,
			createdAt: sr.CreatedAt.Time(), releasedAt: sr.ReleasedAt.Time()}
		if rel.author, err = r.user(w+".author", sr.Author, true); err != nil {
			return err
		}
		for _, id := range sr.Milestones {
			m, err := milestoneRef(w, id)
			if err != nil || m == nil {
				return fmt.Errorf("%s: no milestone %d in the project", w, id)
			}
			rel.milestones = append(rel.milestones, m)
		}
		p.releases = append(p.releases, rel)
	}
	for _, sh := range sp.Hooks {
		h := &hook{id: sh.ID, project: p, url: sh.URL, token: sh.Token, events: map[string]bool{},
			pushBranchFilter: sh.PushBranchFilter, sslVerify: sh.SSLVerify, createdAt: sh.CreatedAt.Time()}
		for _, e := range sh.Events {
			h.events[e] = true
		}
		p.hooks = append(p.hooks, h)
	}
	for j, spl := range sp.Pipelines {
		w := fmt.Sprintf("%s.pipelines[%d]", where, j)
		pl := &pipeline{id: spl.ID, iid: spl.IID, project: p, ref: spl.Ref, tag: spl.Tag, sha: spl.SHA, status: spl.Status, source: spl.Source,
			variables: maps.Clone(spl.Variables), createdAt: spl.CreatedAt.Time(), updatedAt: spl.UpdatedAt.Time(),
			startedAt: spl.StartedAt.TimePtr(), finishedAt: spl.FinishedAt.TimePtr()}
		if pl.user, err = r.user(w+".user", spl.User, true); err != nil {
			return err
		}
		for k, sj := range spl.Jobs {
			j := &ciJob{id: sj.ID, name: sj.Name, stage: sj.Stage, pipeline: pl, status: sj.Status, retried: sj.Retried,
				createdAt: sj.CreatedAt.Time(), startedAt: sj.StartedAt.TimePtr(), finishedAt: sj.FinishedAt.TimePtr()}
			if j.user, err = r.user(fmt.Sprintf("%s.jobs[%d].user", w, k), sj.User, true); err != nil {
				return err
			}
			j.trace.WriteString(sj.Trace)
			pl.jobs = append(pl.jobs, j)
		}
		if spl.Moving && (pl.status == "pending" || pl.status == "running") {
			r.moving = append(r.moving, pl)
		}
		p.pipelines = append(p.pipelines, pl)
	}
	for _, sv := range sp.Variables {
		p.variables = append(p.variables, &ciVariable{id: sv.ID, key: sv.Key, value: sv.Value, varType: sv.Type, scope: sv.Scope,
			description: sv.Description, protected: sv.Protected, masked: sv.Masked, hidden: sv.Hidden, raw: sv.Raw})
	}
	for k, sp := range sp.Triggers {
		t := &pipelineTrigger{id: sp.ID, token: sp.Token, description: sp.Description, createdAt: sp.CreatedAt.Time(),
			updatedAt: sp.UpdatedAt.Time(), lastUsed: sp.LastUsed.TimePtr()}
		if t.owner, err = r.user(fmt.Sprintf("%s.triggers[%d].owner", where, k), sp.Owner, false); err != nil {
			return err
		}
		p.triggers = append(p.triggers, t)
	}
	for k, ss := range sp.Schedules {
		s := &pipelineSchedule{id: ss.ID, description: ss.Description, ref: ss.Ref, cron: ss.Cron, timezone: ss.Timezone,
			active: ss.Active, createdAt: ss.CreatedAt.Time(), updatedAt: ss.UpdatedAt.Time()}
		w := fmt.Sprintf("%s.pipeline_schedules[%d]", where, k)
		if s.owner, err = r.user(w+".owner", ss.Owner, true); err != nil {
			return err
		}
		if ss.LastPipeline != 0 {
			i := slices.IndexFunc(p.pipelines, func(pl *pipeline) bool { return pl.id == ss.LastPipeline })
			if i < 0 {
				return fmt.Errorf("%s.last_pipeline: no pipeline %d", w, ss.LastPipeline)
			}
			s.last = p.pipelines[i]
		}
		p.schedules = append(p.schedules, s)
	}
	st.projects = append(st.projects, p)
	st.projByID[p.id] = p
	st.projByPath[strings.ToLower(p.fullPath())] = p
	return nil
}

// repository rebuilds a project's repository; every commit's SHA is
// checked against its content, as is every blob's.
func (r *restorer) repository(where string, p *project, sr *snapRepo) error {
	blobs := map[string]*blob{}
	for id, enc := range sr.Blobs {
		data, err := base64.StdEncoding.DecodeString(enc)
		if err != nil {
			return fmt.Errorf("%s.repository.blobs[%s]: not base64", where, id)
		}
		b := newBlob(data)
		if b.sha != id {
			return fmt.Errorf("%s.repository.blobs[%s]: its content's id is %s", where, id, b.sha)
		}
		blobs[id] = b
	}
	for j, sc := range sr.Commits {
		w := fmt.Sprintf("%s.repository.commits[%d]", where, j)
		c := &commit{message: sc.Message, authorName: sc.AuthorName, authorEmail: sc.AuthorEmail, at: sc.At.Time(),
			files: map[string]*blob{}, added: slices.Clone(sc.Added), modified: slices.Clone(sc.Modified), removed: slices.Clone(sc.Removed)}
		for _, sha := range sc.Parents {
			parent := p.repo.commits[sha]
			if parent == nil {
				return fmt.Errorf("%s: parent %s is not before it", w, sha)
			}
			c.parents = append(c.parents, parent)
		}
		for path, id := range sc.Files {
			b := blobs[id]
			if b == nil {
				return fmt.Errorf("%s: file %q names no blob (%s)", w, path, id)
			}
			c.files[path] = b
		}
		if c.sha = commitSHA(c); c.sha != sc.SHA {
			return fmt.Errorf("%s: its content's SHA is %s, not %s", w, c.sha, sc.SHA)
		}
		p.repo.commits[c.sha] = c
	}
	for name, sha := range sr.Branches {
		c := p.repo.commits[sha]
		if c == nil {
			return fmt.Errorf("%s.repository.branches[%s]: no commit %s", where, name, sha)
		}
		p.repo.branches[name] = c
	}
	for j, stg := range sr.Tags {
		c := p.repo.commits[stg.Commit]
		if c == nil || stg.Name == "" || p.repo.tags[stg.Name] != nil {
			return fmt.Errorf("%s.repository.tags[%d]: name %q empty or repeated, or no commit %s", where, j, stg.Name, stg.Commit)
		}
		p.repo.tags[stg.Name] = &tag{name: stg.Name, commit: c, message: stg.Message, sha: stg.SHA, createdAt: stg.CreatedAt.Time()}
	}
	return nil
}
