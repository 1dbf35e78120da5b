package sourcehost_test

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"testing"

	"github.com/apitwin/apitwin/apicall"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
	"github.com/google/go-cmp/cmp"
)

var nextLinkRE = regexp.MustCompile(`<([^>]+)>; rel="next"`)

// walkRaw follows a keyset collection from path and query by its Link
// headers, as a client of any language would, and returns the ids seen.
func walkRaw(t *testing.T, c *sourcehost.Client, path string, q url.Values, id func(map[string]any) string) []string {
	t.Helper()
	var seen []string
	for range 100 {
		var info apicall.Info
		var items []map[string]any
		if err := c.Do(apicall.Capture(ctx, &info), "GET", path, q, nil, &items); err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			seen = append(seen, id(it))
		}
		if len(info.Header.Values("X-Page")) > 0 || len(info.Header.Values("X-Total")) > 0 {
			t.Errorf("a keyset page with page numbers: %v", info.Header)
		}
		m := nextLinkRE.FindStringSubmatch(info.Header.Get("Link"))
		if m == nil {
			return seen
		}
		u, err := url.Parse(m[1])
		if err != nil {
			t.Fatal(err)
		}
		q = u.Query()
	}
	t.Fatal("no end")
	return nil
}

// TestKeysetUsers: users under keyset pagination, by id, newest first or
// (sort=asc) oldest first, each page linking to the next by a cursor; the
// iterator follows the links.
func TestKeysetUsers(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	for i := range 11 {
		if _, err := srv.AddUser(sourcehostfake.UserSeed{Username: fmt.Sprintf("ks-user-%02d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	var ids []int64
	opts := &sourcehost.ListUsersOptions{ListOptions: sourcehost.ListOptions{Pagination: sourcehost.Keyset, PerPage: 5}}
	for u, err := range tg.c.AllUsers(ctx, opts) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, u.ID)
	}
	if n := len(srv.RequestsTo("GET /api/v4/users")); len(ids) != 12 || n != 3 {
		t.Fatalf("%d users in %d requests, want 12 in 3", len(ids), n)
	}
	want := slices.Clone(ids)
	slices.Sort(want)
	slices.Reverse(want)
	if d := cmp.Diff(want, ids); d != "" {
		t.Fatalf("not newest first (-want +got):\n%s", d)
	}
	id := func(m map[string]any) string { return fmt.Sprint(m["id"]) }
	asc := walkRaw(t, tg.c, "/users", url.Values{"pagination": {"keyset"}, "per_page": {"5"}, "sort": {"asc"}}, id)
	var wantAsc []string
	for i := len(ids) - 1; i >= 0; i-- {
		wantAsc = append(wantAsc, fmt.Sprint(ids[i]))
	}
	if d := cmp.Diff(wantAsc, asc); d != "" {
		t.Fatalf("sort=asc (-want +got):\n%s", d)
	}
	// Other orders: TestKeysetUsersOrdered.
}

// TestKeysetTree: a repository's tree under keyset pagination, each page
// linking to the next by a page_token, the last entry's id.
func TestKeysetTree(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	p := tg.project(t, sourcehost.Private)
	files := map[string][]byte{}
	for i := range 11 {
		files[fmt.Sprintf("dir/f%02d.txt", i)] = fmt.Appendf(nil, "file %d\n", i)
	}
	if _, err := srv.PushFiles(p.ID, p.DefaultBranch, files, "many files"); err != nil {
		t.Fatal(err)
	}
	var paths []string
	opts := &sourcehost.ListTreeOptions{ListOptions: sourcehost.ListOptions{Pagination: sourcehost.Keyset, PerPage: 4}, Path: "dir"}
	for n, err := range tg.c.AllTree(ctx, pid(p), opts) {
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, n.Path)
	}
	offset, err := tg.c.ListTree(ctx, pid(p), &sourcehost.ListTreeOptions{ListOptions: sourcehost.ListOptions{PerPage: 100}, Path: "dir"})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, n := range offset.Items {
		want = append(want, n.Path)
	}
	if d := cmp.Diff(want, paths); len(paths) != 11 || d != "" {
		t.Fatalf("keyset walk (-offset +keyset):\n%s", d)
	}
	reqs := srv.RequestsTo("GET /api/v4/projects/{id}/repository/tree")
	if last := reqs[len(reqs)-2]; last.Query.Get("page_token") == "" || last.Query.Get("page") != "" {
		t.Fatalf("the last keyset request: %v", last.Query)
	}
	err = tg.c.Do(ctx, "GET", fmt.Sprintf("/projects/%d/repository/tree", p.ID), url.Values{"pagination": {"keyset"}, "page_token": {"nope"}}, nil, nil)
	if !errors.Is(err, sourcehost.ErrBadRequest) {
		t.Fatalf("an unknown page_token: %v", err)
	}
}
