package gateway

import (
	"context"
	"strings"

	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/sourcehost"
)

func note(n *sourcehost.Note) mcp.Note {
	return mcp.Note{
		ID: n.ID, Body: n.Body, Author: user(n.Author), System: n.System, Internal: n.Internal,
		NoteableType: n.NoteableType, NoteableIID: n.NoteableIID, CreatedAt: n.CreatedAt, UpdatedAt: n.UpdatedAt,
	}
}

// notesOrder lists a thread oldest first, as people read it.
func notesOrder(page, perPage int) *sourcehost.ListNotesOptions {
	return &sourcehost.ListNotesOptions{ListOptions: listOptions(page, perPage), OrderBy: "created_at", Sort: "asc"}
}

var noteBodyParam = param{name: "body", kind: kindString, required: true, description: "The comment, in Markdown."}
var noteInternalParam = param{name: "internal", kind: kindBoolean, description: "Visible only to members with at least the Reporter role."}

// checkNoteBody refuses a body of spaces alone (the upstream would too).
func checkNoteBody(body string) *mcp.Error {
	if strings.TrimSpace(body) == "" {
		return paramError("body", "must not be empty")
	}
	return nil
}

var listIssueNotesTool = define(tool{
	name:        "list_issue_notes",
	title:       "List an issue's comments",
	description: "List the comments (notes) on an issue, oldest first, the server's own system notes included.",
	params:      []param{projectParam, issueIIDParam, pageParam, perPageParam},
}, calls[mcp.ListIssueNotesParams, *mcp.Paged[mcp.Note]]{
	cache: func(p *mcp.ListIssueNotesParams) *mcp.CacheOptions { return &p.CacheOptions },
	tags:  func(p *mcp.ListIssueNotesParams) []string { return projectTags(p.ProjectID) },
	run: func(ctx context.Context, up *sourcehost.Client, p *mcp.ListIssueNotesParams) (*mcp.Paged[mcp.Note], error) {
		page, err := up.ListIssueNotes(ctx, sourcehost.ProjectID(p.ProjectID), p.IssueIID, notesOrder(p.Page, p.PerPage))
		if err != nil {
			return nil, err
		}
		return paged(page, note), nil
	},
})

var createIssueNoteTool = define(tool{
	name:        "create_issue_note",
	title:       "Comment on an issue",
	description: "Add a comment (note) to an issue.",
	params:      []param{projectParam, issueIIDParam, noteBodyParam, noteInternalParam},
	effects:     &effects{}, // adds a comment; again adds another
}, calls[mcp.CreateIssueNoteParams, *mcp.Note]{
	tags:  func(p *mcp.CreateIssueNoteParams) []string { return projectTags(p.ProjectID) },
	check: func(p *mcp.CreateIssueNoteParams) *mcp.Error { return checkNoteBody(p.Body) },
	run: func(ctx context.Context, up *sourcehost.Client, p *mcp.CreateIssueNoteParams) (*mcp.Note, error) {
		n, err := up.CreateIssueNote(ctx, sourcehost.ProjectID(p.ProjectID), p.IssueIID, &sourcehost.CreateNoteRequest{Body: p.Body, Internal: p.Internal})
		if err != nil {
			return nil, err
		}
		out := note(n)
		return &out, nil
	},
})

var listMergeRequestNotesTool = define(tool{
	name:        "list_merge_request_notes",
	title:       "List a merge request's comments",
	description: "List the comments (notes) on a merge request, oldest first, the server's own system notes included.",
	params:      []param{projectParam, mergeRequestIIDParam, pageParam, perPageParam},
}, calls[mcp.ListMergeRequestNotesParams, *mcp.Paged[mcp.Note]]{
	cache: func(p *mcp.ListMergeRequestNotesParams) *mcp.CacheOptions { return &p.CacheOptions },
	tags:  func(p *mcp.ListMergeRequestNotesParams) []string { return projectTags(p.ProjectID) },
	run: func(ctx context.Context, up *sourcehost.Client, p *mcp.ListMergeRequestNotesParams) (*mcp.Paged[mcp.Note], error) {
		page, err := up.ListMergeRequestNotes(ctx, sourcehost.ProjectID(p.ProjectID), p.MergeRequestIID, notesOrder(p.Page, p.PerPage))
		if err != nil {
			return nil, err
		}
		return paged(page, note), nil
	},
})

var createMergeRequestNoteTool = define(tool{
	name:        "create_merge_request_note",
	title:       "Comment on a merge request",
	description: "Add a comment (note) to a merge request.",
	params:      []param{projectParam, mergeRequestIIDParam, noteBodyParam, noteInternalParam},
	effects:     &effects{},
}, calls[mcp.CreateMergeRequestNoteParams, *mcp.Note]{
	tags:  func(p *mcp.CreateMergeRequestNoteParams) []string { return projectTags(p.ProjectID) },
	check: func(p *mcp.CreateMergeRequestNoteParams) *mcp.Error { return checkNoteBody(p.Body) },
	run: func(ctx context.Context, up *sourcehost.Client, p *mcp.CreateMergeRequestNoteParams) (*mcp.Note, error) {
		n, err := up.CreateMergeRequestNote(ctx, sourcehost.ProjectID(p.ProjectID), p.MergeRequestIID, &sourcehost.CreateNoteRequest{Body: p.Body, Internal: p.Internal})
		if err != nil {
			return nil, err
		}
		out := note(n)
		return &out, nil
	},
})
