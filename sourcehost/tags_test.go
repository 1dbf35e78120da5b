package sourcehost_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/apitwin/apitwin/sourcehost"
)

func TestBranchesAndProtection(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p := tg.project(t, sourcehost.Private)
	if _, err := tg.c.CreateBranch(ctx, pid(p), "feature/cart", p.DefaultBranch); err != nil {
		t.Fatal(err)
	}
	b, err := tg.c.GetBranch(ctx, pid(p), "feature/cart")
	if err != nil || b.Name != "feature/cart" || b.Commit == nil || b.Protected || b.Default {
		t.Fatalf("get %+v %v", b, err)
	}
	def, err := tg.c.GetBranch(ctx, pid(p), p.DefaultBranch)
	if err != nil || !def.Protected || !def.Default {
		t.Fatalf("default branch %+v %v", def, err)
	}
	var names []string
	for b, err := range tg.c.AllBranches(ctx, pid(p), &sourcehost.ListBranchesOptions{ListOptions: sourcehost.ListOptions{PerPage: 1}}) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, b.Name)
	}
	if !slices.Equal(names, []string{"feature/cart", p.DefaultBranch}) {
		t.Fatalf("branches %q", names)
	}
	if err := tg.c.DeleteBranch(ctx, pid(p), p.DefaultBranch); !errors.Is(err, sourcehost.ErrMethodNotAllowed) {
		t.Fatalf("deleting the default branch: %v", err)
	}
	pb, err := tg.c.ProtectBranch(ctx, pid(p), &sourcehost.ProtectBranchRequest{Name: "feature/*", PushAccessLevel: sourcehost.Ptr(sourcehost.MaintainerAccess)})
	if err != nil || pb.Name != "feature/*" || len(pb.PushAccessLevels) != 1 || pb.PushAccessLevels[0].AccessLevel != sourcehost.MaintainerAccess {
		t.Fatalf("protect %+v %v", pb, err)
	}
	if _, err := tg.c.ProtectBranch(ctx, pid(p), &sourcehost.ProtectBranchRequest{Name: "feature/*"}); !errors.Is(err, sourcehost.ErrConflict) {
		t.Fatalf("protected twice: %v", err)
	}
	if err := tg.c.DeleteBranch(ctx, pid(p), "feature/cart"); !errors.Is(err, sourcehost.ErrMethodNotAllowed) {
		t.Fatalf("deleting a protected branch: %v", err)
	}
	if err := tg.c.UnprotectBranch(ctx, pid(p), "feature/*"); err != nil {
		t.Fatal(err)
	}
	if err := tg.c.DeleteBranch(ctx, pid(p), "feature/cart"); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.GetBranch(ctx, pid(p), "feature/cart"); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("deleted branch: %v", err)
	}
}

func TestProtectedBranchRefusesDevelopersPush(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	as, ids := users(t, srv, "devi")
	p := tg.project(t, sourcehost.Private)
	if _, err := tg.c.AddProjectMember(ctx, pid(p), &sourcehost.AddProjectMemberRequest{UserID: ids["devi"], AccessLevel: sourcehost.DeveloperAccess}); err != nil {
		t.Fatal(err)
	}
	_, err := as["devi"].CreateFile(ctx, pid(p), "x.txt", &sourcehost.CreateFileRequest{Branch: p.DefaultBranch, Content: "x", CommitMessage: "x"})
	var e *sourcehost.Error
	if !errors.As(err, &e) || e.StatusCode != 403 || e.Message != "403 Forbidden - You are not allowed to push into this branch" {
		t.Fatalf("a developer pushes to the protected default branch: %v", err)
	}
	// On a branch of her own she may.
	if _, err := as["devi"].CreateFile(ctx, pid(p), "x.txt", &sourcehost.CreateFileRequest{Branch: "devi", StartBranch: p.DefaultBranch, Content: "x", CommitMessage: "x"}); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.ProtectBranch(ctx, pid(p), &sourcehost.ProtectBranchRequest{Name: "devi", MergeAccessLevel: sourcehost.Ptr(sourcehost.NoAccess)}); err != nil {
		t.Fatal(err)
	}
	if _, err := as["devi"].CreateFile(ctx, pid(p), "y.txt", &sourcehost.CreateFileRequest{Branch: "devi", Content: "y", CommitMessage: "y"}); !errors.Is(err, sourcehost.ErrForbidden) {
		t.Fatalf("push to a branch protected since: %v", err)
	}
	list, err := tg.c.ListProtectedBranches(ctx, pid(p), nil)
	if err != nil || len(list.Items) != 2 {
		t.Fatalf("protected branches %+v %v", list, err)
	}
	if _, err := as["devi"].ListProtectedBranches(ctx, pid(p), nil); !errors.Is(err, sourcehost.ErrForbidden) {
		t.Fatalf("a developer lists protected branches: %v", err)
	}
	got, err := tg.c.GetProtectedBranch(ctx, pid(p), "devi")
	if err != nil || got.MergeAccessLevels[0].AccessLevel != sourcehost.NoAccess {
		t.Fatalf("get protected %+v %v", got, err)
	}
}

func TestTagsAndReleases(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p := tg.project(t, sourcehost.Private)
	light, err := tg.c.CreateTag(ctx, pid(p), &sourcehost.CreateTagRequest{TagName: "v1.9.0", Ref: p.DefaultBranch})
	if err != nil || light.Name != "v1.9.0" || light.Message != "" || light.Commit == nil || light.Target != light.Commit.ID || light.Release != nil {
		t.Fatalf("lightweight tag %+v %v", light, err)
	}
	annotated, err := tg.c.CreateTag(ctx, pid(p), &sourcehost.CreateTagRequest{TagName: "v1.10.0", Ref: "v1.9.0", Message: "Release 1.10"})
	if err != nil || annotated.Message != "Release 1.10" || annotated.Commit.ID != light.Commit.ID {
		t.Fatalf("annotated tag %+v %v", annotated, err)
	}
	if _, err := tg.c.CreateTag(ctx, pid(p), &sourcehost.CreateTagRequest{TagName: "v1.9.0", Ref: p.DefaultBranch}); !errors.Is(err, sourcehost.ErrBadRequest) {
		t.Fatalf("a tag twice: %v", err)
	}
	if _, err := tg.c.CreateTag(ctx, pid(p), &sourcehost.CreateTagRequest{TagName: "v0", Ref: "no-such-ref"}); !errors.Is(err, sourcehost.ErrBadRequest) {
		t.Fatalf("a tag on nothing: %v", err)
	}
	var byVersion []string
	for tag, err := range tg.c.AllTags(ctx, pid(p), &sourcehost.ListTagsOptions{OrderBy: "version", Sort: "asc"}) {
		if err != nil {
			t.Fatal(err)
		}
		byVersion = append(byVersion, tag.Name)
	}
	if !slices.Equal(byVersion, []string{"v1.9.0", "v1.10.0"}) {
		t.Fatalf("tags by version %q", byVersion)
	}
	// A release of a tag that exists, and one that makes its tag.
	rel, err := tg.c.CreateRelease(ctx, pid(p), &sourcehost.CreateReleaseRequest{TagName: "v1.10.0", Name: "Ten", Description: "Faster checkout"})
	if err != nil || rel.TagName != "v1.10.0" || rel.Name != "Ten" || rel.Commit == nil || rel.Author == nil || rel.Assets.Count == 0 {
		t.Fatalf("release %+v %v", rel, err)
	}
	if _, err := tg.c.CreateRelease(ctx, pid(p), &sourcehost.CreateReleaseRequest{TagName: "v1.10.0"}); !errors.Is(err, sourcehost.ErrConflict) {
		t.Fatalf("a release twice: %v", err)
	}
	if _, err := tg.c.CreateRelease(ctx, pid(p), &sourcehost.CreateReleaseRequest{TagName: "v2.0.0"}); !errors.Is(err, sourcehost.ErrUnprocessable) {
		t.Fatalf("a release of no tag without a ref: %v", err)
	}
	if r2, err := tg.c.CreateRelease(ctx, pid(p), &sourcehost.CreateReleaseRequest{TagName: "v2.0.0", Ref: p.DefaultBranch}); err != nil || r2.Name != "v2.0.0" {
		t.Fatalf("release making its tag: %+v %v", r2, err)
	}
	if tag, err := tg.c.GetTag(ctx, pid(p), "v2.0.0"); err != nil || tag.Release == nil || tag.Release.TagName != "v2.0.0" {
		t.Fatalf("the tag the release made: %+v %v", tag, err)
	}
	m, err := tg.c.CreateMilestone(ctx, pid(p), &sourcehost.CreateMilestoneRequest{Title: "M10"})
	if err != nil {
		t.Fatal(err)
	}
	if rel, err = tg.c.UpdateRelease(ctx, pid(p), "v1.10.0", &sourcehost.UpdateReleaseRequest{Description: sourcehost.Ptr("Much faster checkout"), Milestones: &[]string{"M10"}}); err != nil ||
		rel.Description != "Much faster checkout" || len(rel.Milestones) != 1 || rel.Milestones[0].Title != "M10" {
		t.Fatalf("updated %+v %v", rel, err)
	}
	// A deleted milestone leaves the releases that named it.
	if err := tg.c.DeleteMilestone(ctx, pid(p), m.ID); err != nil {
		t.Fatal(err)
	}
	if got, err := tg.c.GetRelease(ctx, pid(p), "v1.10.0"); err != nil || got.Description != "Much faster checkout" || len(got.Milestones) != 0 {
		t.Fatalf("get %+v %v", got, err)
	}
	page, err := tg.c.ListReleases(ctx, pid(p), nil)
	if err != nil || len(page.Items) != 2 {
		t.Fatalf("releases %+v %v", page, err)
	}
	if gone, err := tg.c.DeleteRelease(ctx, pid(p), "v1.10.0"); err != nil || gone.TagName != "v1.10.0" {
		t.Fatalf("deleted %+v %v", gone, err)
	}
	if _, err := tg.c.GetTag(ctx, pid(p), "v1.10.0"); err != nil {
		t.Fatalf("the tag outlives its release: %v", err)
	}
	// Deleting a tag takes its release with it.
	if err := tg.c.DeleteTag(ctx, pid(p), "v2.0.0"); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.GetRelease(ctx, pid(p), "v2.0.0"); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("release of a deleted tag: %v", err)
	}
	if _, err := tg.c.GetTag(ctx, pid(p), "v2.0.0"); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("deleted tag: %v", err)
	}
}

func TestRepositoryRefusalShapes(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	p := tg.project(t, sourcehost.Private)
	base := srv.URL() + "/api/v4/projects/" + itoa(p.ID)
	for _, tc := range []struct {
		method, url, body string
		status            int
		want              string
	}{
		{"POST", base + "/repository/tags", `{"ref":"main"}`, 400, `{"error":"tag_name is missing"}`},
		{"POST", base + "/repository/tags", `{"tag_name":"a..b","ref":"main"}`, 400, `{"message":"Tag name invalid"}`},
		{"POST", base + "/repository/tags", `{"tag_name":"v1","ref":"nope"}`, 400, `{"message":"Target nope is invalid"}`},
		{"POST", base + "/repository/tags", `{"tag_name":"v1","ref":"main"}`, 201, ``},
		{"POST", base + "/repository/tags", `{"tag_name":"v1","ref":"main"}`, 400, `{"message":"Tag v1 already exists"}`},
		{"GET", base + "/repository/tags/v9", ``, 404, `{"message":"404 Tag Not Found"}`},
		{"POST", base + "/releases", `{"tag_name":"v2"}`, 422, `{"message":"Ref is not specified"}`},
		{"POST", base + "/releases", `{"tag_name":"v1","milestones":["none"]}`, 400, `{"error":"milestones is invalid: Milestone none does not exist"}`},
		{"POST", base + "/releases", `{"tag_name":"v1"}`, 201, ``},
		{"POST", base + "/releases", `{"tag_name":"v1"}`, 409, `{"message":"Release already exists"}`},
		{"PUT", base + "/releases/v1", `{}`, 400, `{"error":"name, description, released_at, milestones are missing, at least one parameter must be provided"}`},
		{"GET", base + "/releases/v9", ``, 404, `{"message":"404 Not Found"}`},
		{"GET", base + "/repository/branches/nope", ``, 404, `{"message":"404 Branch Not Found"}`},
		{"DELETE", base + "/repository/branches/main", ``, 405, `{"message":"Cannot remove HEAD branch"}`},
		{"POST", base + "/protected_branches", `{"name":"main"}`, 409, `{"message":"Protected branch 'main' already exists"}`},
		{"POST", base + "/protected_branches", `{"name":"x","push_access_level":25}`, 400, `{"error":"push_access_level does not have a valid value"}`},
		{"DELETE", base + "/protected_branches/nope", ``, 404, `{"message":"404 Not found"}`},
		{"PUT", base + "/repository/files/nope.txt", `{"branch":"main","content":"x","commit_message":"m"}`, 400, `{"message":"A file with this name doesn't exist"}`},
		{"PUT", base + "/repository/files/README.md", `{"branch":"main","content":"x","commit_message":"m","last_commit_id":"0123456"}`, 409, `{"message":"You are attempting to update a file that has changed since you started editing it."}`},
		{"GET", base + "/repository/commits?since=yesterday", ``, 400, `{"error":"since is invalid"}`},
		{"GET", base + "/jobs/1", ``, 404, `{"message":"404 Not found"}`},
		{"GET", base + "/jobs?scope[]=bogus", ``, 400, `{"error":"scope does not have a valid value"}`},
	} {
		resp, err := doRaw(tc.method, tc.url, srv.Token(), "application/json", tc.body)
		if err != nil {
			t.Fatal(err)
		}
		if resp.status != tc.status || tc.want != "" && resp.body != tc.want {
			t.Errorf("%s %s %s: %d %s, want %d %s", tc.method, tc.url, tc.body, resp.status, resp.body, tc.status, tc.want)
		}
	}
}

// A branch protected with "No one" (access level 0) takes no push and no
// merge from anyone, the administrator too, as the real service checks
// "No one" before it lets an administrator through.
func TestNoOneMayPushOrMergeToABranchProtectedSo(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p := tg.project(t, sourcehost.Private)
	for _, b := range []string{"frozen", "feature"} {
		if _, err := tg.c.CreateBranch(ctx, pid(p), b, p.DefaultBranch); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tg.c.ProtectBranch(ctx, pid(p), &sourcehost.ProtectBranchRequest{Name: "frozen",
		PushAccessLevel: sourcehost.Ptr(sourcehost.NoAccess), MergeAccessLevel: sourcehost.Ptr(sourcehost.NoAccess)}); err != nil {
		t.Fatal(err)
	}
	_, err := tg.c.CreateFile(ctx, pid(p), "x.txt", &sourcehost.CreateFileRequest{Branch: "frozen", Content: "x", CommitMessage: "x"})
	var e *sourcehost.Error
	if !errors.As(err, &e) || e.StatusCode != 403 || e.Message != "403 Forbidden - You are not allowed to push into this branch" {
		t.Fatalf("the administrator pushes to a branch no one may push to: %v", err)
	}
	if _, err := tg.c.CreateFile(ctx, pid(p), "x.txt", &sourcehost.CreateFileRequest{Branch: "feature", Content: "x", CommitMessage: "x"}); err != nil {
		t.Fatal(err)
	}
	mr, err := tg.c.CreateMergeRequest(ctx, pid(p), &sourcehost.CreateMergeRequestRequest{SourceBranch: "feature", TargetBranch: "frozen", Title: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.AcceptMergeRequest(ctx, pid(p), mr.IID, nil); err == nil {
		t.Fatal("the administrator merges into a branch no one may merge to")
	}
}
