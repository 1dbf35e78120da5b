package sourcehostfake_test

import (
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
)

// Approvals are records: past the bound, one more is refused as any
// record past a limit, and changes nothing; a withdrawn one makes room.
func TestApprovalsAreBounded(t *testing.T) {
	t.Parallel()
	srv, err := sourcehostfake.New(control.WithMaxRecords(3))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Files: map[string]string{"README.md": "# Shop\n"}})
	if err != nil {
		t.Fatal(err)
	}
	tokens := map[string]string{"root": srv.Token()}
	for _, name := range []string{"alice", "bob"} {
		if _, err := srv.AddUser(sourcehostfake.UserSeed{Username: name}); err != nil {
			t.Fatal(err)
		}
		if err := srv.AddProjectMember(pid, name, sourcehostfake.Developer); err != nil {
			t.Fatal(err)
		}
		if tokens[name], err = srv.IssueToken(name, "api"); err != nil {
			t.Fatal(err)
		}
	}
	for _, b := range []string{"f1", "f2"} {
		if _, err := srv.AddBranch(pid, sourcehostfake.BranchSeed{Name: b, Files: map[string]string{b + ".txt": b}}); err != nil {
			t.Fatal(err)
		}
		if _, err := srv.AddMergeRequest(pid, sourcehostfake.MergeRequestSeed{Title: b, SourceBranch: b}); err != nil {
			t.Fatal(err)
		}
	}
	approve := func(who string, iid int, verb string) (int, string) {
		req := httptest.NewRequest("POST", fmt.Sprintf("/api/v4/projects/%d/merge_requests/%d/%s", pid, iid, verb), nil)
		req.Header.Set("PRIVATE-TOKEN", tokens[who])
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		return rec.Code, rec.Body.String()
	}
	for _, who := range []string{"root", "alice", "bob"} {
		if code, body := approve(who, 1, "approve"); code != 201 {
			t.Fatalf("%s approving: %d %s", who, code, body)
		}
	}
	want := `{"message":{"base":["Maximum number of merge request approvals (3) exceeded"]}}`
	if code, body := approve("root", 2, "approve"); code != 400 || body != want {
		t.Fatalf("a fourth approval: %d %s", code, body)
	}
	if code, _ := approve("bob", 1, "unapprove"); code != 201 {
		t.Fatalf("unapproving: %d", code)
	}
	if code, body := approve("root", 2, "approve"); code != 201 {
		t.Fatalf("approving after room was made: %d %s", code, body)
	}
}
