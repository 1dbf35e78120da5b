package sourcehost_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

// receiver is a webhook receiver that parses every delivery as a user's
// handler would.
type receiver struct {
	mu     sync.Mutex
	events []any
	errs   []error
	srv    *httptest.Server
}

func newReceiver(t *testing.T, secret string) *receiver {
	rc := &receiver{}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ev, err := sourcehost.ParseWebhook(r, secret)
		rc.mu.Lock()
		defer rc.mu.Unlock()
		if err != nil {
			rc.errs = append(rc.errs, err)
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		rc.events = append(rc.events, ev)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) got() ([]any, []error) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]any(nil), rc.events...), append([]error(nil), rc.errs...)
}

func TestAddProjectHookAndDeliveries(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	p := tg.project(t, sourcehost.Private)
	rc := newReceiver(t, "s3cret")
	h, err := tg.c.AddProjectHook(ctx, pid(p), &sourcehost.AddProjectHookRequest{
		URL: rc.srv.URL + "/hook", IssuesEvents: sourcehost.Ptr(true), MergeRequestsEvents: sourcehost.Ptr(true),
		PipelineEvents: sourcehost.Ptr(true), Token: "s3cret",
	})
	if err != nil {
		t.Fatal(err)
	}
	if !h.PushEvents || !h.IssuesEvents || !h.MergeRequestsEvents || !h.PipelineEvents || h.NoteEvents || h.URL != rc.srv.URL+"/hook" {
		t.Fatalf("hook %+v", h)
	}
	// The hook was sent as form fields, as the spec says.
	reqs := srv.RequestsTo("POST /api/v4/projects/{id}/hooks")
	if len(reqs) != 1 || reqs[0].Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
		t.Fatalf("hook request %+v", reqs)
	}

	is, err := tg.c.CreateIssue(ctx, pid(p), &sourcehost.CreateIssueRequest{Title: "Hooked", Labels: sourcehost.Labels{"x"}})
	if err != nil {
		t.Fatal(err)
	}
	tg.c.UpdateIssue(ctx, pid(p), is.IID, &sourcehost.UpdateIssueRequest{StateEvent: sourcehost.StateEventClose})
	tg.c.CreateFile(ctx, pid(p), "a.txt", &sourcehost.CreateFileRequest{Branch: p.DefaultBranch, Content: "a", CommitMessage: "Add a"})

	// Deliveries are sent in the background, in order per hook: wait for
	// them (the fake knows when they are done; no sleeping).
	if err := srv.WaitDeliveries(ctx); err != nil {
		t.Fatal(err)
	}
	events, errs := rc.got()
	if len(errs) > 0 {
		t.Fatalf("receiver errors: %v", errs)
	}
	if len(events) != 3 {
		t.Fatalf("got %d events: %#v", len(events), events)
	}
	open, ok := events[0].(*sourcehost.IssueEvent)
	if !ok || open.ObjectAttributes.Action != "open" || open.ObjectAttributes.IID != is.IID || open.Project.ID != p.ID ||
		open.User.Username != sourcehostfake.RootUsername || len(open.Labels) != 1 || open.Labels[0].Title != "x" {
		t.Fatalf("open event %#v", events[0])
	}
	if cl, ok := events[1].(*sourcehost.IssueEvent); !ok || cl.ObjectAttributes.Action != "close" || cl.ObjectAttributes.State != "closed" {
		t.Fatalf("close event %#v", events[1])
	}
	push, ok := events[2].(*sourcehost.PushEvent)
	if !ok || push.Ref != "refs/heads/"+p.DefaultBranch || len(push.Commits) != 1 || push.Commits[0].Added[0] != "a.txt" || push.TotalCommitsCount != 1 {
		t.Fatalf("push event %#v", events[2])
	}
	ds := srv.Deliveries()
	if len(ds) != 3 || !ds[0].OK() || ds[0].Event != sourcehost.IssueHookEvent || ds[0].Status != 200 || ds[0].HookID != h.ID {
		t.Fatalf("deliveries %+v", ds)
	}
}

func TestHookDeliveryFailuresAreVisible(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	p := tg.project(t, sourcehost.Private)
	rc := newReceiver(t, "right")
	if _, err := tg.c.AddProjectHook(ctx, pid(p), &sourcehost.AddProjectHookRequest{URL: rc.srv.URL, IssuesEvents: sourcehost.Ptr(true), Token: "wrong"}); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.CreateIssue(ctx, pid(p), &sourcehost.CreateIssueRequest{Title: "t"}); err != nil {
		t.Fatal(err)
	}
	if err := srv.WaitDeliveries(ctx); err != nil {
		t.Fatal(err)
	}
	_, errs := rc.got()
	if len(errs) != 1 || !errors.Is(errs[0], sourcehost.ErrHookToken) {
		t.Fatalf("receiver errors %v", errs)
	}
	ds := srv.Deliveries()
	if len(ds) != 1 || ds[0].OK() || ds[0].Status != 401 || ds[0].State != sourcehostfake.DeliveryFailed || ds[0].Duration <= 0 {
		t.Fatalf("deliveries %+v", ds)
	}
}

func TestHookManagement(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p := tg.project(t, sourcehost.Private)
	h, err := tg.c.AddProjectHook(ctx, pid(p), &sourcehost.AddProjectHookRequest{URL: "https://hooks.example.com/x", PushEvents: sourcehost.Ptr(false)})
	if err != nil || h.PushEvents {
		t.Fatalf("%+v %v", h, err)
	}
	got, err := tg.c.GetProjectHook(ctx, pid(p), h.ID)
	if err != nil || got.ID != h.ID {
		t.Fatalf("%+v %v", got, err)
	}
	list, err := tg.c.ListProjectHooks(ctx, pid(p), nil)
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("%+v %v", list, err)
	}
	edited, err := tg.c.EditProjectHook(ctx, pid(p), h.ID, &sourcehost.EditProjectHookRequest{URL: "https://hooks.example.com/y", PushEvents: sourcehost.Ptr(true), IssuesEvents: sourcehost.Ptr(true)})
	if err != nil || edited.ID != h.ID || edited.URL != "https://hooks.example.com/y" || !edited.PushEvents || !edited.IssuesEvents {
		t.Fatalf("edited %+v %v", edited, err)
	}
	if got, err := tg.c.GetProjectHook(ctx, pid(p), h.ID); err != nil || got.URL != edited.URL || !got.IssuesEvents {
		t.Fatalf("after the edit %+v %v", got, err)
	}
	if _, err := tg.c.EditProjectHook(ctx, pid(p), h.ID, &sourcehost.EditProjectHookRequest{URL: "ftp://x/"}); err == nil {
		t.Fatal("ftp URL accepted by the client")
	}
	if _, err := tg.c.EditProjectHook(ctx, pid(p), h.ID, nil); err == nil {
		t.Fatal("a nil edit accepted by the client")
	}
	if _, err := tg.c.EditProjectHook(ctx, pid(p), h.ID+1000, &sourcehost.EditProjectHookRequest{PushEvents: sourcehost.Ptr(false)}); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("editing a missing hook: %v", err)
	}
	if err := tg.c.DeleteProjectHook(ctx, pid(p), h.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.GetProjectHook(ctx, pid(p), h.ID); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("deleted hook: %v", err)
	}
	if _, err := tg.c.AddProjectHook(ctx, pid(p), &sourcehost.AddProjectHookRequest{URL: "ftp://x/"}); err == nil {
		t.Fatal("ftp URL accepted by the client")
	}
}

func TestHookURLRefusedByServer(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	p := tg.project(t, sourcehost.Private)
	resp, err := postRaw(srv.URL()+"/api/v4/projects/"+itoa(p.ID)+"/hooks", srv.Token(), "application/x-www-form-urlencoded", "url=ftp%3A%2F%2Fh%2F")
	if err != nil || resp.status != http.StatusUnprocessableEntity {
		t.Fatalf("%+v %v", resp, err)
	}
}
