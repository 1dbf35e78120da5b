package sourcehost_test

import (
	"context"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

// TestNewResourcesReachHooks: notes, tags, releases and jobs reach the
// hooks that take them, in GitLab's payload shapes, parsed by
// ParseWebhook into typed events.
func TestNewResourcesReachHooks(t *testing.T) {
	t.Parallel()
	tg := newTarget(t, sourcehostfake.WithPipelineTiming(5*time.Second, time.Minute))
	srv := tg.needFake(t)
	p := tg.project(t, sourcehost.Private)
	rc := newReceiver(t, "tok")
	if _, err := tg.c.AddProjectHook(ctx, pid(p), &sourcehost.AddProjectHookRequest{URL: rc.srv.URL, Token: "tok", PushEvents: sourcehost.Ptr(false),
		NoteEvents: sourcehost.Ptr(true), TagPushEvents: sourcehost.Ptr(true), ReleasesEvents: sourcehost.Ptr(true), JobEvents: sourcehost.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	is, err := tg.c.CreateIssue(ctx, pid(p), &sourcehost.CreateIssueRequest{Title: "Bug"})
	if err != nil {
		t.Fatal(err)
	}
	n, err := tg.c.CreateIssueNote(ctx, pid(p), is.IID, &sourcehost.CreateNoteRequest{Body: "Looking"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.UpdateIssueNote(ctx, pid(p), is.IID, n.ID, &sourcehost.UpdateNoteRequest{Body: "Fixed"}); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.CreateRelease(ctx, pid(p), &sourcehost.CreateReleaseRequest{TagName: "v1", Ref: p.DefaultBranch, Description: "One"}); err != nil {
		t.Fatal(err)
	}
	if err := tg.c.DeleteTag(ctx, pid(p), "v1"); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.PushFile(p.ID, p.DefaultBranch, sourcehostfake.CIFile, "test:\n  script: go test\n", "CI"); err != nil {
		t.Fatal(err)
	}
	srv.Clock().Advance(5 * time.Second)
	srv.Clock().Advance(time.Minute)
	if err := srv.WaitDeliveries(context.Background()); err != nil {
		t.Fatal(err)
	}
	events, errs := rc.got()
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var notes, tags, releases []string
	var jobs []sourcehost.PipelineStatus
	for _, ev := range events {
		switch ev := ev.(type) {
		case *sourcehost.NoteEvent:
			if ev.Issue == nil || ev.Issue.IID != is.IID || ev.ObjectAttributes.NoteableType != "Issue" || ev.ProjectID != p.ID {
				t.Errorf("note event %+v", ev)
			}
			notes = append(notes, ev.ObjectAttributes.Action+":"+ev.ObjectAttributes.Note)
		case *sourcehost.TagPushEvent:
			if ev.ProjectID != p.ID || ev.UserUsername == "" {
				t.Errorf("tag push %+v", ev)
			}
			tags = append(tags, ev.Ref+":"+map[bool]string{true: "deleted", false: "pushed"}[ev.CheckoutSHA == ""])
		case *sourcehost.ReleaseEvent:
			if ev.Tag != "v1" || ev.Commit == nil || ev.Project.ID != p.ID {
				t.Errorf("release event %+v", ev)
			}
			releases = append(releases, ev.Action)
		case *sourcehost.JobEvent:
			if ev.BuildName != "test" || ev.ProjectID != p.ID || ev.PipelineID == 0 {
				t.Errorf("job event %+v", ev)
			}
			jobs = append(jobs, ev.BuildStatus)
		default:
			t.Errorf("unexpected event %T", ev)
		}
	}
	want := func(name string, got, want any) {
		t.Helper()
		if g, w := fmtAny(got), fmtAny(want); g != w {
			t.Errorf("%s: got %s, want %s", name, g, w)
		}
	}
	want("notes", notes, []string{"create:Looking", "update:Fixed"})
	want("tags", tags, []string{"refs/tags/v1:pushed", "refs/tags/v1:deleted"})
	want("releases", releases, []string{"create"})
	want("jobs", jobs, []sourcehost.PipelineStatus{"pending", "running", "success"})
}
