package erp_test

import (
	"errors"
	"testing"

	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake/erpfake"
)

func TestUsersCRUD(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	login := "apitwin-" + unique()
	u, err := tg.c.CreateUser(ctx, &erp.CreateUserRequest{Login: login, Lastname: "Doe", Firstname: "Jane", Email: login + "@example.com", Password: "pw-" + login})
	if err != nil {
		t.Fatal(err)
	}
	if u.ID == 0 || u.Login != login || u.Lastname != "Doe" || !bool(u.Enabled) || bool(u.Admin) || u.DateCreation.IsZero() {
		t.Fatalf("created %+v", u)
	}
	got, err := tg.c.GetUser(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d := diff(u, got); d != "" {
		t.Fatalf("get differs from create (-create +get):\n%s", d)
	}
	updated, err := tg.c.UpdateUser(ctx, u.ID, &erp.UpdateUserRequest{Job: erp.Ptr("Accountant"), Enabled: erp.Ptr(erp.Bool(false))})
	if err != nil || updated.Job != "Accountant" || bool(updated.Enabled) || updated.Lastname != "Doe" {
		t.Fatalf("updated %+v %v", updated, err)
	}
	found := false
	for user, err := range tg.c.AllUsers(ctx, &erp.ListOptions{Filter: erp.Field("t.login").Eq(login)}) {
		if err != nil {
			t.Fatal(err)
		}
		found = found || user.ID == u.ID
	}
	if !found {
		t.Fatal("the new user is not listed")
	}
	if err := tg.c.DeleteUser(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.GetUser(ctx, u.ID); !errors.Is(err, erp.ErrNotFound) {
		t.Fatalf("get after delete: %v", err)
	}
	// Deleting a user that does not exist is 404.
	err = tg.c.DeleteUser(ctx, u.ID)
	var e *erp.Error
	if !errors.Is(err, erp.ErrNotFound) || !errors.As(err, &e) || e.Message != "Not Found: User not found" {
		t.Fatalf("delete again: %v", err)
	}
}

func TestUserRules(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	if _, err := tg.c.CreateUser(ctx, &erp.CreateUserRequest{}); err == nil {
		t.Fatal("a user without login passed the client")
	}
	// A login is unique, ignoring case; the ERP says so with 500 and its code.
	_, err := tg.c.CreateUser(ctx, &erp.CreateUserRequest{Login: "ADMIN"})
	var e *erp.Error
	if !errors.Is(err, erp.ErrAlreadyExists) || !errors.Is(err, erp.ErrServer) || !errors.As(err, &e) ||
		e.Message != "Internal Server Error: Error creating" || len(e.Details) != 1 || e.Details[0] != "ErrorLoginAlreadyExists" {
		t.Fatalf("taken login: %v", err)
	}
	if n := len(srv.RequestsTo("POST /api/index.php/users")); n != 1 {
		t.Fatalf("a refused POST was sent %d times", n)
	}
	// Only administrators manage users.
	srv.AddUser(erpfake.UserSeed{Login: "clerk"})
	key, _ := srv.IssueAPIKey("clerk")
	clerk := srv.ClientWithAPIKey(key)
	if _, err := clerk.CreateUser(ctx, &erp.CreateUserRequest{Login: "x"}); !errors.Is(err, erp.ErrForbidden) {
		t.Fatalf("clerk creating a user: %v", err)
	}
	if err := clerk.DeleteUser(ctx, 1); !errors.Is(err, erp.ErrForbidden) {
		t.Fatalf("clerk deleting admin: %v", err)
	}
	if _, err := clerk.GetUser(ctx, 1); err != nil {
		t.Fatalf("clerk reading: %v", err)
	}
	// Nobody deletes their own account.
	if err := tg.c.DeleteUser(ctx, 1); !errors.Is(err, erp.ErrForbidden) {
		t.Fatalf("admin deleting itself: %v", err)
	}
	// A disabled user cannot log in.
	srv.AddUser(erpfake.UserSeed{Login: "gone", Password: "pw", Disabled: true})
	if err := srv.ClientWithLogin("gone", "pw").Login(ctx); !errors.Is(err, erp.ErrUnauthorized) {
		t.Fatalf("disabled login: %v", err)
	}
}
