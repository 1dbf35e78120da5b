package sourcehostfake_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

type answer struct {
	status int
	header http.Header
	body   string
}

func send(t *testing.T, srv *sourcehostfake.Server, method, path, contentType, body string) answer {
	t.Helper()
	req, _ := http.NewRequest(method, srv.URL()+path, strings.NewReader(body))
	req.Header.Set("PRIVATE-TOKEN", srv.Token())
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := srv.RawClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, string(b)}
}

func TestParametersFromQueryFormOrJSON(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "p"})
	base := fmt.Sprintf("/api/v4/projects/%d/issues", id)
	for _, tc := range []struct{ path, ct, body string }{
		{base + "?title=from+query&labels=a,b", "", ""},
		{base, "application/x-www-form-urlencoded", "title=from+form&labels[]=a&labels[]=b"},
		{base, "multipart/form-data; boundary=XX", "--XX\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nfrom multipart\r\n--XX\r\nContent-Disposition: form-data; name=\"labels\"\r\n\r\na,b\r\n--XX--\r\n"},
		{base, "application/json", `{"title":"from json","labels":["a","b"]}`},
		{base + "?title=query+loses", "application/json", `{"title":"json wins","labels":"a,b"}`},
	} {
		a := send(t, srv, "POST", tc.path, tc.ct, tc.body)
		var is struct {
			Title  string   `json:"title"`
			Labels []string `json:"labels"`
		}
		if a.status != 201 || json.Unmarshal([]byte(a.body), &is) != nil || !strings.HasPrefix(is.Title, strings.Fields(is.Title)[0]) || strings.Join(is.Labels, ",") != "a,b" {
			t.Errorf("%s %s: %d %s", tc.ct, tc.body, a.status, a.body)
		}
	}
	if a := send(t, srv, "POST", base, "application/json", `{"title": ["x"]}`); a.status != 400 || a.body != `{"error":"title is invalid, title is missing"}` {
		t.Errorf("array title: %d %s", a.status, a.body)
	}
	if a := send(t, srv, "POST", base, "application/json", `{not json`); a.status != 400 {
		t.Errorf("malformed JSON: %d %s", a.status, a.body)
	}
	if a := send(t, srv, "GET", base+"?state=sideways", "", ""); a.status != 400 || a.body != `{"error":"state does not have a valid value"}` {
		t.Errorf("bad state: %d %s", a.status, a.body)
	}
	if a := send(t, srv, "GET", base+"?page=two", "", ""); a.status != 400 || a.body != `{"error":"page is invalid"}` {
		t.Errorf("bad page: %d %s", a.status, a.body)
	}
}

func TestPaginationHeadersExact(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	for i := range 7 {
		srv.AddProject(sourcehostfake.ProjectSeed{Name: fmt.Sprintf("p%d", i), Visibility: "public"})
	}
	a := send(t, srv, "GET", "/api/v4/projects?per_page=3&page=2&order_by=id", "", "")
	want := map[string]string{"X-Page": "2", "X-Per-Page": "3", "X-Next-Page": "3", "X-Prev-Page": "1", "X-Total": "7", "X-Total-Pages": "3"}
	for k, v := range want {
		if got := a.header.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	u := srv.URL() + "/api/v4/projects?order_by=id&page="
	wantLink := `<` + u + `1&per_page=3>; rel="prev", <` + u + `3&per_page=3>; rel="next", <` + u + `1&per_page=3>; rel="first", <` + u + `3&per_page=3>; rel="last"`
	if got := a.header.Get("Link"); got != wantLink {
		t.Errorf("Link\n got %s\nwant %s", got, wantLink)
	}
	last := send(t, srv, "GET", "/api/v4/projects?per_page=3&page=3", "", "")
	if last.header.Get("X-Next-Page") != "" || len(last.header.Values("X-Next-Page")) != 1 {
		t.Errorf("last page X-Next-Page %q", last.header.Values("X-Next-Page"))
	}
	beyond := send(t, srv, "GET", "/api/v4/projects?per_page=3&page=9", "", "")
	if beyond.body != "[]" || beyond.header.Get("X-Next-Page") != "" {
		t.Errorf("beyond the end: %s %v", beyond.body, beyond.header)
	}
}

func TestTotalsLeftOutPast10000(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	for i := range 10_001 {
		srv.AddProject(sourcehostfake.ProjectSeed{Name: fmt.Sprintf("p%d", i), Visibility: "public"})
	}
	a := send(t, srv, "GET", "/api/v4/projects?per_page=1", "", "")
	if a.header.Get("X-Total") != "" || a.header.Get("X-Total-Pages") != "" || strings.Contains(a.header.Get("Link"), `rel="last"`) || a.header.Get("X-Next-Page") != "2" {
		t.Fatalf("headers %v", a.header)
	}
	page, err := srv.Client().ListProjects(t.Context(), &sourcehost.ListProjectsOptions{ListOptions: sourcehost.ListOptions{PerPage: 1}})
	if err != nil || page.Total != -1 || page.TotalPages != -1 || page.NextPage != 2 {
		t.Fatalf("client page info %+v %v", page.PageInfo, err)
	}
}

func TestRateLimitHeadersAndRetryLater(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t, sourcehostfake.WithRateLimit(2, time.Minute))
	reset := fmt.Sprint(srv.Clock().Now().Add(time.Minute).Unix())
	a := send(t, srv, "GET", "/api/v4/projects", "", "")
	if a.header.Get("X-RateLimit-Limit") != "2" || a.header.Get("X-RateLimit-Remaining") != "1" || a.header.Get("X-RateLimit-Reset") != reset {
		t.Fatalf("first answer headers %v", a.header)
	}
	send(t, srv, "GET", "/api/v4/nowhere", "", "") // every request counts, even a 404
	a = send(t, srv, "GET", "/api/v4/projects", "", "")
	if a.status != 429 || a.body != "Retry later\n" || a.header.Get("Retry-After") != "60" || a.header.Get("RateLimit-Reset") != reset ||
		a.header.Get("RateLimit-ResetTime") == "" || a.header.Get("X-RateLimit-Remaining") != "0" {
		t.Fatalf("throttled answer %d %q %v", a.status, a.body, a.header)
	}
	srv.Clock().Advance(time.Minute)
	if a := send(t, srv, "GET", "/api/v4/projects", "", ""); a.status != 200 {
		t.Fatalf("after the window: %d", a.status)
	}
}

func TestUnknownRoute(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	if a := send(t, srv, "GET", "/api/v4/nowhere", "", ""); a.status != 404 || a.body != `{"error":"404 Not Found"}` {
		t.Fatalf("%d %s", a.status, a.body)
	}
	a := send(t, srv, "DELETE", "/api/v4/projects", "", "")
	if a.status != 405 || a.body != `{"error":"405 Not Allowed"}` || !strings.Contains(a.header.Get("Allow"), "POST") {
		t.Fatalf("wrong method: %d %s %v", a.status, a.body, a.header)
	}
}

func TestReadBackAndSeedErrors(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	if _, err := srv.AddUser(sourcehostfake.UserSeed{Username: "bad name"}); err == nil {
		t.Error("bad username accepted")
	}
	if _, err := srv.AddUser(sourcehostfake.UserSeed{Username: "root"}); err == nil {
		t.Error("duplicate username accepted")
	}
	if _, err := srv.AddProject(sourcehostfake.ProjectSeed{Name: "x", Visibility: "secret"}); err == nil {
		t.Error("bad visibility accepted")
	}
	if _, err := srv.IssueToken("nobody", "api"); err == nil {
		t.Error("token for a missing user")
	}
	if _, err := srv.PushFile(99, "main", "a", "b", ""); err == nil {
		t.Error("push to a missing project")
	}
	if err := srv.SetPipelineStatus(1, 1, "exploded"); err == nil {
		t.Error("bad pipeline status accepted")
	}
	gid, err := srv.AddGroup(sourcehostfake.GroupSeed{Path: "team", Name: "The Team"})
	if err != nil || gid == 0 {
		t.Fatal(err)
	}
	id, err := srv.AddProject(sourcehostfake.ProjectSeed{Name: "svc", Group: "team"})
	if err != nil {
		t.Fatal(err)
	}
	p := srv.Project(id)
	if p == nil || p.PathWithNamespace != "team/svc" || p.Namespace.Kind != "group" || srv.Project(999) != nil {
		t.Fatalf("read back %+v", p)
	}
	if srv.Issues(999) != nil {
		t.Fatal("issues of a missing project")
	}
}

func TestBodyOverTheLimit(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t, control.WithMaxBody(1000))
	big := `{"title":"` + strings.Repeat("x", 1000) + `"}`
	a := send(t, srv, "POST", "/api/v4/projects/1/issues", "application/json", big)
	if a.status != 413 || a.body != `{"message":"413 Request Entity Too Large"}` {
		t.Fatalf("%d %s", a.status, a.body)
	}
	if r := srv.Requests(); len(r) != 1 || r[0].BodySize != int64(len(big)) || len(r[0].Body) != 0 || r[0].Status != 413 {
		t.Fatalf("log %v", r)
	}
	// The default is 4 MiB.
	def, err := sourcehostfake.New()
	if err != nil {
		t.Fatal(err)
	}
	rec := serve(def, "POST", "/api/v4/projects", "application/json", `{"name":"`+strings.Repeat("x", 4<<20)+`"}`)
	if rec.Code != 413 {
		t.Fatalf("4 MiB and more: %d", rec.Code)
	}
}

func TestCallerInTheRequestLog(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	srv.AddUser(sourcehostfake.UserSeed{Username: "alice"})
	tok, _ := srv.IssueToken("alice", "read_api")
	send(t, srv, "GET", "/api/v4/projects", "", "")
	req, _ := http.NewRequest("GET", srv.URL()+"/api/v4/user", nil)
	req.Header.Set("PRIVATE-TOKEN", tok)
	resp, err := srv.RawClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	anon, _ := srv.RawClient().Get(srv.URL() + "/api/v4/projects")
	anon.Body.Close()
	r := srv.Requests()
	if len(r) != 3 || r[0].Caller != "root" || r[1].Caller != "alice" || r[1].Status != 200 || r[2].Caller != "" || r[0].Route != "GET /api/v4/projects" {
		t.Fatalf("log %v", r)
	}
}

func TestResetIsNew(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t, sourcehostfake.WithRateLimit(3, time.Minute),
		control.WithFault("GET /api/v4/user", control.Fault{Status: 503}))
	if f := srv.Faults(); len(f) != 1 || f[0].Route != "GET /api/v4/user" || f[0].Remaining != -1 {
		t.Fatalf("WithFault: %v", f)
	}
	token := srv.Token()
	if err := srv.Load(decodeSeed(t, seedYAML)); err != nil {
		t.Fatal(err)
	}
	rc := newHoldingReceiver(t)
	srv.AddHook(1, sourcehostfake.HookSeed{URL: rc.URL, IssuesEvents: true})
	srv.AddIssue(1, sourcehostfake.IssueSeed{Title: "in flight"})
	<-rc.arrived
	srv.AddIssue(1, sourcehostfake.IssueSeed{Title: "waiting"})
	send(t, srv, "GET", "/api/v4/projects", "", "")
	send(t, srv, "GET", "/api/v4/projects", "", "")
	pending := srv.Clock().Pending()

	srv.Reset()
	if err := srv.WaitDeliveries(t.Context()); err != nil {
		t.Fatal(err)
	}
	if srv.Token() != token || srv.Project(1) != nil || len(srv.Faults()) != 0 || len(srv.Requests()) != 0 ||
		len(srv.Deliveries()) != 0 || srv.Clock().Pending() != 0 || pending == 0 {
		t.Fatalf("after Reset: project %v, faults %v, log %v, deliveries %v, timers %d (were %d)",
			srv.Project(1), srv.Faults(), srv.Requests(), srv.Deliveries(), srv.Clock().Pending(), pending)
	}
	// Root and its token work; the rate-limit window is new; ids start over.
	a := send(t, srv, "GET", "/api/v4/user", "", "")
	if a.status != 200 || a.header.Get("X-RateLimit-Remaining") != "2" || !strings.Contains(a.body, `"username":"root"`) {
		t.Fatalf("after Reset: %d %s %v", a.status, a.body, a.header)
	}
	if id, err := srv.AddUser(sourcehostfake.UserSeed{Username: "alice"}); err != nil || id != 2 {
		t.Fatalf("alice again: %d %v", id, err)
	}
	if len(rc.arrived) != 0 {
		t.Fatal("a dropped delivery was sent")
	}
}

func TestWithFaultRefusesABadFault(t *testing.T) {
	t.Parallel()
	_, err := sourcehostfake.New(control.WithFault("GET /api/v4/user", control.Fault{Status: 7}))
	if err == nil || !strings.Contains(err.Error(), `sourcehostfake: control.WithFault("GET /api/v4/user"): invalid fault`) {
		t.Fatalf("New: %v", err)
	}
}

func TestServeListenAndTLS(t *testing.T) {
	t.Parallel()
	srv, err := sourcehostfake.New()
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := srv.Serve(l)
	t.Cleanup(srv.Close)
	if u != "http://"+l.Addr().String() || srv.URL() != u {
		t.Fatalf("Serve: %s %s", u, srv.URL())
	}
	if _, err := srv.Client().CurrentUser(t.Context()); err != nil {
		t.Fatal(err)
	}
	other, err := sourcehostfake.New()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Listen(l.Addr().String()); err == nil || !strings.Contains(err.Error(), "already in use") {
		t.Fatalf("a busy port: %v", err)
	}
	tls := sourcehostfake.Start(t, control.WithTLS())
	if !strings.HasPrefix(tls.URL(), "https://") {
		t.Fatal(tls.URL())
	}
	if _, err := tls.Client().CurrentUser(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// The request log keeps the newest requests, and the start of each body.
func TestRequestLogBounds(t *testing.T) {
	t.Parallel()
	srv, err := sourcehostfake.New(control.WithRequestLog(2, 5))
	if err != nil {
		t.Fatal(err)
	}
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
	for i := range 3 {
		serve(srv, "POST", fmt.Sprintf("/api/v4/projects/%d/issues", id), "application/json", fmt.Sprintf(`{"title":"%d"}`, i))
	}
	r := srv.Requests()
	if len(r) != 2 || string(r[0].Body) != `{"tit` || r[0].BodySize != 13 || !r[0].Truncated() || len(srv.Issues(id)) != 3 {
		t.Fatalf("log %v", r)
	}
}
