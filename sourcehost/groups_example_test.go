package sourcehost_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

func ExampleClient_CreateGroup() {
	srv := startFake()
	defer srv.Close()
	ctx := context.Background()
	c := srv.Client()

	team, err := c.CreateGroup(ctx, &sourcehost.CreateGroupRequest{Name: "Team", Path: "team"})
	if err != nil {
		panic(err)
	}
	backend, err := c.CreateGroup(ctx, &sourcehost.CreateGroupRequest{Name: "Backend", Path: "backend", ParentID: team.ID})
	if err != nil {
		panic(err)
	}
	if _, err := c.CreateProject(ctx, &sourcehost.CreateProjectRequest{Name: "api", NamespaceID: backend.ID}); err != nil {
		panic(err)
	}
	// A project in a subgroup, by its full path.
	p, err := c.GetProject(ctx, sourcehost.ProjectPath("team/backend/api"), nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(backend.FullName, "|", p.PathWithNamespace)

	for p, err := range c.AllGroupProjects(ctx, sourcehost.GroupPath("team"), &sourcehost.ListGroupProjectsOptions{IncludeSubgroups: sourcehost.Ptr(true)}) {
		if err != nil {
			panic(err)
		}
		fmt.Println(p.NameWithNamespace)
	}
	// Output:
	// Team / Backend | team/backend/api
	// Team / Backend / api
}

func ExampleClient_CreatePersonalAccessToken() {
	srv := startFake()
	defer srv.Close()
	ctx := context.Background()
	admin := srv.Client()
	me, err := admin.CurrentUser(ctx)
	if err != nil {
		panic(err)
	}

	// A token with exactly the scopes a test needs.
	tok, err := admin.CreatePersonalAccessToken(ctx, me.ID, &sourcehost.CreatePersonalAccessTokenRequest{
		Name: "reader", Scopes: []string{sourcehost.ScopeReadAPI}})
	if err != nil {
		panic(err)
	}
	fmt.Println(tok) // the secret does not print
	reader := srv.ClientWithToken(tok.Token)
	_, err = reader.CreateProject(ctx, &sourcehost.CreateProjectRequest{Name: "nope"})
	fmt.Println(errors.Is(err, sourcehost.ErrInsufficientScope))

	if err := reader.RevokeCurrentToken(ctx); err != nil {
		panic(err)
	}
	_, err = reader.CurrentUser(ctx)
	fmt.Println(errors.Is(err, sourcehost.ErrUnauthorized))
	// Output:
	// sourcehost.NewPersonalAccessToken{ID: 2, Name: "reader", UserID: 1, Scopes: ["read_api"], Token: [REDACTED]}
	// true
	// true
}

func ExampleWithSudo() {
	srv := startFake()
	defer srv.Close()
	ctx := context.Background()
	if _, err := srv.AddUser(sourcehostfake.UserSeed{Username: "alice"}); err != nil {
		panic(err)
	}
	// An administrator's token with the sudo scope acts as another user.
	secret, err := srv.IssueToken(sourcehostfake.RootUsername, sourcehost.ScopeAPI, sourcehost.ScopeSudo)
	if err != nil {
		panic(err)
	}
	asAlice := srv.ClientWithToken(secret, sourcehost.WithSudo("alice"))
	p, err := asAlice.CreateProject(ctx, &sourcehost.CreateProjectRequest{Name: "hers"})
	if err != nil {
		panic(err)
	}
	fmt.Println(p.PathWithNamespace)
	// Output: alice/hers
}
