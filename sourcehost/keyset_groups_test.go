package sourcehost_test

import (
	"errors"
	"fmt"
	"net/url"
	"testing"

	"github.com/apitwin/apitwin/apicall"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
	"github.com/google/go-cmp/cmp"
)

// TestKeysetGroups: GET /groups with pagination=keyset walks the public
// groups by name for an anonymous caller, as GitLab's cursor-based keyset
// does (order_by name, sort asc), each page's Link carrying a cursor; the
// iterator follows it; another order is 405. A signed-in caller gets
// offset pages whatever pagination says, as from GitLab.
func TestKeysetGroups(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	var want []string
	for _, name := range []string{"delta", "alpha", "echo", "charlie", "bravo", "foxtrot", "golf"} {
		if _, err := srv.AddGroup(sourcehostfake.GroupSeed{Path: "ks-" + name, Name: "KS " + name, Visibility: "public"}); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf"} {
		want = append(want, "KS "+name)
	}
	anon, err := sourcehost.New(srv.URL(), sourcehost.WithHTTPClient(srv.RawClient()))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	opts := &sourcehost.ListGroupsOptions{ListOptions: sourcehost.ListOptions{Pagination: sourcehost.Keyset, PerPage: 3}, OrderBy: "name", Sort: "asc"}
	for g, err := range anon.AllGroups(ctx, opts) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, g.Name)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("groups by keyset (-want +got):\n%s", d)
	}
	if n := len(srv.RequestsTo("GET /api/v4/groups")); n != 3 {
		t.Fatalf("%d requests, want 3", n)
	}
	raw := walkRaw(t, anon, "/groups", url.Values{"pagination": {"keyset"}, "per_page": {"2"}, "order_by": {"name"}},
		func(m map[string]any) string { return fmt.Sprint(m["name"]) })
	if d := cmp.Diff(want, raw); d != "" {
		t.Fatalf("groups by Link (-want +got):\n%s", d)
	}
	for _, q := range []url.Values{{"pagination": {"keyset"}, "order_by": {"id"}}, {"pagination": {"keyset"}, "sort": {"desc"}}} {
		if err := anon.Do(ctx, "GET", "/groups", q, nil, nil); !errors.Is(err, sourcehost.ErrMethodNotAllowed) {
			t.Fatalf("keyset %v: %v", q, err)
		}
	}
	if err := anon.Do(ctx, "GET", "/groups", url.Values{"pagination": {"keyset"}, "cursor": {"bm9wZQ"}}, nil, nil); !errors.Is(err, sourcehost.ErrBadRequest) {
		t.Fatalf("a cursor the server did not write: %v", err)
	}
	var info apicall.Info
	if err := tg.c.Do(apicall.Capture(ctx, &info), "GET", "/groups", url.Values{"pagination": {"keyset"}, "order_by": {"id"}, "per_page": {"2"}}, nil, nil); err != nil ||
		info.Header.Get("X-Page") != "1" {
		t.Fatalf("signed in, keyset: %v %v", err, info.Header)
	}
}
