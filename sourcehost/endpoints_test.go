package sourcehost_test

import (
	"context"
	"io"
	"testing"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/internal/apitable"
	"github.com/apitwin/apitwin/internal/apitable/apitabletest"
	"github.com/apitwin/apitwin/sourcehost"
)

// TestEndpointTable holds the client, the fake and the doc comments to the
// endpoint tables (internal/apitable.Sourcehost, and SourcehostOAuth for
// the authorization server at the server's root): every method calls the
// endpoints its rows name, the fake serves them, and the method's doc
// names them with their documentation links.
func TestEndpointTable(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	c := srv.Client()
	apitabletest.Check(t, []*apitable.Table{apitable.Sourcehost(), apitable.SourcehostOAuth()}, srv, apitabletest.Setup{
		Dir:    ".",
		Client: c,
		Values: []any{sourcehost.ProjectRef(sourcehost.ProjectID(1)), sourcehost.GroupRef(sourcehost.GroupID(1))},
		Calls: map[string]func(context.Context) error{
			"AddProjectHook": func(ctx context.Context) error {
				_, err := c.AddProjectHook(ctx, sourcehost.ProjectID(1), &sourcehost.AddProjectHookRequest{URL: "http://127.0.0.1:1/hook"})
				return err
			},
			"Search": func(ctx context.Context) error {
				_, err := c.Search(ctx, &sourcehost.SearchOptions{Search: "x", Scope: sourcehost.SearchProjects})
				return err
			},
			"SearchGroup": func(ctx context.Context) error {
				_, err := c.SearchGroup(ctx, sourcehost.GroupID(1), &sourcehost.SearchOptions{Search: "x", Scope: sourcehost.SearchIssues})
				return err
			},
			"SearchProject": func(ctx context.Context) error {
				_, err := c.SearchProject(ctx, sourcehost.ProjectID(1), &sourcehost.SearchOptions{Search: "x", Scope: sourcehost.SearchIssues})
				return err
			},
			"CreateMergeRequestDiscussion": func(ctx context.Context) error {
				_, err := c.CreateMergeRequestDiscussion(ctx, sourcehost.ProjectID(1), 1, "x")
				return err
			},
			"AddMergeRequestDiscussionNote": func(ctx context.Context) error {
				_, err := c.AddMergeRequestDiscussionNote(ctx, sourcehost.ProjectID(1), 1, "d", "x")
				return err
			},
			"GetMergeRequestDiscussion": func(ctx context.Context) error {
				_, err := c.GetMergeRequestDiscussion(ctx, sourcehost.ProjectID(1), 1, "d")
				return err
			},
			"ResolveMergeRequestDiscussion": func(ctx context.Context) error {
				_, err := c.ResolveMergeRequestDiscussion(ctx, sourcehost.ProjectID(1), 1, "d", true)
				return err
			},
			"GetRepositoryArchive": func(ctx context.Context) error {
				return c.GetRepositoryArchive(ctx, sourcehost.ProjectID(1), io.Discard, nil)
			},
			"WriteJobTrace": func(ctx context.Context) error {
				return c.WriteJobTrace(ctx, sourcehost.ProjectID(1), 1, io.Discard)
			},
			"GetFileBlame": func(ctx context.Context) error {
				_, err := c.GetFileBlame(ctx, sourcehost.ProjectID(1), "README.md", "main")
				return err
			},
			"Compare": func(ctx context.Context) error {
				_, err := c.Compare(ctx, sourcehost.ProjectID(1), &sourcehost.CompareOptions{From: "main", To: "main"})
				return err
			},
			"EditProjectHook": func(ctx context.Context) error {
				_, err := c.EditProjectHook(ctx, sourcehost.ProjectID(1), 1, &sourcehost.EditProjectHookRequest{URL: "http://127.0.0.1:1/hook"})
				return err
			},
		},
	})
}
