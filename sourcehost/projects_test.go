package sourcehost_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

func TestCreateAndGetProject(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p, err := tg.c.CreateProject(ctx, &sourcehost.CreateProjectRequest{Name: "Shop Front " + unique(), Description: "the shop", Visibility: sourcehost.Internal})
	if err != nil {
		t.Fatal(err)
	}
	if p.ID == 0 || p.Visibility != sourcehost.Internal || p.Description != "the shop" || !strings.HasPrefix(p.Path, "shop-front-") ||
		p.Namespace == nil || p.PathWithNamespace != p.Namespace.FullPath+"/"+p.Path || p.CreatedAt.IsZero() || p.WebURL == "" {
		t.Fatalf("created %+v", p)
	}
	byID, err := tg.c.GetProject(ctx, pid(p), nil)
	if err != nil {
		t.Fatal(err)
	}
	byPath, err := tg.c.GetProject(ctx, sourcehost.ProjectPath(p.PathWithNamespace), &sourcehost.GetProjectOptions{Statistics: sourcehost.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	if byID.ID != p.ID || byPath.ID != p.ID || byPath.Statistics == nil {
		t.Fatalf("by id %+v, by path %+v", byID, byPath)
	}
}

func TestCreateProjectValidation(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	name := "dup-" + unique()
	if _, err := tg.c.CreateProject(ctx, &sourcehost.CreateProjectRequest{Name: name}); err != nil {
		t.Fatal(err)
	}
	_, err := tg.c.CreateProject(ctx, &sourcehost.CreateProjectRequest{Name: name})
	var e *sourcehost.Error
	if !errors.As(err, &e) || !errors.Is(err, sourcehost.ErrBadRequest) {
		t.Fatalf("err = %v", err)
	}
	if got := e.Fields["name"]; len(got) == 0 || got[0] != "has already been taken" {
		t.Fatalf("fields %v", e.Fields)
	}
	if !strings.Contains(e.Error(), "name has already been taken") || e.Method != http.MethodPost || !strings.HasSuffix(e.Path, "/api/v4/projects") {
		t.Fatalf("error text %q", e)
	}
	if _, err := tg.c.CreateProject(ctx, &sourcehost.CreateProjectRequest{Name: "x" + unique(), Visibility: "secret"}); !errors.Is(err, sourcehost.ErrBadRequest) {
		t.Fatalf("bad visibility: %v", err)
	}
	if _, err := tg.c.CreateProject(ctx, nil); err == nil {
		t.Fatal("nil request accepted")
	}
}

func TestGetProjectNotFound(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	_, err := tg.c.GetProject(ctx, sourcehost.ProjectID(987654321), nil)
	var e *sourcehost.Error
	if !errors.Is(err, sourcehost.ErrNotFound) || !errors.As(err, &e) || e.Message != "404 Project Not Found" {
		t.Fatalf("err = %v", err)
	}
	for _, bad := range []sourcehost.ProjectRef{nil, sourcehost.ProjectID(0), sourcehost.ProjectPath("/")} {
		if _, err := tg.c.GetProject(ctx, bad, nil); err == nil || errors.As(err, &e) && e.StatusCode != 0 {
			t.Fatalf("GetProject(%v) = %v, want a client-side error", bad, err)
		}
	}
}

// seedProjects adds n public projects owned by root.
func seedProjects(t testing.TB, srv *sourcehostfake.Server, n int) {
	t.Helper()
	for i := range n {
		if _, err := srv.AddProject(sourcehostfake.ProjectSeed{Name: fmt.Sprintf("proj-%05d", i), Visibility: "public"}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestListProjectsPagination(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	seedProjects(t, srv, 45)

	page, err := tg.c.ListProjects(ctx, &sourcehost.ListProjectsOptions{ListOptions: sourcehost.ListOptions{Page: 2, PerPage: 20}, OrderBy: "id", Sort: "asc"})
	if err != nil {
		t.Fatal(err)
	}
	want := sourcehost.PageInfo{Page: 2, PerPage: 20, NextPage: 3, PrevPage: 1, Total: 45, TotalPages: 3}
	got := page.PageInfo
	if !strings.Contains(got.NextLink, "page=3") {
		t.Errorf("next link %q", got.NextLink)
	}
	got.NextLink, got.RateLimit = "", sourcehost.RateLimit{}
	if got != want || len(page.Items) != 20 || page.Items[0].Name != "proj-00020" {
		t.Fatalf("page %+v, %d items, first %q", page.PageInfo, len(page.Items), page.Items[0].Name)
	}
	last, err := tg.c.ListProjects(ctx, &sourcehost.ListProjectsOptions{ListOptions: sourcehost.ListOptions{Page: 3, PerPage: 20}})
	if err != nil {
		t.Fatal(err)
	}
	if last.NextPage != 0 || len(last.Items) != 5 {
		t.Fatalf("last page %+v with %d items", last.PageInfo, len(last.Items))
	}
	// per_page is capped at 100.
	big, err := tg.c.ListProjects(ctx, &sourcehost.ListProjectsOptions{ListOptions: sourcehost.ListOptions{PerPage: 500}})
	if err != nil || big.PerPage != 100 {
		t.Fatalf("per_page 500: %+v %v", big.PageInfo, err)
	}
}

func TestAllProjectsIteratesAndBreaks(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	seedProjects(t, srv, 25)
	opts := &sourcehost.ListProjectsOptions{ListOptions: sourcehost.ListOptions{PerPage: 10}, OrderBy: "id", Sort: "asc"}

	var names []string
	for p, err := range tg.c.AllProjects(ctx, opts) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, p.Name)
	}
	if len(names) != 25 || names[0] != "proj-00000" || names[24] != "proj-00024" {
		t.Fatalf("iterated %d: %v", len(names), names)
	}
	if opts.Page != 0 {
		t.Fatal("AllProjects changed the caller's options")
	}

	srv.ResetRequests()
	n := 0
	for _, err := range tg.c.AllProjects(ctx, opts) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 12 {
			break
		}
	}
	if got := len(srv.RequestsTo("GET /api/v4/projects")); got != 2 {
		t.Fatalf("breaking after 12 items made %d requests, want 2", got)
	}
}

func TestAllProjectsStopsAtError(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	seedProjects(t, srv, 30)
	srv.InjectFault("GET /api/v4/projects", control.Fault{Status: http.StatusForbidden, Times: 0})
	c := srv.Client(sourcehost.WithoutRetries())
	var errs int
	for _, err := range c.AllProjects(ctx, nil) {
		if err == nil {
			t.Fatal("item despite the fault")
		}
		if !errors.Is(err, sourcehost.ErrForbidden) {
			t.Fatalf("err = %v", err)
		}
		errs++
	}
	if errs != 1 {
		t.Fatalf("%d errors yielded, want 1", errs)
	}
}

func TestListProjectsFilters(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	if _, err := srv.AddUser(sourcehostfake.UserSeed{Username: "alice", Name: "Alice"}); err != nil {
		t.Fatal(err)
	}
	aliceTok, err := srv.IssueToken("alice", sourcehost.ScopeAPI)
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "open-tools", Visibility: "public"})
	priv, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "secret-plans"})
	own, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "alice-notes", Owner: "alice", Visibility: "internal"})
	if err := srv.StarProject("alice", pub); err != nil {
		t.Fatal(err)
	}
	alice := srv.ClientWithToken(aliceTok)

	ids := func(opts *sourcehost.ListProjectsOptions) []int64 {
		t.Helper()
		var out []int64
		for p, err := range alice.AllProjects(ctx, opts) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, p.ID)
		}
		return out
	}
	if got := ids(&sourcehost.ListProjectsOptions{Sort: "asc", OrderBy: "id"}); fmt.Sprint(got) != fmt.Sprint([]int64{pub, own}) {
		t.Fatalf("visible to alice: %v (private %d must be hidden)", got, priv)
	}
	if got := ids(&sourcehost.ListProjectsOptions{Owned: sourcehost.Ptr(true)}); fmt.Sprint(got) != fmt.Sprint([]int64{own}) {
		t.Fatalf("owned: %v", got)
	}
	if got := ids(&sourcehost.ListProjectsOptions{Starred: sourcehost.Ptr(true)}); fmt.Sprint(got) != fmt.Sprint([]int64{pub}) {
		t.Fatalf("starred: %v", got)
	}
	if got := ids(&sourcehost.ListProjectsOptions{Search: "TOOLS"}); fmt.Sprint(got) != fmt.Sprint([]int64{pub}) {
		t.Fatalf("search: %v", got)
	}
	if got := ids(&sourcehost.ListProjectsOptions{Visibility: sourcehost.Internal}); fmt.Sprint(got) != fmt.Sprint([]int64{own}) {
		t.Fatalf("visibility: %v", got)
	}
	if _, err := alice.GetProject(ctx, sourcehost.ProjectID(priv), nil); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("private project of another user: %v", err)
	}
}

func TestStarProject(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p := tg.project(t, sourcehost.Private)
	starred, err := tg.c.StarProject(ctx, pid(p))
	if err != nil || starred.StarCount != 1 {
		t.Fatalf("%+v %v", starred, err)
	}
	if _, err := tg.c.StarProject(ctx, pid(p)); !errors.Is(err, sourcehost.ErrNotModified) {
		t.Fatalf("second star: %v", err)
	}
}

// ssh_url_to_repo is git@host:namespace/path.git, as the real service
// writes it for SSH on port 22; the fake's HTTP port is not put in it (it
// was git@127.0.0.1:28929:alice/shop.git).
func TestProjectSSHURL(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	p := tg.project(t, sourcehost.Private)
	u, err := url.Parse(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	if want := "git@" + u.Hostname() + ":" + p.PathWithNamespace + ".git"; p.SSHURLToRepo != want {
		t.Fatalf("ssh_url_to_repo %q, want %q", p.SSHURLToRepo, want)
	}
}
