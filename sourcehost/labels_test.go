package sourcehost_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/apitwin/apitwin/sourcehost"
)

func TestLabelsCRUDAndFilters(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p := tg.project(t, sourcehost.Private)
	bug, err := tg.c.CreateLabel(ctx, pid(p), &sourcehost.CreateLabelRequest{Name: "bug", Color: "#d9534f", Description: "Something is broken", Priority: sourcehost.Ptr[int64](1)})
	if err != nil || bug.Name != "bug" || bug.Color != "#d9534f" || bug.Description != "Something is broken" || bug.Priority == nil || *bug.Priority != 1 || bug.TextColor == "" {
		t.Fatalf("created %+v %v", bug, err)
	}
	if _, err := tg.c.CreateLabel(ctx, pid(p), &sourcehost.CreateLabelRequest{Name: "BUG", Color: "#000000"}); !errors.Is(err, sourcehost.ErrConflict) {
		t.Fatalf("the same name again: %v", err)
	}
	var e *sourcehost.Error
	if _, err := tg.c.CreateLabel(ctx, pid(p), &sourcehost.CreateLabelRequest{Name: "ui", Color: "not a color"}); !errors.As(err, &e) || e.StatusCode != 400 || len(e.Fields["color"]) == 0 {
		t.Fatalf("a bad color: %v", err)
	}
	if _, err := tg.c.CreateLabel(ctx, pid(p), &sourcehost.CreateLabelRequest{Name: "a,b", Color: "#fff"}); err == nil {
		t.Fatal("the client sent a label name with a comma")
	}

	// Issues and merge requests carry labels, and lists filter by them; a
	// label the project lacks is made on the way, as the real service does.
	first, err := tg.c.CreateIssue(ctx, pid(p), &sourcehost.CreateIssueRequest{Title: "Crash", Labels: sourcehost.Labels{"bug", "backend"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.CreateIssue(ctx, pid(p), &sourcehost.CreateIssueRequest{Title: "Typo", Labels: sourcehost.Labels{"docs"}}); err != nil {
		t.Fatal(err)
	}
	backend, err := tg.c.GetLabel(ctx, pid(p), "backend")
	if err != nil || backend.Name != "backend" || backend.OpenIssuesCount != 1 {
		t.Fatalf("label made on the way: %+v %v", backend, err)
	}
	byID, err := tg.c.GetLabel(ctx, pid(p), sourcehost.LabelID(bug.ID))
	if err != nil || byID.Name != "bug" || byID.OpenIssuesCount != 1 {
		t.Fatalf("label by id: %+v %v", byID, err)
	}
	page, err := tg.c.ListIssues(ctx, pid(p), &sourcehost.ListIssuesOptions{Labels: []string{"bug"}})
	if err != nil || len(page.Items) != 1 || page.Items[0].IID != first.IID {
		t.Fatalf("issues labelled bug: %+v %v", page, err)
	}

	// Renaming a label renames it on its issues; deleting takes it off.
	if l, err := tg.c.UpdateLabel(ctx, pid(p), "bug", &sourcehost.UpdateLabelRequest{NewName: sourcehost.Ptr("defect"), Color: sourcehost.Ptr("#ff0000")}); err != nil || l.Name != "defect" || l.Color != "#ff0000" {
		t.Fatalf("renamed %+v %v", l, err)
	}
	got, err := tg.c.GetIssue(ctx, pid(p), first.IID)
	if err != nil || !slices.Contains(got.Labels, "defect") || slices.Contains(got.Labels, "bug") {
		t.Fatalf("issue after the rename: %+v %v", got, err)
	}
	if err := tg.c.DeleteLabel(ctx, pid(p), "defect"); err != nil {
		t.Fatal(err)
	}
	if got, err = tg.c.GetIssue(ctx, pid(p), first.IID); err != nil || !slices.Equal(got.Labels, []string{"backend"}) {
		t.Fatalf("issue after the delete: %+v %v", got, err)
	}
	if _, err := tg.c.GetLabel(ctx, pid(p), "defect"); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("deleted label: %v", err)
	}
	var names []string
	for l, err := range tg.c.AllLabels(ctx, pid(p), &sourcehost.ListLabelsOptions{ListOptions: sourcehost.ListOptions{PerPage: 1}, WithCounts: sourcehost.Ptr(true)}) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, l.Name)
	}
	if !slices.Equal(names, []string{"backend", "docs"}) {
		t.Fatalf("labels %q", names)
	}
}

func TestLabelRefusals(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	p := tg.project(t, sourcehost.Private)
	as, ids := users(t, srv, "gus")
	if _, err := tg.c.AddProjectMember(ctx, pid(p), &sourcehost.AddProjectMemberRequest{UserID: ids["gus"], AccessLevel: sourcehost.GuestAccess}); err != nil {
		t.Fatal(err)
	}
	if _, err := as["gus"].CreateLabel(ctx, pid(p), &sourcehost.CreateLabelRequest{Name: "x", Color: "red"}); !errors.Is(err, sourcehost.ErrForbidden) {
		t.Fatalf("a guest makes labels: %v", err)
	}
	base := srv.URL() + "/api/v4/projects/" + itoa(p.ID) + "/labels"
	for _, tc := range []struct {
		method, url, body string
		status            int
		want              string
	}{
		{"POST", base, `{"color":"#fff"}`, 400, `{"error":"name is missing"}`},
		{"POST", base, `{"name":"x"}`, 400, `{"error":"color is missing"}`},
		{"POST", base, `{"name":"a,b","color":"#fff"}`, 400, `{"message":{"title":["is invalid"]}}`},
		{"POST", base, `{"name":"x","color":"#ggg"}`, 400, `{"message":{"color":["must be a valid color code"]}}`},
		{"GET", base + "/nope", ``, 404, `{"message":"404 Label Not Found"}`},
		{"POST", base, `{"name":"ok","color":"blue"}`, 201, ``},
		{"POST", base, `{"name":"OK","color":"blue"}`, 409, `{"message":"Label already exists"}`},
		{"PUT", base + "/ok", `{}`, 400, `{"error":"new_name, color, description, priority are missing, at least one parameter must be provided"}`},
	} {
		resp, err := doRaw(tc.method, tc.url, srv.Token(), "application/json", tc.body)
		if err != nil {
			t.Fatal(err)
		}
		if resp.status != tc.status || tc.want != "" && resp.body != tc.want {
			t.Errorf("%s %s %s: %d %s, want %d %s", tc.method, tc.url, tc.body, resp.status, resp.body, tc.status, tc.want)
		}
	}
}

// The older edit and delete, which name the label in the body (label_id
// or name) rather than the path, are served as the real service still
// serves them: other GitLab clients send them.
func TestLabelsNamedInTheBody(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p := tg.project(t, sourcehost.Private)
	bug, err := tg.c.CreateLabel(ctx, pid(p), &sourcehost.CreateLabelRequest{Name: "bug", Color: "#d9534f"})
	if err != nil {
		t.Fatal(err)
	}
	path := "/projects/" + itoa(p.ID) + "/labels"
	var got sourcehost.Label
	if err := tg.c.Do(ctx, "PUT", path, nil, map[string]any{"name": "bug", "new_name": "defect"}, &got); err != nil || got.Name != "defect" || got.ID != bug.ID {
		t.Fatalf("edit by name: %+v %v", got, err)
	}
	if err := tg.c.Do(ctx, "PUT", path, nil, map[string]any{"label_id": bug.ID, "color": "#ff0000"}, &got); err != nil || got.Color != "#ff0000" || got.Name != "defect" {
		t.Fatalf("edit by label_id: %+v %v", got, err)
	}
	var e *sourcehost.Error
	for _, body := range []map[string]any{
		{"new_name": "x"}, // neither
		{"name": "defect", "label_id": bug.ID, "new_name": "x"}, // both
		{"name": "defect"}, // nothing to change
	} {
		if err := tg.c.Do(ctx, "PUT", path, nil, body, nil); !errors.As(err, &e) || e.StatusCode != 400 {
			t.Fatalf("%v: %v", body, err)
		}
	}
	if err := tg.c.Do(ctx, "PUT", path, nil, map[string]any{"name": "nothing", "new_name": "x"}, nil); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("edit of a missing label: %v", err)
	}
	if err := tg.c.Do(ctx, "DELETE", path, nil, map[string]any{"name": "defect"}, nil); err != nil {
		t.Fatalf("delete by name: %v", err)
	}
	if _, err := tg.c.GetLabel(ctx, pid(p), sourcehost.LabelID(bug.ID)); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("deleted label: %v", err)
	}
}
