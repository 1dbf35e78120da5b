package sourcehostfake_test

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
)

// TestRecordsAreBounded fills kinds of records to a bound of 3 and wants
// the next create refused as the real service refuses a record past a
// limit, with nothing written; a record deleted makes room again. Before
// the bound (issue 38), a loop of creates grew the fake without end.
func TestRecordsAreBounded(t *testing.T) {
	t.Parallel()
	srv, err := sourcehostfake.New(control.WithMaxRecords(3), sourcehostfake.WithMaxRepositoryBytes(64<<10))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	base := fmt.Sprintf("/api/v4/projects/%d", pid)
	full := func(kinds string, n int) string {
		return fmt.Sprintf(`{"message":{"base":["Maximum number of %s (%d) exceeded"]}}`, kinds, n)
	}
	want := func(method, path, body string, status int, answer string) {
		t.Helper()
		rec := serve(srv, method, path, "application/json", body)
		if rec.Code != status || answer != "" && rec.Body.String() != answer {
			t.Fatalf("%s %s %s: %d %s, want %d %s", method, path, body, rec.Code, rec.Body, status, answer)
		}
	}

	// Issues; an issue naming labels the project lacks needs room for them
	// too, and is refused whole when there is none.
	want("POST", base+"/issues", `{"title":"a","labels":"bug,ui,db,api"}`, 400, full("labels", 3))
	for _, title := range []string{"a", "b", "c"} {
		want("POST", base+"/issues", `{"title":"`+title+`"}`, 201, "")
	}
	want("POST", base+"/issues", `{"title":"d"}`, 400, full("issues", 3))
	if n, l := len(srv.Issues(pid)), len(srv.Labels(pid)); n != 3 || l != 0 {
		t.Fatalf("%d issues, %d labels", n, l)
	}
	if _, err := srv.AddIssue(pid, sourcehostfake.IssueSeed{Title: "e"}); err == nil || err.Error() != "sourcehostfake: base Maximum number of issues (3) exceeded" {
		t.Fatalf("seeded past the bound: %v", err)
	}

	// Notes: a deleted one makes room.
	for i := range 3 {
		want("POST", base+"/issues/1/notes", fmt.Sprintf(`{"body":"n%d"}`, i), 201, "")
	}
	want("POST", base+"/issues/1/notes", `{"body":"more"}`, 400, full("notes", 3))
	want("DELETE", base+"/issues/1/notes/1", "", 204, "")
	want("POST", base+"/issues/1/notes", `{"body":"again"}`, 201, "")

	// Users (root is one) and projects, seeded.
	for _, name := range []string{"alice", "bob"} {
		if _, err := srv.AddUser(sourcehostfake.UserSeed{Username: name}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := srv.AddUser(sourcehostfake.UserSeed{Username: "carol"}); err == nil || !strings.Contains(err.Error(), "Maximum number of users (3) exceeded") {
		t.Fatalf("a fourth user: %v", err)
	}
	// A project seeded past a bound is not added at all.
	_, err = srv.AddProject(sourcehostfake.ProjectSeed{Name: "big", Milestones: []sourcehostfake.MilestoneSeed{{Title: "1"}, {Title: "2"}, {Title: "3"}, {Title: "4"}}})
	if err == nil || !strings.Contains(err.Error(), "Maximum number of milestones (3) exceeded") || len(srv.Projects()) != 1 {
		t.Fatalf("a project with 4 milestones: %v, %d projects", err, len(srv.Projects()))
	}
	want("POST", base+"/milestones", `{"title":"m"}`, 201, "") // the refused seed left nothing behind

	// Repository bytes: a file of 40 KiB fits in 64 KiB, a second does not.
	file := func(name string) string {
		return `{"branch":"main","commit_message":"add","encoding":"base64","content":"` +
			base64.StdEncoding.EncodeToString([]byte(strings.Repeat(name, 40<<10))) + `"}`
	}
	want("POST", base+"/repository/files/a.bin", file("a"), 201, "")
	head := srv.Project(pid).DefaultBranch
	want("POST", base+"/repository/files/b.bin", file("b"), 400,
		`{"message":{"base":["Your changes could not be committed, because the repositories have exceeded their size limit of 64 KiB"]}}`)
	rec := serve(srv, "GET", base+"/repository/files/b.bin?ref="+head, "", "")
	if rec.Code != 404 {
		t.Fatalf("the refused file was committed: %d %s", rec.Code, rec.Body)
	}

	// Reset empties the state: the bound counts from nothing again.
	srv.Reset()
	if _, err := srv.AddUser(sourcehostfake.UserSeed{Username: "alice"}); err != nil {
		t.Fatal(err)
	}
}
