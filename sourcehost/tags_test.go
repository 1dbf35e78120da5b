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
	if rel, err = tg.c.UpdateRelease(ctx, pid(p), "v1.10.0", &sourcehost.UpdateReleaseRequest{Description: sourcehost.Ptr("Much faster checkout")}); err != nil || rel.Description != "Much faster checkout" {
		t.Fatalf("updated %+v %v", rel, err)
	}
	if got, err := tg.c.GetRelease(ctx, pid(p), "v1.10.0"); err != nil || got.Description != "Much faster checkout" {
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
