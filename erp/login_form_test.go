package erp_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake/erpfake"
)

// TestLoginPostsTheERPsForm: issue 37, finding 1. The ERP checks a
// password only when the form carries actionlogin=login, and its CSRF
// protection refuses a POST without the login page's token. The client
// posted username and password alone: it logged in to the fake and would
// be refused by a real ERP. It now fetches the login page and posts its
// token back, with the page's session cookie.
func TestLoginPostsTheERPsForm(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t, erpfake.WithAdminPassword("pw"))
	c := srv.ClientWithLogin("admin", "pw")
	if err := c.Login(ctx); err != nil {
		t.Fatalf("login against the ERP's checks: %v", err)
	}
	if _, err := c.GetUser(ctx, 1); err != nil {
		t.Fatalf("a call with the session: %v", err)
	}
	page, post := srv.RequestsTo("GET /index.php"), srv.RequestsTo(loginRoute)
	if len(page) != 1 || len(post) != 1 {
		t.Fatalf("%d login pages, %d posts", len(page), len(post))
	}
	form, err := url.ParseQuery(string(post[0].Body))
	if err != nil || form.Get("actionlogin") != "login" || form.Get("username") != "admin" || form.Get("token") == "" ||
		!strings.HasPrefix(post[0].Header.Get("Cookie"), erpfake.SessionCookie+"=") {
		t.Fatalf("the form posted: %q (%v), cookie %q", post[0].Body, err, post[0].Header.Get("Cookie"))
	}

	// A wrong password is the login form's refusal, with a colon before
	// the page's message (issue 37, finding 5).
	err = srv.ClientWithLogin("admin", "nope").Login(ctx)
	var e *erp.Error
	if !errors.Is(err, erp.ErrUnauthorized) || !errors.As(err, &e) ||
		!strings.HasSuffix(err.Error(), "login failed: the login form refused the username or password: Bad value for login or password") {
		t.Fatalf("refused login: %v", err)
	}
}

// TestLoginWithoutAToken: an ERP whose CSRF check is off, or older than
// the token, shows no token field; the client posts the form without it.
// An ERP that refuses the post (403, its CSRF text) is an error naming it.
func TestLoginWithoutAToken(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex // the handler's goroutine and the test's
	var posted url.Values
	refuse := false
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			_, _ = w.Write([]byte(`<html><form method="post"><input type="text" name="username"></form></html>`))
		case http.MethodPost:
			mu.Lock()
			defer mu.Unlock()
			_ = r.ParseForm()
			posted = r.PostForm
			if refuse {
				w.WriteHeader(http.StatusForbidden)
				_, _ = w.Write([]byte("Access to this page this way (POST method or GET with a sensible value for 'action' parameter) is refused by CSRF protection in main.inc.php. Token not provided.\n"))
				return
			}
			http.SetCookie(w, &http.Cookie{Name: "DOLSESSID_x", Value: "s1"})
			http.Redirect(w, r, "/index.php?mainmenu=home", http.StatusFound)
		}
	}))
	t.Cleanup(ts.Close)
	c, err := erp.New(ts.URL, erp.WithLogin("admin", "pw"), erp.WithoutRetries())
	if err != nil {
		t.Fatal(err)
	}
	err = c.Login(ctx)
	mu.Lock()
	if err != nil || posted.Has("token") || posted.Get("actionlogin") != "login" {
		t.Fatalf("login without a token: %v; posted %v", err, posted)
	}
	refuse = true
	mu.Unlock()
	if err := c.Login(ctx); !errors.Is(err, erp.ErrForbidden) || !strings.Contains(err.Error(), "refused by CSRF protection") {
		t.Fatalf("refused by the CSRF check: %v", err)
	}
}
