package sourcehost_test

import (
	"cmp"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
	gocmp "github.com/google/go-cmp/cmp"
)

// TestKeysetUsersOrdered: GET /users with pagination=keyset walks the
// users by name, username, created_at, updated_at and id, either way, as
// GitLab's cursor-based keyset does for users, ties broken by id in the
// same direction; the iterator follows each page's Link (a cursor) to the
// end. An order GET /users does not take is 400, as GitLab's parameter
// check answers it, and so is a cursor the server did not write.
func TestKeysetUsersOrdered(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	if srv := tg.fake; srv != nil {
		// Two names shared by several users (ties), in an order unlike
		// their ids', and a case difference.
		for i, name := range []string{"Mallory", "alice", "Bob", "mallory", "Alice", "bob", "Carol"} {
			if _, err := srv.AddUser(sourcehostfake.UserSeed{Username: fmt.Sprintf("ksu-%c-%d", 'z'-i, i), Name: name}); err != nil {
				t.Fatal(err)
			}
		}
	}
	var everyone []*sourcehost.UserDetails
	for u, err := range tg.c.AllUsers(ctx, &sourcehost.ListUsersOptions{ListOptions: sourcehost.ListOptions{PerPage: 100}}) {
		if err != nil {
			t.Fatal(err)
		}
		everyone = append(everyone, u)
	}
	keys := map[string]func(*sourcehost.UserDetails) string{
		"id":       func(*sourcehost.UserDetails) string { return "" },
		"name":     func(u *sourcehost.UserDetails) string { return strings.ToLower(u.Name) },
		"username": func(u *sourcehost.UserDetails) string { return strings.ToLower(u.Username) },
		"created_at": func(u *sourcehost.UserDetails) string {
			return u.CreatedAt.UTC().Format("2006-01-02T15:04:05.000000000")
		},
	}
	keys["updated_at"] = keys["created_at"] // the fake never edits a user
	for by, key := range keys {
		for _, dir := range []string{"asc", "desc"} {
			want := slices.Clone(everyone)
			slices.SortFunc(want, func(a, b *sourcehost.UserDetails) int {
				r := cmp.Or(strings.Compare(key(a), key(b)), cmp.Compare(a.ID, b.ID))
				if dir == "desc" {
					r = -r
				}
				return r
			})
			var wantIDs, got []int64
			for _, u := range want {
				wantIDs = append(wantIDs, u.ID)
			}
			var before int
			if tg.fake != nil {
				before = len(tg.fake.RequestsTo("GET /api/v4/users"))
			}
			opts := &sourcehost.ListUsersOptions{ListOptions: sourcehost.ListOptions{Pagination: sourcehost.Keyset, PerPage: 2}, OrderBy: by, Sort: dir}
			for u, err := range tg.c.AllUsers(ctx, opts) {
				if err != nil {
					t.Fatalf("%s %s: %v", by, dir, err)
				}
				got = append(got, u.ID)
			}
			if d := gocmp.Diff(wantIDs, got); d != "" {
				t.Errorf("keyset by %s %s (-want +got):\n%s", by, dir, d)
			}
			if tg.fake != nil {
				if n, pages := len(tg.fake.RequestsTo("GET /api/v4/users"))-before, (len(want)+1)/2; n != pages {
					t.Errorf("by %s %s: %d requests, want %d", by, dir, n, pages)
				}
			}
		}
	}
	for _, q := range []url.Values{
		{"pagination": {"keyset"}, "order_by": {"email"}},
		{"pagination": {"keyset"}, "order_by": {"name"}, "sort": {"up"}},
		{"pagination": {"keyset"}, "order_by": {"created_at"}, "cursor": {"eyJpZCI6IjEiLCJfa2QiOiJuIn0"}}, // {"id":"1","_kd":"n"}: no created_at
		{"pagination": {"keyset"}, "order_by": {"name"}, "cursor": {"bm9wZQ"}},
	} {
		if err := tg.c.Do(ctx, "GET", "/users", q, nil, nil); !errors.Is(err, sourcehost.ErrBadRequest) {
			t.Errorf("%v: %v, want 400", q, err)
		}
	}
}
