package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestHookTargetsOverTheWire is issue 38's finding 7 against the program:
// webhooks were accepted to any address, cloud metadata included. Over
// the wire, as any GitLab client would: metadata addresses are refused
// whatever the setting; an administrator turns GitLab's "allow requests
// to the local network from webhooks" off with PUT
// /api/v4/application/settings, and a hook to loopback is then refused
// with GitLab's answer, made or edited; nobody else may change it.
func TestHookTargetsOverTheWire(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the program as a process")
	}
	p := startProcess(t)
	shURL := strings.TrimSuffix(p.services["sourcehost"]["url"], "/api/v4")
	root := map[string]string{"PRIVATE-TOKEN": p.services["sourcehost"]["token"], "Content-Type": "application/json"}
	call := func(method, path string, header map[string]string, body string) (int, string) {
		t.Helper()
		st, got, err := hostileCall{method: method, url: shURL + path, header: header, body: strings.NewReader(body), length: -1}.do(t)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		return st, got
	}
	want := func(method, path string, header map[string]string, body string, status int, answer string) {
		t.Helper()
		if st, got := call(method, path, header, body); st != status || answer != "" && got != answer {
			t.Errorf("%s %s %s: %d %s, want %d %s", method, path, body, st, got, status, answer)
		}
	}
	receiver := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(receiver.Close)
	hook := func(u string) string { return `{"url":"` + u + `","issues_events":true}` }
	const refused = `{"message":"Invalid url given"}`

	if st, got := call("POST", "/api/v4/projects", root, `{"name":"shop"}`); st != 201 {
		t.Fatalf("project: %d %s", st, got)
	}
	want("POST", "/api/v4/projects/1/hooks", root, hook(receiver.URL+"/hook"), 201, "")
	for _, u := range []string{"http://169.254.169.254/latest/meta-data/", "http://[::ffff:169.254.169.254]/",
		"http://[fd00:ec2::254]/", "http://100.100.100.200/", "http://[fe80::a9fe:a9fe]/"} {
		want("POST", "/api/v4/projects/1/hooks", root, hook(u), 422, refused)
	}

	// Someone who is not an administrator can neither read nor change the
	// setting.
	ctl := map[string]string{"Authorization": "Bearer " + p.services["control"]["token"], "Content-Type": "application/json"}
	seed := `{"sourcehost":{"users":[{"username":"alice"}],"tokens":[{"username":"alice","token":"alice-token-0123456789","scopes":["api"]}]}}`
	if st, got, err := (hostileCall{method: "POST", url: p.services["control"]["url"] + "/api/seed", header: ctl, body: strings.NewReader(seed), length: -1}).do(t); err != nil || st != 204 {
		t.Fatalf("seed: %d %s %v", st, got, err)
	}
	alice := map[string]string{"PRIVATE-TOKEN": "alice-token-0123456789", "Content-Type": "application/json"}
	off := `{"allow_local_requests_from_web_hooks_and_services":false}`
	want("GET", "/api/v4/application/settings", alice, "", 403, `{"message":"403 Forbidden"}`)
	want("PUT", "/api/v4/application/settings", alice, off, 403, `{"message":"403 Forbidden"}`)

	// The administrator turns it off: loopback is refused, made or edited.
	want("GET", "/api/v4/application/settings", root, "", 200, `{"id":1,"allow_local_requests_from_web_hooks_and_services":true}`)
	want("PUT", "/api/v4/application/settings", root, off, 200, `{"id":1,"allow_local_requests_from_web_hooks_and_services":false}`)
	for _, u := range []string{receiver.URL + "/other", "http://localhost:9/", "http://10.0.0.1/", "http://192.168.0.1/"} {
		want("POST", "/api/v4/projects/1/hooks", root, hook(u), 422, refused)
	}
	want("PUT", "/api/v4/projects/1/hooks/1", root, `{"token":"new"}`, 422, refused)

	// And on again.
	want("PUT", "/api/v4/application/settings", root, `{"allow_local_requests_from_web_hooks_and_services":true}`, 200, "")
	want("POST", "/api/v4/projects/1/hooks", root, hook(receiver.URL+"/again"), 201, "")
}
