package sourcehost_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

func ExampleClient_AddProjectMember() {
	srv := startFake()
	defer srv.Close()
	ctx := context.Background()
	c := srv.Client()
	alice, _ := srv.AddUser(sourcehostfake.UserSeed{Username: "alice"})
	tok, _ := srv.IssueToken("alice", sourcehost.ScopeAPI)
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Files: map[string]string{"main.go": "package main"}})

	m, err := c.AddProjectMember(ctx, sourcehost.ProjectID(id), &sourcehost.AddProjectMemberRequest{UserID: alice, AccessLevel: sourcehost.GuestAccess})
	if err != nil {
		panic(err)
	}
	fmt.Println(m.Username, m.AccessLevel)
	// A guest of a private project does not read its code.
	_, err = srv.ClientWithToken(tok).GetFile(ctx, sourcehost.ProjectID(id), "main.go", "main")
	fmt.Println(errors.Is(err, sourcehost.ErrForbidden))

	for m, err := range c.AllProjectMembers(ctx, sourcehost.ProjectID(id), nil) {
		if err != nil {
			panic(err)
		}
		fmt.Println(m.Username, m.AccessLevel)
	}
	// Output:
	// alice guest
	// true
	// root owner
	// alice guest
}

func ExampleClient_CurrentUser() {
	srv := startFake()
	defer srv.Close()
	me, err := srv.Client().CurrentUser(context.Background())
	if err != nil {
		panic(err)
	}
	fmt.Println(me.Username, me.IsAdmin)
	// Output: root true
}
