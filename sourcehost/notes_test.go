package sourcehost_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

// noteBodies lists the bodies of a page of notes, marking system notes
// with a "*".
func noteBodies(t *testing.T) func(*sourcehost.Page[sourcehost.Note], error) []string {
	return func(p *sourcehost.Page[sourcehost.Note], err error) []string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, n := range p.Items {
			if n.System {
				out = append(out, "*"+n.Body)
			} else {
				out = append(out, n.Body)
			}
		}
		return out
	}
}

func TestIssueNotes(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p := tg.project(t, sourcehost.Private)
	me, err := tg.c.CurrentUser(ctx)
	if err != nil {
		t.Fatal(err)
	}
	is, err := tg.c.CreateIssue(ctx, pid(p), &sourcehost.CreateIssueRequest{Title: "Slow checkout"})
	if err != nil {
		t.Fatal(err)
	}
	n, err := tg.c.CreateIssueNote(ctx, pid(p), is.IID, &sourcehost.CreateNoteRequest{Body: "Seen it too"})
	if err != nil || n.Body != "Seen it too" || n.System || n.Author == nil || n.Author.ID != me.ID ||
		n.NoteableType != "Issue" || n.NoteableIID != is.IID || n.NoteableID != is.ID || n.ProjectID != p.ID {
		t.Fatalf("created %+v %v", n, err)
	}
	second, err := tg.c.CreateIssueNote(ctx, pid(p), is.IID, &sourcehost.CreateNoteRequest{Body: "On mobile only"})
	if err != nil {
		t.Fatal(err)
	}
	if n, err = tg.c.UpdateIssueNote(ctx, pid(p), is.IID, n.ID, &sourcehost.UpdateNoteRequest{Body: "Seen it too, twice"}); err != nil || n.Body != "Seen it too, twice" {
		t.Fatalf("updated %+v %v", n, err)
	}
	if got, err := tg.c.GetIssueNote(ctx, pid(p), is.IID, n.ID); err != nil || got.Body != n.Body {
		t.Fatalf("get %+v %v", got, err)
	}
	// Closing the issue writes a system note, as the real service does.
	if _, err := tg.c.UpdateIssue(ctx, pid(p), is.IID, &sourcehost.UpdateIssueRequest{StateEvent: sourcehost.StateEventClose}); err != nil {
		t.Fatal(err)
	}
	asc := &sourcehost.ListNotesOptions{Sort: "asc"}
	if got := noteBodies(t)(tg.c.ListIssueNotes(ctx, pid(p), is.IID, asc)); !slices.Equal(got, []string{"Seen it too, twice", "On mobile only", "*closed"}) {
		t.Fatalf("notes oldest first: %q", got)
	}
	if got := noteBodies(t)(tg.c.ListIssueNotes(ctx, pid(p), is.IID, nil)); !slices.Equal(got, []string{"*closed", "On mobile only", "Seen it too, twice"}) {
		t.Fatalf("notes newest first: %q", got)
	}
	if got, err := tg.c.GetIssue(ctx, pid(p), is.IID); err != nil || got.UserNotesCount != 2 {
		t.Fatalf("user_notes_count: %+v %v", got, err)
	}
	if err := tg.c.DeleteIssueNote(ctx, pid(p), is.IID, second.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.GetIssueNote(ctx, pid(p), is.IID, second.ID); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("deleted note: %v", err)
	}
	var all []string
	for n, err := range tg.c.AllIssueNotes(ctx, pid(p), is.IID, &sourcehost.ListNotesOptions{ListOptions: sourcehost.ListOptions{PerPage: 1}, Sort: "asc"}) {
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, n.Body)
	}
	if !slices.Equal(all, []string{"Seen it too, twice", "closed"}) {
		t.Fatalf("all notes: %q", all)
	}
	if _, err := tg.c.CreateIssueNote(ctx, pid(p), 9999, &sourcehost.CreateNoteRequest{Body: "x"}); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("note on a missing issue: %v", err)
	}
}

func TestMergeRequestNotes(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p := tg.project(t, sourcehost.Private)
	if _, err := tg.c.CreateBranch(ctx, pid(p), "feature", p.DefaultBranch); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.CreateFile(ctx, pid(p), "cart.go", &sourcehost.CreateFileRequest{Branch: "feature", Content: "package cart\n", CommitMessage: "Add cart"}); err != nil {
		t.Fatal(err)
	}
	mr, err := tg.c.CreateMergeRequest(ctx, pid(p), &sourcehost.CreateMergeRequestRequest{SourceBranch: "feature", TargetBranch: p.DefaultBranch, Title: "Cart"})
	if err != nil {
		t.Fatal(err)
	}
	n, err := tg.c.CreateMergeRequestNote(ctx, pid(p), mr.IID, &sourcehost.CreateNoteRequest{Body: "LGTM"})
	if err != nil || n.NoteableType != "MergeRequest" || n.NoteableIID != mr.IID {
		t.Fatalf("created %+v %v", n, err)
	}
	if n, err = tg.c.UpdateMergeRequestNote(ctx, pid(p), mr.IID, n.ID, &sourcehost.UpdateNoteRequest{Body: "LGTM!"}); err != nil || n.Body != "LGTM!" {
		t.Fatalf("updated %+v %v", n, err)
	}
	if got, err := tg.c.GetMergeRequestNote(ctx, pid(p), mr.IID, n.ID); err != nil || got.Body != "LGTM!" {
		t.Fatalf("get %+v %v", got, err)
	}
	if _, err := tg.c.AcceptMergeRequest(ctx, pid(p), mr.IID, nil); err != nil {
		t.Fatal(err)
	}
	var bodies []string
	for n, err := range tg.c.AllMergeRequestNotes(ctx, pid(p), mr.IID, &sourcehost.ListNotesOptions{Sort: "asc"}) {
		if err != nil {
			t.Fatal(err)
		}
		if n.System {
			bodies = append(bodies, "*"+n.Body)
		} else {
			bodies = append(bodies, n.Body)
		}
	}
	if !slices.Contains(bodies, "LGTM!") || !slices.Contains(bodies, "*merged") {
		t.Fatalf("notes after the merge: %q", bodies)
	}
	if err := tg.c.DeleteMergeRequestNote(ctx, pid(p), mr.IID, n.ID); err != nil {
		t.Fatal(err)
	}
}

func TestNotePermissionsAndRefusals(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	as, _ := users(t, srv, "pat")
	id, err := srv.AddProject(sourcehostfake.ProjectSeed{Name: "pub", Visibility: "public", Issues: []sourcehostfake.IssueSeed{{Title: "open to all"}}})
	if err != nil {
		t.Fatal(err)
	}
	pub := sourcehost.ProjectID(id)
	mine, err := tg.c.CreateIssueNote(ctx, pub, 1, &sourcehost.CreateNoteRequest{Body: "by root"})
	if err != nil {
		t.Fatal(err)
	}
	internal, err := tg.c.CreateIssueNote(ctx, pub, 1, &sourcehost.CreateNoteRequest{Body: "between us", Internal: true})
	if err != nil || !internal.Internal {
		t.Fatalf("internal %+v %v", internal, err)
	}
	// Anyone signed in comments on a public project's issue...
	theirs, err := as["pat"].CreateIssueNote(ctx, pub, 1, &sourcehost.CreateNoteRequest{Body: "by pat"})
	if err != nil {
		t.Fatal(err)
	}
	// ...but changes only their own notes, and sees no internal ones.
	if _, err := as["pat"].UpdateIssueNote(ctx, pub, 1, mine.ID, &sourcehost.UpdateNoteRequest{Body: "hijacked"}); !errors.Is(err, sourcehost.ErrForbidden) {
		t.Fatalf("pat edits root's note: %v", err)
	}
	if err := as["pat"].DeleteIssueNote(ctx, pub, 1, mine.ID); !errors.Is(err, sourcehost.ErrForbidden) {
		t.Fatalf("pat deletes root's note: %v", err)
	}
	if got := noteBodies(t)(as["pat"].ListIssueNotes(ctx, pub, 1, &sourcehost.ListNotesOptions{Sort: "asc"})); !slices.Equal(got, []string{"by root", "by pat"}) {
		t.Fatalf("pat sees %q", got)
	}
	if _, err := as["pat"].GetIssueNote(ctx, pub, 1, internal.ID); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("pat reads the internal note: %v", err)
	}
	if _, err := as["pat"].CreateIssueNote(ctx, pub, 1, &sourcehost.CreateNoteRequest{Body: "x", Internal: true}); !errors.Is(err, sourcehost.ErrForbidden) {
		t.Fatalf("a non-member writes an internal note: %v", err)
	}
	// A maintainer deletes anyone's note.
	if err := tg.c.DeleteIssueNote(ctx, pub, 1, theirs.ID); err != nil {
		t.Fatalf("maintainer deletes pat's note: %v", err)
	}
	// System notes stay as written.
	if _, err := tg.c.UpdateIssue(ctx, pub, 1, &sourcehost.UpdateIssueRequest{StateEvent: sourcehost.StateEventClose}); err != nil {
		t.Fatal(err)
	}
	notes, err := tg.c.ListIssueNotes(ctx, pub, 1, nil)
	if err != nil || len(notes.Items) == 0 || !notes.Items[0].System || notes.Items[0].Body != "closed" {
		t.Fatalf("newest note %+v %v", notes, err)
	}
	if _, err := tg.c.UpdateIssueNote(ctx, pub, 1, notes.Items[0].ID, &sourcehost.UpdateNoteRequest{Body: "x"}); !errors.Is(err, sourcehost.ErrForbidden) {
		t.Fatalf("system note edited: %v", err)
	}
	if _, err := tg.c.CreateIssueNote(ctx, pub, 1, &sourcehost.CreateNoteRequest{Body: " "}); err == nil {
		t.Fatal("the client sent a blank note")
	}

	base := srv.URL() + "/api/v4/projects/" + itoa(id) + "/issues/1/notes"
	for _, tc := range []struct {
		method, url, body string
		status            int
		want              string
	}{
		{"POST", base, `{}`, 400, `{"error":"body is missing"}`},
		{"GET", base + "/999", ``, 404, `{"message":"404 Note Not Found"}`},
		{"PUT", base + "/" + itoa(mine.ID), `{"body":""}`, 400, `{"error":"body is missing"}`},
		{"GET", srv.URL() + "/api/v4/projects/" + itoa(id) + "/merge_requests/5/notes", ``, 404, `{"message":"404 Merge Request Not Found"}`},
	} {
		resp, err := doRaw(tc.method, tc.url, srv.Token(), "application/json", tc.body)
		if err != nil {
			t.Fatal(err)
		}
		if resp.status != tc.status || resp.body != tc.want {
			t.Errorf("%s %s %s: %d %s, want %d %s", tc.method, tc.url, tc.body, resp.status, resp.body, tc.status, tc.want)
		}
	}
}
