package sourcehost_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
	"github.com/google/go-cmp/cmp"
)

// TestKeysetProjectJobs: a project's jobs under keyset pagination come
// newest first, by id, each page linking to the next by a cursor, with no
// page numbers; the iterator follows the links and sees every job once.
func TestKeysetProjectJobs(t *testing.T) {
	t.Parallel()
	tg := newTarget(t, sourcehostfake.WithPipelineTiming(5*time.Second, time.Minute))
	srv := tg.needFake(t)
	p := tg.ciProject(t) // one pipeline of two jobs
	for range 5 {
		if _, err := tg.c.TriggerPipeline(ctx, pid(p), &sourcehost.TriggerPipelineRequest{Ref: p.DefaultBranch}); err != nil {
			t.Fatal(err)
		}
	}
	// A retried job of the first pipeline is newer than the later
	// pipelines' jobs: keyset goes by id.
	srv.Clock().Advance(time.Minute + 5*time.Second)
	first, err := tg.c.ListPipelines(ctx, pid(p), &sourcehost.ListPipelinesOptions{Sort: "asc"})
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := tg.c.ListPipelineJobs(ctx, pid(p), first.Items[0].ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.RetryJob(ctx, pid(p), jobs.Items[0].ID); err != nil {
		t.Fatal(err)
	}

	srv.ResetRequests()
	keyset := sourcehost.ListOptions{Pagination: sourcehost.Keyset, PerPage: 5}
	var ids []int64
	for j, err := range tg.c.AllJobs(ctx, pid(p), &sourcehost.ListJobsOptions{ListOptions: keyset}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, j.ID)
	}
	if len(ids) != 13 {
		t.Fatalf("%d jobs, want 13", len(ids))
	}
	want := slices.Clone(ids)
	slices.Sort(want)
	slices.Reverse(want)
	if d := cmp.Diff(want, ids); d != "" {
		t.Fatalf("not newest first by id (-want +got):\n%s", d)
	}
	reqs := srv.RequestsTo("GET /api/v4/projects/{id}/jobs")
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3 pages", len(reqs))
	}
	for i, r := range reqs {
		if r.Query.Get("page") != "" || r.Query.Get("pagination") != "keyset" || (i > 0) != (r.Query.Get("cursor") != "") {
			t.Errorf("request %d: %v", i, r.Query)
		}
	}
	page, err := tg.c.ListJobs(ctx, pid(p), &sourcehost.ListJobsOptions{ListOptions: keyset})
	if err != nil || page.NextLink == "" || page.Page != 0 || page.Total != -1 || page.NextPage != 0 {
		t.Fatalf("a keyset page's info %+v %v", page.PageInfo, err)
	}
}

// TestKeysetProjectJobsRefusals: keyset pagination walks jobs by id,
// newest first, only (405, as the real service answers), and a cursor
// it did not write is 400.
func TestKeysetProjectJobsRefusals(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p := tg.ciProject(t)
	for _, q := range []map[string][]string{
		{"pagination": {"keyset"}, "order_by": {"name"}},
		{"pagination": {"keyset"}, "sort": {"asc"}},
	} {
		err := tg.c.Do(ctx, "GET", "/projects/"+itoa(p.ID)+"/jobs", q, nil, nil)
		var e *sourcehost.Error
		if !errors.Is(err, sourcehost.ErrMethodNotAllowed) || !errors.As(err, &e) || e.Message != "Keyset pagination is not yet available for this type of request" {
			t.Errorf("%v: %v", q, err)
		}
	}
	err := tg.c.Do(ctx, "GET", "/projects/"+itoa(p.ID)+"/jobs", map[string][]string{"pagination": {"keyset"}, "cursor": {"not-a-cursor"}}, nil, nil)
	if !errors.Is(err, sourcehost.ErrBadRequest) {
		t.Errorf("a bad cursor: %v", err)
	}
}
