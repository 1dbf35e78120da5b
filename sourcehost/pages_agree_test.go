package sourcehost_test

import (
	"fmt"
	"iter"
	"slices"
	"strconv"
	"testing"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

// threeJobsCI makes a pipeline of three jobs, more than one page of two.
const threeJobsCI = "stages: [build, test]\n\nbuild:\n  stage: build\n  script: go build ./...\n\nunit:\n  stage: test\n  script: go test ./...\n\nlint:\n  stage: test\n  script: go vet ./...\n"

// Each list method and its iterator read the same collection: paging by
// hand with per_page 2 and letting the iterator page give the same items
// in the same order, at least as many as were made. A method whose path or
// query differs from its twin's fails here, where a test of one alone
// passes.
func TestListPagesAndIteratorAgree(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p := tg.project(t, sourcehost.Private)
	for i := range 3 {
		if _, err := tg.c.CreateLabel(ctx, pid(p), &sourcehost.CreateLabelRequest{Name: fmt.Sprintf("area-%d", i), Color: "#00aa00"}); err != nil {
			t.Fatal(err)
		}
		if _, err := tg.c.AddProjectHook(ctx, pid(p), &sourcehost.AddProjectHookRequest{URL: fmt.Sprintf("https://hooks.example.com/%d", i)}); err != nil {
			t.Fatal(err)
		}
		if _, err := tg.c.CreateRelease(ctx, pid(p), &sourcehost.CreateReleaseRequest{TagName: fmt.Sprintf("v1.%d.0", i), Ref: p.DefaultBranch}); err != nil {
			t.Fatal(err) // makes the tag too
		}
		branch := fmt.Sprintf("feature/%d", i) // feature/0 gets the three commits below
		if _, err := tg.c.CreateBranch(ctx, pid(p), branch, p.DefaultBranch); err != nil {
			t.Fatal(err)
		}
		if _, err := tg.c.CreateFile(ctx, pid(p), fmt.Sprintf("f%d.go", i), &sourcehost.CreateFileRequest{Branch: "feature/0", Content: "package f\n", CommitMessage: fmt.Sprintf("Add f%d", i)}); err != nil {
			t.Fatal(err)
		}
		if _, err := tg.c.CreateMergeRequest(ctx, pid(p), &sourcehost.CreateMergeRequestRequest{SourceBranch: branch, TargetBranch: p.DefaultBranch, Title: "Change " + branch}); err != nil {
			t.Fatal(err)
		}
	}
	const mr = 1 // feature/0's, which brings the three commits
	for i := range 3 {
		if _, err := tg.c.CreateMergeRequestNote(ctx, pid(p), mr, &sourcehost.CreateNoteRequest{Body: fmt.Sprintf("note %d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	page := func(n int) sourcehost.ListOptions { return sourcehost.ListOptions{Page: n, PerPage: 2} }

	agree(t, "labels", 3,
		func(n int) (*sourcehost.Page[sourcehost.Label], error) {
			return tg.c.ListLabels(ctx, pid(p), &sourcehost.ListLabelsOptions{ListOptions: page(n)})
		},
		tg.c.AllLabels(ctx, pid(p), &sourcehost.ListLabelsOptions{ListOptions: page(0)}),
		func(l *sourcehost.Label) string { return l.Name })
	agree(t, "hooks", 3,
		func(n int) (*sourcehost.Page[sourcehost.ProjectHook], error) {
			o := page(n)
			return tg.c.ListProjectHooks(ctx, pid(p), &o)
		},
		tg.c.AllProjectHooks(ctx, pid(p), &sourcehost.ListOptions{PerPage: 2}),
		func(h *sourcehost.ProjectHook) string { return h.URL })
	agree(t, "tags", 3,
		func(n int) (*sourcehost.Page[sourcehost.Tag], error) {
			return tg.c.ListTags(ctx, pid(p), &sourcehost.ListTagsOptions{ListOptions: page(n)})
		},
		tg.c.AllTags(ctx, pid(p), &sourcehost.ListTagsOptions{ListOptions: page(0)}),
		func(tag *sourcehost.Tag) string { return tag.Name })
	agree(t, "releases", 3,
		func(n int) (*sourcehost.Page[sourcehost.Release], error) {
			return tg.c.ListReleases(ctx, pid(p), &sourcehost.ListReleasesOptions{ListOptions: page(n)})
		},
		tg.c.AllReleases(ctx, pid(p), &sourcehost.ListReleasesOptions{ListOptions: page(0)}),
		func(r *sourcehost.Release) string { return r.TagName })
	agree(t, "merge requests", 3,
		func(n int) (*sourcehost.Page[sourcehost.MergeRequest], error) {
			return tg.c.ListMergeRequests(ctx, pid(p), &sourcehost.ListMergeRequestsOptions{ListOptions: page(n)})
		},
		tg.c.AllMergeRequests(ctx, pid(p), &sourcehost.ListMergeRequestsOptions{ListOptions: page(0)}),
		func(m *sourcehost.MergeRequest) string { return strconv.FormatInt(m.IID, 10) + " " + m.Title })
	agree(t, "merge request commits", 3,
		func(n int) (*sourcehost.Page[sourcehost.Commit], error) {
			o := page(n)
			return tg.c.ListMergeRequestCommits(ctx, pid(p), mr, &o)
		},
		tg.c.AllMergeRequestCommits(ctx, pid(p), mr, &sourcehost.ListOptions{PerPage: 2}),
		func(c *sourcehost.Commit) string { return c.ID })
	agree(t, "merge request notes", 3,
		func(n int) (*sourcehost.Page[sourcehost.Note], error) {
			return tg.c.ListMergeRequestNotes(ctx, pid(p), mr, &sourcehost.ListNotesOptions{ListOptions: page(n)})
		},
		tg.c.AllMergeRequestNotes(ctx, pid(p), mr, &sourcehost.ListNotesOptions{ListOptions: page(0)}),
		func(n *sourcehost.Note) string { return strconv.FormatInt(n.ID, 10) })

	got, err := tg.c.GetMergeRequest(ctx, pid(p), mr)
	if err != nil || got.IID != mr || got.SourceBranch != "feature/0" {
		t.Fatalf("merge request %d: %+v %v", mr, got, err)
	}

	if tg.fake == nil {
		return // jobs need a runner, and members a second user: the fake's controls
	}
	srv := tg.fake
	if _, err := srv.PushFile(p.ID, p.DefaultBranch, sourcehostfake.CIFile, threeJobsCI, "Add CI"); err != nil {
		t.Fatal(err)
	}
	pls, err := tg.c.ListPipelines(ctx, pid(p), nil)
	if err != nil || len(pls.Items) != 1 {
		t.Fatalf("pipelines %+v %v", pls, err)
	}
	pl := pls.Items[0].ID
	agree(t, "pipeline jobs", 3,
		func(n int) (*sourcehost.Page[sourcehost.Job], error) {
			return tg.c.ListPipelineJobs(ctx, pid(p), pl, &sourcehost.ListJobsOptions{ListOptions: page(n)})
		},
		tg.c.AllPipelineJobs(ctx, pid(p), pl, &sourcehost.ListJobsOptions{ListOptions: page(0)}),
		func(j *sourcehost.Job) string { return strconv.FormatInt(j.ID, 10) + " " + j.Name })
	agree(t, "project jobs", 3,
		func(n int) (*sourcehost.Page[sourcehost.Job], error) {
			return tg.c.ListJobs(ctx, pid(p), &sourcehost.ListJobsOptions{ListOptions: page(n)})
		},
		tg.c.AllJobs(ctx, pid(p), &sourcehost.ListJobsOptions{ListOptions: page(0)}),
		func(j *sourcehost.Job) string { return strconv.FormatInt(j.ID, 10) + " " + j.Name })

	_, ids := users(t, srv, "ana", "ben")
	for _, name := range []string{"ana", "ben"} {
		if _, err := tg.c.AddProjectMember(ctx, pid(p), &sourcehost.AddProjectMemberRequest{UserID: ids[name], AccessLevel: sourcehost.DeveloperAccess}); err != nil {
			t.Fatal(err)
		}
	}
	agree(t, "members with inherited ones", 3,
		func(n int) (*sourcehost.Page[sourcehost.ProjectMember], error) {
			return tg.c.ListAllProjectMembers(ctx, pid(p), &sourcehost.ListProjectMembersOptions{ListOptions: page(n)})
		},
		tg.c.AllProjectMembersInherited(ctx, pid(p), &sourcehost.ListProjectMembersOptions{ListOptions: page(0)}),
		func(m *sourcehost.ProjectMember) string { return m.Username })
}

// agree checks that list, paged by hand from page 1 while each answer
// names a next page, and all give the same keys in the same order, at
// least `least` of them, in pages of at most two.
func agree[T any](t *testing.T, name string, least int, list func(page int) (*sourcehost.Page[T], error), all iter.Seq2[*T, error], key func(*T) string) {
	t.Helper()
	var paged []string
	for n, pages := 1, 0; n != 0; pages++ {
		pg, err := list(n)
		if err != nil {
			t.Fatalf("%s, page %d: %v", name, n, err)
		}
		if len(pg.Items) > 2 || pg.Page != n || pages > 100 {
			t.Fatalf("%s, page %d: %d items, page %d", name, n, len(pg.Items), pg.Page)
		}
		for _, it := range pg.Items {
			paged = append(paged, key(it))
		}
		n = pg.NextPage
	}
	var walked []string
	for it, err := range all {
		if err != nil {
			t.Fatalf("%s, iterating: %v", name, err)
		}
		walked = append(walked, key(it))
	}
	if len(paged) < least || !slices.Equal(paged, walked) {
		t.Errorf("%s: paged %q, iterated %q (want at least %d)", name, paged, walked, least)
	}
}
