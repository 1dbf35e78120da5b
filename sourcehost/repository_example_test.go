package sourcehost_test

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

func ExampleClient_GetRepositoryArchive() {
	srv := startFake()
	defer srv.Close()
	ctx := context.Background()
	c := srv.Client()
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Files: map[string]string{"README.md": "# Shop\n", "pay/pay.go": "package pay\n"}})

	var buf bytes.Buffer // any io.Writer: a file, an HTTP answer
	if err := c.GetRepositoryArchive(ctx, sourcehost.ProjectID(id), &buf, &sourcehost.ArchiveOptions{Format: "zip", Path: "pay"}); err != nil {
		panic(err)
	}
	zr, _ := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	for _, f := range zr.File {
		if !f.FileInfo().IsDir() {
			// Under one directory: project, ref, commit (the zip's comment), path.
			fmt.Println(strings.Replace(f.Name, zr.Comment, "<sha>", 1))
		}
	}
	// Output:
	// shop-main-<sha>-pay/pay/pay.go
}

func ExampleClient_Compare() {
	srv := startFake()
	defer srv.Close()
	ctx := context.Background()
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Files: map[string]string{"README.md": "# Shop\n"},
		Branches: []sourcehostfake.BranchSeed{{Name: "feature", Files: map[string]string{"pay.go": "package pay\n"}}}})

	cmp, err := srv.Client().Compare(ctx, sourcehost.ProjectID(id), &sourcehost.CompareOptions{From: "main", To: "feature"})
	if err != nil {
		panic(err)
	}
	fmt.Println(len(cmp.Commits), "commit;", len(cmp.Diffs), "file:", cmp.Diffs[0].NewPath, "new:", cmp.Diffs[0].NewFile)
	// Output:
	// 1 commit; 1 file: pay.go new: true
}

func ExampleClient_GetRawFile() {
	srv := startFake()
	defer srv.Close()
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Files: map[string]string{"config/app.yml": "port: 8080\n"}})

	// The file's bytes as they are, at a branch, tag or commit.
	raw, err := srv.Client().GetRawFile(context.Background(), sourcehost.ProjectID(id), "config/app.yml", "main")
	if err != nil {
		panic(err)
	}
	fmt.Print(string(raw))
	// Output:
	// port: 8080
}

func ExampleClient_GetFileBlame() {
	srv := startFake()
	defer srv.Close()
	ctx := context.Background()
	c := srv.Client()
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Files: map[string]string{"pay.go": "package pay\n"}})
	project := sourcehost.ProjectID(id)
	c.UpdateFile(ctx, project, "pay.go", &sourcehost.UpdateFileRequest{Branch: "main", Content: "package pay\n\nconst fee = 2\n",
		CommitMessage: "Add the fee"})

	ranges, err := c.GetFileBlame(ctx, project, "pay.go", "main")
	if err != nil {
		panic(err)
	}
	for _, r := range ranges {
		fmt.Printf("%-12s %q\n", r.Commit.Title, r.Lines)
	}
	// Output:
	// Seed files   ["package pay"]
	// Add the fee  ["" "const fee = 2"]
}
