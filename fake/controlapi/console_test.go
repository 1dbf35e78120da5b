package controlapi_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake/controlapi"
	"github.com/apitwin/apitwin/fake/erpfake"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/protobuf/types/known/durationpb"
)

// browser is an HTTP client that keeps cookies and does not follow
// redirects, so that each step of the console can be checked.
func browser(t *testing.T) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func fetch(t *testing.T, hc *http.Client, method, u string, form url.Values) (int, http.Header, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequest(method, u, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// login opens the console with the token and returns the form check value
// the pages carry.
func login(t *testing.T, e *env, hc *http.Client) string {
	t.Helper()
	status, h, _ := fetch(t, hc, "GET", e.url+"/login?token="+token, nil)
	if status != http.StatusSeeOther || h.Get("Location") != "/" {
		t.Fatalf("login: %d %v", status, h)
	}
	_, _, page := fetch(t, hc, "GET", e.url+"/", nil)
	_, rest, ok := strings.Cut(page, `name="check" value="`)
	if !ok {
		t.Fatalf("no form check on the page:\n%s", page)
	}
	check, _, _ := strings.Cut(rest, `"`)
	return check
}

func TestConsoleNeedsTheToken(t *testing.T) {
	t.Parallel()
	e := start(t)
	hc := browser(t)
	if status, h, _ := fetch(t, hc, "GET", e.url+"/s/erp", nil); status != http.StatusSeeOther || h.Get("Location") != "/login" {
		t.Fatalf("a page without the cookie: %d %v", status, h)
	}
	if status, _, body := fetch(t, hc, "POST", e.url+"/login", url.Values{"token": {"wrong-token-0123456789"}}); status != http.StatusUnauthorized || !strings.Contains(body, "not the token") {
		t.Fatalf("a wrong token: %d", status)
	}
	status, h, _ := fetch(t, hc, "POST", e.url+"/login", url.Values{"token": {token}})
	if status != http.StatusSeeOther {
		t.Fatalf("login form: %d", status)
	}
	c := h.Get("Set-Cookie")
	if !strings.Contains(c, "HttpOnly") || !strings.Contains(c, "SameSite=Strict") {
		t.Errorf("cookie %q", c)
	}
	if status, _, _ := fetch(t, hc, "GET", e.url+"/s/erp", nil); status != 200 {
		t.Fatalf("a page with the cookie: %d", status)
	}
	// The cookie reads the API, but does not change anything through it.
	if status, _, _ := fetch(t, hc, "GET", e.url+"/api/clock", nil); status != 200 {
		t.Errorf("GET /api/clock with the cookie: %d", status)
	}
	req, _ := http.NewRequest("POST", e.url+"/api/clock/freeze", nil)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("POST /api/clock/freeze with only the cookie: %d", resp.StatusCode)
	}
}

// A form without the page's check value (what another site's page would
// send) is refused, and changes nothing.
func TestConsoleFormsNeedTheirCheck(t *testing.T) {
	t.Parallel()
	e := start(t)
	hc := browser(t)
	login(t, e, hc)
	before := e.wc.State().Now
	for _, form := range []url.Values{{"by": {"1h"}}, {"by": {"1h"}, "check": {"0000"}}} {
		if status, _, _ := fetch(t, hc, "POST", e.url+"/console/clock/advance", form); status != http.StatusForbidden {
			t.Errorf("%v: %d", form, status)
		}
	}
	if !e.wc.State().Now.Equal(before) {
		t.Error("the clock moved")
	}
}

// The console's forms do what the API does, and the pages show the
// outcome: a 503 fault on the ERP fails an ERP call, which the request log
// on the page shows with its answer; the clock advances.
func TestConsolePages(t *testing.T) {
	t.Parallel()
	e := start(t)
	hc := browser(t)
	check := login(t, e, hc)
	ctx := context.Background()
	if _, err := e.f.ERP.AddThirdparty(erpfake.ThirdpartySeed{Name: "Acme Corp"}); err != nil {
		t.Fatal(err)
	}

	status, h, _ := fetch(t, hc, "POST", e.url+"/console/erp/faults", url.Values{"check": {check}, "back": {"/s/erp"}, "status": {"503"}, "times": {"1"}})
	if status != http.StatusSeeOther || !strings.HasPrefix(h.Get("Location"), "/s/erp?msg=") {
		t.Fatalf("add fault: %d %v", status, h)
	}
	_, err := e.f.ERP.Client(erp.WithoutRetries()).GetThirdparty(ctx, 1)
	if err == nil {
		t.Fatal("the ERP answered despite the fault")
	}
	_, _, page := fetch(t, hc, "GET", e.url+h.Get("Location"), nil)
	for _, want := range []string{"erp: fault added on every request", "Acme Corp", "/api/index.php/thirdparties/1", "503", "(fault)", "Service Unavailable"} {
		if !strings.Contains(page, want) {
			t.Errorf("the ERP page lacks %q", want)
		}
	}

	before := e.wc.State().Now
	status, h, _ = fetch(t, hc, "POST", e.url+"/console/clock/advance", url.Values{"check": {check}, "back": {"/s/orch"}, "by": {"90m"}})
	if status != http.StatusSeeOther || !e.wc.State().Now.Equal(before.Add(90*time.Minute)) {
		t.Fatalf("advance: %d, clock %v (was %v)", status, e.wc.State().Now, before)
	}
	_, _, page = fetch(t, hc, "GET", e.url+h.Get("Location"), nil)
	if !strings.Contains(page, "clock advanced by 1h30m0s") {
		t.Errorf("the orch page does not say the clock moved")
	}
	status, h, _ = fetch(t, hc, "POST", e.url+"/console/clock/advance", url.Values{"check": {check}, "back": {"//evil.example/"}, "by": {"soon"}})
	if status != http.StatusSeeOther || h.Get("Location") != "/?msg=refused%3A+by+%22soon%22+is+not+a+duration+%28say+%2290s%22%2C+%221h%22+or+%2224h%22%29" {
		t.Errorf("a bad advance: %d %q", status, h.Get("Location"))
	}
	for _, svc := range []string{"cloudauth", "orch", "sourcehost", "mcp"} {
		if status, _, page := fetch(t, hc, "GET", e.url+"/s/"+svc, nil); status != 200 || !strings.Contains(page, "<h1>"+svc+"</h1>") {
			t.Errorf("/s/%s: %d", svc, status)
		}
	}
	if status, _, _ := fetch(t, hc, "GET", e.url+"/s/payroll", nil); status != http.StatusNotFound {
		t.Errorf("/s/payroll: %d", status)
	}
	if status, _, js := fetch(t, hc, "GET", e.url+"/static/console.js", nil); status != 200 || !strings.Contains(js, "refresh") {
		t.Errorf("console.js: %d", status)
	}
}

func TestWallClockFollowsAndKeepsAdvances(t *testing.T) {
	t.Parallel()
	e := start(t)
	wall := e.wc.State().Now
	controlapi.SetWall(e.wc, func() time.Time { return wall })
	e.wc.Follow()
	wall = wall.Add(time.Second)
	controlapi.CatchUp(e.wc)
	if got := e.wc.State().Now; !got.Equal(wall) {
		t.Fatalf("following: %v, want the wall's %v", got, wall)
	}
	e.wc.Advance(time.Hour)
	wall = wall.Add(time.Second)
	controlapi.CatchUp(e.wc)
	if got := e.wc.State().Now; !got.Equal(wall.Add(time.Hour)) {
		t.Fatalf("after an advance: %v, want the wall plus the hour %v", got, wall.Add(time.Hour))
	}
	e.wc.Freeze()
	wall = wall.Add(time.Minute)
	controlapi.CatchUp(e.wc)
	if got := e.wc.State().Now; got.Equal(wall.Add(time.Hour)) {
		t.Fatal("a frozen clock followed the wall")
	}
}

// The orch page lists the schedules of every namespace, with what they
// did: the clock's advance through the form starts the due run.
func TestConsoleListsSchedules(t *testing.T) {
	t.Parallel()
	e := start(t)
	hc := browser(t)
	check := login(t, e, hc)
	action, err := orch.ScheduleWorkflow("report", "Report", "reports", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.f.Clients.Orch.CreateSchedule(t.Context(), "hourly-report", &orchpb.Schedule{
		Spec: &orchpb.ScheduleSpec{Interval: []*orchpb.IntervalSpec{{Interval: durationpb.New(time.Hour)}}}, Action: action}, nil); err != nil {
		t.Fatal(err)
	}
	status, h, _ := fetch(t, hc, "POST", e.url+"/console/clock/advance", url.Values{"check": {check}, "back": {"/s/orch"}, "by": {"1h"}})
	if status != http.StatusSeeOther {
		t.Fatalf("advance: %d", status)
	}
	_, _, page := fetch(t, hc, "GET", e.url+h.Get("Location"), nil)
	for _, want := range []string{`id="schedules"`, "<td>default</td><td>hourly-report</td><td>Report</td><td>every 1h0m0s</td><td>skip</td><td>false</td><td>1</td><td>1</td>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the orch page lacks %q", want)
		}
	}
}
