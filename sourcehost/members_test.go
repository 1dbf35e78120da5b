package sourcehost_test

import (
	"errors"
	"testing"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

func TestCurrentUserIsTheProjectsOwner(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	me, err := tg.c.CurrentUser(ctx)
	if err != nil || me.ID == 0 || me.Username == "" || me.CreatedAt.IsZero() {
		t.Fatalf("current user %+v %v", me, err)
	}
	p := tg.project(t, sourcehost.Private)
	var members []*sourcehost.ProjectMember
	for m, err := range tg.c.AllProjectMembers(ctx, pid(p), nil) {
		if err != nil {
			t.Fatal(err)
		}
		members = append(members, m)
	}
	if len(members) != 1 || members[0].ID != me.ID || members[0].AccessLevel != sourcehost.OwnerAccess || members[0].MembershipState != "active" {
		t.Fatalf("members of a new project: %+v", members)
	}
	got, err := tg.c.GetProjectMember(ctx, pid(p), me.ID)
	if err != nil || got.Username != me.Username || got.AccessLevel != sourcehost.OwnerAccess {
		t.Fatalf("get member %+v %v", got, err)
	}
	if _, err := tg.c.GetProjectMember(ctx, pid(p), me.ID+1_000_000); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("a user who is no member: %v", err)
	}
}

// users adds users to the fake, each with an api token, and returns a
// client for each and their ids.
func users(t *testing.T, srv *sourcehostfake.Server, names ...string) (map[string]*sourcehost.Client, map[string]int64) {
	t.Helper()
	clients, ids := map[string]*sourcehost.Client{}, map[string]int64{}
	for _, name := range names {
		id, err := srv.AddUser(sourcehostfake.UserSeed{Username: name})
		if err != nil {
			t.Fatal(err)
		}
		tok, err := srv.IssueToken(name, sourcehost.ScopeAPI)
		if err != nil {
			t.Fatal(err)
		}
		clients[name], ids[name] = srv.ClientWithToken(tok), id
	}
	return clients, ids
}

func TestProjectMembersAndTheirLevels(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	as, ids := users(t, srv, "gwen", "rita", "dave")
	p := tg.project(t, sourcehost.Private)
	if _, err := srv.AddBranch(p.ID, sourcehostfake.BranchSeed{Name: "feature", Files: map[string]string{"f.txt": "f"}}); err != nil {
		t.Fatal(err)
	}
	mr, err := tg.c.CreateMergeRequest(ctx, pid(p), &sourcehost.CreateMergeRequestRequest{SourceBranch: "feature", TargetBranch: "main", Title: "F"})
	if err != nil {
		t.Fatal(err)
	}

	// Before they are members, the private project does not exist for them.
	if _, err := as["gwen"].GetProject(ctx, pid(p), nil); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("a stranger sees the private project: %v", err)
	}
	for name, level := range map[string]sourcehost.AccessLevel{"gwen": sourcehost.GuestAccess, "rita": sourcehost.ReporterAccess, "dave": sourcehost.DeveloperAccess} {
		m, err := tg.c.AddProjectMember(ctx, pid(p), &sourcehost.AddProjectMemberRequest{UserID: ids[name], AccessLevel: level})
		if err != nil || m.ID != ids[name] || m.AccessLevel != level || m.Username != name {
			t.Fatalf("add %s: %+v %v", name, m, err)
		}
	}
	if _, err := tg.c.AddProjectMember(ctx, pid(p), &sourcehost.AddProjectMemberRequest{UserID: ids["gwen"], AccessLevel: sourcehost.DeveloperAccess}); !errors.Is(err, sourcehost.ErrConflict) {
		t.Fatalf("added twice: %v", err)
	}
	page, err := tg.c.ListProjectMembers(ctx, pid(p), &sourcehost.ListProjectMembersOptions{Query: "ri"})
	if err != nil || len(page.Items) != 1 || page.Items[0].Username != "rita" || page.Total != 1 {
		t.Fatalf("members matching ri: %+v %v", page, err)
	}

	// A guest sees the project and its issues, not its code.
	if _, err := as["gwen"].GetProject(ctx, pid(p), nil); err != nil {
		t.Fatalf("guest: %v", err)
	}
	if _, err := as["gwen"].ListIssues(ctx, pid(p), nil); err != nil {
		t.Fatalf("guest lists issues: %v", err)
	}
	if _, err := as["gwen"].GetFile(ctx, pid(p), "README.md", "main"); !errors.Is(err, sourcehost.ErrForbidden) {
		t.Fatalf("guest reads code: %v", err)
	}
	// A reporter reads the code and cannot merge, nor manage members.
	if _, err := as["rita"].GetFile(ctx, pid(p), "README.md", "main"); err != nil {
		t.Fatalf("reporter reads code: %v", err)
	}
	if _, err := as["rita"].AcceptMergeRequest(ctx, pid(p), mr.IID, nil); !errors.Is(err, sourcehost.ErrForbidden) {
		t.Fatalf("reporter merges: %v", err)
	}
	if _, err := as["rita"].AddProjectMember(ctx, pid(p), &sourcehost.AddProjectMemberRequest{UserID: ids["gwen"], AccessLevel: sourcehost.MaintainerAccess}); !errors.Is(err, sourcehost.ErrForbidden) {
		t.Fatalf("reporter manages members: %v", err)
	}
	// Promoted to developer, she merges.
	if m, err := tg.c.EditProjectMember(ctx, pid(p), ids["rita"], &sourcehost.EditProjectMemberRequest{AccessLevel: sourcehost.DeveloperAccess}); err != nil || m.AccessLevel != sourcehost.DeveloperAccess {
		t.Fatalf("promote: %+v %v", m, err)
	}
	if merged, err := as["rita"].AcceptMergeRequest(ctx, pid(p), mr.IID, nil); err != nil || merged.State != sourcehost.StateMerged {
		t.Fatalf("developer merges: %+v %v", merged, err)
	}
	// Removed, the project is gone for her again.
	if err := tg.c.RemoveProjectMember(ctx, pid(p), ids["rita"]); err != nil {
		t.Fatal(err)
	}
	if _, err := as["rita"].GetProject(ctx, pid(p), nil); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("removed member sees the project: %v", err)
	}
	if err := tg.c.RemoveProjectMember(ctx, pid(p), ids["rita"]); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("removed twice: %v", err)
	}
}

func TestInheritedMembers(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	_, ids := users(t, srv, "gina", "mo")
	if _, err := srv.AddGroup(sourcehostfake.GroupSeed{Path: "team", Members: []sourcehostfake.MemberSeed{{Username: "gina", AccessLevel: sourcehostfake.Maintainer}}}); err != nil {
		t.Fatal(err)
	}
	id, err := srv.AddProject(sourcehostfake.ProjectSeed{Name: "svc", Group: "team", Members: []sourcehostfake.MemberSeed{{Username: "mo", AccessLevel: sourcehostfake.Reporter}}})
	if err != nil {
		t.Fatal(err)
	}
	direct, err := tg.c.ListProjectMembers(ctx, sourcehost.ProjectID(id), nil)
	if err != nil {
		t.Fatal(err)
	}
	all, err := tg.c.ListAllProjectMembers(ctx, sourcehost.ProjectID(id), nil)
	if err != nil {
		t.Fatal(err)
	}
	names := func(p *sourcehost.Page[sourcehost.ProjectMember]) map[string]sourcehost.AccessLevel {
		out := map[string]sourcehost.AccessLevel{}
		for _, m := range p.Items {
			out[m.Username] = m.AccessLevel
		}
		return out
	}
	// root created the project in the group, as a maintainer of it.
	if got := names(direct); len(got) != 2 || got["mo"] != sourcehost.ReporterAccess || got["root"] != sourcehost.MaintainerAccess {
		t.Fatalf("direct members %v", got)
	}
	if got := names(all); len(got) != 3 || got["gina"] != sourcehost.MaintainerAccess {
		t.Fatalf("all members %v", got)
	}
	if _, err := tg.c.GetProjectMember(ctx, sourcehost.ProjectID(id), ids["gina"]); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("a group member is no direct member: %v", err)
	}
	if m, err := tg.c.GetInheritedProjectMember(ctx, sourcehost.ProjectID(id), ids["gina"]); err != nil || m.Username != "gina" || m.AccessLevel != sourcehost.MaintainerAccess {
		t.Fatalf("gina through the group: %+v %v", m, err)
	}
	if m, err := tg.c.GetInheritedProjectMember(ctx, sourcehost.ProjectID(id), ids["mo"]); err != nil || m.AccessLevel != sourcehost.ReporterAccess {
		t.Fatalf("mo, a direct member: %+v %v", m, err)
	}
	if _, err := tg.c.GetInheritedProjectMember(ctx, sourcehost.ProjectID(id), ids["mo"]+1000); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("no member at all: %v", err)
	}
}

func TestMemberRefusals(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	_, ids := users(t, srv, "una")
	p := tg.project(t, sourcehost.Private)
	base := srv.URL() + "/api/v4/projects/" + itoa(p.ID) + "/members"
	for _, tc := range []struct {
		method, url, body string
		status            int
		want              string
	}{
		{"POST", base, `{"user_id":` + itoa(ids["una"]) + `,"access_level":25}`, 400, `{"error":"access_level does not have a valid value"}`},
		{"POST", base, `{"access_level":30}`, 400, `{"error":"user_id is missing"}`},
		{"POST", base, `{"user_id":999999,"access_level":30}`, 404, `{"message":"404 User Not Found"}`},
		{"PUT", base + "/" + itoa(ids["una"]), `{"access_level":30}`, 404, `{"message":"404 Member Not Found"}`},
		{"DELETE", base + "/" + itoa(ids["una"]), ``, 404, `{"message":"404 Member Not Found"}`},
	} {
		resp, err := doRaw(tc.method, tc.url, srv.Token(), "application/json", tc.body)
		if err != nil {
			t.Fatal(err)
		}
		if resp.status != tc.status || resp.body != tc.want {
			t.Errorf("%s %s %s: %d %s, want %d %s", tc.method, tc.url, tc.body, resp.status, resp.body, tc.status, tc.want)
		}
	}
	// The owner of a personal project stays its owner.
	me, _ := tg.c.CurrentUser(ctx)
	if err := tg.c.RemoveProjectMember(ctx, pid(p), me.ID); !errors.Is(err, sourcehost.ErrForbidden) {
		t.Fatalf("owner removed: %v", err)
	}
	if _, err := tg.c.AddProjectMember(ctx, pid(p), &sourcehost.AddProjectMemberRequest{UserID: ids["una"]}); err == nil {
		t.Fatal("the client sent a member without a level")
	}
}
