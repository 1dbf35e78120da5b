package controlapi_test

import (
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake"
	"github.com/apitwin/apitwin/fake/controlapi"
)

// sessionCookie is the console's cookie of a login's answer.
func sessionCookie(t *testing.T, h http.Header) *http.Cookie {
	t.Helper()
	for _, c := range (&http.Response{Header: h}).Cookies() {
		if c.Name == "apitwin_console" {
			return c
		}
	}
	t.Fatalf("no console cookie in %v", h)
	return nil
}

// withCookie is a client that sends one cookie of its own, as a browser
// that kept it (or someone who copied it) would.
func withCookie(t *testing.T, e *env, c *http.Cookie) *http.Client {
	t.Helper()
	hc := browser(t)
	u, _ := url.Parse(e.url)
	hc.Jar.SetCookies(u, []*http.Cookie{{Name: c.Name, Value: c.Value}})
	return hc
}

// The console's cookie is a session of its own, not the control token: it
// holds nothing of the token, lasts SessionLifetime, and a cookie holding
// the token itself opens nothing.
func TestConsoleCookieIsASessionNotTheToken(t *testing.T) {
	t.Parallel()
	e := start(t)
	hc := browser(t)
	_, h, _ := fetch(t, hc, "POST", e.url+"/login", url.Values{"token": {token}})
	c := sessionCookie(t, h)
	if strings.Contains(c.Value, token) || len(c.Value) < 32 {
		t.Errorf("the cookie %q is the token, or too short to be a secret of its own", c.Value)
	}
	if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Secure || c.MaxAge != int(controlapi.SessionLifetime/time.Second) || c.Path != "/" {
		t.Errorf("cookie %+v: want HttpOnly, SameSite=Strict, no Secure over plain HTTP, Max-Age of 12 hours", c)
	}
	// A second login is another session.
	_, h2, _ := fetch(t, browser(t), "GET", e.url+"/login?token="+token, nil)
	if sessionCookie(t, h2).Value == c.Value {
		t.Error("two logins share a session")
	}
	for _, name := range []string{"apitwin_console", "apitwin_control"} {
		forged := withCookie(t, e, &http.Cookie{Name: name, Value: token})
		if status, h, _ := fetch(t, forged, "GET", e.url+"/s/erp", nil); status != http.StatusSeeOther || h.Get("Location") != "/login" {
			t.Errorf("a cookie %s holding the token opens a page: %d", name, status)
		}
		if status, _, _ := fetch(t, forged, "GET", e.url+"/api/clock", nil); status != http.StatusUnauthorized {
			t.Errorf("a cookie %s holding the token reads the API: %d", name, status)
		}
	}
}

// Over TLS the cookie is Secure.
func TestConsoleCookieIsSecureOverTLS(t *testing.T) {
	t.Parallel()
	f := fake.Start(t)
	srv, err := controlapi.New(f, controlapi.NewWallClock(f.Clock, false), token)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewTLSServer(srv)
	t.Cleanup(ts.Close)
	hc := ts.Client()
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	_, h, _ := fetch(t, hc, "GET", ts.URL+"/login?token="+token, nil)
	if c := sessionCookie(t, h); !c.Secure || !c.HttpOnly {
		t.Errorf("cookie over TLS %+v: want Secure and HttpOnly", c)
	}
}

// A session ends SessionLifetime after its login, on the wall clock; the
// fakes' clock, which tests move, has no say.
func TestConsoleSessionExpires(t *testing.T) {
	t.Parallel()
	e := start(t)
	var mu sync.Mutex
	wall := time.Now()
	controlapi.SetSessionClock(e.srv, func() time.Time { mu.Lock(); defer mu.Unlock(); return wall })
	hc := browser(t)
	login(t, e, hc)

	e.wc.Advance(30 * 24 * time.Hour) // the fakes' clock
	mu.Lock()
	wall = wall.Add(controlapi.SessionLifetime - time.Second)
	mu.Unlock()
	if status, _, _ := fetch(t, hc, "GET", e.url+"/s/erp", nil); status != http.StatusOK {
		t.Fatalf("a page just before the session ends: %d", status)
	}
	mu.Lock()
	wall = wall.Add(time.Second)
	mu.Unlock()
	if status, h, _ := fetch(t, hc, "GET", e.url+"/s/erp", nil); status != http.StatusSeeOther || h.Get("Location") != "/login" {
		t.Errorf("a page once the session ended: %d %v", status, h)
	}
	if status, _, _ := fetch(t, hc, "GET", e.url+"/api/clock", nil); status != http.StatusUnauthorized {
		t.Errorf("the API once the session ended: %d", status)
	}
	if n := controlapi.SessionCount(e.srv); n != 0 {
		t.Errorf("%d sessions kept after the only one ended", n)
	}
}

// Logging out ends the session: its cookie no longer opens a page, nor
// reads the API, nor sends a form, even kept by hand. The logout form
// needs the page's check value, as every form does.
func TestConsoleLogout(t *testing.T) {
	t.Parallel()
	e := start(t)
	hc := browser(t)
	check := login(t, e, hc)
	u, _ := url.Parse(e.url)
	kept := hc.Jar.Cookies(u)[0]

	if status, _, _ := fetch(t, hc, "POST", e.url+"/logout", url.Values{"check": {"0000"}}); status != http.StatusForbidden {
		t.Errorf("a logout without the page's check: %d", status)
	}
	if status, _, _ := fetch(t, hc, "GET", e.url+"/s/erp", nil); status != http.StatusOK {
		t.Fatalf("the session ended without its check: %d", status)
	}
	status, h, _ := fetch(t, hc, "POST", e.url+"/logout", url.Values{"check": {check}})
	if status != http.StatusSeeOther || h.Get("Location") != "/login" {
		t.Fatalf("logout: %d %v", status, h)
	}
	if c := sessionCookie(t, h); c.MaxAge >= 0 || c.Value != "" {
		t.Errorf("logout leaves the cookie: %+v", c)
	}
	old := withCookie(t, e, kept)
	if status, _, _ := fetch(t, old, "GET", e.url+"/s/erp", nil); status != http.StatusSeeOther {
		t.Errorf("the ended session's cookie opens a page: %d", status)
	}
	if status, _, _ := fetch(t, old, "GET", e.url+"/api/clock", nil); status != http.StatusUnauthorized {
		t.Errorf("the ended session's cookie reads the API: %d", status)
	}
	before := e.wc.State().Now
	if status, _, _ := fetch(t, old, "POST", e.url+"/console/clock/advance", url.Values{"check": {check}, "by": {"1h"}}); status != http.StatusForbidden || !e.wc.State().Now.Equal(before) {
		t.Errorf("the ended session's form: %d, clock moved %v", status, !e.wc.State().Now.Equal(before))
	}
	// Logging out again, or without a session, goes to the login page.
	if status, h, _ := fetch(t, old, "POST", e.url+"/logout", url.Values{}); status != http.StatusSeeOther || h.Get("Location") != "/login" {
		t.Errorf("a logout without a session: %d %v", status, h)
	}
}

// A form check belongs to its session: another session's does not pass.
func TestConsoleFormCheckIsThePagesSessions(t *testing.T) {
	t.Parallel()
	e := start(t)
	a, b := browser(t), browser(t)
	checkA := login(t, e, a)
	login(t, e, b)
	before := e.wc.State().Now
	if status, _, _ := fetch(t, b, "POST", e.url+"/console/clock/advance", url.Values{"check": {checkA}, "by": {"1h"}}); status != http.StatusForbidden {
		t.Errorf("another session's check: %d", status)
	}
	if !e.wc.State().Now.Equal(before) {
		t.Error("the clock moved")
	}
}

// At most MaxSessions are open: one login more ends the oldest.
func TestConsoleSessionsAreBounded(t *testing.T) {
	t.Parallel()
	e := start(t)
	var mu sync.Mutex
	wall := time.Now()
	controlapi.SetSessionClock(e.srv, func() time.Time { mu.Lock(); defer mu.Unlock(); return wall })
	first := browser(t)
	login(t, e, first)
	jar, _ := cookiejar.New(nil)
	for range controlapi.MaxSessions {
		mu.Lock()
		wall = wall.Add(time.Second) // each login later than the one before
		mu.Unlock()
		if status, _, _ := fetch(t, &http.Client{Jar: jar, CheckRedirect: browser(t).CheckRedirect}, "GET", e.url+"/login?token="+token, nil); status != http.StatusSeeOther {
			t.Fatalf("login: %d", status)
		}
	}
	if n := controlapi.SessionCount(e.srv); n != controlapi.MaxSessions {
		t.Errorf("%d sessions open, want %d", n, controlapi.MaxSessions)
	}
	if status, _, _ := fetch(t, first, "GET", e.url+"/s/erp", nil); status != http.StatusSeeOther {
		t.Errorf("the oldest session still opens a page: %d", status)
	}
	if status, _, _ := fetch(t, &http.Client{Jar: jar}, "GET", e.url+"/s/erp", nil); status != http.StatusOK {
		t.Errorf("the newest session: %d", status)
	}
}
