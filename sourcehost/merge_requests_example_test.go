package sourcehost_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

func ExampleClient_RebaseMergeRequest() {
	srv := startFake()
	defer srv.Close()
	ctx := context.Background()
	c := srv.Client()
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Files: map[string]string{"README.md": "# Shop\n"},
		Branches: []sourcehostfake.BranchSeed{{Name: "feature", Files: map[string]string{"pay.go": "package pay\n"}}}})
	project := sourcehost.ProjectID(id)
	mr, _ := c.CreateMergeRequest(ctx, project, &sourcehost.CreateMergeRequestRequest{SourceBranch: "feature", TargetBranch: "main", Title: "Pay"})
	// main moves on after the branch was made.
	c.CreateFile(ctx, project, "CHANGELOG.md", &sourcehost.CreateFileRequest{Branch: "main", Content: "# Changes\n", CommitMessage: "Add a changelog"})

	started, err := c.RebaseMergeRequest(ctx, project, mr.IID, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println("in progress:", started.RebaseInProgress)
	// GitLab rebases in the background: ask until it is over.
	st, _ := c.GetMergeRequestRebase(ctx, project, mr.IID)
	fmt.Printf("in progress: %v, error: %q\n", st.RebaseInProgress, st.MergeError)
	raw, _ := c.GetRawFile(ctx, project, "CHANGELOG.md", "feature")
	fmt.Print(string(raw))
	// Output:
	// in progress: true
	// in progress: false, error: ""
	// # Changes
}

// exampleMergeRequest is a project "shop" whose branch "feature" changes
// pay.go, with a merge request of it into main, for the examples.
func exampleMergeRequest(srv *sourcehostfake.Server) (sourcehost.ProjectID, *sourcehost.MergeRequest) {
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Files: map[string]string{"pay.go": "package pay\n\nconst fee = 1\n"},
		Branches: []sourcehostfake.BranchSeed{{Name: "feature", Files: map[string]string{"pay.go": "package pay\n\nconst fee = 2\n"}}}})
	project := sourcehost.ProjectID(id)
	mr, err := srv.Client().CreateMergeRequest(context.Background(), project, &sourcehost.CreateMergeRequestRequest{
		SourceBranch: "feature", TargetBranch: "main", Title: "Raise the fee"})
	if err != nil {
		panic(err)
	}
	return project, mr
}

func ExampleClient_GetMergeRequestChanges() {
	srv := startFake()
	defer srv.Close()
	ctx := context.Background()
	project, mr := exampleMergeRequest(srv)

	changes, err := srv.Client().GetMergeRequestChanges(ctx, project, mr.IID)
	if err != nil {
		panic(err)
	}
	fmt.Println(changes.ChangesCount, "file:", changes.Changes[0].NewPath)
	for _, line := range strings.SplitAfter(changes.Changes[0].Diff, "\n") {
		fmt.Printf("%q\n", line) // quoted: the diff's context lines start with a space
	}
	// The same diffs a page at a time.
	page, _ := srv.Client().ListMergeRequestDiffs(ctx, project, mr.IID, &sourcehost.ListOptions{PerPage: 20})
	fmt.Println(len(page.Items), "diff on the page")
	// Output:
	// 1 file: pay.go
	// "@@ -1,3 +1,3 @@\n"
	// " package pay\n"
	// " \n"
	// "-const fee = 1\n"
	// "+const fee = 2\n"
	// ""
	// 1 diff on the page
}

func ExampleClient_ApproveMergeRequest() {
	srv := startFake()
	defer srv.Close()
	ctx := context.Background()
	project, mr := exampleMergeRequest(srv)
	c := srv.Client()

	if _, err := c.ApproveMergeRequest(ctx, project, mr.IID, &sourcehost.ApproveMergeRequestRequest{SHA: mr.SHA}); err != nil {
		panic(err)
	}
	st, _ := c.GetMergeRequestApprovals(ctx, project, mr.IID)
	fmt.Println("approved:", st.Approved, "by", st.ApprovedBy[0].User.Username)
	// Approving twice is GitLab's 304.
	_, err := c.ApproveMergeRequest(ctx, project, mr.IID, nil)
	fmt.Println(errors.Is(err, sourcehost.ErrNotModified))
	// Output:
	// approved: true by root
	// true
}

func ExampleClient_CreateMergeRequestDiscussion() {
	srv := startFake()
	defer srv.Close()
	ctx := context.Background()
	project, mr := exampleMergeRequest(srv)
	c := srv.Client()

	thread, err := c.CreateMergeRequestDiscussion(ctx, project, mr.IID, "Why 2?")
	if err != nil {
		panic(err)
	}
	c.AddMergeRequestDiscussionNote(ctx, project, mr.IID, thread.ID, "The provider's new rate.")
	done, _ := c.ResolveMergeRequestDiscussion(ctx, project, mr.IID, thread.ID, true)
	for _, n := range done.Notes {
		fmt.Println(n.Body)
	}
	fmt.Println("resolved:", done.Resolved())
	// Output:
	// Why 2?
	// The provider's new rate.
	// resolved: true
}
