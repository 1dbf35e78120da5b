package sourcehostfake_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/internal/fakekit"
	"github.com/apitwin/apitwin/sourcehost"
)

// fakeResolver answers names from a table the test changes; any other
// name is not found. No lookup leaves the process.
type fakeResolver struct {
	mu    sync.Mutex
	names map[string]string
}

func (r *fakeResolver) set(name, addr string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.names[name] = addr
}

func (r *fakeResolver) remove(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.names, name)
}

func (r *fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if a, ok := r.names[host]; ok {
		return []netip.Addr{netip.MustParseAddr(a)}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// loopbackOnly is a hook client whose dialer refuses, and reports, any
// address that is not loopback: were the fake's guard to let one through,
// the test fails without a packet leaving the machine.
func loopbackOnly(t *testing.T) *http.Client {
	var d net.Dialer
	return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, _, _ := net.SplitHostPort(addr)
		if a, err := netip.ParseAddr(host); err != nil || !a.Unmap().IsLoopback() {
			t.Errorf("the fake dialed %s", addr)
			return nil, fmt.Errorf("test: %s is not loopback", addr)
		}
		return d.DialContext(ctx, network, addr)
	}}}
}

// countingReceiver counts the deliveries it gets.
type countingReceiver struct {
	*httptest.Server
	mu  sync.Mutex
	got []string // X-Sourcehost-Event of each
}

func newCountingReceiver(t *testing.T, h http.HandlerFunc) *countingReceiver {
	rc := &countingReceiver{}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc.mu.Lock()
		rc.got = append(rc.got, r.Header.Get(sourcehost.HookEventHeader))
		rc.mu.Unlock()
		if h != nil {
			h(w, r)
		}
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *countingReceiver) count() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.got)
}

func hookBody(u string) string { return `{"url":"` + u + `","issues_events":true}` }

// Issue 38, finding 7: hooks were accepted to any address, cloud metadata
// included (9 of 9 tried), and delivered there. The fake now refuses
// metadata addresses whatever its setting, and with GitLab's setting
// "allow requests to the local network from webhooks" off, the local
// network too, with GitLab's answer.
func TestHookURLsRefusedAsGitLabRefusesThem(t *testing.T) {
	t.Parallel()
	res := &fakeResolver{names: map[string]string{"metadata.test": "169.254.169.254", "intranet.test": "10.0.0.8"}}
	srv := sourcehostfake.Start(t, sourcehostfake.WithHookResolver(res), sourcehostfake.WithHookClient(loopbackOnly(t)))
	pid, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
	hooks := fmt.Sprintf("/api/v4/projects/%d/hooks", pid)
	rc := newCountingReceiver(t, nil)
	refused := `{"message":"Invalid url given"}`

	// On by default: loopback is fine, metadata never, however written.
	for _, tc := range []struct{ url, want string }{
		{rc.URL + "/hook", ""},
		{"http://169.254.169.254/latest/meta-data/", refused},
		{"http://[::ffff:169.254.169.254]/", refused},
		{"http://[::ffff:a9fe:a9fe]/", refused},
		{"http://[fe80::1%25eth0]/", refused},
		{"http://[fd00:ec2::254]/latest/meta-data/", refused},
		{"http://100.100.100.200/latest/meta-data/", refused},
		{"http://169.254.170.2/v2/credentials", refused},
		{"ftp://127.0.0.1/", refused},
	} {
		rec := serve(srv, "POST", hooks, "application/json", hookBody(tc.url))
		switch {
		case tc.want == "" && rec.Code != 201:
			t.Errorf("%s: %d %s", tc.url, rec.Code, rec.Body)
		case tc.want != "" && (rec.Code != 422 || rec.Body.String() != tc.want):
			t.Errorf("%s: %d %s, want 422 %s", tc.url, rec.Code, rec.Body, tc.want)
		}
	}
	if n := len(srv.Hooks(pid)); n != 1 {
		t.Fatalf("%d hooks kept", n)
	}

	// The setting, as an administrator reads and changes it.
	if rec := serve(srv, "GET", "/api/v4/application/settings", "", ""); rec.Code != 200 ||
		rec.Body.String() != `{"id":1,"allow_local_requests_from_web_hooks_and_services":true}` {
		t.Fatalf("GET settings: %d %s", rec.Code, rec.Body)
	}
	if rec := serve(srv, "PUT", "/api/v4/application/settings", "application/json", `{"allow_local_requests_from_web_hooks_and_services":false}`); rec.Code != 200 ||
		rec.Body.String() != `{"id":1,"allow_local_requests_from_web_hooks_and_services":false}` || srv.AllowLocalRequests() {
		t.Fatalf("PUT settings: %d %s", rec.Code, rec.Body)
	}
	for _, tc := range []struct{ url, want string }{
		{rc.URL + "/hook2", refused},
		{"http://[::1]:9/", refused},
		{"http://10.1.2.3/", refused},
		{"http://192.168.1.1:8080/", refused},
		{"http://100.64.0.1/", refused},
		{"http://intranet.test/", refused}, // resolved: 10.0.0.8
		{"http://metadata.test/", refused}, // resolved: 169.254.169.254
		{"http://unknown.test/", ""},       // not found: let through, as GitLab lets it through when a hook is saved
	} {
		rec := serve(srv, "POST", hooks, "application/json", hookBody(tc.url))
		switch {
		case tc.want == "" && rec.Code != 201:
			t.Errorf("off, %s: %d %s", tc.url, rec.Code, rec.Body)
		case tc.want != "" && (rec.Code != 422 || rec.Body.String() != tc.want):
			t.Errorf("off, %s: %d %s, want 422 %s", tc.url, rec.Code, rec.Body, tc.want)
		}
	}
	hs := srv.Hooks(pid)
	if len(hs) != 2 || hs[1].URL != "http://unknown.test/" {
		t.Fatalf("%d hooks kept", len(hs))
	}
	if rec := serve(srv, "DELETE", fmt.Sprintf("%s/%d", hooks, hs[1].ID), "", ""); rec.Code != 204 {
		t.Fatalf("delete: %d %s", rec.Code, rec.Body)
	}
	// Editing a hook checks its URL again; a refusal changes nothing.
	first := srv.Hooks(pid)[0]
	if rec := serve(srv, "PUT", fmt.Sprintf("%s/%d", hooks, first.ID), "application/json", `{"url":"http://169.254.169.254/","token":"t"}`); rec.Code != 422 ||
		rec.Body.String() != refused {
		t.Fatalf("edit to metadata: %d %s", rec.Code, rec.Body)
	}
	if h := srv.Hooks(pid)[0]; h.URL != rc.URL+"/hook" {
		t.Fatalf("the refused edit changed the hook: %+v", h)
	}

	// A hook made while local requests were allowed is not delivered once
	// they are not: its delivery is recorded blocked, with the reason.
	ctx := t.Context()
	if _, err := srv.Client().CreateIssue(ctx, sourcehost.ProjectID(pid), &sourcehost.CreateIssueRequest{Title: "while off"}); err != nil {
		t.Fatal(err)
	}
	if err := srv.WaitDeliveries(ctx); err != nil {
		t.Fatal(err)
	}
	ds := srv.Deliveries()
	if len(ds) != 1 || ds[0].State != sourcehostfake.DeliveryBlocked || ds[0].Error != "URL is blocked: Requests to localhost are not allowed" || rc.count() != 0 {
		t.Fatalf("deliveries %+v, received %d", ds, rc.count())
	}
	// Allowed again, it is.
	srv.SetAllowLocalRequests(true)
	if _, err := srv.Client().CreateIssue(ctx, sourcehost.ProjectID(pid), &sourcehost.CreateIssueRequest{Title: "while on"}); err != nil {
		t.Fatal(err)
	}
	if err := srv.WaitDeliveries(ctx); err != nil {
		t.Fatal(err)
	}
	if ds := srv.Deliveries(); len(ds) != 2 || ds[1].State != sourcehostfake.DeliverySent || rc.count() != 1 {
		t.Fatalf("deliveries %s, received %d", states(ds), rc.count())
	}

	// Reset puts the setting back as the options left it.
	srv.SetAllowLocalRequests(false)
	srv.Reset()
	if !srv.AllowLocalRequests() {
		t.Fatal("Reset left local requests off")
	}
}

// Only an administrator reads or changes the settings, with the scopes the
// real service asks for; a PUT naming nothing is Grape's 400.
func TestSettingsAreForAdministrators(t *testing.T) {
	t.Parallel()
	srv, err := sourcehostfake.New()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.AddUser(sourcehostfake.UserSeed{Username: "alice"}); err != nil {
		t.Fatal(err)
	}
	alice, _ := srv.AddToken(sourcehostfake.TokenSeed{Username: "alice", Scopes: []string{"api"}})
	rootRead, _ := srv.AddToken(sourcehostfake.TokenSeed{Username: "root", Scopes: []string{"read_api"}})
	rootUser, _ := srv.AddToken(sourcehostfake.TokenSeed{Username: "root", Scopes: []string{"read_user"}})
	call := func(method, token, body string) (int, string) {
		req := httptest.NewRequest(method, "/api/v4/application/settings", strings.NewReader(body))
		if token != "" {
			req.Header.Set("PRIVATE-TOKEN", token)
		}
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		return rec.Code, rec.Body.String()
	}
	const off = `{"allow_local_requests_from_web_hooks_and_services":false}`
	for _, tc := range []struct {
		method, token, body string
		status              int
		answer              string
	}{
		{"GET", "", "", 401, `{"message":"401 Unauthorized"}`},
		{"PUT", "", off, 401, `{"message":"401 Unauthorized"}`},
		{"GET", alice, "", 403, `{"message":"403 Forbidden"}`},
		{"PUT", alice, off, 403, `{"message":"403 Forbidden"}`},
		{"GET", rootUser, "", 403, ""}, // insufficient_scope
		{"PUT", rootRead, off, 403, ""},
		{"GET", rootRead, "", 200, `{"id":1,"allow_local_requests_from_web_hooks_and_services":true}`},
		{"PUT", srv.Token(), "", 400, `{"error":"allow_local_requests_from_web_hooks_and_services are missing, at least one parameter must be provided"}`},
		{"PUT", srv.Token(), `{"allow_local_requests_from_web_hooks_and_services":"maybe"}`, 400,
			`{"error":"allow_local_requests_from_web_hooks_and_services is invalid"}`},
		{"PUT", srv.Token(), `{"signup_enabled":false}`, 200, `{"id":1,"allow_local_requests_from_web_hooks_and_services":true}`},
	} {
		status, answer := call(tc.method, tc.token, tc.body)
		if status != tc.status || tc.answer != "" && answer != tc.answer {
			t.Errorf("%s by %.8s… %s: %d %s", tc.method, tc.token, tc.body, status, answer)
		}
	}
	if !srv.AllowLocalRequests() {
		t.Fatal("a refused PUT changed the setting")
	}
}

// A seed sets the setting before its projects, so their hooks are checked
// against it; AddHook checks as the API does and says why.
func TestSeededSettingAndHooks(t *testing.T) {
	t.Parallel()
	srv, err := sourcehostfake.New(sourcehostfake.WithHookResolver(&fakeResolver{names: map[string]string{}}))
	if err != nil {
		t.Fatal(err)
	}
	off := false
	err = srv.Load(sourcehostfake.Seed{Settings: &sourcehostfake.SettingsSeed{AllowLocalRequestsFromWebHooksAndServices: &off},
		Projects: []sourcehostfake.ProjectSeed{{Name: "shop", Hooks: []sourcehostfake.HookSeed{{URL: "http://127.0.0.1:9/h"}}}}})
	if err == nil || err.Error() != "projects[0].hooks[0]: sourcehostfake: url is blocked: Requests to localhost are not allowed" {
		t.Fatalf("seeding a loopback hook with local requests off: %v", err)
	}
	if srv.AllowLocalRequests() || len(srv.Projects()) != 0 {
		t.Fatalf("setting %v, %d projects", srv.AllowLocalRequests(), len(srv.Projects()))
	}
	srv.SetAllowLocalRequests(true)
	pid, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
	if _, err := srv.AddHook(pid, sourcehostfake.HookSeed{URL: "http://[fd00:ec2::254]/"}); err == nil ||
		err.Error() != "sourcehostfake: url is blocked: Requests to the local network are not allowed" {
		t.Fatalf("seeding a metadata hook: %v", err)
	}
}

// The address is checked when the delivery goes, by the addresses the name
// resolves to then, and only those are dialed: a name that pointed at the
// receiver when the hook was made and at the metadata service later (DNS
// rebinding) is not delivered, nor is a redirect to it.
func TestDeliveriesCheckTheAddressTheyDial(t *testing.T) {
	t.Parallel()
	res := &fakeResolver{names: map[string]string{}}
	srv := sourcehostfake.Start(t, sourcehostfake.WithHookResolver(res), sourcehostfake.WithHookClient(loopbackOnly(t)))
	var redirect atomic.Pointer[string] // where the receiver sends deliveries on, if anywhere
	rc := newCountingReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		if to := redirect.Load(); to != nil {
			http.Redirect(w, r, *to, http.StatusTemporaryRedirect)
		}
	})
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(rc.URL, "http://"))
	res.set("receiver.test", "127.0.0.1")
	pid, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
	if _, err := srv.AddHook(pid, sourcehostfake.HookSeed{URL: "http://receiver.test:" + port + "/hook", IssuesEvents: true}); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	issue := func(title string) []sourcehostfake.Delivery {
		t.Helper()
		if _, err := srv.AddIssue(pid, sourcehostfake.IssueSeed{Title: title}); err != nil {
			t.Fatal(err)
		}
		if err := srv.WaitDeliveries(ctx); err != nil {
			t.Fatal(err)
		}
		ds := srv.Deliveries()
		return ds[len(ds)-1:]
	}
	// The name resolves to the receiver: delivered, through the resolver.
	if d := issue("first"); d[0].State != sourcehostfake.DeliverySent || rc.count() != 1 {
		t.Fatalf("first: %+v, received %d", d, rc.count())
	}
	// Rebound to the metadata service: not dialed.
	res.set("receiver.test", "169.254.169.254")
	if d := issue("rebound"); d[0].State != sourcehostfake.DeliveryBlocked ||
		d[0].Error != "URL is blocked: Requests to the link local network are not allowed" || rc.count() != 1 {
		t.Fatalf("rebound: %+v, received %d", d, rc.count())
	}
	// Back on the receiver, which redirects to the metadata service.
	res.set("receiver.test", "127.0.0.1")
	to := "http://[::ffff:169.254.169.254]/latest/meta-data/iam/"
	redirect.Store(&to)
	if d := issue("redirected"); d[0].State != sourcehostfake.DeliveryBlocked ||
		d[0].Error != "URL is blocked: Requests to the link local network are not allowed" || rc.count() != 2 {
		t.Fatalf("redirected: %+v, received %d", d, rc.count())
	}
	// A name that no longer resolves fails as the real service fails it.
	redirect.Store(nil)
	res.remove("receiver.test")
	if d := issue("gone"); d[0].State != sourcehostfake.DeliveryFailed || !strings.Contains(d[0].Error, "Host cannot be resolved or invalid") {
		t.Fatalf("unresolved: %+v", d)
	}
}

// A hook client whose transport the fake cannot guard (a RoundTripper of
// the caller's own) gets the check before each delivery instead.
func TestOwnTransportIsCheckedBeforeEachDelivery(t *testing.T) {
	t.Parallel()
	res := &fakeResolver{names: map[string]string{"receiver.test": "127.0.0.1"}}
	var mu sync.Mutex
	got := 0
	ok := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { mu.Lock(); got++; mu.Unlock() })
	srv, err := sourcehostfake.New(sourcehostfake.WithHookResolver(res),
		sourcehostfake.WithHookClient(&http.Client{Transport: fakekit.HandlerTransport{Handler: ok}}))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop",
		Hooks: []sourcehostfake.HookSeed{{URL: "http://receiver.test/hook", IssuesEvents: true}}})
	srv.SetAllowLocalRequests(false)
	if _, err := srv.AddIssue(pid, sourcehostfake.IssueSeed{Title: "x"}); err != nil {
		t.Fatal(err)
	}
	if err := srv.WaitDeliveries(t.Context()); err != nil {
		t.Fatal(err)
	}
	ds := srv.Deliveries()
	mu.Lock()
	defer mu.Unlock()
	if len(ds) != 1 || ds[0].State != sourcehostfake.DeliveryBlocked || ds[0].Error != "URL is blocked: Requests to localhost are not allowed" || got != 0 {
		t.Fatalf("%+v, delivered %d", ds, got)
	}
}
