package sourcehostfake_test

import (
	"context"
	"testing"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
	"github.com/google/go-cmp/cmp"
)

// TestSnapshotKeepsCI: a project's CI/CD variables come back from a
// snapshot as they were.
func TestSnapshotKeepsCI(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	opts := []sourcehostfake.Option{sourcehostfake.WithRootToken("root-token"), control.WithInMemory()}
	src := sourcehostfake.Start(t, opts...)
	c := src.Client()
	p, err := c.CreateProject(ctx, &sourcehost.CreateProjectRequest{Name: "shop", InitializeWithReadme: true})
	if err != nil {
		t.Fatal(err)
	}
	id := sourcehost.ProjectID(p.ID)
	for _, req := range []*sourcehost.CreateVariableRequest{
		{Key: "TOKEN", Value: "s3cret-value", Masked: sourcehost.Ptr(true), Protected: sourcehost.Ptr(true)},
		{Key: "URL", Value: "https://review.example", EnvironmentScope: "review/*", Description: "where"},
		{Key: "HIDDEN", Value: "hidden-value", MaskedAndHidden: sourcehost.Ptr(true), VariableType: sourcehost.FileVar},
	} {
		if _, err := c.CreateVariable(ctx, id, req); err != nil {
			t.Fatal(err)
		}
	}
	read := func(c *sourcehost.Client) []*sourcehost.Variable {
		page, err := c.ListVariables(ctx, id, nil)
		if err != nil {
			t.Fatal(err)
		}
		return page.Items
	}
	before := read(c)
	data, err := src.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	dst := sourcehostfake.Start(t, opts...)
	if err := dst.Restore(data); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(before, read(dst.Client())); d != "" {
		t.Fatalf("variables after the restore (-before +after):\n%s", d)
	}
}
