package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/fake/cloudauthfake"
)

// TestAPI: cloudctl api calls the server with the stored token, puts
// fields in the query of a GET and in a JSON body otherwise, typed (-F)
// or as strings (-f), sends --input's JSON, filters with --jq, and
// refuses a URL that would take the token elsewhere.
func TestAPI(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newCLI(t, srv)
	if r := c.run("", "api", cloudauth.UserInfoPath, "--url-less"); r.code != 2 {
		t.Fatalf("an unknown flag: %+v", r)
	}
	if r := c.run("", "api", cloudauth.UserInfoPath); r.code != 1 || !strings.Contains(r.stderr, "no server URL") {
		t.Fatalf("before login: %+v", r)
	}
	c.login()
	r := c.must("", "api", cloudauth.UserInfoPath)
	var info cloudauth.UserInfo
	if err := json.Unmarshal([]byte(r.stdout), &info); err != nil || info.Username != "admin" {
		t.Fatalf("userinfo: %v %q", err, r.stdout)
	}
	if r := c.must("", "api", cloudauth.UserInfoPath, "--jq", ".username"); r.stdout != "admin\n" {
		t.Fatalf("--jq: %q", r.stdout)
	}
	if r := c.must("", "api", cloudauth.UserInfoPath, "-q", "{u: .username, r: .roles}"); r.stdout != `{"r":["org_owner"],"u":"admin"}`+"\n" {
		t.Fatalf("--jq object: %q", r.stdout)
	}
	if r := c.must("", "api", cloudauth.UserInfoPath, "--jq", "$ENV | length"); r.stdout != "0\n" {
		t.Fatalf("the filter sees the environment: %q", r.stdout)
	}
	if r := c.run("", "api", cloudauth.UserInfoPath, "--jq", ".["); r.code != 2 {
		t.Fatalf("a bad filter: %+v", r)
	}

	// Fields: in the query of a GET, in a JSON body of a POST.
	c.must("", "api", "-X", "get", cloudauth.UserInfoPath+"?a=1", "-f", "s=x y", "-F", "n=3")
	last := func() (string, string) {
		reqs := srv.Requests()
		l := reqs[len(reqs)-1]
		return l.Query.Encode(), string(l.Body)
	}
	if q, _ := last(); q != "a=1&n=3&s=x+y" {
		t.Fatalf("GET query %q", q)
	}
	r = c.run("", "api", cloudauth.UserInfoPath, "-F", "n=3", "-F", "ok=true", "-F", "nil=null", "-f", "s=3", "-F", "w=words")
	if r.code != 1 || !strings.Contains(r.stderr, "405") {
		t.Fatalf("POST to a GET path: %+v", r)
	}
	var body map[string]any
	if _, b := last(); json.Unmarshal([]byte(b), &body) != nil || body["n"] != float64(3) || body["ok"] != true ||
		body["nil"] != nil || body["s"] != "3" || body["w"] != "words" {
		t.Fatalf("POST body %q", b)
	}
	file := filepath.Join(t.TempDir(), "in.json")
	if err := os.WriteFile(file, []byte(`{"raw": [1, 2]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	c.run("", "api", "-X", "PUT", cloudauth.UserInfoPath, "--input", file, "-f", "q=1")
	if q, b := last(); q != "q=1" || b != `{"raw":[1,2]}` {
		t.Fatalf("--input: query %q body %q", q, b)
	}
	c.run(`{"from":"stdin"}`, "api", cloudauth.UserInfoPath, "--input", "-")
	if _, b := last(); b != `{"from":"stdin"}` {
		t.Fatalf("--input -: %q", b)
	}
	if r := c.run("not json", "api", cloudauth.UserInfoPath, "--input", "-"); r.code != 1 || !strings.Contains(r.stderr, "is not JSON") {
		t.Fatalf("--input not JSON: %+v", r)
	}

	// Refusals.
	for _, p := range []string{"https://evil.example/x", "//evil.example/x", "relative/path"} {
		if r := c.run("", "api", p); r.code != 2 || !strings.Contains(r.stderr, "takes a path on the server") {
			t.Fatalf("%s: %+v", p, r)
		}
	}
	if r := c.run("", "api", "/no/such/path"); r.code != 1 || !strings.Contains(r.stderr, "404") {
		t.Fatalf("404: %+v", r)
	}
	if r := c.run("", "api", cloudauth.UserInfoPath, "-F", "novalue"); r.code != 2 {
		t.Fatalf("a field without =: %+v", r)
	}
	srv.Clock().Advance(31 * time.Minute)
	if r := c.run("", "api", cloudauth.UserInfoPath); r.code != 4 {
		t.Fatalf("expired token: %+v", r)
	}
}

// TestAPIRenews: cloudctl api renews an expired token stored with an API
// token before the call.
func TestAPIRenews(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	apiTok, err := srv.IssueAPIToken("", "admin", 0)
	if err != nil {
		t.Fatal(err)
	}
	c := newCLI(t, srv)
	c.must(apiTok, "auth", "login", "--url", srv.URL(), "--with-token")
	srv.Clock().Advance(time.Hour)
	if r := c.must("", "api", cloudauth.UserInfoPath, "--jq", ".username"); r.stdout != "admin\n" || strings.Contains(r.stdout+r.stderr, apiTok) {
		t.Fatalf("api after expiry: %+v", r)
	}
	if n := len(srv.RequestsTo(cloudauthfake.RouteAPIToken)); n != 2 {
		t.Fatalf("%d exchanges", n)
	}
}
