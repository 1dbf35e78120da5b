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
