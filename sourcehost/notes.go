package sourcehost

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"strings"
	"time"
)

// Note is a comment on an issue or a merge request. System notes are the
// ones the server writes itself when something changes ("closed",
// "merged", …).
type Note struct {
	ID           int64  `json:"id"`
	Body         string `json:"body"`
	Author       *User  `json:"author"`
	System       bool   `json:"system"`
	Internal     bool   `json:"internal"` // seen only by reporters and above
	NoteableID   int64  `json:"noteable_id"`
	NoteableIID  int64  `json:"noteable_iid"`
	NoteableType string `json:"noteable_type"` // "Issue" or "MergeRequest"
	ProjectID    int64  `json:"project_id"`
	// Type is "DiscussionNote" for a note of a discussion thread (see
	// CreateMergeRequestDiscussion), empty for a note of its own.
	Type string `json:"type"`
	// Resolvable notes (a merge request's discussion notes) can be
	// resolved; Resolved, ResolvedBy and ResolvedAt say whether and by whom.
	Resolvable bool       `json:"resolvable"`
	Resolved   bool       `json:"resolved"`
	ResolvedBy *User      `json:"resolved_by"`
	ResolvedAt *time.Time `json:"resolved_at"`
	CreatedAt  time.Time  `json:"created_at"`
	UpdatedAt  time.Time  `json:"updated_at"`
}

// ListNotesOptions orders and pages the notes of an issue or a merge
// request.
type ListNotesOptions struct {
	ListOptions
	OrderBy string `url:"order_by,omitempty"` // created_at (default) or updated_at
	Sort    string `url:"sort,omitempty"`     // asc or desc (default)
}

// CreateNoteRequest is the body of POST .../notes.
type CreateNoteRequest struct {
	Body     string `json:"body"`
	Internal bool   `json:"internal,omitempty"`
}

// UpdateNoteRequest is the body of PUT .../notes/:note_id.
type UpdateNoteRequest struct {
	Body string `json:"body"`
}

func notesPath(pid ProjectRef, kind string, iid int64) (string, error) {
	return projectPath(pid, fmt.Sprintf("/%s/%d/notes", kind, iid))
}

func (c *Client) listNotes(ctx context.Context, pid ProjectRef, kind string, iid int64, opts *ListNotesOptions) (*Page[Note], error) {
	path, err := notesPath(pid, kind, iid)
	if err != nil {
		return nil, err
	}
	return list[Note](ctx, c, path, opts)
}

func (c *Client) allNotes(ctx context.Context, pid ProjectRef, kind string, iid int64, opts *ListNotesOptions) iter.Seq2[*Note, error] {
	path, err := notesPath(pid, kind, iid)
	if err != nil {
		return func(yield func(*Note, error) bool) { yield(nil, err) }
	}
	return all[Note](ctx, c, path, opts)
}

func (c *Client) noteCall(ctx context.Context, method string, pid ProjectRef, kind string, iid, noteID int64, body any) (*Note, error) {
	path, err := notesPath(pid, kind, iid)
	if err != nil {
		return nil, err
	}
	if noteID != 0 {
		path += fmt.Sprintf("/%d", noteID)
	}
	return do[Note](ctx, c, method, path, nil, body)
}

func (c *Client) deleteNote(ctx context.Context, pid ProjectRef, kind string, iid, noteID int64) error {
	path, err := notesPath(pid, kind, iid)
	if err != nil {
		return err
	}
	_, err = c.call(ctx, http.MethodDelete, path+fmt.Sprintf("/%d", noteID), nil, nil, nil)
	return err
}

func checkNoteBody(op, body string) error {
	if strings.TrimSpace(body) == "" {
		return fmt.Errorf("sourcehost: %s needs a body", op)
	}
	return nil
}

// ListIssueNotes returns one page of an issue's notes, system notes
// included, newest first by default.
//
// GitLab API: [GET /projects/{id}/issues/{iid}/notes]
//
// [GET /projects/{id}/issues/{iid}/notes]: https://docs.gitlab.com/api/notes/#list-project-issue-notes
func (c *Client) ListIssueNotes(ctx context.Context, pid ProjectRef, issueIID int64, opts *ListNotesOptions) (*Page[Note], error) {
	return c.listNotes(ctx, pid, "issues", issueIID, opts)
}

// AllIssueNotes iterates an issue's notes a page at a time.
//
// GitLab API: [GET /projects/{id}/issues/{iid}/notes]
//
// [GET /projects/{id}/issues/{iid}/notes]: https://docs.gitlab.com/api/notes/#list-project-issue-notes
func (c *Client) AllIssueNotes(ctx context.Context, pid ProjectRef, issueIID int64, opts *ListNotesOptions) iter.Seq2[*Note, error] {
	return c.allNotes(ctx, pid, "issues", issueIID, opts)
}

// GetIssueNote returns one note of an issue.
//
// GitLab API: [GET /projects/{id}/issues/{iid}/notes/{note_id}]
//
// [GET /projects/{id}/issues/{iid}/notes/{note_id}]: https://docs.gitlab.com/api/notes/#get-single-issue-note
func (c *Client) GetIssueNote(ctx context.Context, pid ProjectRef, issueIID, noteID int64) (*Note, error) {
	return c.noteCall(ctx, http.MethodGet, pid, "issues", issueIID, noteID, nil)
}

// CreateIssueNote comments on an issue.
//
// GitLab API: [POST /projects/{id}/issues/{iid}/notes]
//
// [POST /projects/{id}/issues/{iid}/notes]: https://docs.gitlab.com/api/notes/#create-new-issue-note
func (c *Client) CreateIssueNote(ctx context.Context, pid ProjectRef, issueIID int64, req *CreateNoteRequest) (*Note, error) {
	if req == nil {
		return nil, errors.New("sourcehost: CreateIssueNote needs a request")
	}
	if err := checkNoteBody("CreateIssueNote", req.Body); err != nil {
		return nil, err
	}
	return c.noteCall(ctx, http.MethodPost, pid, "issues", issueIID, 0, req)
}

// UpdateIssueNote changes the body of a note; only its author may, and
// system notes cannot be changed (403).
//
// GitLab API: [PUT /projects/{id}/issues/{iid}/notes/{note_id}]
//
// [PUT /projects/{id}/issues/{iid}/notes/{note_id}]: https://docs.gitlab.com/api/notes/#modify-existing-issue-note
func (c *Client) UpdateIssueNote(ctx context.Context, pid ProjectRef, issueIID, noteID int64, req *UpdateNoteRequest) (*Note, error) {
	if req == nil {
		return nil, errors.New("sourcehost: UpdateIssueNote needs a request")
	}
	if err := checkNoteBody("UpdateIssueNote", req.Body); err != nil {
		return nil, err
	}
	return c.noteCall(ctx, http.MethodPut, pid, "issues", issueIID, noteID, req)
}

// DeleteIssueNote deletes a note of an issue: its author's, or any for a
// maintainer.
//
// GitLab API: [DELETE /projects/{id}/issues/{iid}/notes/{note_id}]
//
// [DELETE /projects/{id}/issues/{iid}/notes/{note_id}]: https://docs.gitlab.com/api/notes/#delete-an-issue-note
func (c *Client) DeleteIssueNote(ctx context.Context, pid ProjectRef, issueIID, noteID int64) error {
	return c.deleteNote(ctx, pid, "issues", issueIID, noteID)
}

// ListMergeRequestNotes returns one page of a merge request's notes,
// system notes included, newest first by default.
//
// GitLab API: [GET /projects/{id}/merge_requests/{iid}/notes]
//
// [GET /projects/{id}/merge_requests/{iid}/notes]: https://docs.gitlab.com/api/notes/#list-all-merge-request-notes
func (c *Client) ListMergeRequestNotes(ctx context.Context, pid ProjectRef, mrIID int64, opts *ListNotesOptions) (*Page[Note], error) {
	return c.listNotes(ctx, pid, "merge_requests", mrIID, opts)
}

// AllMergeRequestNotes iterates a merge request's notes a page at a time.
//
// GitLab API: [GET /projects/{id}/merge_requests/{iid}/notes]
//
// [GET /projects/{id}/merge_requests/{iid}/notes]: https://docs.gitlab.com/api/notes/#list-all-merge-request-notes
func (c *Client) AllMergeRequestNotes(ctx context.Context, pid ProjectRef, mrIID int64, opts *ListNotesOptions) iter.Seq2[*Note, error] {
	return c.allNotes(ctx, pid, "merge_requests", mrIID, opts)
}

// GetMergeRequestNote returns one note of a merge request.
//
// GitLab API: [GET /projects/{id}/merge_requests/{iid}/notes/{note_id}]
//
// [GET /projects/{id}/merge_requests/{iid}/notes/{note_id}]: https://docs.gitlab.com/api/notes/#get-single-merge-request-note
func (c *Client) GetMergeRequestNote(ctx context.Context, pid ProjectRef, mrIID, noteID int64) (*Note, error) {
	return c.noteCall(ctx, http.MethodGet, pid, "merge_requests", mrIID, noteID, nil)
}

// CreateMergeRequestNote comments on a merge request.
//
// GitLab API: [POST /projects/{id}/merge_requests/{iid}/notes]
//
// [POST /projects/{id}/merge_requests/{iid}/notes]: https://docs.gitlab.com/api/notes/#create-new-merge-request-note
func (c *Client) CreateMergeRequestNote(ctx context.Context, pid ProjectRef, mrIID int64, req *CreateNoteRequest) (*Note, error) {
	if req == nil {
		return nil, errors.New("sourcehost: CreateMergeRequestNote needs a request")
	}
	if err := checkNoteBody("CreateMergeRequestNote", req.Body); err != nil {
		return nil, err
	}
	return c.noteCall(ctx, http.MethodPost, pid, "merge_requests", mrIID, 0, req)
}

// UpdateMergeRequestNote changes the body of a note of a merge request.
//
// GitLab API: [PUT /projects/{id}/merge_requests/{iid}/notes/{note_id}]
//
// [PUT /projects/{id}/merge_requests/{iid}/notes/{note_id}]: https://docs.gitlab.com/api/notes/#modify-existing-merge-request-note
func (c *Client) UpdateMergeRequestNote(ctx context.Context, pid ProjectRef, mrIID, noteID int64, req *UpdateNoteRequest) (*Note, error) {
	if req == nil {
		return nil, errors.New("sourcehost: UpdateMergeRequestNote needs a request")
	}
	if err := checkNoteBody("UpdateMergeRequestNote", req.Body); err != nil {
		return nil, err
	}
	return c.noteCall(ctx, http.MethodPut, pid, "merge_requests", mrIID, noteID, req)
}

// DeleteMergeRequestNote deletes a note of a merge request.
//
// GitLab API: [DELETE /projects/{id}/merge_requests/{iid}/notes/{note_id}]
//
// [DELETE /projects/{id}/merge_requests/{iid}/notes/{note_id}]: https://docs.gitlab.com/api/notes/#delete-a-merge-request-note
func (c *Client) DeleteMergeRequestNote(ctx context.Context, pid ProjectRef, mrIID, noteID int64) error {
	return c.deleteNote(ctx, pid, "merge_requests", mrIID, noteID)
}
