package cloudauthfake_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/fake/cloudauthfake"
	"github.com/apitwin/apitwin/fake/control"
)

func TestCallerInTheRequestLog(t *testing.T) {
	t.Parallel()
	srv := start(t)
	c := srv.Client()
	tok, err := c.Login(context.Background(), &cloudauth.LoginRequest{Username: "admin", Password: "changeme"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.UserInfo(context.Background(), tok); err != nil {
		t.Fatal(err)
	}
	send(t, srv.RawClient(), "POST", srv.URL()+cloudauth.LoginPath, `{"username":"admin","password":"wrong"}`, nil)
	reqs := srv.Requests()
	if len(reqs) != 3 || reqs[0].Caller != "admin" || reqs[1].Caller != "admin" || reqs[2].Caller != "" || reqs[2].Status != 401 {
		t.Fatalf("log %v", reqs)
	}
	if !strings.Contains(string(reqs[0].Body), `"password"`) {
		t.Fatalf("the log keeps the body as sent: %q", reqs[0].Body)
	}
}

func TestBodyOverTheLimit(t *testing.T) {
	t.Parallel()
	srv := start(t, control.WithMaxBody(100))
	big := `{"username":"admin","password":"` + strings.Repeat("x", 100) + `"}`
	resp, m := send(t, srv.RawClient(), "POST", srv.URL()+cloudauth.LoginPath, big, nil)
	if resp.StatusCode != 413 || m["statusCode"] != 413.0 || m["message"] != "Request Entity Too Large" || m["requestId"] == "" {
		t.Fatalf("%d %v", resp.StatusCode, m)
	}
	if resp, _ := send(t, srv.RawClient(), "POST", srv.URL()+cloudauth.LoginPath, `{"username":"admin","password":"changeme"}`, nil); resp.StatusCode != 200 {
		t.Fatalf("a small body after a refused one: %d", resp.StatusCode)
	}
	if r := srv.Requests(); r[0].BodySize != int64(len(big)) || len(r[0].Body) != 0 {
		t.Fatalf("a refused body is not kept: %v %d", r[0], len(r[0].Body))
	}
}

func TestResetAndLoad(t *testing.T) {
	t.Parallel()
	srv := start(t, control.WithFault(cloudauthfake.RoutePublicKey, control.Fault{Status: 503}))
	if len(srv.Faults()) != 1 || srv.Faults()[0].Remaining != -1 {
		t.Fatalf("WithFault: %v", srv.Faults())
	}
	err := srv.Load(cloudauthfake.Seed{Users: []cloudauthfake.UserSeed{
		{Username: "alice", Password: "pw", Tenant: "acme"},
		{Username: "alice", Password: "pw2", Tenant: "acme"},
	}})
	if err == nil || !strings.HasPrefix(err.Error(), "users[1]: ") {
		t.Fatalf("Load of a duplicate: %v", err)
	}
	tok, err := srv.IssueToken("acme", "alice")
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.RevokeToken(tok); err != nil {
		t.Fatal(err)
	}
	send(t, srv.RawClient(), "GET", srv.URL()+cloudauth.PublicKeyPath, "", nil)

	srv.Reset()
	if _, ok := srv.LookupUser("acme", "alice"); ok || srv.Issued() != 0 || srv.Revoked(tok) || len(srv.Faults()) != 0 || len(srv.Requests()) != 0 {
		t.Fatalf("after Reset: alice %v, issued %d, faults %v, log %v", ok, srv.Issued(), srv.Faults(), srv.Requests())
	}
	if _, err := srv.Client().Login(context.Background(), &cloudauth.LoginRequest{Username: "admin", Password: "changeme"}); err != nil {
		t.Fatalf("admin after Reset: %v", err)
	}
}

func TestWithFaultRefusesABadFault(t *testing.T) {
	t.Parallel()
	_, err := cloudauthfake.New(cloudauthfake.WithKey(testKey(), "k1"), control.WithFault("", control.Fault{Code: "UNAVAILABLE"}))
	if err == nil || !strings.Contains(err.Error(), "cloudauthfake: control.WithFault") {
		t.Fatalf("New: %v", err)
	}
}

func TestServeOnAListener(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := cloudauthfake.New(cloudauthfake.WithKey(testKey(), "k1"))
	if err != nil {
		t.Fatal(err)
	}
	u := srv.Serve(l)
	if u != "http://"+l.Addr().String() || srv.URL() != u {
		t.Fatalf("Serve = %q, URL %q", u, srv.URL())
	}
	if _, err := srv.Client().PublicKeys(context.Background()); err != nil {
		t.Fatal(err)
	}
	srv.Close()
	srv.Close()
	_, err = http.Get(u + cloudauth.PublicKeyPath)
	if err == nil || errors.Is(err, context.Canceled) {
		t.Fatalf("still serving after Close: %v", err)
	}
}
