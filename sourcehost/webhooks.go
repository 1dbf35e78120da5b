package sourcehost

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Headers of a webhook delivery. The spec leaves the names open; these are
// the ones apitwin's fake sends and ParseWebhook reads.
const (
	HookEventHeader = "X-Sourcehost-Event"      // the event name, e.g. "Issue Hook"
	HookTokenHeader = "X-Sourcehost-Token"      // the hook's secret token, when it has one
	HookUUIDHeader  = "X-Sourcehost-Event-UUID" // unique per delivery
)

// Webhook event names, as sent in HookEventHeader.
const (
	PushHookEvent         = "Push Hook"
	TagPushHookEvent      = "Tag Push Hook"
	NoteHookEvent         = "Note Hook"
	ReleaseHookEvent      = "Release Hook"
	JobHookEvent          = "Job Hook"
	IssueHookEvent        = "Issue Hook"
	MergeRequestHookEvent = "Merge Request Hook"
	PipelineHookEvent     = "Pipeline Hook"
	WikiPageHookEvent     = "Wiki Page Hook"
)

// Errors of ParseWebhook.
var (
	ErrHookToken        = errors.New("sourcehost: webhook token missing or wrong")
	ErrUnknownHookEvent = errors.New("sourcehost: unknown webhook event")
)

// MaxHookPayload caps the body ParseWebhook reads.
const MaxHookPayload = 25 << 20

// HookProject is the project an event happened in.
type HookProject struct {
	ID                int64  `json:"id"`
	Name              string `json:"name"`
	Description       string `json:"description"`
	WebURL            string `json:"web_url"`
	Namespace         string `json:"namespace"`
	PathWithNamespace string `json:"path_with_namespace"`
	DefaultBranch     string `json:"default_branch"`
	Visibility        string `json:"visibility"`
}

// HookUser is who caused an event.
type HookUser struct {
	ID       int64  `json:"id"`
	Name     string `json:"name"`
	Username string `json:"username"`
	Email    string `json:"email"`
}

// HookCommit is a commit of a push event.
type HookCommit struct {
	ID        string    `json:"id"`
	Message   string    `json:"message"`
	Title     string    `json:"title"`
	Timestamp time.Time `json:"timestamp"`
	URL       string    `json:"url"`
	Author    struct {
		Name  string `json:"name"`
		Email string `json:"email"`
	} `json:"author"`
	Added    []string `json:"added"`
	Modified []string `json:"modified"`
	Removed  []string `json:"removed"`
}

// PushEvent is a push to a branch ("Push Hook").
type PushEvent struct {
	ObjectKind        string       `json:"object_kind"` // "push"
	Before            string       `json:"before"`
	After             string       `json:"after"`
	Ref               string       `json:"ref"` // "refs/heads/main"
	CheckoutSHA       string       `json:"checkout_sha"`
	UserID            int64        `json:"user_id"`
	UserName          string       `json:"user_name"`
	UserUsername      string       `json:"user_username"`
	ProjectID         int64        `json:"project_id"`
	Project           HookProject  `json:"project"`
	Commits           []HookCommit `json:"commits"`
	TotalCommitsCount int          `json:"total_commits_count"`
}

// IssueEvent is an issue opened, changed, closed or reopened ("Issue Hook").
type IssueEvent struct {
	ObjectKind       string      `json:"object_kind"` // "issue"
	EventType        string      `json:"event_type"`
	User             HookUser    `json:"user"`
	Project          HookProject `json:"project"`
	ObjectAttributes struct {
		ID          int64      `json:"id"`
		IID         int64      `json:"iid"`
		ProjectID   int64      `json:"project_id"`
		Title       string     `json:"title"`
		Description string     `json:"description"`
		State       string     `json:"state"`
		Action      string     `json:"action"` // open, update, close, reopen
		URL         string     `json:"url"`
		AuthorID    int64      `json:"author_id"`
		AssigneeIDs []int64    `json:"assignee_ids"`
		Labels      []HookTag  `json:"labels"`
		CreatedAt   time.Time  `json:"created_at"`
		UpdatedAt   time.Time  `json:"updated_at"`
		ClosedAt    *time.Time `json:"closed_at"`
	} `json:"object_attributes"`
	Assignees []HookUser `json:"assignees"`
	Labels    []HookTag  `json:"labels"`
}

// HookTag is a label as events carry it.
type HookTag struct {
	ID    int64  `json:"id"`
	Title string `json:"title"`
}

// MergeRequestEvent is a merge request opened, changed, closed, reopened or
// merged ("Merge Request Hook").
type MergeRequestEvent struct {
	ObjectKind       string      `json:"object_kind"` // "merge_request"
	EventType        string      `json:"event_type"`
	User             HookUser    `json:"user"`
	Project          HookProject `json:"project"`
	ObjectAttributes struct {
		ID           int64     `json:"id"`
		IID          int64     `json:"iid"`
		TargetBranch string    `json:"target_branch"`
		SourceBranch string    `json:"source_branch"`
		Title        string    `json:"title"`
		Description  string    `json:"description"`
		State        string    `json:"state"`
		Action       string    `json:"action"` // open, update, close, reopen, merge
		MergeStatus  string    `json:"merge_status"`
		URL          string    `json:"url"`
		AuthorID     int64     `json:"author_id"`
		CreatedAt    time.Time `json:"created_at"`
		UpdatedAt    time.Time `json:"updated_at"`
	} `json:"object_attributes"`
	Labels []HookTag `json:"labels"`
}

// PipelineEvent is a pipeline changing status ("Pipeline Hook").
type PipelineEvent struct {
	ObjectKind       string      `json:"object_kind"` // "pipeline"
	User             HookUser    `json:"user"`
	Project          HookProject `json:"project"`
	ObjectAttributes struct {
		ID         int64          `json:"id"`
		IID        int64          `json:"iid"`
		Ref        string         `json:"ref"`
		SHA        string         `json:"sha"`
		Status     PipelineStatus `json:"status"`
		Source     string         `json:"source"`
		CreatedAt  time.Time      `json:"created_at"`
		FinishedAt *time.Time     `json:"finished_at"`
		Duration   *int           `json:"duration"`
		URL        string         `json:"url"`
	} `json:"object_attributes"`
}

// WikiPageEvent is a wiki page created, updated or deleted ("Wiki Page Hook").
type WikiPageEvent struct {
	ObjectKind       string      `json:"object_kind"` // "wiki_page"
	User             HookUser    `json:"user"`
	Project          HookProject `json:"project"`
	ObjectAttributes struct {
		Title  string `json:"title"`
		Slug   string `json:"slug"`
		Action string `json:"action"`
		URL    string `json:"url"`
	} `json:"object_attributes"`
}

// TagPushEvent is a tag pushed or deleted ("Tag Push Hook"). A deleted
// tag's After is forty zeros and its CheckoutSHA empty.
type TagPushEvent struct {
	ObjectKind   string       `json:"object_kind"` // "tag_push"
	Before       string       `json:"before"`
	After        string       `json:"after"`
	Ref          string       `json:"ref"` // "refs/tags/v1.0.0"
	CheckoutSHA  string       `json:"checkout_sha"`
	Message      string       `json:"message"` // an annotated tag's message
	UserID       int64        `json:"user_id"`
	UserName     string       `json:"user_name"`
	UserUsername string       `json:"user_username"`
	ProjectID    int64        `json:"project_id"`
	Project      HookProject  `json:"project"`
	Commits      []HookCommit `json:"commits"`
}

// NoteEvent is a comment made or edited on an issue or a merge request
// ("Note Hook"); Issue or MergeRequest says which.
type NoteEvent struct {
	ObjectKind       string      `json:"object_kind"` // "note"
	EventType        string      `json:"event_type"`  // note, or confidential_note
	User             HookUser    `json:"user"`
	ProjectID        int64       `json:"project_id"`
	Project          HookProject `json:"project"`
	ObjectAttributes struct {
		ID           int64     `json:"id"`
		Note         string    `json:"note"`
		NoteableType string    `json:"noteable_type"` // Issue or MergeRequest
		NoteableID   int64     `json:"noteable_id"`
		AuthorID     int64     `json:"author_id"`
		System       bool      `json:"system"`
		Internal     bool      `json:"internal"`
		Action       string    `json:"action"` // create or update
		URL          string    `json:"url"`
		CreatedAt    time.Time `json:"created_at"`
		UpdatedAt    time.Time `json:"updated_at"`
	} `json:"object_attributes"`
	Issue *struct {
		ID    int64  `json:"id"`
		IID   int64  `json:"iid"`
		Title string `json:"title"`
		State string `json:"state"`
	} `json:"issue"`
	MergeRequest *struct {
		ID           int64  `json:"id"`
		IID          int64  `json:"iid"`
		Title        string `json:"title"`
		State        string `json:"state"`
		SourceBranch string `json:"source_branch"`
		TargetBranch string `json:"target_branch"`
	} `json:"merge_request"`
}

// ReleaseEvent is a release created, updated or deleted ("Release Hook").
type ReleaseEvent struct {
	ObjectKind  string      `json:"object_kind"` // "release"
	ID          int64       `json:"id"`
	Action      string      `json:"action"` // create, update or delete
	Name        string      `json:"name"`
	Tag         string      `json:"tag"`
	Description string      `json:"description"`
	URL         string      `json:"url"`
	CreatedAt   time.Time   `json:"created_at"`
	ReleasedAt  time.Time   `json:"released_at"`
	Project     HookProject `json:"project"`
	Commit      *HookCommit `json:"commit"`
}

// JobEvent is a pipeline job changing status ("Job Hook"; its object_kind
// is "build", as the API has it).
type JobEvent struct {
	ObjectKind      string         `json:"object_kind"` // "build"
	Ref             string         `json:"ref"`
	Tag             bool           `json:"tag"`
	SHA             string         `json:"sha"`
	BuildID         int64          `json:"build_id"`
	BuildName       string         `json:"build_name"`
	BuildStage      string         `json:"build_stage"`
	BuildStatus     PipelineStatus `json:"build_status"`
	BuildCreatedAt  time.Time      `json:"build_created_at"`
	BuildStartedAt  *time.Time     `json:"build_started_at"`
	BuildFinishedAt *time.Time     `json:"build_finished_at"`
	BuildDuration   *float64       `json:"build_duration"`
	PipelineID      int64          `json:"pipeline_id"`
	ProjectID       int64          `json:"project_id"`
	ProjectName     string         `json:"project_name"`
	User            HookUser       `json:"user"`
	Project         HookProject    `json:"project"`
}

// ParseWebhook reads a webhook delivery in an http.Handler. When secret is
// not empty the delivery's token must equal it (compared in constant time),
// or the error is ErrHookToken. The result is a *PushEvent, *TagPushEvent,
// *IssueEvent, *NoteEvent, *MergeRequestEvent, *PipelineEvent, *JobEvent,
// *ReleaseEvent or *WikiPageEvent.
func ParseWebhook(r *http.Request, secret string) (any, error) {
	if r.Method != http.MethodPost {
		return nil, fmt.Errorf("sourcehost: webhook delivered with %s, want POST", r.Method)
	}
	if secret != "" && subtle.ConstantTimeCompare([]byte(r.Header.Get(HookTokenHeader)), []byte(secret)) != 1 {
		return nil, ErrHookToken
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxHookPayload+1))
	if err != nil {
		return nil, fmt.Errorf("sourcehost: reading webhook: %w", err)
	}
	if len(body) > MaxHookPayload {
		return nil, fmt.Errorf("sourcehost: webhook payload over %d bytes", MaxHookPayload)
	}
	return ParseWebhookPayload(r.Header.Get(HookEventHeader), body)
}

// ParseWebhookPayload decodes the payload of a named event (the value of
// HookEventHeader); the payload's object_kind must agree with the name.
func ParseWebhookPayload(event string, payload []byte) (any, error) {
	var (
		v    any
		kind string
	)
	switch strings.TrimSpace(event) {
	case PushHookEvent:
		v, kind = new(PushEvent), "push"
	case IssueHookEvent:
		v, kind = new(IssueEvent), "issue"
	case MergeRequestHookEvent:
		v, kind = new(MergeRequestEvent), "merge_request"
	case PipelineHookEvent:
		v, kind = new(PipelineEvent), "pipeline"
	case WikiPageHookEvent:
		v, kind = new(WikiPageEvent), "wiki_page"
	case TagPushHookEvent:
		v, kind = new(TagPushEvent), "tag_push"
	case NoteHookEvent:
		v, kind = new(NoteEvent), "note"
	case ReleaseHookEvent:
		v, kind = new(ReleaseEvent), "release"
	case JobHookEvent:
		v, kind = new(JobEvent), "build"
	default:
		return nil, fmt.Errorf("%w %q", ErrUnknownHookEvent, event)
	}
	if err := json.Unmarshal(payload, v); err != nil {
		return nil, fmt.Errorf("sourcehost: decoding %s payload: %w", event, err)
	}
	var head struct {
		ObjectKind string `json:"object_kind"`
	}
	_ = json.Unmarshal(payload, &head)
	if head.ObjectKind != kind {
		return nil, fmt.Errorf("sourcehost: %s payload has object_kind %q, want %q", event, head.ObjectKind, kind)
	}
	return v, nil
}
