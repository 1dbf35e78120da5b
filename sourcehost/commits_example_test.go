package sourcehost_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

func ExampleClient_UpdateFile() {
	srv := startFake()
	defer srv.Close()
	ctx := context.Background()
	c := srv.Client()
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Files: map[string]string{"VERSION": "1.0\n"}})
	project := sourcehost.ProjectID(id)

	f, err := c.GetFile(ctx, project, "VERSION", "main")
	if err != nil {
		panic(err)
	}
	// The edit names the commit it was based on...
	edit := &sourcehost.UpdateFileRequest{Branch: "main", Content: "1.1\n", CommitMessage: "Bump to 1.1", LastCommitID: f.LastCommitID}
	if _, err := c.UpdateFile(ctx, project, "VERSION", edit); err != nil {
		panic(err)
	}
	// ...so a second edit from the same read is refused: the file changed.
	edit.Content, edit.CommitMessage = "2.0\n", "Bump to 2.0"
	_, err = c.UpdateFile(ctx, project, "VERSION", edit)
	fmt.Println(errors.Is(err, sourcehost.ErrConflict))

	for cm, err := range c.AllCommits(ctx, project, &sourcehost.ListCommitsOptions{Path: "VERSION"}) {
		if err != nil {
			panic(err)
		}
		fmt.Println(cm.Title)
	}
	// Output:
	// true
	// Bump to 1.1
	// Seed files
}
