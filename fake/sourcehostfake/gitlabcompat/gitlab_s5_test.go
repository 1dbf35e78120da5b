package gitlabcompat_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io"
	"strings"
	"testing"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
)

// TestGitLabClientTriggerWithAJobToken: the published client runs a
// pipeline with a running job's CI_JOB_TOKEN as the trigger token, as a
// job of a multi-project pipeline does; the new one's source is
// "pipeline".
func TestGitLabClientTriggerWithAJobToken(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	gl := gitlabClient(t, srv)
	pid, err := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := gl.RepositoryFiles.CreateFile(pid, sourcehostfake.CIFile, &gitlab.CreateFileOptions{Branch: gitlab.Ptr("main"),
		Content: gitlab.Ptr("test:\n  script: go test\n"), CommitMessage: gitlab.Ptr("CI")}); err != nil {
		t.Fatal(err)
	}
	srv.Clock().Advance(5 * time.Second) // the job runs
	jobs, _, err := gl.Jobs.ListProjectJobs(pid, nil)
	if err != nil || len(jobs) != 1 || jobs[0].Status != "running" {
		t.Fatalf("jobs %+v %v", jobs, err)
	}
	secret, err := srv.JobToken(pid, int64(jobs[0].ID))
	if err != nil {
		t.Fatal(err)
	}
	pl, _, err := gl.PipelineTriggers.RunPipelineTrigger(pid, &gitlab.RunPipelineTriggerOptions{Ref: gitlab.Ptr("main"), Token: gitlab.Ptr(secret)})
	if err != nil || pl.Source != "pipeline" || pl.User == nil || pl.User.Username != "root" {
		t.Fatalf("run with a job token %+v %v", pl, err)
	}
}

// TestGitLabClientRebaseMergeRequest: the published client rebases a
// merge request (202), then reads rebase_in_progress and merge_error with
// include_rebase_in_progress, as its users poll them.
func TestGitLabClientRebaseMergeRequest(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	gl := gitlabClient(t, srv)
	pid, err := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Files: map[string]string{"README.md": "# shop\n"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := gl.Branches.CreateBranch(pid, &gitlab.CreateBranchOptions{Branch: gitlab.Ptr("feature"), Ref: gitlab.Ptr("main")}); err != nil {
		t.Fatal(err)
	}
	for branch, file := range map[string]string{"feature": "feature.txt", "main": "main.txt"} {
		if _, _, err := gl.RepositoryFiles.CreateFile(pid, file, &gitlab.CreateFileOptions{Branch: gitlab.Ptr(branch),
			Content: gitlab.Ptr(branch + "\n"), CommitMessage: gitlab.Ptr("Add " + file)}); err != nil {
			t.Fatal(err)
		}
	}
	mr, _, err := gl.MergeRequests.CreateMergeRequest(pid, &gitlab.CreateMergeRequestOptions{Title: gitlab.Ptr("Feature"),
		SourceBranch: gitlab.Ptr("feature"), TargetBranch: gitlab.Ptr("main")})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := gl.MergeRequests.RebaseMergeRequest(pid, mr.IID, &gitlab.RebaseMergeRequestOptions{SkipCI: gitlab.Ptr(true)})
	if err != nil || resp.StatusCode != 202 {
		t.Fatalf("rebase %v %v", resp, err)
	}
	got, _, err := gl.MergeRequests.GetMergeRequest(pid, mr.IID, &gitlab.GetMergeRequestsOptions{IncludeRebaseInProgress: gitlab.Ptr(true)})
	if err != nil || got.RebaseInProgress || got.MergeError != "" {
		t.Fatalf("after the rebase %+v %v", got, err)
	}
	main, _, err := gl.Branches.GetBranch(pid, "main")
	if err != nil {
		t.Fatal(err)
	}
	head, _, err := gl.Commits.GetCommit(pid, got.SHA, nil)
	if err != nil || len(head.ParentIDs) != 1 || head.ParentIDs[0] != main.Commit.ID {
		t.Fatalf("the rebased head %+v %v", head, err)
	}
}

// TestGitLabClientArchive: the published client's Archive (format in the
// path) and StreamArchive get archives that the standard library opens.
func TestGitLabClientArchive(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	gl := gitlabClient(t, srv)
	pid, err := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Files: map[string]string{"README.md": "# shop\n", "src/pay.go": "package pay\n"}})
	if err != nil {
		t.Fatal(err)
	}
	b, resp, err := gl.Repositories.Archive(pid, &gitlab.ArchiveOptions{Format: gitlab.Ptr("zip"), Path: gitlab.Ptr("src")})
	if err != nil || !strings.Contains(resp.Header.Get("Content-Disposition"), ".zip") {
		t.Fatalf("archive %v %v", resp, err)
	}
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	if len(names) != 3 || !strings.HasSuffix(names[2], "-src/src/pay.go") {
		t.Fatalf("zip entries %q", names)
	}
	var buf bytes.Buffer
	if _, err := gl.Repositories.StreamArchive(pid, &buf, nil); err != nil {
		t.Fatal(err)
	}
	gz, err := gzip.NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	n := 0
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("%d files in the tar.gz", n)
	}
}

// TestGitLabClientDelayedDeletion: with a deletion adjourned period, the
// published client's DeleteProject marks the project, which shows
// marked_for_deletion_on; RestoreProject brings it back; DeleteProject
// with permanently_remove and the marked full path deletes it; groups the
// same.
func TestGitLabClientDelayedDeletion(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t, sourcehostfake.WithDeletionAdjournedPeriod(7*24*time.Hour))
	gl := gitlabClient(t, srv)
	p, _, err := gl.Projects.CreateProject(&gitlab.CreateProjectOptions{Name: gitlab.Ptr("shop")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gl.Projects.DeleteProject(p.ID, nil); err != nil {
		t.Fatal(err)
	}
	marked, _, err := gl.Projects.GetProject(p.ID, nil)
	if err != nil || marked.MarkedForDeletionOn == nil || !marked.Archived || !strings.Contains(marked.Path, "-deletion_scheduled-") {
		t.Fatalf("marked %+v %v", marked, err)
	}
	if back, _, err := gl.Projects.RestoreProject(p.ID); err != nil || back.Path != "shop" || back.MarkedForDeletionOn != nil {
		t.Fatalf("restored %+v %v", back, err)
	}
	if _, err := gl.Projects.DeleteProject(p.ID, &gitlab.DeleteProjectOptions{}); err != nil {
		t.Fatal(err)
	}
	marked, _, _ = gl.Projects.GetProject(p.ID, nil)
	if _, err := gl.Projects.DeleteProject(p.ID, &gitlab.DeleteProjectOptions{PermanentlyRemove: gitlab.Ptr(true),
		FullPath: gitlab.Ptr(marked.PathWithNamespace)}); err != nil {
		t.Fatal(err)
	}
	if _, resp, err := gl.Projects.GetProject(p.ID, nil); err == nil || resp.StatusCode != 404 {
		t.Fatalf("deleted permanently: %v", err)
	}

	g, _, err := gl.Groups.CreateGroup(&gitlab.CreateGroupOptions{Name: gitlab.Ptr("team"), Path: gitlab.Ptr("team")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gl.Groups.DeleteGroup(g.ID, nil); err != nil {
		t.Fatal(err)
	}
	if mg, _, err := gl.Groups.GetGroup(g.ID, nil); err != nil || mg.MarkedForDeletionOn == nil {
		t.Fatalf("marked group %+v %v", mg, err)
	}
	if back, _, err := gl.Groups.RestoreGroup(g.ID); err != nil || back.FullPath != "team" {
		t.Fatalf("restored group %+v %v", back, err)
	}
}
