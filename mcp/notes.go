package mcp

import (
	"context"
	"time"
)

// Note is a comment on an issue or a merge request, as the note tools
// show it. System notes are the server's own records ("closed", "added
// label").
type Note struct {
	ID           int64     `json:"id"`
	Body         string    `json:"body"`
	Author       *User     `json:"author"`
	System       bool      `json:"system"`
	Internal     bool      `json:"internal"`
	NoteableType string    `json:"noteable_type"` // Issue or MergeRequest
	NoteableIID  int64     `json:"noteable_iid"`
	CreatedAt    time.Time `json:"created_at"`
	UpdatedAt    time.Time `json:"updated_at"`
}

// ListIssueNotesParams are the params of list_issue_notes, oldest first.
type ListIssueNotesParams struct {
	ProjectID int64 `json:"project_id"`
	IssueIID  int64 `json:"issue_iid"`
	Page      int   `json:"page,omitempty"`
	PerPage   int   `json:"per_page,omitempty"`
	CacheOptions
}

// CreateIssueNoteParams are the params of create_issue_note.
type CreateIssueNoteParams struct {
	ProjectID int64  `json:"project_id"`
	IssueIID  int64  `json:"issue_iid"`
	Body      string `json:"body"` // Markdown
	Internal  bool   `json:"internal,omitempty"`
}

// ListMergeRequestNotesParams are the params of list_merge_request_notes,
// oldest first.
type ListMergeRequestNotesParams struct {
	ProjectID       int64 `json:"project_id"`
	MergeRequestIID int64 `json:"merge_request_iid"`
	Page            int   `json:"page,omitempty"`
	PerPage         int   `json:"per_page,omitempty"`
	CacheOptions
}

// CreateMergeRequestNoteParams are the params of create_merge_request_note.
type CreateMergeRequestNoteParams struct {
	ProjectID       int64  `json:"project_id"`
	MergeRequestIID int64  `json:"merge_request_iid"`
	Body            string `json:"body"` // Markdown
	Internal        bool   `json:"internal,omitempty"`
}

// ListIssueNotes calls list_issue_notes.
func (c *Client) ListIssueNotes(ctx context.Context, p *ListIssueNotesParams) (*Paged[Note], error) {
	return call[Paged[Note]](ctx, c, "list_issue_notes", p)
}

// CreateIssueNote calls create_issue_note.
func (c *Client) CreateIssueNote(ctx context.Context, p *CreateIssueNoteParams) (*Note, error) {
	return call[Note](ctx, c, "create_issue_note", p)
}

// ListMergeRequestNotes calls list_merge_request_notes.
func (c *Client) ListMergeRequestNotes(ctx context.Context, p *ListMergeRequestNotesParams) (*Paged[Note], error) {
	return call[Paged[Note]](ctx, c, "list_merge_request_notes", p)
}

// CreateMergeRequestNote calls create_merge_request_note.
func (c *Client) CreateMergeRequestNote(ctx context.Context, p *CreateMergeRequestNoteParams) (*Note, error) {
	return call[Note](ctx, c, "create_merge_request_note", p)
}
