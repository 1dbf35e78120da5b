package browsertest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake"
	"github.com/apitwin/apitwin/fake/controlapi"
	"github.com/apitwin/apitwin/internal/testtools"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

const token = "test-control-token-0123456789"

// env is the fakes and their control server, as apitwin-fake serves them.
type env struct {
	f   *fake.Fakes
	url string
}

func start(t *testing.T) *env {
	t.Helper()
	f := fake.Start(t)
	srv, err := controlapi.New(f, controlapi.NewWallClock(f.Clock, false), token)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return &env{f: f, url: ts.URL}
}

// apiStatus is the status of GET /api/clock sent with the browser's
// cookies and no token: 200 while they hold an open console session, 401
// once it has ended.
func apiStatus(t *testing.T, e *env, cookies []*network.Cookie) int {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), "GET", e.url+"/api/clock", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cookies {
		req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestConsoleInABrowser drives the console in headless chromium as a
// person would: log in, add a 503 fault on the ERP through the form, see an
// ERP call from Go fail and the request in the page's log, advance the
// clock with the button and see an orch workflow's timer fire, log out and
// be asked for the token again. A screenshot
// of each page is kept in the test's artifact directory (go test
// -artifacts keeps them).
func TestConsoleInABrowser(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a browser")
	}
	exe := testtools.Find(t, "chromium", "chromium-browser", "google-chrome", "chrome")
	e := start(t)
	ctx := t.Context()

	// An orch run waiting on a one-hour timer: its workflow task is
	// answered here with the StartTimer command.
	if _, err := e.f.Clients.Orch.StartWorkflow(ctx, "Sleeper", "naps", nil, &orch.StartWorkflowOptions{ID: "sleeper"}); err != nil {
		t.Fatal(err)
	}
	wsc := orchpb.NewWorkflowServiceClient(e.f.Orch.Conn())
	task, err := wsc.PollWorkflowTaskQueue(ctx, &orchpb.PollWorkflowTaskQueueRequest{Namespace: "default", TaskQueue: "naps", Identity: "browser-test"})
	if err != nil || len(task.GetTaskToken()) == 0 {
		t.Fatalf("poll: %v %v", task, err)
	}
	if _, err := wsc.RespondWorkflowTaskCompleted(ctx, &orchpb.RespondWorkflowTaskCompletedRequest{Namespace: "default", TaskToken: task.GetTaskToken(),
		Commands: []*orchpb.Command{orch.StartTimerCommand("nap", time.Hour)}, Identity: "browser-test"}); err != nil {
		t.Fatal(err)
	}

	// A schedule starting a run every hour, listed on the orch page.
	report, err := orch.ScheduleWorkflow("report", "Report", "reports", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.f.Clients.Orch.CreateSchedule(ctx, "hourly-report", &orchpb.Schedule{
		Spec: &orchpb.ScheduleSpec{CronString: []string{"@hourly"}}, Action: report}, nil); err != nil {
		t.Fatal(err)
	}

	// The browser's profile: removed at the end, leniently, since chromium's
	// helpers may still be writing to it as they exit (t.TempDir's own
	// removal fails the test then).
	profile, err := os.MkdirTemp("", "apitwin-console-browser-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(profile) })
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.WindowSize(1280, 1000), chromedp.UserDataDir(profile))
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	// A bound for a failing test (a browser that never answers), not a
	// measure: every step below waits on the page, not on time.
	browserCtx, cancel := context.WithTimeout(alloc, 2*time.Minute)
	defer cancel()
	b, cancelBrowser := chromedp.NewContext(browserCtx)
	defer cancelBrowser()

	dir := t.ArtifactDir()
	shot := func(name string) chromedp.Action {
		return chromedp.ActionFunc(func(ctx context.Context) error {
			var png []byte
			if err := chromedp.FullScreenshot(&png, 100).Do(ctx); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644)
		})
	}

	var overview string
	if err := chromedp.Run(b,
		chromedp.Navigate(e.url+"/login?token="+token),
		chromedp.WaitVisible("#services"),
		chromedp.Text("#services", &overview),
		shot("overview"),
	); err != nil {
		t.Fatalf("log in: %v", err)
	}
	for _, name := range []string{"erp", "cloudauth", "orch", "sourcehost", "mcp"} {
		if !strings.Contains(overview, name) {
			t.Errorf("the overview lacks %s: %q", name, overview)
		}
	}

	// The fault, through the form.
	var msg string
	if err := chromedp.Run(b,
		chromedp.Navigate(e.url+"/s/erp"),
		chromedp.WaitVisible("#fault-form"),
		chromedp.SetValue("#fault-status", "503"),
		chromedp.SetValue("#fault-times", "1"),
		chromedp.Click("#add-fault"),
		chromedp.WaitVisible("#message"),
		chromedp.Text("#message", &msg),
	); err != nil {
		t.Fatalf("the fault form: %v", err)
	}
	if !strings.Contains(msg, "fault added") || len(e.f.ERP.Faults()) != 1 {
		t.Fatalf("after the form: %q, %d faults", msg, len(e.f.ERP.Faults()))
	}
	if _, err := e.f.ERP.Client(erp.WithoutRetries()).ListProducts(ctx, nil); err == nil {
		t.Fatal("the ERP answered through the console's 503 fault")
	}
	var log string
	if err := chromedp.Run(b,
		chromedp.Navigate(e.url+"/s/erp"),
		chromedp.WaitVisible("#request-log"),
		chromedp.Text("#request-log", &log),
		shot("erp"),
	); err != nil {
		t.Fatalf("the ERP page: %v", err)
	}
	if !strings.Contains(log, "/api/index.php/products") || !strings.Contains(log, "503 (fault)") {
		t.Errorf("the page's request log lacks the failed call: %q", log)
	}

	// The clock, through the advance button: the timer fires.
	var workflows, schedules string
	if err := chromedp.Run(b,
		chromedp.Navigate(e.url+"/s/orch"),
		chromedp.WaitVisible("#workflows"),
		chromedp.SetValue("#advance-by", "1h"),
		chromedp.Click("#advance"),
		chromedp.WaitVisible("#message"),
		chromedp.Text("#message", &msg),
		chromedp.OuterHTML("#workflows", &workflows),
		chromedp.Text("#schedules", &schedules),
		shot("orch"),
	); err != nil {
		t.Fatalf("the orch page: %v", err)
	}
	if !strings.Contains(msg, "clock advanced by 1h0m0s") || !strings.Contains(workflows, "TimerFired") {
		t.Errorf("after the advance: %q; workflows: %s", msg, workflows)
	}
	// the schedule's run of the hour started, and the page lists both
	if !strings.Contains(schedules, "hourly-report") || !strings.Contains(schedules, "@hourly") || !strings.Contains(workflows, "report-") {
		t.Errorf("after the advance, schedules: %q; workflows: %s", schedules, workflows)
	}
	for _, name := range []string{"cloudauth", "sourcehost", "mcp"} {
		if err := chromedp.Run(b, chromedp.Navigate(e.url+"/s/"+name), chromedp.WaitVisible("#requests"), shot(name)); err != nil {
			t.Errorf("the %s page: %v", name, err)
		}
	}

	// Log out: the button ends the session, and a page asks for the token
	// again. The browser's cookies, read before (through the DevTools
	// protocol: the session cookie is HttpOnly), open the API until then
	// and not after: the session ended in the server, not only in the
	// browser.
	var cookies []*network.Cookie
	if err := chromedp.Run(b,
		chromedp.Navigate(e.url+"/s/erp"),
		chromedp.WaitVisible("#logout"),
		chromedp.ActionFunc(func(ctx context.Context) (err error) {
			cookies, err = network.GetCookies().WithURLs([]string{e.url}).Do(ctx)
			return err
		}),
	); err != nil {
		t.Fatalf("the cookies: %v", err)
	}
	if status := apiStatus(t, e, cookies); status != http.StatusOK {
		t.Fatalf("the browser's cookies do not read the API while logged in: %d", status)
	}
	var location string
	if err := chromedp.Run(b,
		chromedp.Click("#logout"),
		chromedp.WaitVisible(`input[name="token"]`),
		chromedp.Navigate(e.url+"/s/erp"),
		chromedp.WaitVisible(`input[name="token"]`),
		chromedp.Location(&location),
		shot("logged-out"),
	); err != nil {
		t.Fatalf("log out: %v", err)
	}
	if !strings.HasSuffix(location, "/login") {
		t.Errorf("after logging out, a page went to %s", location)
	}
	if status := apiStatus(t, e, cookies); status != http.StatusUnauthorized {
		t.Errorf("the cookies kept from before the logout read the API: %d", status)
	}
}
