package gitlabcompat_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/internal/fakekit"
)

// gitlabClient is the published GitLab Go client pointed at srv as root.
func gitlabClient(t *testing.T, srv *sourcehostfake.Server) *gitlab.Client {
	t.Helper()
	gl, err := gitlab.NewClient(srv.Token(), gitlab.WithBaseURL(srv.URL()+"/api/v4"), gitlab.WithoutRetries(), gitlab.WithHTTPClient(srv.RawClient()))
	if err != nil {
		t.Fatal(err)
	}
	return gl
}

func TestGitLabClientCurrentUser(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	gl := gitlabClient(t, srv)
	u, _, err := gl.Users.CurrentUser()
	if err != nil || u.Username != "root" || !u.IsAdmin {
		t.Fatalf("current user %+v %v", u, err)
	}
}

func TestGitLabClientProjectMembers(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	gl := gitlabClient(t, srv)
	uid, err := srv.AddUser(sourcehostfake.UserSeed{Username: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	pid, err := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := gl.ProjectMembers.AddProjectMember(pid, &gitlab.AddProjectMemberOptions{UserID: uid, AccessLevel: gitlab.Ptr(gitlab.DeveloperPermissions)})
	if err != nil || m.Username != "alice" || m.AccessLevel != gitlab.DeveloperPermissions || m.CreatedAt == nil {
		t.Fatalf("add %+v %v", m, err)
	}
	_, resp, err := gl.ProjectMembers.AddProjectMember(pid, &gitlab.AddProjectMemberOptions{UserID: uid, AccessLevel: gitlab.Ptr(gitlab.DeveloperPermissions)})
	if err == nil || resp.StatusCode != 409 {
		t.Fatalf("added twice: %v", err)
	}
	m, _, err = gl.ProjectMembers.EditProjectMember(pid, uid, &gitlab.EditProjectMemberOptions{AccessLevel: gitlab.Ptr(gitlab.MaintainerPermissions), ExpiresAt: gitlab.Ptr("2030-01-31")})
	if err != nil || m.AccessLevel != gitlab.MaintainerPermissions || m.ExpiresAt == nil || m.ExpiresAt.String() != "2030-01-31" {
		t.Fatalf("edit %+v %v", m, err)
	}
	list, resp, err := gl.ProjectMembers.ListProjectMembers(pid, &gitlab.ListProjectMembersOptions{})
	if err != nil || len(list) != 2 || resp.TotalItems != 2 {
		t.Fatalf("list %+v %v", list, err)
	}
	all, _, err := gl.ProjectMembers.ListAllProjectMembers(pid, nil)
	if err != nil || len(all) != 2 {
		t.Fatalf("all %+v %v", all, err)
	}
	if m, _, err = gl.ProjectMembers.GetProjectMember(pid, uid); err != nil || m.ID != uid {
		t.Fatalf("get %+v %v", m, err)
	}
	if m, _, err = gl.ProjectMembers.GetInheritedProjectMember(pid, uid); err != nil || m.ID != uid {
		t.Fatalf("get inherited %+v %v", m, err)
	}
	if _, err := gl.ProjectMembers.DeleteProjectMember(pid, uid); err != nil {
		t.Fatal(err)
	}
	if _, resp, err := gl.ProjectMembers.GetProjectMember(pid, uid); err == nil || resp.StatusCode != 404 {
		t.Fatalf("deleted member: %v", err)
	}
}

func TestGitLabClientNotes(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	gl := gitlabClient(t, srv)
	pid, err := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Files: map[string]string{"a.txt": "a"},
		Branches:      []sourcehostfake.BranchSeed{{Name: "feature", Files: map[string]string{"b.txt": "b"}}},
		Issues:        []sourcehostfake.IssueSeed{{Title: "bug"}},
		MergeRequests: []sourcehostfake.MergeRequestSeed{{Title: "B", SourceBranch: "feature"}}})
	if err != nil {
		t.Fatal(err)
	}
	n, _, err := gl.Notes.CreateIssueNote(pid, 1, &gitlab.CreateIssueNoteOptions{Body: gitlab.Ptr("first"), Internal: gitlab.Ptr(true)})
	if err != nil || n.Body != "first" || !n.Internal || n.NoteableType != "Issue" || n.Author.Username != "root" || n.CreatedAt == nil {
		t.Fatalf("create %+v %v", n, err)
	}
	if n, _, err = gl.Notes.UpdateIssueNote(pid, 1, n.ID, &gitlab.UpdateIssueNoteOptions{Body: gitlab.Ptr("edited")}); err != nil || n.Body != "edited" {
		t.Fatalf("update %+v %v", n, err)
	}
	if n, _, err = gl.Notes.GetIssueNote(pid, 1, n.ID); err != nil || n.Body != "edited" {
		t.Fatalf("get %+v %v", n, err)
	}
	if _, _, err := gl.Issues.UpdateIssue(pid, 1, &gitlab.UpdateIssueOptions{StateEvent: gitlab.Ptr("close")}); err != nil {
		t.Fatal(err)
	}
	notes, resp, err := gl.Notes.ListIssueNotes(pid, 1, &gitlab.ListIssueNotesOptions{Sort: gitlab.Ptr("asc")})
	if err != nil || len(notes) != 2 || resp.TotalItems != 2 || notes[1].Body != "closed" || !notes[1].System {
		t.Fatalf("list %+v %v", notes, err)
	}
	if _, err := gl.Notes.DeleteIssueNote(pid, 1, n.ID); err != nil {
		t.Fatal(err)
	}

	mn, _, err := gl.Notes.CreateMergeRequestNote(pid, 1, &gitlab.CreateMergeRequestNoteOptions{Body: gitlab.Ptr("LGTM")})
	if err != nil || mn.NoteableType != "MergeRequest" || mn.NoteableIID != 1 {
		t.Fatalf("create MR note %+v %v", mn, err)
	}
	if mn, _, err = gl.Notes.UpdateMergeRequestNote(pid, 1, mn.ID, &gitlab.UpdateMergeRequestNoteOptions{Body: gitlab.Ptr("LGTM!")}); err != nil || mn.Body != "LGTM!" {
		t.Fatalf("update MR note %+v %v", mn, err)
	}
	if _, _, err := gl.MergeRequests.AcceptMergeRequest(pid, 1, nil); err != nil {
		t.Fatal(err)
	}
	mnotes, _, err := gl.Notes.ListMergeRequestNotes(pid, 1, nil)
	if err != nil || len(mnotes) != 2 || mnotes[0].Body != "merged" || !mnotes[0].System {
		t.Fatalf("MR notes %+v %v", mnotes, err)
	}
	if back := srv.MergeRequestNotes(pid, 1); len(back) != 2 || back[1].Body != "merged" {
		t.Fatalf("read back %+v", back)
	}
	if _, _, err := gl.Notes.GetMergeRequestNote(pid, 1, mn.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := gl.Notes.DeleteMergeRequestNote(pid, 1, mn.ID); err != nil {
		t.Fatal(err)
	}
}

func TestGitLabClientLabelsAndMilestones(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	gl := gitlabClient(t, srv)
	pid, err := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Files: map[string]string{"a.txt": "a"},
		Branches: []sourcehostfake.BranchSeed{{Name: "feature"}}})
	if err != nil {
		t.Fatal(err)
	}
	l, _, err := gl.Labels.CreateLabel(pid, &gitlab.CreateLabelOptions{Name: gitlab.Ptr("bug"), Color: gitlab.Ptr("#d9534f"), Description: gitlab.Ptr("broken"), Priority: gitlab.Ptr[int64](2)})
	if err != nil || l.Name != "bug" || l.Color != "#d9534f" || l.Description != "broken" || l.Priority != 2 || !l.IsProjectLabel {
		t.Fatalf("create label %+v %v", l, err)
	}
	if _, resp, err := gl.Labels.CreateLabel(pid, &gitlab.CreateLabelOptions{Name: gitlab.Ptr("bug"), Color: gitlab.Ptr("#000")}); err == nil || resp.StatusCode != 409 {
		t.Fatalf("label twice: %v", err)
	}
	if l, _, err = gl.Labels.UpdateLabel(pid, "bug", &gitlab.UpdateLabelOptions{NewName: gitlab.Ptr("defect"), Color: gitlab.Ptr("#ff0000")}); err != nil || l.Name != "defect" {
		t.Fatalf("update label %+v %v", l, err)
	}
	if l, _, err = gl.Labels.GetLabel(pid, l.ID); err != nil || l.Name != "defect" {
		t.Fatalf("get label %+v %v", l, err)
	}
	due := gitlab.ISOTime(time.Date(2031, 1, 31, 0, 0, 0, 0, time.UTC))
	m, _, err := gl.Milestones.CreateMilestone(pid, &gitlab.CreateMilestoneOptions{Title: gitlab.Ptr("v1"), DueDate: &due})
	if err != nil || m.Title != "v1" || m.State != "active" || m.DueDate == nil || m.DueDate.String() != "2031-01-31" {
		t.Fatalf("create milestone %+v %v", m, err)
	}
	is, _, err := gl.Issues.CreateIssue(pid, &gitlab.CreateIssueOptions{Title: gitlab.Ptr("x"), Labels: &gitlab.LabelOptions{"defect", "new"}, MilestoneID: &m.ID})
	if err != nil || is.Milestone == nil || is.Milestone.ID != m.ID || len(is.Labels) != 2 {
		t.Fatalf("issue %+v %v", is, err)
	}
	mr, _, err := gl.MergeRequests.CreateMergeRequest(pid, &gitlab.CreateMergeRequestOptions{Title: gitlab.Ptr("F"), SourceBranch: gitlab.Ptr("feature"), TargetBranch: gitlab.Ptr("main"), MilestoneID: &m.ID, Labels: &gitlab.LabelOptions{"defect"}})
	if err != nil || mr.Milestone == nil || mr.Milestone.Title != "v1" {
		t.Fatalf("merge request %+v %v", mr, err)
	}
	issues, _, err := gl.Issues.ListProjectIssues(pid, &gitlab.ListProjectIssuesOptions{Milestone: gitlab.Ptr("v1"), Labels: &gitlab.LabelOptions{"defect"}})
	if err != nil || len(issues) != 1 {
		t.Fatalf("issues by milestone and label %+v %v", issues, err)
	}
	mrs, _, err := gl.MergeRequests.ListProjectMergeRequests(pid, &gitlab.ListProjectMergeRequestsOptions{Milestone: gitlab.Ptr("v1")})
	if err != nil || len(mrs) != 1 {
		t.Fatalf("merge requests by milestone %+v %v", mrs, err)
	}
	labels, _, err := gl.Labels.ListLabels(pid, &gitlab.ListLabelsOptions{WithCounts: gitlab.Ptr(true)})
	if err != nil || len(labels) != 2 || labels[0].Name != "defect" || labels[0].OpenIssuesCount != 1 || labels[0].OpenMergeRequestsCount != 1 {
		t.Fatalf("labels %+v %v", labels, err)
	}
	if m, _, err = gl.Milestones.UpdateMilestone(pid, m.ID, &gitlab.UpdateMilestoneOptions{StateEvent: gitlab.Ptr("close")}); err != nil || m.State != "closed" {
		t.Fatalf("close milestone %+v %v", m, err)
	}
	if ms, _, err := gl.Milestones.ListMilestones(pid, &gitlab.ListMilestonesOptions{State: gitlab.Ptr("closed")}); err != nil || len(ms) != 1 {
		t.Fatalf("milestones %+v %v", ms, err)
	}
	if got, _, err := gl.Milestones.GetMilestone(pid, m.ID); err != nil || got.ID != m.ID {
		t.Fatalf("get milestone %+v %v", got, err)
	}
	if got, _, err := gl.Milestones.GetMilestoneIssues(pid, m.ID, nil); err != nil || len(got) != 1 {
		t.Fatalf("milestone issues %+v %v", got, err)
	}
	if got, _, err := gl.Milestones.GetMilestoneMergeRequests(pid, m.ID, nil); err != nil || len(got) != 1 {
		t.Fatalf("milestone merge requests %+v %v", got, err)
	}
	if _, err := gl.Milestones.DeleteMilestone(pid, m.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := gl.Labels.DeleteLabel(pid, "defect", nil); err != nil {
		t.Fatal(err)
	}
}

func TestGitLabClientBranchesTagsReleases(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	gl := gitlabClient(t, srv)
	pid, err := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Files: map[string]string{"a.txt": "a"}})
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := gl.Branches.CreateBranch(pid, &gitlab.CreateBranchOptions{Branch: gitlab.Ptr("release/1"), Ref: gitlab.Ptr("main")})
	if err != nil || b.Name != "release/1" || b.Commit == nil {
		t.Fatalf("create branch %+v %v", b, err)
	}
	if b, _, err = gl.Branches.GetBranch(pid, "release/1"); err != nil || b.Protected {
		t.Fatalf("get branch %+v %v", b, err)
	}
	pb, _, err := gl.ProtectedBranches.ProtectRepositoryBranches(pid, &gitlab.ProtectRepositoryBranchesOptions{Name: gitlab.Ptr("release/*"), PushAccessLevel: gitlab.Ptr(gitlab.NoPermissions)})
	if err != nil || pb.Name != "release/*" || len(pb.PushAccessLevels) != 1 || pb.PushAccessLevels[0].AccessLevel != gitlab.NoPermissions {
		t.Fatalf("protect %+v %v", pb, err)
	}
	if resp, err := gl.Branches.DeleteBranch(pid, "release/1"); err == nil || resp.StatusCode != 405 {
		t.Fatalf("delete protected branch: %v", err)
	}
	if list, _, err := gl.ProtectedBranches.ListProtectedBranches(pid, nil); err != nil || len(list) != 2 {
		t.Fatalf("protected branches %+v %v", list, err)
	}
	if got, _, err := gl.ProtectedBranches.GetProtectedBranch(pid, "release/*"); err != nil || got.ID != pb.ID {
		t.Fatalf("get protected %+v %v", got, err)
	}
	if _, err := gl.ProtectedBranches.UnprotectRepositoryBranches(pid, "release/*"); err != nil {
		t.Fatal(err)
	}
	if _, err := gl.Branches.DeleteBranch(pid, "release/1"); err != nil {
		t.Fatal(err)
	}
	if branches, _, err := gl.Branches.ListBranches(pid, nil); err != nil || len(branches) != 1 || !branches[0].Default {
		t.Fatalf("branches %+v %v", branches, err)
	}

	tag, _, err := gl.Tags.CreateTag(pid, &gitlab.CreateTagOptions{TagName: gitlab.Ptr("v1.0.0"), Ref: gitlab.Ptr("main"), Message: gitlab.Ptr("one")})
	if err != nil || tag.Name != "v1.0.0" || tag.Message != "one" || tag.Commit == nil || tag.CreatedAt == nil {
		t.Fatalf("create tag %+v %v", tag, err)
	}
	rel, _, err := gl.Releases.CreateRelease(pid, &gitlab.CreateReleaseOptions{TagName: gitlab.Ptr("v1.0.0"), Name: gitlab.Ptr("One"), Description: gitlab.Ptr("first")})
	if err != nil || rel.TagName != "v1.0.0" || rel.Name != "One" || rel.Commit.ID != tag.Commit.ID || rel.Author.Username != "root" {
		t.Fatalf("create release %+v %v", rel, err)
	}
	if rel, _, err = gl.Releases.UpdateRelease(pid, "v1.0.0", &gitlab.UpdateReleaseOptions{Description: gitlab.Ptr("the first")}); err != nil || rel.Description != "the first" {
		t.Fatalf("update release %+v %v", rel, err)
	}
	if rels, _, err := gl.Releases.ListReleases(pid, nil); err != nil || len(rels) != 1 {
		t.Fatalf("releases %+v %v", rels, err)
	}
	if tag, _, err = gl.Tags.GetTag(pid, "v1.0.0"); err != nil || tag.Release == nil || tag.Release.Description != "the first" {
		t.Fatalf("tag with release %+v %v", tag, err)
	}
	if tags, _, err := gl.Tags.ListTags(pid, nil); err != nil || len(tags) != 1 {
		t.Fatalf("tags %+v %v", tags, err)
	}
	if got, _, err := gl.Releases.GetRelease(pid, "v1.0.0"); err != nil || got.Description != "the first" {
		t.Fatalf("get release %+v %v", got, err)
	}
	if rel, _, err = gl.Releases.DeleteRelease(pid, "v1.0.0"); err != nil || rel.TagName != "v1.0.0" {
		t.Fatalf("delete release %+v %v", rel, err)
	}
	if _, err := gl.Tags.DeleteTag(pid, "v1.0.0"); err != nil {
		t.Fatal(err)
	}
}

func TestGitLabClientCommitsAndFiles(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	gl := gitlabClient(t, srv)
	pid, err := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Files: map[string]string{"src/a.go": "package a"},
		Branches:      []sourcehostfake.BranchSeed{{Name: "feature", Files: map[string]string{"src/b.go": "package b"}}},
		MergeRequests: []sourcehostfake.MergeRequestSeed{{Title: "B", SourceBranch: "feature"}}})
	if err != nil {
		t.Fatal(err)
	}
	f, _, err := gl.RepositoryFiles.GetFile(pid, "src/a.go", &gitlab.GetFileOptions{Ref: gitlab.Ptr("main")})
	if err != nil {
		t.Fatal(err)
	}
	info, _, err := gl.RepositoryFiles.UpdateFile(pid, "src/a.go", &gitlab.UpdateFileOptions{Branch: gitlab.Ptr("main"), Content: gitlab.Ptr("package a // v2"),
		CommitMessage: gitlab.Ptr("Edit a"), LastCommitID: gitlab.Ptr(f.LastCommitID)})
	if err != nil || info.FilePath != "src/a.go" || info.Branch != "main" {
		t.Fatalf("update %+v %v", info, err)
	}
	_, resp, err := gl.RepositoryFiles.UpdateFile(pid, "src/a.go", &gitlab.UpdateFileOptions{Branch: gitlab.Ptr("main"), Content: gitlab.Ptr("package a // v3"),
		CommitMessage: gitlab.Ptr("Edit a again"), LastCommitID: gitlab.Ptr(f.LastCommitID)})
	if err == nil || resp.StatusCode != 409 {
		t.Fatalf("stale update: %v", err)
	}
	commits, _, err := gl.Commits.ListCommits(pid, &gitlab.ListCommitsOptions{RefName: gitlab.Ptr("main"), Path: gitlab.Ptr("src/a.go")})
	if err != nil || len(commits) != 2 || commits[0].Title != "Edit a" {
		t.Fatalf("commits %+v %v", commits, err)
	}
	if cm, _, err := gl.Commits.GetCommit(pid, commits[0].ID, nil); err != nil || cm.ID != commits[0].ID {
		t.Fatalf("get commit %+v %v", cm, err)
	}
	mrCommits, _, err := gl.MergeRequests.GetMergeRequestCommits(pid, 1, nil)
	if err != nil || len(mrCommits) != 1 {
		t.Fatalf("merge request commits %+v %v", mrCommits, err)
	}
	tree, _, err := gl.Repositories.ListTree(pid, &gitlab.ListTreeOptions{Recursive: gitlab.Ptr(true)})
	if err != nil || len(tree) != 2 {
		t.Fatalf("tree %+v %v", tree, err)
	}
	if _, err := gl.RepositoryFiles.DeleteFile(pid, "src/a.go", &gitlab.DeleteFileOptions{Branch: gitlab.Ptr("main"), CommitMessage: gitlab.Ptr("Remove a")}); err != nil {
		t.Fatal(err)
	}
	if _, resp, err := gl.RepositoryFiles.GetFile(pid, "src/a.go", &gitlab.GetFileOptions{Ref: gitlab.Ptr("main")}); err == nil || resp.StatusCode != 404 {
		t.Fatalf("deleted file: %v", err)
	}
}

func TestGitLabClientJobs(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	gl := gitlabClient(t, srv)
	pid, err := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Files: map[string]string{sourcehostfake.CIFile: "test:\n  stage: test\n  script: go test\n"}})
	if err != nil {
		t.Fatal(err)
	}
	pls, _, err := gl.Pipelines.ListProjectPipelines(pid, nil)
	if err != nil || len(pls) != 1 {
		t.Fatalf("pipelines %+v %v", pls, err)
	}
	jobs, _, err := gl.Jobs.ListPipelineJobs(pid, pls[0].ID, nil)
	if err != nil || len(jobs) != 1 || jobs[0].Name != "test" || jobs[0].Status != "pending" || jobs[0].Pipeline.ID != pls[0].ID {
		t.Fatalf("jobs %+v %v", jobs, err)
	}
	srv.Clock().Advance(5 * time.Second)
	j, _, err := gl.Jobs.GetJob(pid, jobs[0].ID)
	if err != nil || j.Status != "running" || j.StartedAt == nil {
		t.Fatalf("job %+v %v", j, err)
	}
	trace, _, err := gl.Jobs.GetTraceFile(pid, j.ID)
	if err != nil || trace.Len() == 0 {
		t.Fatalf("trace %v", err)
	}
	if j, _, err = gl.Jobs.CancelJob(pid, j.ID); err != nil || j.Status != "canceled" {
		t.Fatalf("cancel %+v %v", j, err)
	}
	retried, _, err := gl.Jobs.RetryJob(pid, j.ID)
	if err != nil || retried.ID == j.ID || retried.Name != "test" {
		t.Fatalf("retry %+v %v", retried, err)
	}
	if all, _, err := gl.Jobs.ListProjectJobs(pid, &gitlab.ListJobsOptions{Scope: &[]gitlab.BuildStateValue{gitlab.Running}}); err != nil || len(all) != 1 || all[0].ID != retried.ID {
		t.Fatalf("running jobs %+v %v", all, err)
	}
}

// TestGitLabClientParsesTheFakesEvents: the GitLab client's own webhook
// parser reads the fake's note, tag push, release and job payloads.
func TestGitLabClientParsesTheFakesEvents(t *testing.T) {
	t.Parallel()
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})
	srv := sourcehostfake.Start(t, sourcehostfake.WithHookClient(&http.Client{Transport: fakekit.HandlerTransport{Handler: ok}}))
	gl := gitlabClient(t, srv)
	pid, err := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Files: map[string]string{"a.txt": "a"},
		Branches:      []sourcehostfake.BranchSeed{{Name: "feature", Files: map[string]string{"b.txt": "b"}}},
		Issues:        []sourcehostfake.IssueSeed{{Title: "bug"}},
		MergeRequests: []sourcehostfake.MergeRequestSeed{{Title: "B", SourceBranch: "feature"}},
		Hooks: []sourcehostfake.HookSeed{{URL: "http://receiver.test/hook", PushEvents: gitlab.Ptr(false), NoteEvents: true,
			TagPushEvents: true, ReleasesEvents: true, JobEvents: true}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := gl.Notes.CreateIssueNote(pid, 1, &gitlab.CreateIssueNoteOptions{Body: gitlab.Ptr("on the issue")}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gl.Notes.CreateMergeRequestNote(pid, 1, &gitlab.CreateMergeRequestNoteOptions{Body: gitlab.Ptr("on the MR")}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gl.Releases.CreateRelease(pid, &gitlab.CreateReleaseOptions{TagName: gitlab.Ptr("v1"), Ref: gitlab.Ptr("main")}); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.PushFile(pid, "main", sourcehostfake.CIFile, "test:\n  script: go test\n", "CI"); err != nil {
		t.Fatal(err)
	}
	srv.Clock().Advance(time.Hour)
	if err := srv.WaitDeliveries(t.Context()); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, d := range srv.Deliveries() {
		ev, err := gitlab.ParseWebhook(gitlab.EventType(d.Event), d.Payload)
		if err != nil {
			t.Fatalf("%s: %v", d.Event, err)
		}
		switch ev := ev.(type) {
		case *gitlab.IssueCommentEvent:
			if ev.Issue.IID != 1 || ev.ObjectAttributes.Note != "on the issue" || ev.ProjectID != pid {
				t.Errorf("issue note %+v", ev)
			}
		case *gitlab.MergeCommentEvent:
			if ev.MergeRequest.IID != 1 || ev.ObjectAttributes.Note != "on the MR" {
				t.Errorf("MR note %+v", ev)
			}
		case *gitlab.TagEvent:
			if ev.Ref != "refs/tags/v1" || ev.ProjectID != pid || ev.CheckoutSHA == "" {
				t.Errorf("tag push %+v", ev)
			}
		case *gitlab.ReleaseEvent:
			if ev.Tag != "v1" || ev.Action != "create" || ev.Project.ID != pid || ev.Commit.ID == "" {
				t.Errorf("release %+v", ev)
			}
		case *gitlab.JobEvent:
			if ev.BuildName != "test" || ev.ProjectID != pid || ev.PipelineID == 0 {
				t.Errorf("job %+v", ev)
			}
		}
		seen[fmt.Sprintf("%T", ev)]++
	}
	for _, kind := range []string{"*gitlab.IssueCommentEvent", "*gitlab.MergeCommentEvent", "*gitlab.TagEvent", "*gitlab.ReleaseEvent", "*gitlab.JobEvent"} {
		if seen[kind] == 0 {
			t.Errorf("no %s among %v", kind, seen)
		}
	}
}

// GitLab's application setting for hooks to the local network, read and
// changed with the client's Settings service, as any GitLab client would.
func TestGitLabClientLocalRequestsSetting(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	gl := gitlabClient(t, srv)
	pid, err := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	s, _, err := gl.Settings.GetSettings()
	if err != nil || !s.AllowLocalRequestsFromWebHooksAndServices {
		t.Fatalf("get %+v %v", s, err)
	}
	s, _, err = gl.Settings.UpdateSettings(&gitlab.UpdateSettingsOptions{AllowLocalRequestsFromWebHooksAndServices: gitlab.Ptr(false)})
	if err != nil || s.AllowLocalRequestsFromWebHooksAndServices || srv.AllowLocalRequests() {
		t.Fatalf("update %+v %v", s, err)
	}
	_, resp, err := gl.Projects.AddProjectHook(pid, &gitlab.AddProjectHookOptions{URL: gitlab.Ptr("http://127.0.0.1:9/hook")})
	if err == nil || resp.StatusCode != 422 || !strings.Contains(err.Error(), "Invalid url given") {
		t.Fatalf("a loopback hook with local requests off: %v", err)
	}
	_, resp, err = gl.Projects.AddProjectHook(pid, &gitlab.AddProjectHookOptions{URL: gitlab.Ptr("http://169.254.169.254/latest/meta-data/")})
	if err == nil || resp.StatusCode != 422 {
		t.Fatalf("a metadata hook: %v", err)
	}
}

// The published client's Version.GetVersion (GET /version was 404).
func TestGitLabClientVersion(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	gl := gitlabClient(t, srv)
	v, _, err := gl.Version.GetVersion()
	if err != nil || v.Version != sourcehostfake.APIVersion || v.Revision == "" {
		t.Fatalf("version %+v %v", v, err)
	}
}

// The published client's EditProjectHook (PUT /projects/:id/hooks/:hook_id).
func TestGitLabClientEditProjectHook(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	gl := gitlabClient(t, srv)
	pid, err := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	h, _, err := gl.Projects.AddProjectHook(pid, &gitlab.AddProjectHookOptions{URL: gitlab.Ptr("http://receiver.test/a"), PushEvents: gitlab.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	h, _, err = gl.Projects.EditProjectHook(pid, h.ID, &gitlab.EditProjectHookOptions{URL: gitlab.Ptr("http://receiver.test/b"), PushEvents: gitlab.Ptr(false), IssuesEvents: gitlab.Ptr(true)})
	if err != nil || h.URL != "http://receiver.test/b" || h.PushEvents || !h.IssuesEvents {
		t.Fatalf("edited %+v %v", h, err)
	}
}

func TestGitLabClientMergeRequestDiffsApprovalsCompare(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	gl := gitlabClient(t, srv)
	pid, err := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Files: map[string]string{"a.go": "package a\n"},
		Branches:      []sourcehostfake.BranchSeed{{Name: "feature", Files: map[string]string{"a.go": "package a\n\nfunc A() {}\n", "b.go": "package b\n"}}},
		MergeRequests: []sourcehostfake.MergeRequestSeed{{Title: "B", SourceBranch: "feature"}}})
	if err != nil {
		t.Fatal(err)
	}
	mr, _, err := gl.MergeRequests.GetMergeRequestChanges(pid, 1, nil)
	if err != nil || mr.ChangesCount != "2" || mr.Title != "B" {
		t.Fatalf("changes %+v %v", mr, err)
	}
	diffs, _, err := gl.MergeRequests.ListMergeRequestDiffs(pid, 1, nil)
	if err != nil || len(diffs) != 2 || diffs[0].NewPath != "a.go" || diffs[0].Diff != "@@ -1 +1,3 @@\n package a\n+\n+func A() {}\n" || !diffs[1].NewFile {
		t.Fatalf("diffs %+v %v", diffs, err)
	}
	a, _, err := gl.MergeRequestApprovals.ApproveMergeRequest(pid, 1, &gitlab.ApproveMergeRequestOptions{SHA: gitlab.Ptr(mr.SHA)})
	if err != nil || !a.Approved || len(a.ApprovedBy) != 1 || a.ApprovedBy[0].User.Username != "root" || !a.UserHasApproved {
		t.Fatalf("approve %+v %v", a, err)
	}
	if got, _, err := gl.MergeRequestApprovals.GetConfiguration(pid, 1); err != nil || !got.Approved {
		t.Fatalf("approvals %+v %v", got, err)
	}
	if _, err := gl.MergeRequestApprovals.UnapproveMergeRequest(pid, 1); err != nil {
		t.Fatal(err)
	}
	cmp, _, err := gl.Repositories.Compare(pid, &gitlab.CompareOptions{From: gitlab.Ptr("main"), To: gitlab.Ptr("feature")})
	if err != nil || len(cmp.Commits) != 1 || cmp.Commit.ID != cmp.Commits[0].ID || len(cmp.Diffs) != 2 {
		t.Fatalf("compare %+v %v", cmp, err)
	}
	f, _, err := gl.RepositoryFiles.GetFile(pid, "b.go", &gitlab.GetFileOptions{Ref: gitlab.Ptr("feature")})
	if err != nil {
		t.Fatal(err)
	}
	if raw, _, err := gl.Repositories.RawBlobContent(pid, f.BlobID); err != nil || string(raw) != "package b\n" {
		t.Fatalf("raw blob %q %v", raw, err)
	}
}

func TestGitLabClientSearch(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	gl := gitlabClient(t, srv)
	pid, err := srv.AddProject(sourcehostfake.ProjectSeed{Name: "needle-shop", Files: map[string]string{"a.txt": "hay\nneedle\nhay\n"},
		Issues: []sourcehostfake.IssueSeed{{Title: "A needle"}}})
	if err != nil {
		t.Fatal(err)
	}
	if ps, _, err := gl.Search.Projects("needle", &gitlab.SearchOptions{}); err != nil || len(ps) != 1 || ps[0].ID != pid {
		t.Fatalf("projects %+v %v", ps, err)
	}
	if is, _, err := gl.Search.IssuesByProject(pid, "NEEDLE", &gitlab.SearchOptions{}); err != nil || len(is) != 1 || is[0].Title != "A needle" {
		t.Fatalf("issues %+v %v", is, err)
	}
	bs, _, err := gl.Search.BlobsByProject(pid, "needle", &gitlab.SearchOptions{})
	if err != nil || len(bs) != 1 || bs[0].Path != "a.txt" || bs[0].Startline != 1 || bs[0].Data != "hay\nneedle\nhay\n" {
		t.Fatalf("blobs %+v %v", bs, err)
	}
	if cs, _, err := gl.Search.CommitsByProject(pid, "seed", &gitlab.SearchOptions{}); err != nil || len(cs) != 1 {
		t.Fatalf("commits %+v %v", cs, err)
	}
	if _, resp, err := gl.Search.NotesByProject(pid, "x", &gitlab.SearchOptions{}); err != nil || resp.StatusCode != 200 {
		t.Fatalf("notes %v", err)
	}
	gid, err := srv.AddGroup(sourcehostfake.GroupSeed{Path: "tools"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.AddProject(sourcehostfake.ProjectSeed{Name: "hammer", Group: "tools", Issues: []sourcehostfake.IssueSeed{{Title: "needle in tools"}}}); err != nil {
		t.Fatal(err)
	}
	if is, _, err := gl.Search.IssuesByGroup(gid, "needle", &gitlab.SearchOptions{}); err != nil || len(is) != 1 || is[0].Title != "needle in tools" {
		t.Fatalf("a group's issues %+v %v", is, err)
	}
	if _, resp, err := gl.Search.Commits("needle", &gitlab.SearchOptions{}); err == nil || resp.StatusCode != 400 {
		t.Fatalf("commits of the instance, an advanced search scope: %v", err)
	}
}

// The published client's project calls: edit, star and unstar, archive
// and unarchive, fork and list forks, transfer, delete (405 before).
func TestGitLabClientProjectLifecycle(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	gl := gitlabClient(t, srv)
	if _, err := srv.AddGroup(sourcehostfake.GroupSeed{Path: "platform"}); err != nil {
		t.Fatal(err)
	}
	pid, err := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Visibility: "internal", Files: map[string]string{"README.md": "# shop\n"}})
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := gl.Projects.EditProject(pid, &gitlab.EditProjectOptions{Description: gitlab.Ptr("the shop"), Topics: &[]string{"go"}})
	if err != nil || p.Description != "the shop" || len(p.Topics) != 1 {
		t.Fatalf("edit %+v %v", p, err)
	}
	if p, _, err = gl.Projects.StarProject(pid); err != nil || p.StarCount != 1 {
		t.Fatalf("star %+v %v", p, err)
	}
	if p, _, err = gl.Projects.UnstarProject(pid); err != nil || p.StarCount != 0 {
		t.Fatalf("unstar %+v %v", p, err)
	}
	if _, resp, err := gl.Projects.UnstarProject(pid); err == nil || resp.StatusCode != http.StatusNotModified {
		t.Fatalf("unstar twice: %v", err)
	}
	if p, _, err = gl.Projects.ArchiveProject(pid); err != nil || !p.Archived {
		t.Fatalf("archive %+v %v", p, err)
	}
	if _, resp, err := gl.Issues.CreateIssue(pid, &gitlab.CreateIssueOptions{Title: gitlab.Ptr("bug")}); err == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("an issue in an archived project: %v", err)
	}
	if p, _, err = gl.Projects.UnarchiveProject(pid); err != nil || p.Archived {
		t.Fatalf("unarchive %+v %v", p, err)
	}
	fork, _, err := gl.Projects.ForkProject(pid, &gitlab.ForkProjectOptions{NamespacePath: gitlab.Ptr("platform")})
	if err != nil || fork.ForkedFromProject == nil || fork.ForkedFromProject.ID != pid || fork.PathWithNamespace != "platform/shop" {
		t.Fatalf("fork %+v %v", fork, err)
	}
	forks, _, err := gl.Projects.ListProjectForks(pid, &gitlab.ListProjectsOptions{})
	if err != nil || len(forks) != 1 || forks[0].ID != fork.ID {
		t.Fatalf("forks %+v %v", forks, err)
	}
	if _, resp, err := gl.Projects.TransferProject(fork.ID, &gitlab.TransferProjectOptions{Namespace: "root"}); err == nil || resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("a fork moved beside its source, of the same path: %v", err)
	}
	if _, err := gl.Projects.DeleteProject(pid, nil); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, resp, err := gl.Projects.GetProject(pid, nil); err == nil || resp.StatusCode != http.StatusNotFound {
		t.Fatalf("a deleted project: %v", err)
	}
	moved, _, err := gl.Projects.TransferProject(fork.ID, &gitlab.TransferProjectOptions{Namespace: "root"})
	if err != nil || moved.PathWithNamespace != "root/shop" || moved.ForkedFromProject != nil {
		t.Fatalf("transfer %+v %v", moved, err)
	}
}

func TestGitLabClientMergeRequestDiscussions(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	gl := gitlabClient(t, srv)
	pid, err := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Files: map[string]string{"a.go": "package a\n"},
		Branches:      []sourcehostfake.BranchSeed{{Name: "feature", Files: map[string]string{"b.go": "package b\n"}}},
		MergeRequests: []sourcehostfake.MergeRequestSeed{{Title: "B", SourceBranch: "feature"}}})
	if err != nil {
		t.Fatal(err)
	}
	d, _, err := gl.Discussions.CreateMergeRequestDiscussion(pid, 1, &gitlab.CreateMergeRequestDiscussionOptions{Body: gitlab.Ptr("Why b?")})
	if err != nil || len(d.Notes) != 1 || d.Notes[0].Type != "DiscussionNote" || !d.Notes[0].Resolvable {
		t.Fatalf("thread %+v %v", d, err)
	}
	if n, _, err := gl.Discussions.AddMergeRequestDiscussionNote(pid, 1, d.ID, &gitlab.AddMergeRequestDiscussionNoteOptions{Body: gitlab.Ptr("Because")}); err != nil || n.Body != "Because" {
		t.Fatalf("reply %+v %v", n, err)
	}
	r, _, err := gl.Discussions.ResolveMergeRequestDiscussion(pid, 1, d.ID, &gitlab.ResolveMergeRequestDiscussionOptions{Resolved: gitlab.Ptr(true)})
	if err != nil || len(r.Notes) != 2 || !r.Notes[1].Resolved || r.Notes[1].ResolvedBy.Username != "root" {
		t.Fatalf("resolved %+v %v", r, err)
	}
	ds, _, err := gl.Discussions.ListMergeRequestDiscussions(pid, 1, nil)
	if err != nil || len(ds) == 0 || ds[len(ds)-1].ID != d.ID {
		t.Fatalf("threads %+v %v", ds, err)
	}
}
