package sourcehost_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/apitwin/apitwin/sourcehost"
)

func TestMilestonesAndWhatTheyHold(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p := tg.project(t, sourcehost.Private)
	due := sourcehost.Date{Time: time.Date(2031, 3, 31, 0, 0, 0, 0, time.UTC)}
	start := sourcehost.Date{Time: time.Date(2031, 3, 1, 0, 0, 0, 0, time.UTC)}
	m1, err := tg.c.CreateMilestone(ctx, pid(p), &sourcehost.CreateMilestoneRequest{Title: "v1.0", Description: "first", DueDate: &due, StartDate: &start})
	if err != nil || m1.Title != "v1.0" || m1.State != sourcehost.MilestoneActive || m1.IID != 1 || m1.DueDate == nil || !m1.DueDate.Equal(due.Time) || m1.Expired {
		t.Fatalf("created %+v %v", m1, err)
	}
	m2, err := tg.c.CreateMilestone(ctx, pid(p), &sourcehost.CreateMilestoneRequest{Title: "v2.0"})
	if err != nil || m2.IID != 2 {
		t.Fatalf("second %+v %v", m2, err)
	}
	if _, err := tg.c.CreateMilestone(ctx, pid(p), &sourcehost.CreateMilestoneRequest{Title: "v1.0"}); !errors.Is(err, sourcehost.ErrBadRequest) {
		t.Fatalf("a title twice: %v", err)
	}

	is, err := tg.c.CreateIssue(ctx, pid(p), &sourcehost.CreateIssueRequest{Title: "Ship", MilestoneID: &m1.ID})
	if err != nil || is.Milestone == nil || is.Milestone.ID != m1.ID {
		t.Fatalf("issue with a milestone: %+v %v", is, err)
	}
	other, err := tg.c.CreateIssue(ctx, pid(p), &sourcehost.CreateIssueRequest{Title: "Later"})
	if err != nil || other.Milestone != nil {
		t.Fatalf("issue without: %+v %v", other, err)
	}
	iids := func(opts *sourcehost.ListIssuesOptions) []int64 {
		t.Helper()
		page, err := tg.c.ListIssues(ctx, pid(p), opts)
		if err != nil {
			t.Fatal(err)
		}
		var out []int64
		for _, is := range page.Items {
			out = append(out, is.IID)
		}
		return out
	}
	if got := iids(&sourcehost.ListIssuesOptions{Milestone: "v1.0"}); !slices.Equal(got, []int64{is.IID}) {
		t.Fatalf("issues of v1.0: %v", got)
	}
	if got := iids(&sourcehost.ListIssuesOptions{Milestone: "None"}); !slices.Equal(got, []int64{other.IID}) {
		t.Fatalf("issues of no milestone: %v", got)
	}
	if page, err := tg.c.ListMilestoneIssues(ctx, pid(p), m1.ID, nil); err != nil || len(page.Items) != 1 {
		t.Fatalf("milestone's issues: %+v %v", page, err)
	}
	// Moving the issue to another milestone, then removing it.
	if got, err := tg.c.UpdateIssue(ctx, pid(p), is.IID, &sourcehost.UpdateIssueRequest{MilestoneID: &m2.ID}); err != nil || got.Milestone == nil || got.Milestone.Title != "v2.0" {
		t.Fatalf("moved: %+v %v", got, err)
	}
	if got, err := tg.c.UpdateIssue(ctx, pid(p), is.IID, &sourcehost.UpdateIssueRequest{MilestoneID: sourcehost.Ptr[int64](0)}); err != nil || got.Milestone != nil {
		t.Fatalf("removed: %+v %v", got, err)
	}

	closed, err := tg.c.UpdateMilestone(ctx, pid(p), m2.ID, &sourcehost.UpdateMilestoneRequest{StateEvent: sourcehost.MilestoneClose, Description: sourcehost.Ptr("done")})
	if err != nil || closed.State != sourcehost.MilestoneClosed || closed.Description != "done" {
		t.Fatalf("closed %+v %v", closed, err)
	}
	var titles []string
	for m, err := range tg.c.AllMilestones(ctx, pid(p), &sourcehost.ListMilestonesOptions{State: sourcehost.MilestoneActive}) {
		if err != nil {
			t.Fatal(err)
		}
		titles = append(titles, m.Title)
	}
	if !slices.Equal(titles, []string{"v1.0"}) {
		t.Fatalf("active milestones %q", titles)
	}
	if err := tg.c.DeleteMilestone(ctx, pid(p), m1.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.GetMilestone(ctx, pid(p), m1.ID); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("deleted milestone: %v", err)
	}
}

func TestMilestoneRefusalsAndMergeRequests(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	p := tg.project(t, sourcehost.Private)
	m, err := tg.c.CreateMilestone(ctx, pid(p), &sourcehost.CreateMilestoneRequest{Title: "Sprint 1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.CreateBranch(ctx, pid(p), "feature", "main"); err != nil {
		t.Fatal(err)
	}
	mr, err := tg.c.CreateMergeRequest(ctx, pid(p), &sourcehost.CreateMergeRequestRequest{SourceBranch: "feature", TargetBranch: "main", Title: "F", MilestoneID: &m.ID, Labels: sourcehost.Labels{"ready"}})
	if err != nil || mr.Milestone == nil || mr.Milestone.Title != "Sprint 1" {
		t.Fatalf("merge request %+v %v", mr, err)
	}
	for _, opts := range []*sourcehost.ListMergeRequestsOptions{{Milestone: "Sprint 1"}, {Milestone: "Any"}, {Labels: []string{"ready"}}} {
		if page, err := tg.c.ListMergeRequests(ctx, pid(p), opts); err != nil || len(page.Items) != 1 {
			t.Fatalf("%+v: %+v %v", opts, page, err)
		}
	}
	if page, err := tg.c.ListMergeRequests(ctx, pid(p), &sourcehost.ListMergeRequestsOptions{Milestone: "None"}); err != nil || len(page.Items) != 0 {
		t.Fatalf("no milestone: %+v %v", page, err)
	}
	if page, err := tg.c.ListMilestoneMergeRequests(ctx, pid(p), m.ID, nil); err != nil || len(page.Items) != 1 {
		t.Fatalf("milestone's merge requests: %+v %v", page, err)
	}
	base := srv.URL() + "/api/v4/projects/" + itoa(p.ID) + "/milestones"
	for _, tc := range []struct {
		method, url, body string
		status            int
		want              string
	}{
		{"POST", base, `{}`, 400, `{"error":"title is missing"}`},
		{"POST", base, `{"title":"Sprint 1"}`, 400, `{"message":{"title":["already being used for another group or project milestone."]}}`},
		{"POST", base, `{"title":"x","due_date":"soon"}`, 400, `{"error":"due_date is invalid"}`},
		{"POST", base, `{"title":"x","start_date":"2030-02-01","due_date":"2030-01-01"}`, 400, `{"message":{"due_date":["must be greater than start date"]}}`},
		{"GET", base + "/999", ``, 404, `{"message":"404 Milestone Not Found"}`},
		{"PUT", base + "/" + itoa(m.ID), `{"state_event":"finish"}`, 400, `{"error":"state_event does not have a valid value"}`},
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
