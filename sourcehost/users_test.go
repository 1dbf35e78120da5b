package sourcehost_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

func TestListUsersByUsernameSearchAndActive(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	for _, u := range []sourcehostfake.UserSeed{{Username: "alice", Name: "Alice Liddell"}, {Username: "alicia"}, {Username: "bob", Email: "bob@wonder.land"}} {
		if _, err := srv.AddUser(u); err != nil {
			t.Fatal(err)
		}
	}
	clients, _ := users(t, srv, "carol")
	admin := srv.Client()
	names := func(c *sourcehost.Client, opts *sourcehost.ListUsersOptions) []string {
		t.Helper()
		var out []string
		for u, err := range c.AllUsers(ctx, opts) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, u.Username)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		c    *sourcehost.Client
		opts *sourcehost.ListUsersOptions
		want []string
	}{
		{"all, in id order, a page of 2 at a time", admin, &sourcehost.ListUsersOptions{ListOptions: sourcehost.ListOptions{PerPage: 2}},
			[]string{"root", "alice", "alicia", "bob", "carol"}},
		{"by username, case-insensitively", admin, &sourcehost.ListUsersOptions{Username: "ALICE"}, []string{"alice"}},
		{"search in usernames and names", admin, &sourcehost.ListUsersOptions{Search: "lid"}, []string{"alice"}},
		{"search in emails, for an administrator", admin, &sourcehost.ListUsersOptions{Search: "wonder.land"}, []string{"bob"}},
		{"not in emails for others", clients["carol"], &sourcehost.ListUsersOptions{Search: "wonder.land"}, nil},
		{"active", admin, &sourcehost.ListUsersOptions{Active: sourcehost.Ptr(true), Search: "ali"}, []string{"alice", "alicia"}},
		{"blocked: none is", admin, &sourcehost.ListUsersOptions{Blocked: sourcehost.Ptr(true)}, nil},
	} {
		if got := names(tc.c, tc.opts); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}

	page, err := admin.ListUsers(ctx, &sourcehost.ListUsersOptions{Username: "bob"})
	if err != nil || len(page.Items) != 1 {
		t.Fatalf("%+v %v", page, err)
	}
	bob := page.Items[0]
	if bob.Email != "bob@wonder.land" || bob.IsAdmin || bob.CreatedAt.IsZero() {
		t.Fatalf("bob as the admin sees him: %+v", bob)
	}
	got, err := clients["carol"].GetUser(ctx, bob.ID)
	if err != nil || got.Username != "bob" || got.Email != "" || got.WebURL == "" {
		t.Fatalf("bob as carol sees him: %+v %v", got, err)
	}
	if _, err := admin.GetUser(ctx, 9999); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("no such user: %v", err)
	}
}
