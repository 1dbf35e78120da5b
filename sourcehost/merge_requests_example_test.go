package sourcehost_test

import (
	"context"
	"fmt"

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
