package erp_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake/erpfake"
	"github.com/apitwin/apitwin/internal/leaktest"
)

// TestRequestAPIKey: the ERP's login API (issue 37, the calls scripts use
// next) gives a login and password the user's API key, makes one when the
// user has none, renews it when asked, and refuses with 403 "Access
// denied". It needs no key; the key never prints.
func TestRequestAPIKey(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t) // a real ERP's passwords are not the test's to know
	if _, err := srv.AddUser(erpfake.UserSeed{Login: "clerk", Password: "clerk-pw-1"}); err != nil {
		t.Fatal(err)
	}
	anon := anonymous(t, srv)
	g, err := anon.RequestAPIKey(ctx, &erp.APIKeyRequest{Login: "clerk", Password: "clerk-pw-1"})
	if err != nil || len(g.Key) != 40 || g.Entity != 1 || !strings.HasPrefix(g.Message, "Welcome clerk - This is your token") {
		t.Fatalf("a key for clerk: %v %v", g, err)
	}
	leaktest.NoSecretIn(t, "the grant", g, g.Key)
	leaktest.NoSecretIn(t, "the request", &erp.APIKeyRequest{Login: "clerk", Password: "clerk-pw-1"}, "clerk-pw-1")
	u, err := srv.ClientWithAPIKey(g.Key).ListUsers(ctx, nil)
	if err != nil || len(u.Items) == 0 {
		t.Fatalf("the key works: %v", err)
	}
	again, err := anon.RequestAPIKey(ctx, &erp.APIKeyRequest{Login: "clerk", Password: "clerk-pw-1"})
	if err != nil || again.Key != g.Key {
		t.Fatalf("asked again, the same key: %v", err)
	}
	renewed, err := anon.RequestAPIKey(ctx, &erp.APIKeyRequest{Login: "clerk", Password: "clerk-pw-1", Reset: true})
	if err != nil || renewed.Key == g.Key || !strings.HasSuffix(renewed.Message, "Token is new") {
		t.Fatalf("reset: %v %v", renewed, err)
	}
	if _, err := srv.ClientWithAPIKey(g.Key).ListUsers(ctx, nil); !errors.Is(err, erp.ErrUnauthorized) {
		t.Fatalf("the key before the reset: %v", err)
	}
	for name, req := range map[string]*erp.APIKeyRequest{
		"wrong password": {Login: "clerk", Password: "nope"},
		"unknown login":  {Login: "nobody", Password: "clerk-pw-1"},
	} {
		_, err := anon.RequestAPIKey(ctx, req)
		var e *erp.Error
		if !errors.Is(err, erp.ErrForbidden) || !errors.As(err, &e) || e.Message != "Forbidden: Access denied" || strings.Contains(err.Error(), req.Password) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// GET with the parameters in the query, as the ERP also serves it.
	get := func(query string) (int, string) {
		resp, err := http.Get(srv.URL() + erp.APIPath + "/login?" + query)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if st, b := get("login=clerk&password=clerk-pw-1&entity=x"); st != 403 || !strings.Contains(b, "Bad value for entity, must be the numeric ID of company.") {
		t.Fatalf("GET with a bad entity: %d %s", st, b)
	}
	if st, b := get("login=clerk&password=clerk-pw-1"); st != 200 || !strings.Contains(b, `"token":"`+renewed.Key+`"`) {
		t.Fatalf("GET: %d %s", st, b)
	}
}

// TestStatus reads the ERP's version, as a real ERP answers it too.
func TestStatus(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	st, err := tg.c.Status(ctx)
	if err != nil || st.Version == "" {
		t.Fatalf("status: %+v %v", st, err)
	}
	if tg.fake != nil && (st.Version != erpfake.Version || st.AccessLocked != "0") {
		t.Fatalf("the fake's status: %+v", st)
	}
	var s erp.Status
	if err := s.UnmarshalJSON([]byte(`{"success":{"code":200,"dolibarr_version":"18.0.4","access_locked":"0"}}`)); err != nil || s.Version != "18.0.4" {
		t.Fatalf("a real deployment's field: %+v %v", s, err)
	}
}

func ExampleClient_RequestAPIKey() {
	srv := startFake(erpfake.WithAdminPassword("s3cret"))
	defer srv.Close()
	anon, _ := erp.New(srv.URL()) // no credentials yet
	g, err := anon.RequestAPIKey(ctx, &erp.APIKeyRequest{Login: "admin", Password: "s3cret"})
	if err != nil {
		fmt.Println(err)
		return
	}
	c, _ := erp.New(srv.URL(), erp.WithAPIKey(g.Key))
	st, _ := c.Status(ctx)
	fmt.Println("ERP", st.Version, "admin's key:", g.Key == srv.APIKey())
	// Output: ERP 21.0.0 admin's key: true
}
