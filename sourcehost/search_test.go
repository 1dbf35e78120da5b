package sourcehost_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

func TestSearch(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p := tg.project(t, sourcehost.Private)
	word := "findme" + unique()
	Word := strings.ToUpper(word[:1]) + word[1:] // matched case-insensitively
	is, err := tg.c.CreateIssue(ctx, pid(p), &sourcehost.CreateIssueRequest{Title: Word + " in an issue"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.CreateIssueNote(ctx, pid(p), is.IID, &sourcehost.CreateNoteRequest{Body: "a note on " + word}); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.CreateMilestone(ctx, pid(p), &sourcehost.CreateMilestoneRequest{Title: Word + " milestone"}); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.CreateBranch(ctx, pid(p), "feature", p.DefaultBranch); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.CreateFile(ctx, pid(p), "docs/found.txt", &sourcehost.CreateFileRequest{Branch: p.DefaultBranch,
		Content: "one\ntwo\nthree\n" + word + " here\nfive\nsix\nseven\n", CommitMessage: "Add " + word}); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.CreateMergeRequest(ctx, pid(p), &sourcehost.CreateMergeRequestRequest{SourceBranch: "feature", TargetBranch: p.DefaultBranch, Title: Word + " MR"}); err != nil {
		t.Fatal(err)
	}
	search := func(pr *sourcehost.Project, scope sourcehost.SearchScope, term string) *sourcehost.SearchResults {
		t.Helper()
		var res *sourcehost.SearchResults
		var err error
		if pr == nil {
			res, err = tg.c.Search(ctx, &sourcehost.SearchOptions{Search: term, Scope: scope})
		} else {
			res, err = tg.c.SearchProject(ctx, pid(pr), &sourcehost.SearchOptions{Search: term, Scope: scope})
		}
		if err != nil {
			t.Fatalf("%s %q: %v", scope, term, err)
		}
		return res
	}

	if r := search(nil, sourcehost.SearchProjects, p.Name); len(r.Projects) != 1 || r.Projects[0].ID != p.ID {
		t.Fatalf("projects %+v", r.Projects)
	}
	if r := search(nil, sourcehost.SearchIssues, word); len(r.Issues) != 1 || r.Issues[0].ID != is.ID {
		t.Fatalf("issues %+v", r.Issues)
	}
	if r := search(nil, sourcehost.SearchMergeRequests, word); len(r.MergeRequests) != 1 || r.MergeRequests[0].Title != Word+" MR" {
		t.Fatalf("merge requests %+v", r.MergeRequests)
	}
	if r := search(nil, sourcehost.SearchMilestones, word); len(r.Milestones) != 1 {
		t.Fatalf("milestones %+v", r.Milestones)
	}
	me, err := tg.c.CurrentUser(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := func(us []*sourcehost.User) bool {
		for _, u := range us {
			if u.Username == me.Username {
				return true
			}
		}
		return false
	}
	if r := search(nil, sourcehost.SearchUsers, me.Username); !found(r.Users) {
		t.Fatalf("users %+v", r.Users)
	}
	if r := search(p, sourcehost.SearchUsers, me.Username); !found(r.Users) {
		t.Fatalf("members %+v", r.Users)
	}

	// A project's own scopes: its issues, notes, commits and files.
	if r := search(p, sourcehost.SearchIssues, word); len(r.Issues) != 1 {
		t.Fatalf("the project's issues %+v", r.Issues)
	}
	if r := search(p, sourcehost.SearchNotes, word); len(r.Notes) != 1 || r.Notes[0].Body != "a note on "+word {
		t.Fatalf("notes %+v", r.Notes)
	}
	if r := search(p, sourcehost.SearchCommits, word); len(r.Commits) != 1 || r.Commits[0].Title != "Add "+word {
		t.Fatalf("commits %+v", r.Commits)
	}
	r := search(p, sourcehost.SearchBlobs, word)
	if len(r.Blobs) != 1 || r.Blobs[0].Path != "docs/found.txt" || !strings.Contains(r.Blobs[0].Data, word+" here\n") || r.Blobs[0].ProjectID != p.ID {
		t.Fatalf("blobs %+v", r.Blobs)
	}
	if r := search(p, sourcehost.SearchWikiBlobs, word); len(r.Blobs) != 0 {
		t.Fatalf("wiki blobs %+v", r.Blobs)
	}

	// A scope of another level, or none, is refused.
	if _, err := tg.c.Search(ctx, &sourcehost.SearchOptions{Search: word, Scope: sourcehost.SearchNotes}); !errors.Is(err, sourcehost.ErrBadRequest) {
		t.Fatalf("notes of the whole instance: %v", err)
	}
	if _, err := tg.c.SearchProject(ctx, pid(p), &sourcehost.SearchOptions{Search: word, Scope: sourcehost.SearchProjects}); !errors.Is(err, sourcehost.ErrBadRequest) {
		t.Fatalf("projects of a project: %v", err)
	}
	var e *sourcehost.Error
	if err := tg.c.Do(ctx, "GET", "/search", nil, nil, nil); !errors.As(err, &e) || e.StatusCode != 400 || !strings.Contains(e.Message, "search is missing") {
		t.Fatalf("no term: %v", err)
	}
}

// A search answers what the caller may see only, a page at a time without
// totals, as GitLab pages a search.
func TestSearchVisibilityAndPages(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	pid, err := srv.AddProject(sourcehostfake.ProjectSeed{Name: "secret", Files: map[string]string{"a.txt": "needle\n"},
		Issues: []sourcehostfake.IssueSeed{{Title: "needle one"}, {Title: "needle two"}}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := tg.c.Search(ctx, &sourcehost.SearchOptions{Search: "NEEDLE", Scope: sourcehost.SearchIssues, ListOptions: sourcehost.ListOptions{PerPage: 1}})
	if err != nil || len(r.Issues) != 1 || r.Issues[0].Title != "needle two" || r.NextPage != 2 || r.Total != -1 || r.TotalPages != -1 {
		t.Fatalf("first page %+v %v", r, err)
	}
	r, err = tg.c.Search(ctx, &sourcehost.SearchOptions{Search: "needle", Scope: sourcehost.SearchIssues, ListOptions: sourcehost.ListOptions{Page: 2, PerPage: 1}})
	if err != nil || len(r.Issues) != 1 || r.Issues[0].Title != "needle one" || r.NextPage != 0 {
		t.Fatalf("second page %+v %v", r, err)
	}

	if _, err := srv.AddUser(sourcehostfake.UserSeed{Username: "outsider"}); err != nil {
		t.Fatal(err)
	}
	tok, _ := srv.IssueToken("outsider", sourcehost.ScopeReadAPI)
	out := srv.ClientWithToken(tok)
	if r, err := out.Search(ctx, &sourcehost.SearchOptions{Search: "needle", Scope: sourcehost.SearchIssues}); err != nil || len(r.Issues) != 0 {
		t.Fatalf("an outsider's search %+v %v", r, err)
	}
	if _, err := out.SearchProject(ctx, sourcehost.ProjectID(pid), &sourcehost.SearchOptions{Search: "needle", Scope: sourcehost.SearchBlobs}); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("an outsider searching the project: %v", err)
	}
	// Searching needs a signed-in caller.
	anon, err := sourcehost.New(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := anon.Search(ctx, &sourcehost.SearchOptions{Search: "needle", Scope: sourcehost.SearchProjects}); !errors.Is(err, sourcehost.ErrUnauthorized) {
		t.Fatalf("anonymous: %v", err)
	}
}

// A group's search finds what its subgroups' projects hold, and nothing
// of the projects outside it.
func TestSearchGroup(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	u := unique()
	g, err := tg.c.CreateGroup(ctx, &sourcehost.CreateGroupRequest{Name: "apitwin-test-" + u, Path: "apitwin-test-" + u})
	if err != nil {
		t.Fatal(err)
	}
	sub, err := tg.c.CreateGroup(ctx, &sourcehost.CreateGroupRequest{Name: "sub", Path: "sub", ParentID: g.ID})
	if err != nil {
		t.Fatal(err)
	}
	inside, err := tg.c.CreateProject(ctx, &sourcehost.CreateProjectRequest{Name: "inside-" + u, NamespaceID: sub.ID})
	if err != nil {
		t.Fatal(err)
	}
	outside := tg.project(t, sourcehost.Private)
	word := "groupneedle" + u
	for _, p := range []*sourcehost.Project{inside, outside} {
		if _, err := tg.c.CreateIssue(ctx, pid(p), &sourcehost.CreateIssueRequest{Title: word}); err != nil {
			t.Fatal(err)
		}
	}
	r, err := tg.c.SearchGroup(ctx, sourcehost.GroupID(g.ID), &sourcehost.SearchOptions{Search: word, Scope: sourcehost.SearchIssues})
	if err != nil || len(r.Issues) != 1 || r.Issues[0].ProjectID != inside.ID {
		t.Fatalf("issues %+v %v", r, err)
	}
	r, err = tg.c.SearchGroup(ctx, sourcehost.GroupID(g.ID), &sourcehost.SearchOptions{Search: "inside-" + u, Scope: sourcehost.SearchProjects})
	if err != nil || len(r.Projects) != 1 || r.Projects[0].ID != inside.ID {
		t.Fatalf("projects %+v %v", r, err)
	}
	me, err := tg.c.CurrentUser(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := tg.c.SearchGroup(ctx, sourcehost.GroupID(g.ID), &sourcehost.SearchOptions{Search: me.Username, Scope: sourcehost.SearchUsers}); err != nil || len(r.Users) != 1 {
		t.Fatalf("the group's members %+v %v", r, err)
	}
	if _, err := tg.c.SearchGroup(ctx, sourcehost.GroupID(g.ID), &sourcehost.SearchOptions{Search: word, Scope: sourcehost.SearchBlobs}); !errors.Is(err, sourcehost.ErrBadRequest) {
		t.Fatalf("blobs of a group, an advanced search scope: %v", err)
	}
	if _, err := tg.c.SearchGroup(ctx, sourcehost.GroupPath("apitwin-test-"+u+"-none"), &sourcehost.SearchOptions{Search: word, Scope: sourcehost.SearchIssues}); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("an unknown group: %v", err)
	}
}
