package sourcehost_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

func TestCreateListUpdateIssues(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p := tg.project(t, sourcehost.Private)
	me, err := tg.c.CurrentUser(ctx)
	if err != nil {
		t.Fatal(err)
	}
	first, err := tg.c.CreateIssue(ctx, pid(p), &sourcehost.CreateIssueRequest{
		Title: "Checkout fails", Description: "500 on pay", Labels: sourcehost.Labels{"bug", "backend"}, AssigneeID: &me.ID,
	})
	if err != nil {
		t.Fatal(err)
	}
	if first.IID != 1 || first.State != sourcehost.StateOpened || !slices.Equal(first.Labels, []string{"bug", "backend"}) ||
		first.Assignee == nil || first.Assignee.ID != me.ID || first.Author.ID != me.ID || first.ProjectID != p.ID {
		t.Fatalf("created %+v", first)
	}
	second, err := tg.c.CreateIssue(ctx, pid(p), &sourcehost.CreateIssueRequest{Title: "Docs typo", Labels: sourcehost.Labels{"docs"}})
	if err != nil || second.IID != 2 {
		t.Fatalf("second issue %+v %v", second, err)
	}
	closed, err := tg.c.UpdateIssue(ctx, pid(p), second.IID, &sourcehost.UpdateIssueRequest{StateEvent: sourcehost.StateEventClose})
	if err != nil || closed.State != sourcehost.StateClosed || closed.ClosedAt == nil {
		t.Fatalf("closed %+v %v", closed, err)
	}

	list := func(opts *sourcehost.ListIssuesOptions) []int64 {
		t.Helper()
		var iids []int64
		for is, err := range tg.c.AllIssues(ctx, pid(p), opts) {
			if err != nil {
				t.Fatal(err)
			}
			iids = append(iids, is.IID)
		}
		return iids
	}
	for _, tc := range []struct {
		name string
		opts *sourcehost.ListIssuesOptions
		want []int64
	}{
		{"all, newest first", nil, []int64{2, 1}},
		{"opened", &sourcehost.ListIssuesOptions{State: sourcehost.StateOpened}, []int64{1}},
		{"closed", &sourcehost.ListIssuesOptions{State: sourcehost.StateClosed}, []int64{2}},
		{"labels", &sourcehost.ListIssuesOptions{Labels: []string{"bug", "backend"}}, []int64{1}},
		{"labels all must match", &sourcehost.ListIssuesOptions{Labels: []string{"bug", "docs"}}, nil},
		{"assignee", &sourcehost.ListIssuesOptions{AssigneeID: &me.ID}, []int64{1}},
		{"search", &sourcehost.ListIssuesOptions{Search: "typo"}, []int64{2}},
		{"oldest first", &sourcehost.ListIssuesOptions{Sort: "asc"}, []int64{1, 2}},
	} {
		if got := list(tc.opts); !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
	got, err := tg.c.GetIssue(ctx, pid(p), 1)
	if err != nil || got.Title != "Checkout fails" {
		t.Fatalf("get %+v %v", got, err)
	}
	if _, err := tg.c.GetIssue(ctx, pid(p), 99); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("missing issue: %v", err)
	}
}

func TestCreateIssueValidation(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	p := tg.project(t, sourcehost.Private)
	if _, err := tg.c.CreateIssue(ctx, pid(p), &sourcehost.CreateIssueRequest{Title: "  "}); err == nil {
		t.Fatal("blank title accepted by the client")
	}
	// The server says the same when the client's check is bypassed.
	resp, err := postRaw(srv.URL()+"/api/v4/projects/"+itoa(p.ID)+"/issues", srv.Token(), "application/json", `{"description":"no title"}`)
	if err != nil {
		t.Fatal(err)
	}
	if resp.status != 400 || resp.body != `{"error":"title is missing"}` {
		t.Fatalf("server answer %d %s", resp.status, resp.body)
	}
}

func TestListAllIssuesScope(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	if _, err := srv.AddUser(sourcehostfake.UserSeed{Username: "bob"}); err != nil {
		t.Fatal(err)
	}
	bobTok, _ := srv.IssueToken("bob", sourcehost.ScopeAPI)
	bob := srv.ClientWithToken(bobTok)
	pub, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "public-thing", Visibility: "public"})
	if _, err := tg.c.CreateIssue(ctx, sourcehost.ProjectID(pub), &sourcehost.CreateIssueRequest{Title: "by root"}); err != nil {
		t.Fatal(err)
	}
	if _, err := bob.CreateIssue(ctx, sourcehost.ProjectID(pub), &sourcehost.CreateIssueRequest{Title: "by bob"}); err != nil {
		t.Fatal(err)
	}
	mine, err := bob.ListAllIssues(ctx, nil)
	if err != nil || len(mine.Items) != 1 || mine.Items[0].Title != "by bob" {
		t.Fatalf("created_by_me: %+v %v", mine, err)
	}
	everything, err := bob.ListAllIssues(ctx, &sourcehost.ListIssuesOptions{Scope: "all"})
	if err != nil || len(everything.Items) != 2 {
		t.Fatalf("all: %+v %v", everything, err)
	}
}

func TestConfidentialIssuesHidden(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	srv.AddUser(sourcehostfake.UserSeed{Username: "eve"})
	eveTok, _ := srv.IssueToken("eve", sourcehost.ScopeAPI)
	pub, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "pub", Visibility: "public"})
	secret, err := tg.c.CreateIssue(ctx, sourcehost.ProjectID(pub), &sourcehost.CreateIssueRequest{Title: "vuln", Confidential: true})
	if err != nil {
		t.Fatal(err)
	}
	eve := srv.ClientWithToken(eveTok)
	page, err := eve.ListIssues(ctx, sourcehost.ProjectID(pub), nil)
	if err != nil || len(page.Items) != 0 {
		t.Fatalf("eve sees %+v %v", page, err)
	}
	if _, err := eve.GetIssue(ctx, sourcehost.ProjectID(pub), secret.IID); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("eve gets the confidential issue: %v", err)
	}
}
