package erp_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/erpfake"
	"github.com/apitwin/apitwin/internal/leaktest"
)

const (
	loginRoute       = "POST /index.php"
	thirdpartiesPost = "POST /api/index.php/thirdparties"
	userGet          = "GET /api/index.php/users/{id}"
)

func TestAPIKeyAuth(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	if _, err := tg.c.GetUser(ctx, 1); err != nil {
		t.Fatalf("admin key: %v", err)
	}
	// The fake's log keeps no key: the header is there, redacted, and the
	// caller it authenticated is the key's.
	if r := srv.RequestsTo(userGet)[0]; r.Header.Get("ERPAPIKEY") != "[REDACTED]" || r.Caller != "admin" {
		t.Fatalf("ERPAPIKEY header %q, caller %q", r.Header.Get("ERPAPIKEY"), r.Caller)
	}
	for _, tc := range []struct {
		name string
		c    *erp.Client
		msg  string
	}{
		{"wrong key", srv.ClientWithAPIKey("not-a-key"), "Unauthorized: Error user not valid"},
		{"no credentials", anonymous(t, srv), "Unauthorized: Failed to login to API"},
	} {
		_, err := tc.c.GetUser(ctx, 1)
		var e *erp.Error
		if !errors.Is(err, erp.ErrUnauthorized) || !errors.As(err, &e) || e.StatusCode != 401 || !strings.HasPrefix(e.Message, tc.msg) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	// A user's own key works until the user is disabled.
	if _, err := srv.AddUser(erpfake.UserSeed{Login: "clerk"}); err != nil {
		t.Fatal(err)
	}
	key, err := srv.IssueAPIKey("clerk")
	if err != nil {
		t.Fatal(err)
	}
	clerk := srv.ClientWithAPIKey(key)
	if _, err := clerk.ListProducts(ctx, nil); err != nil {
		t.Fatalf("clerk's key: %v", err)
	}
	srv.SetUserEnabled("clerk", false)
	if _, err := clerk.ListProducts(ctx, nil); !errors.Is(err, erp.ErrUnauthorized) {
		t.Fatalf("disabled user's key: %v", err)
	}
}

func anonymous(t *testing.T, srv *erpfake.Server) *erp.Client {
	t.Helper()
	c, err := erp.New(srv.URL(), erp.WithClock(srv.Clock()))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestOptionsValidated(t *testing.T) {
	t.Parallel()
	for name, opts := range map[string][]erp.Option{
		"empty key":        {erp.WithAPIKey(" ")},
		"key line break":   {erp.WithAPIKey("a\nb")},
		"empty username":   {erp.WithLogin("", "pw")},
		"empty password":   {erp.WithLogin("admin", "")},
		"key and login":    {erp.WithAPIKey("k"), erp.WithLogin("admin", "pw")},
		"nil http client":  {erp.WithHTTPClient(nil)},
		"bad retry policy": {erp.WithRetry(erp.RetryPolicy{MaxRetries: -1})},
	} {
		if _, err := erp.New("http://erp.example", opts...); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	for _, bad := range []string{"", "ftp://x", "/relative", "http://h/?q=1"} {
		if _, err := erp.New(bad); err == nil {
			t.Errorf("base URL %q accepted", bad)
		}
	}
	c, err := erp.New("https://erp.example/api/index.php/")
	if err != nil || c.BaseURL() != "https://erp.example" {
		t.Fatalf("API path not dropped: %v %v", c, err)
	}
}

func TestSessionLogin(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t, erpfake.WithAdminPassword("s3cret-admin"))
	c := srv.ClientWithLogin("admin", "s3cret-admin")
	u, err := c.GetUser(ctx, 1)
	if err != nil || u.Login != "admin" || !bool(u.Admin) {
		t.Fatalf("get with a session: %+v %v", u, err)
	}
	logins := srv.RequestsTo(loginRoute)
	if len(logins) != 1 || logins[0].Status != http.StatusFound {
		t.Fatalf("logins %+v", logins)
	}
	if got := srv.RequestsTo(userGet)[0].Header.Get("Cookie"); !strings.HasPrefix(got, erpfake.SessionCookie+"=") {
		t.Fatalf("cookie sent %q", got)
	}
	if srv.RequestsTo(userGet)[0].Header.Get("ERPAPIKEY") != "" {
		t.Fatal("a session client sent an API key")
	}
	if srv.Sessions() != 1 || srv.User(1).DateLastLogin.IsZero() {
		t.Fatalf("sessions %d, last login %v", srv.Sessions(), srv.User(1).DateLastLogin)
	}
	// Login checks the credentials at once.
	if err := c.Login(ctx); err != nil {
		t.Fatal(err)
	}
	err = srv.ClientWithLogin("admin", "wrong").Login(ctx)
	var e *erp.Error
	if !errors.Is(err, erp.ErrUnauthorized) || !errors.As(err, &e) || !strings.Contains(e.Message, "Bad value for login or password") {
		t.Fatalf("wrong password: %v", err)
	}
	if strings.Contains(err.Error(), "wrong") {
		t.Fatalf("password in the error: %v", err)
	}
	// A refused login fails the call, without reaching the API.
	before := len(srv.RequestsTo(userGet))
	if _, err := srv.ClientWithLogin("nobody", "x").GetUser(ctx, 1); !errors.Is(err, erp.ErrUnauthorized) {
		t.Fatalf("unknown user: %v", err)
	}
	if len(srv.RequestsTo(userGet)) != before {
		t.Fatal("an API call was made without a session")
	}
}

func TestSessionExpiresAndIsRenewed(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t, erpfake.WithSessionTimeout(20*time.Minute))
	c := srv.ClientWithLogin("admin", srv.AdminPassword())
	if _, err := c.ListUsers(ctx, nil); err != nil {
		t.Fatal(err)
	}
	// Use keeps the session alive…
	srv.Clock().Advance(15 * time.Minute)
	if _, err := c.ListUsers(ctx, nil); err != nil {
		t.Fatal(err)
	}
	srv.Clock().Advance(15 * time.Minute)
	if _, err := c.ListUsers(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.RequestsTo(loginRoute)); n != 1 {
		t.Fatalf("%d logins while the session was in use", n)
	}
	// …and 20 idle minutes end it: the next call is refused, the client logs
	// in again and repeats it.
	srv.Clock().Advance(21 * time.Minute)
	if srv.Sessions() != 0 {
		t.Fatal("session still open")
	}
	page, err := c.ListUsers(ctx, nil)
	if err != nil || len(page.Items) != 1 {
		t.Fatalf("after expiry: %+v %v", page, err)
	}
	statuses := statusesOf(srv.RequestsTo("GET /api/index.php/users"))
	if want := []int{200, 200, 200, 401, 200}; fmt.Sprint(statuses) != fmt.Sprint(want) {
		t.Fatalf("statuses %v, want %v", statuses, want)
	}
	if n := len(srv.RequestsTo(loginRoute)); n != 2 {
		t.Fatalf("%d logins, want 2", n)
	}
}

func statusesOf(reqs []control.Request) []int {
	out := make([]int, len(reqs))
	for i, r := range reqs {
		out[i] = r.Status
	}
	return out
}

func TestSessionEndedPostSentAgainOnlyWhenRefusedAtTheDoor(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t)
	c := srv.ClientWithLogin("admin", srv.AdminPassword())
	if err := c.Login(ctx); err != nil {
		t.Fatal(err)
	}
	// The session is gone: the API refuses before doing anything ("Failed
	// to login to API"), so the POST is sent again after a new login, and
	// the third party is created once.
	srv.EndSessions()
	tp, err := c.CreateThirdparty(ctx, &erp.CreateThirdpartyRequest{Name: "Once", Client: erp.Customer})
	if err != nil {
		t.Fatal(err)
	}
	if got := statusesOf(srv.RequestsTo(thirdpartiesPost)); fmt.Sprint(got) != "[401 200]" || len(srv.Thirdparties()) != 1 || tp.Name != "Once" {
		t.Fatalf("statuses %v, %d third parties", got, len(srv.Thirdparties()))
	}
	// A 401 of another kind (a permission) to a POST is not sent again:
	// nothing says the server did nothing. The session is renewed for the
	// next call all the same.
	srv.InjectFault(thirdpartiesPost, control.Fault{Status: 401, Times: 1,
		Body: `{"error":{"code":401,"message":"Unauthorized: Access not allowed for login admin"}}`})
	_, err = c.CreateThirdparty(ctx, &erp.CreateThirdpartyRequest{Name: "Twice?"})
	if !errors.Is(err, erp.ErrUnauthorized) || len(srv.RequestsTo(thirdpartiesPost)) != 3 {
		t.Fatalf("err %v, %d POSTs", err, len(srv.RequestsTo(thirdpartiesPost)))
	}
	// The same 401 to an idempotent call is sent again.
	srv.InjectFault(userGet, control.Fault{Status: 401, Times: 1,
		Body: `{"error":{"code":401,"message":"Unauthorized: Access not allowed for login admin"}}`})
	if _, err := c.GetUser(ctx, 1); err != nil || len(srv.RequestsTo(userGet)) != 2 {
		t.Fatalf("GET: %v, %d requests", err, len(srv.RequestsTo(userGet)))
	}
	// An API-key client never logs in and never repeats a 401.
	srv.InjectFault(userGet, control.Fault{Status: 401, Times: 1})
	if _, err := srv.Client().GetUser(ctx, 1); !errors.Is(err, erp.ErrUnauthorized) {
		t.Fatalf("key client: %v", err)
	}
}

func TestSessionRenewedOnceForConcurrentCalls(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t)
	c := srv.ClientWithLogin("admin", srv.AdminPassword())
	if err := c.Login(ctx); err != nil {
		t.Fatal(err)
	}
	srv.EndSessions()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.GetUser(ctx, 1)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := len(srv.RequestsTo(loginRoute)); n != 2 {
		t.Fatalf("%d logins, want 2 (the first and one renewal)", n)
	}
}

func TestSessionRenewalFails(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t)
	if _, err := srv.AddUser(erpfake.UserSeed{Login: "temp", Password: "pw-temp"}); err != nil {
		t.Fatal(err)
	}
	c := srv.ClientWithLogin("temp", "pw-temp")
	if err := c.Login(ctx); err != nil {
		t.Fatal(err)
	}
	srv.EndSessions()
	srv.SetUserEnabled("temp", false)
	_, err := c.ListProducts(ctx, nil)
	if !errors.Is(err, erp.ErrUnauthorized) || !strings.Contains(err.Error(), "logging in again failed") || strings.Contains(err.Error(), "pw-temp") {
		t.Fatalf("err = %v", err)
	}
}

func TestSecretsNeverInErrorsOrFormatting(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t, erpfake.WithAdminPassword("hunter2-admin-pw"))
	const key = "erp-key-leak-canary-0123456789"
	// A server that echoes the key back in its error.
	srv.InjectFault("", control.Fault{Status: 400, Body: `{"error":{"code":400,"message":"Bad Request: bad key ` + key + `"}}`})
	c := srv.ClientWithAPIKey(key)
	_, err := c.GetUser(ctx, 1)
	var e *erp.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v", err)
	}
	lc := srv.ClientWithLogin("admin", "hunter2-admin-pw")
	leaktest.NoSecretIn(t, "the error", err, key, "hunter2-admin-pw")
	leaktest.NoSecretIn(t, "the *Error's message", e.Message, key, "hunter2-admin-pw")
	leaktest.NoSecretIn(t, "the *Error's body", string(e.Body), key, "hunter2-admin-pw")
	leaktest.NoSecretIn(t, "the client with a key", c, key, "hunter2-admin-pw")
	leaktest.NoSecretIn(t, "the client with a login", lc, key, "hunter2-admin-pw")
	leaktest.NoSecretIn(t, "a CreateUserRequest", erp.CreateUserRequest{Login: "x", Password: "hunter2-admin-pw"}, key, "hunter2-admin-pw")
	dead, _ := erp.New("http://127.0.0.1:1/"+key, erp.WithAPIKey(key), erp.WithoutRetries())
	_, err = dead.GetUser(ctx, 1)
	if err == nil {
		t.Fatal("a call to an unreachable server succeeded")
	}
	leaktest.NoSecretIn(t, "the transport error", err, key)
}

func TestAPINotEnabled(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	srv.SetAPIEnabled(false)
	// The ERP's own way: a 200 web page instead of JSON.
	_, err := tg.c.ListInvoices(ctx, nil)
	var e *erp.Error
	if !errors.Is(err, erp.ErrAPINotEnabled) || !errors.As(err, &e) || e.StatusCode != 200 ||
		!strings.Contains(err.Error(), "API not enabled") || !strings.Contains(e.Message, "Module Api must be enabled") {
		t.Fatalf("module off: %v", err)
	}
	for name, call := range map[string]func() error{
		"create": func() error {
			_, err := tg.c.CreateProduct(ctx, &erp.CreateProductRequest{Ref: "R", Label: "L"})
			return err
		},
		"describe": func() error { _, err := tg.c.DescribeAPI(ctx); return err },
	} {
		if err := call(); !errors.Is(err, erp.ErrAPINotEnabled) {
			t.Errorf("module off, %s: %v", name, err)
		}
	}
	// The login form is the web interface's, which stays up.
	if err := srv.ClientWithLogin("admin", srv.AdminPassword()).Login(ctx); err != nil {
		t.Errorf("module off, login: %v", err)
	}
	if err := tg.c.Ping(ctx); err != nil {
		t.Fatalf("the web interface stays up: %v", err)
	}
	srv.SetAPIEnabled(true)

	// Other ways a server may say it, with an error status.
	c := srv.Client(erp.WithoutRetries())
	for _, f := range []control.Fault{
		{Status: 503, Body: "API not enabled", Header: http.Header{"Content-Type": {"text/plain"}}},
		{Status: 501, Body: `{"error":{"code":501,"message":"Not Implemented: Module api not enabled"}}`},
		{Status: 403, Body: `<html><body>Module <b>Api</b> not active</body></html>`, Header: http.Header{"Content-Type": {"text/html"}}},
	} {
		srv.ClearFaults()
		srv.InjectFault("", f)
		if _, err := c.GetUser(ctx, 1); !errors.Is(err, erp.ErrAPINotEnabled) {
			t.Errorf("%d %s: %v", f.Status, f.Body, err)
		}
	}
	srv.ClearFaults()
	srv.InjectFault("", control.Fault{Status: 503, Body: "Service Unavailable", Header: http.Header{"Content-Type": {"text/plain"}}})
	if _, err := c.GetUser(ctx, 1); errors.Is(err, erp.ErrAPINotEnabled) || !errors.Is(err, erp.ErrServer) {
		t.Errorf("a plain 503: %v", err)
	}
}
