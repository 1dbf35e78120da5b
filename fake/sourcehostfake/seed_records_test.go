package sourcehostfake_test

import (
	"context"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

func TestSeedLabelsMilestonesTagsReleases(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	ctx := context.Background()
	id, err := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Files: map[string]string{"a.txt": "a"},
		Labels:     []sourcehostfake.LabelSeed{{Name: "bug", Color: "red"}, {Name: "ui"}},
		Milestones: []sourcehostfake.MilestoneSeed{{Title: "v1", DueDate: "2031-01-01"}, {Title: "old", State: "closed"}},
		Tags:       []sourcehostfake.TagSeed{{Name: "v0.9"}, {Name: "v1.0", Message: "one"}},
		Releases:   []sourcehostfake.ReleaseSeed{{TagName: "v1.0", Description: "First"}},
		Issues:     []sourcehostfake.IssueSeed{{Title: "crash", Labels: []string{"bug"}, Milestone: "v1"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	c, p := srv.Client(), sourcehost.ProjectID(id)
	bug, err := c.GetLabel(ctx, p, "bug")
	if err != nil || bug.Color != "#ff0000" || bug.OpenIssuesCount != 1 {
		t.Fatalf("label %+v %v", bug, err)
	}
	if ms, err := c.ListMilestones(ctx, p, &sourcehost.ListMilestonesOptions{State: "closed"}); err != nil || len(ms.Items) != 1 || ms.Items[0].Title != "old" {
		t.Fatalf("milestones %+v %v", ms, err)
	}
	if is, err := c.GetIssue(ctx, p, 1); err != nil || is.Milestone == nil || is.Milestone.Title != "v1" {
		t.Fatalf("issue %+v %v", is, err)
	}
	if tag, err := c.GetTag(ctx, p, "v1.0"); err != nil || tag.Message != "one" || tag.Release == nil {
		t.Fatalf("tag %+v %v", tag, err)
	}
	if rel, err := c.GetRelease(ctx, p, "v1.0"); err != nil || rel.Description != "First" || rel.Name != "v1.0" {
		t.Fatalf("release %+v %v", rel, err)
	}
	// Read back without the API.
	if ls := srv.Labels(id); len(ls) != 2 || ls[0].Name != "bug" || ls[0].OpenIssuesCount != 1 {
		t.Fatalf("Labels %+v", ls)
	}
	if ms := srv.Milestones(id); len(ms) != 2 || ms[1].State != "closed" {
		t.Fatalf("Milestones %+v", ms)
	}
	if rs := srv.Releases(id); len(rs) != 1 || rs[0].TagName != "v1.0" {
		t.Fatalf("Releases %+v", rs)
	}
	if _, err := c.UpdateIssue(ctx, p, 1, &sourcehost.UpdateIssueRequest{StateEvent: sourcehost.StateEventClose}); err != nil {
		t.Fatal(err)
	}
	if ns := srv.IssueNotes(id, 1); len(ns) != 1 || !ns[0].System || ns[0].Body != "closed" {
		t.Fatalf("IssueNotes %+v", ns)
	}
	if srv.IssueNotes(id, 9) != nil || srv.MergeRequestNotes(id, 1) != nil || srv.Jobs(id, 1) != nil {
		t.Fatal("read back of records that do not exist")
	}

	for _, tc := range []struct {
		seed sourcehostfake.ProjectSeed
		want string
	}{
		{sourcehostfake.ProjectSeed{Name: "a", Labels: []sourcehostfake.LabelSeed{{Name: "x,y"}}}, "labels[0]: "},
		{sourcehostfake.ProjectSeed{Name: "b", Labels: []sourcehostfake.LabelSeed{{Name: "x", Color: "nope"}}}, "labels[0]: "},
		{sourcehostfake.ProjectSeed{Name: "c", Milestones: []sourcehostfake.MilestoneSeed{{Title: "m"}, {Title: "m"}}}, "milestones[1]: "},
		{sourcehostfake.ProjectSeed{Name: "d", Tags: []sourcehostfake.TagSeed{{Name: "v1"}}}, "tags[0]: "},
		{sourcehostfake.ProjectSeed{Name: "e", Files: map[string]string{"a": "a"}, Releases: []sourcehostfake.ReleaseSeed{{TagName: "v1"}}}, "releases[0]: "},
		{sourcehostfake.ProjectSeed{Name: "f", Issues: []sourcehostfake.IssueSeed{{Title: "t", Milestone: "none"}}}, "issues[0]: "},
	} {
		if _, err := srv.AddProject(tc.seed); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error naming %s", tc.seed.Name, err, tc.want)
		}
		if srv.Project(2) != nil {
			t.Fatalf("%s: a refused seed left a project behind", tc.seed.Name)
		}
	}
}
