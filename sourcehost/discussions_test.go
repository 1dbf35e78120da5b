package sourcehost_test

import (
	"errors"
	"testing"

	"github.com/apitwin/apitwin/sourcehost"
)

func TestMergeRequestDiscussions(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p := tg.project(t, sourcehost.Private)
	mr := featureMR(t, tg, p)
	me, err := tg.c.CurrentUser(ctx)
	if err != nil {
		t.Fatal(err)
	}

	d, err := tg.c.CreateMergeRequestDiscussion(ctx, pid(p), mr.IID, "Please rename a.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.ID) != 40 || d.IndividualNote || len(d.Notes) != 1 || d.Notes[0].Type != "DiscussionNote" || !d.Notes[0].Resolvable || d.Resolved() {
		t.Fatalf("new thread %+v %+v", d, d.Notes)
	}
	reply, err := tg.c.AddMergeRequestDiscussionNote(ctx, pid(p), mr.IID, d.ID, "Done")
	if err != nil || reply.Body != "Done" || reply.Type != "DiscussionNote" {
		t.Fatalf("reply %+v %v", reply, err)
	}
	r, err := tg.c.ResolveMergeRequestDiscussion(ctx, pid(p), mr.IID, d.ID, true)
	if err != nil || !r.Resolved() || len(r.Notes) != 2 || r.Notes[0].ResolvedBy == nil || r.Notes[0].ResolvedBy.Username != me.Username || r.Notes[1].ResolvedAt == nil {
		t.Fatalf("resolved %+v %v", r, err)
	}
	if r, err := tg.c.ResolveMergeRequestDiscussion(ctx, pid(p), mr.IID, d.ID, false); err != nil || r.Resolved() || r.Notes[0].ResolvedBy != nil {
		t.Fatalf("reopened %+v %v", r, err)
	}

	// A note of its own is a thread of its own: not resolvable, until a
	// reply makes it a discussion.
	plain, err := tg.c.CreateMergeRequestNote(ctx, pid(p), mr.IID, &sourcehost.CreateNoteRequest{Body: "LGTM"})
	if err != nil {
		t.Fatal(err)
	}
	threads := map[int64]*sourcehost.Discussion{}
	n := 0
	for th, err := range tg.c.AllMergeRequestDiscussions(ctx, pid(p), mr.IID, &sourcehost.ListOptions{PerPage: 1}) {
		if err != nil {
			t.Fatal(err)
		}
		for _, note := range th.Notes {
			threads[note.ID] = th
		}
		n++
	}
	own := threads[plain.ID]
	if own == nil || !own.IndividualNote || len(own.Notes) != 1 || own.Notes[0].Resolvable || threads[reply.ID] == nil || threads[reply.ID].ID != d.ID || n < 2 {
		t.Fatalf("threads %+v (%d)", threads, n)
	}
	if _, err := tg.c.ResolveMergeRequestDiscussion(ctx, pid(p), mr.IID, own.ID, true); !errors.Is(err, sourcehost.ErrForbidden) {
		t.Fatalf("resolving a note of its own: %v", err)
	}
	if _, err := tg.c.AddMergeRequestDiscussionNote(ctx, pid(p), mr.IID, own.ID, "Thanks"); err != nil {
		t.Fatal(err)
	}
	if got, err := tg.c.GetMergeRequestDiscussion(ctx, pid(p), mr.IID, own.ID); err != nil || got.IndividualNote || len(got.Notes) != 2 {
		t.Fatalf("after a reply %+v %v", got, err)
	}

	// A system note takes no reply.
	if _, err := tg.c.UpdateMergeRequest(ctx, pid(p), mr.IID, &sourcehost.UpdateMergeRequestRequest{StateEvent: "close"}); err != nil {
		t.Fatal(err)
	}
	var system *sourcehost.Discussion
	for th, err := range tg.c.AllMergeRequestDiscussions(ctx, pid(p), mr.IID, nil) {
		if err != nil {
			t.Fatal(err)
		}
		if th.Notes[0].System {
			system = th
		}
	}
	if system == nil {
		t.Fatal("no system note's thread")
	}
	if _, err := tg.c.AddMergeRequestDiscussionNote(ctx, pid(p), mr.IID, system.ID, "?"); !errors.Is(err, sourcehost.ErrBadRequest) {
		t.Fatalf("replying to a system note: %v", err)
	}
	if _, err := tg.c.GetMergeRequestDiscussion(ctx, pid(p), mr.IID, "0123456789abcdef0123456789abcdef01234567"); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("an unknown thread: %v", err)
	}
	if err := tg.c.Do(ctx, "PUT", "/projects/"+itoa(p.ID)+"/merge_requests/"+itoa(mr.IID)+"/discussions/"+d.ID, nil, nil, nil); !errors.Is(err, sourcehost.ErrBadRequest) {
		t.Fatalf("resolving without resolved: %v", err)
	}
}
