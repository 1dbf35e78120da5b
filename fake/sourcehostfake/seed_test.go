package sourcehostfake_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
	"go.yaml.in/yaml/v3"
)

// A seed file as apitwin-fake reads one: every resource, in YAML, with the
// field names fake/seed.go documents for users and projects.
const seedYAML = `
users:
  - {username: alice, name: Alice Liddell}
  - {username: bob, email: bob@shop.test, admin: true}
tokens:
  - {username: alice, token: alice-token, scopes: [api], name: ci}
  - {username: bob, token: bob-old, scopes: [read_api], expires_at: "2000-01-01"}
groups:
  - path: shop-team
    name: Shop Team
    members: [{username: alice, access_level: 40}]
projects:
  - name: shop
    owner: alice
    description: The web shop
    visibility: public
    default_branch: trunk
    topics: [go, shop]
    members: [{username: bob, access_level: 30}]
    files: {README.md: "# Shop", .sourcehost-ci.yml: "test: {}"}
    branches:
      - {name: feature, files: {cart.go: "package cart"}}
      - {name: empty-start, ref: trunk}
    issues:
      - {title: Broken cart, labels: [bug], assignees: [alice], author: bob}
      - {title: Old, state: closed, confidential: true}
    merge_requests:
      - {title: Cart, source_branch: feature, assignees: [bob]}
    hooks:
      - {url: "http://127.0.0.1:1/hook", issues_events: true, push_events: false, token: s3cret}
  - name: billing
    group: shop-team
`

func decodeSeed(t *testing.T, data string) sourcehostfake.Seed {
	t.Helper()
	var seed sourcehostfake.Seed
	dec := yaml.NewDecoder(strings.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&seed); err != nil {
		t.Fatal(err)
	}
	return seed
}

func TestLoadEveryResource(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	ctx := t.Context()
	seed := decodeSeed(t, seedYAML)
	if err := srv.Load(seed); err != nil {
		t.Fatal(err)
	}
	// The same seed round-trips through JSON, field for field.
	var again sourcehostfake.Seed
	b, _ := json.Marshal(seed)
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&again); err != nil || !strings.Contains(string(b), `"merge_requests":[{"title":"Cart","source_branch":"feature"`) {
		t.Fatalf("JSON %s: %v", b, err)
	}

	alice := srv.ClientWithToken("alice-token")
	p, err := alice.GetProject(ctx, sourcehost.ProjectPath("alice/shop"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Description != "The web shop" || p.DefaultBranch != "trunk" || p.Visibility != sourcehost.Public || strings.Join(p.Topics, ",") != "go,shop" {
		t.Fatalf("project %+v", p)
	}
	f, err := alice.GetFile(ctx, sourcehost.ProjectID(p.ID), "cart.go", "feature")
	if err != nil {
		t.Fatal(err)
	}
	if content, _ := f.Decode(); string(content) != "package cart" {
		t.Fatalf("cart.go %q", content)
	}
	branches, _ := alice.ListBranches(ctx, sourcehost.ProjectID(p.ID), nil)
	if len(branches.Items) != 3 {
		t.Fatalf("branches %+v", branches.Items)
	}
	issues := srv.Issues(p.ID)
	if len(issues) != 2 || issues[0].Author.Username != "bob" || issues[0].Assignee.Username != "alice" || issues[0].Labels[0] != "bug" ||
		issues[1].State != "closed" || !issues[1].Confidential || issues[1].Author.Username != sourcehostfake.RootUsername {
		t.Fatalf("issues %+v %+v", issues[0], issues[1])
	}
	mrs := srv.MergeRequests(p.ID)
	if len(mrs) != 1 || mrs[0].SourceBranch != "feature" || mrs[0].TargetBranch != "trunk" || mrs[0].Assignees[0].Username != "bob" {
		t.Fatalf("merge requests %+v", mrs)
	}
	hooks := srv.Hooks(p.ID)
	if len(hooks) != 1 || hooks[0].PushEvents || !hooks[0].IssuesEvents {
		t.Fatalf("hooks %+v", hooks)
	}
	if pls := srv.Pipelines(p.ID); len(pls) != 3 { // a push to each branch, all holding the CI file
		t.Fatalf("pipelines %+v", pls)
	}
	// A seed delivers nothing: the hooks came last.
	if err := srv.WaitDeliveries(ctx); err != nil || len(srv.Deliveries()) != 0 {
		t.Fatalf("deliveries %v %v", srv.Deliveries(), err)
	}
	// bob is a developer of alice/shop (project member), alice a maintainer
	// of shop-team/billing (group member); bob's token has expired.
	billing, err := alice.GetProject(ctx, sourcehost.ProjectPath("shop-team/billing"), nil)
	if err != nil || billing.Namespace.Kind != "group" {
		t.Fatalf("billing %+v %v", billing, err)
	}
	if _, err := srv.ClientWithToken("bob-old").GetProject(ctx, sourcehost.ProjectID(p.ID), nil); err == nil {
		t.Fatal("an expired token was accepted")
	}
	me, err := alice.CurrentUser(ctx)
	if err != nil || me.Name != "Alice Liddell" {
		t.Fatalf("alice %+v %v", me, err)
	}
}

func TestLoadNamesTheFailingEntry(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ seed, want string }{
		{`users: [{username: alice}, {username: alice}]`, `users[1]: sourcehostfake: username "alice" is taken`},
		{`tokens: [{username: nobody, scopes: [api]}]`, `tokens[0]: sourcehostfake: no user "nobody"`},
		{`tokens: [{username: root, scopes: [everything]}]`, `tokens[0]: sourcehostfake: unknown scope "everything"`},
		{`tokens: [{username: root, scopes: [api], expires_at: soon}]`, `tokens[0]: sourcehostfake: expires_at "soon" is not a date (YYYY-MM-DD)`},
		{`groups: [{path: g, members: [{username: root, access_level: 7}]}]`, `groups[0].members[0]: sourcehostfake: invalid access level 7`},
		{`projects: [{name: a}, {name: b}, {name: c, issues: [{title: ""}]}]`, `projects[2].issues[0]: sourcehostfake: title is missing`},
		{`projects: [{name: a, owner: nobody}]`, `projects[0].owner: sourcehostfake: no user "nobody"`},
		{`projects: [{name: a, issues: [{title: t, assignees: [nobody]}]}]`, `projects[0].issues[0]: sourcehostfake: no user "nobody"`},
		{`projects: [{name: a, merge_requests: [{title: t, source_branch: nope}]}]`, `projects[0].merge_requests[0]: sourcehostfake: Source branch "nope" does not exist`},
		{`projects: [{name: a, hooks: [{url: "ftp://x"}]}]`, `projects[0].hooks[0]: sourcehostfake: url is blocked: Only allowed schemes are http, https`},
		{`projects: [{name: a, branches: [{name: "bad name"}]}]`, `projects[0].branches[0]: sourcehostfake: Branch name is invalid`},
		{`projects: [{name: a, files: {"../x": y}}]`, `projects[0].files: sourcehostfake: invalid file path "../x"`},
		{`projects: [{name: a}, {name: a}]`, `projects[1]: sourcehostfake: project root/a exists`},
	} {
		srv, err := sourcehostfake.New()
		if err != nil {
			t.Fatal(err)
		}
		err = srv.Load(decodeSeed(t, tc.seed))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s:\n got %v\nwant %s", tc.seed, err, tc.want)
		}
	}
}

// A project is seeded whole or not at all.
func TestAddProjectIsAllOrNothing(t *testing.T) {
	t.Parallel()
	srv, err := sourcehostfake.New()
	if err != nil {
		t.Fatal(err)
	}
	_, err = srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop",
		Files:         map[string]string{"a.txt": "base", sourcehostfake.CIFile: "x: 1"},
		Branches:      []sourcehostfake.BranchSeed{{Name: "left", Files: map[string]string{"a.txt": "left"}}, {Name: "right", Files: map[string]string{"a.txt": "right"}}},
		Issues:        []sourcehostfake.IssueSeed{{Title: "one"}},
		MergeRequests: []sourcehostfake.MergeRequestSeed{{Title: "l", SourceBranch: "left", State: "merged"}, {Title: "r", SourceBranch: "right", State: "merged"}},
	})
	if err == nil || err.Error() != "merge_requests[1]: sourcehostfake: Branch cannot be merged" {
		t.Fatalf("conflicting merge: %v", err)
	}
	if srv.Project(1) != nil || srv.Clock().Pending() != 0 {
		t.Fatalf("left behind: %+v, %d timers", srv.Project(1), srv.Clock().Pending())
	}
	id, err := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
	if err != nil || id != 1 {
		t.Fatalf("the next project is %d: %v", id, err)
	}
	iid, err := srv.AddIssue(id, sourcehostfake.IssueSeed{Title: "first"})
	if err != nil || iid != 1 || srv.Issues(id)[0].ID != 1 {
		t.Fatalf("the next issue: %d %v", iid, err)
	}
}

func TestSeedingMethods(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	ctx := t.Context()
	if _, err := srv.AddUser(sourcehostfake.UserSeed{Username: "carol"}); err != nil {
		t.Fatal(err)
	}
	secret, err := srv.AddToken(sourcehostfake.TokenSeed{Username: "carol", Scopes: []string{"api"}, Revoked: true})
	if err != nil || !strings.HasPrefix(secret, "shpat-") {
		t.Fatalf("token %q %v", secret, err)
	}
	if _, err := srv.ClientWithToken(secret).CurrentUser(ctx); err == nil {
		t.Fatal("a revoked token was accepted")
	}
	if _, err := srv.AddToken(sourcehostfake.TokenSeed{Username: "carol", Scopes: []string{"api"}, Token: srv.Token()}); err == nil {
		t.Fatal("a secret in use was accepted")
	}
	if _, err := srv.AddToken(sourcehostfake.TokenSeed{Username: "carol", Scopes: []string{"api"}, Token: "has space"}); err == nil {
		t.Fatal("a secret with a space was accepted")
	}
	expiring, _ := srv.IssueTokenExpiring("carol", srv.Clock().Now().Add(48*time.Hour), "read_api")
	tok, err := srv.ClientWithToken(expiring).CurrentToken(ctx)
	if err != nil || tok.ExpiresAt == nil {
		t.Fatalf("expiring token %+v %v", tok, err)
	}
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Files: map[string]string{"a": "a"}})
	sha, err := srv.AddBranch(id, sourcehostfake.BranchSeed{Name: "dev"})
	if err != nil || len(sha) != 40 {
		t.Fatalf("branch %q %v", sha, err)
	}
	if _, err := srv.AddBranch(id, sourcehostfake.BranchSeed{Name: "dev"}); err == nil {
		t.Fatal("a branch twice")
	}
	if _, err := srv.AddBranch(99, sourcehostfake.BranchSeed{Name: "x"}); err == nil {
		t.Fatal("a branch in no project")
	}
	srv.PushFile(id, "dev", "b", "b", "")
	iid, err := srv.AddMergeRequest(id, sourcehostfake.MergeRequestSeed{Title: "dev", SourceBranch: "dev", State: "merged", RemoveSourceBranch: true})
	if err != nil || iid != 1 {
		t.Fatal(iid, err)
	}
	mr := srv.MergeRequests(id)[0]
	if mr.State != "merged" || mr.MergeCommitSHA == "" {
		t.Fatalf("merged %+v", mr)
	}
	if _, err := srv.AddMergeRequest(id, sourcehostfake.MergeRequestSeed{Title: "x", SourceBranch: "dev"}); err == nil {
		t.Fatal("a merge request from a removed branch")
	}
	if _, err := srv.AddIssue(id, sourcehostfake.IssueSeed{Title: strings.Repeat("x", 256)}); err == nil ||
		err.Error() != "sourcehostfake: title is too long (maximum is 255 characters)" {
		t.Fatalf("long title: %v", err)
	}
	if _, err := srv.AddGroup(sourcehostfake.GroupSeed{Path: "carol"}); err == nil {
		t.Fatal("a group over a user's namespace")
	}
	if err := srv.AddProjectMember(id, "carol", 99); err == nil || err.Error() != "sourcehostfake: invalid access level 99" {
		t.Fatalf("bad level: %v", err)
	}
	if err := srv.AddGroupMember("nope", "carol", sourcehostfake.Guest); err == nil {
		t.Fatal("member of no group")
	}
	if _, err := srv.AddProject(sourcehostfake.ProjectSeed{Name: "x", Description: strings.Repeat("é", 2001)}); err == nil {
		t.Fatal("a long description")
	}
	if _, err := srv.AddHook(id, sourcehostfake.HookSeed{}); err == nil || err.Error() != "sourcehostfake: url is missing" {
		t.Fatalf("hook without url: %v", err)
	}
}
