package erp

import (
	"bytes"
	"context"
	"html"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/apitwin/apitwin/internal/rest"
)

// session is a web-session login: the cookies the login form gave, renewed
// when the server stops accepting them.
type session struct {
	user string
	web  *rest.Client
	// secrets hides the password and the session cookies from errors and
	// log lines: the current cookies and those of the last few sessions,
	// which an error about a request sent before a renewal may quote.
	secrets *rest.Secrets

	mu   sync.Mutex // held while logging in, so concurrent callers log in once
	gen  uint64     // counts logins; a caller renews only the session it saw fail
	held *held      // under mu
}

// held is what a session must not show: the password and the cookies. It
// is behind a pointer of the session's, itself behind the Client's, so a
// Client printed without its String method (by value, or kept in another
// struct's field), which fmt's %s prints down to what a pointer field
// points to, shows an address.
type held struct {
	password string
	cookie   string // the Cookie header value; "" before the first login
	cookies  map[string]string
}

// newSession is the session of a client with WithLogin; secrets holds the
// password and learns each login's cookies.
func newSession(user, password string, secrets *rest.Secrets) *session {
	return &session{user: user, secrets: secrets, held: &held{password: password}}
}

// authorize is the API client's Authorize hook: it sends the current
// session's cookies.
func (s *session) authorize(h http.Header) {
	s.mu.Lock()
	cookie := s.held.cookie
	s.mu.Unlock()
	if cookie != "" {
		h["Cookie"] = []string{cookie}
	}
}

// ensure logs in unless a session exists, and returns the session's
// generation.
func (s *session) ensure(ctx context.Context) (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen == 0 {
		if err := s.loginLocked(ctx); err != nil {
			return 0, err
		}
	}
	return s.gen, nil
}

// renew logs in again if the session of generation gen is still the
// current one; another caller may have renewed it already.
func (s *session) renew(ctx context.Context, gen uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen != gen {
		return nil
	}
	return s.loginLocked(ctx)
}

// login logs in now, replacing any session.
func (s *session) login(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.loginLocked(ctx)
}

// loginLocked logs in as the ERP's web login page does: it fetches the
// login page (which starts a PHP session and puts the session's CSRF
// token in the form), then posts the form back with that session's
// cookie: token, actionlogin=login (without which the ERP checks no
// password), username and password. A page without a token (an ERP with
// its CSRF check off, or too old to have one) is posted without it. The
// ERP answers a good login with a redirect into the application and a
// refused one with the login page again (200); both set cookies, so the
// status, not the cookie, tells them apart.
func (s *session) loginLocked(ctx context.Context) error {
	// A fresh visit: the cookies of an old session, still alive, would
	// show the home page instead of the form.
	s.held.cookies = map[string]string{}
	form := &pageHead{max: maxLoginPage}
	res, err := s.web.Do(ctx, &rest.Request{Method: http.MethodGet, Path: "/index.php", Header: http.Header{"Accept": {"text/html"}}}, form)
	if err != nil {
		return err
	}
	s.keepCookies(res.Header)
	values := url.Values{"actionlogin": {"login"}, "username": {s.user}, "password": {s.held.password}}
	if token := formToken(form.buf.Bytes()); token != "" {
		values.Set("token", token)
	}
	page := &pageHead{max: 64 << 10}
	res, err = s.web.Do(ctx, &rest.Request{
		Method: http.MethodPost, Path: "/index.php", Form: values, NoRedirect: true,
		Header: http.Header{"Accept": {"text/html"}, "Cookie": {s.cookieHeader()}},
	}, page)
	if err != nil {
		return err
	}
	s.keepCookies(res.Header)
	if res.StatusCode/100 != 3 || len(s.held.cookies) == 0 {
		e := &Error{StatusCode: res.StatusCode, Method: http.MethodPost, Path: "/index.php", loginFailed: true, Message: "the login form refused the username or password"}
		if msg := loginMessage(page.buf.Bytes()); msg != "" {
			e.Message += ": " + s.web.Redact(msg) // a page may echo the form it was sent
		}
		if res.StatusCode/100 == 3 {
			e.Message = "the login form answered without a session cookie"
		}
		return e
	}
	s.held.cookie = s.cookieHeader()
	s.gen++
	return nil
}

// maxLoginPage is how much of the login page the client reads to find the
// form's token; the ERP's page holds it within its first few kilobytes.
const maxLoginPage = 256 << 10

// keepCookies takes the cookies an answer sets (and forgets those it
// deletes); each value becomes a secret.
func (s *session) keepCookies(h http.Header) {
	for _, c := range (&http.Response{Header: h}).Cookies() {
		s.secrets.Add(c.Value)
		if c.MaxAge < 0 || c.Value == "" || c.Value == "deleted" {
			delete(s.held.cookies, c.Name)
			continue
		}
		s.held.cookies[c.Name] = c.Value
	}
}

// cookieHeader is the Cookie header of the cookies held.
func (s *session) cookieHeader() string {
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(s.held.cookies)) {
		if b.Len() > 0 {
			b.WriteString("; ")
		}
		b.WriteString(name + "=" + s.held.cookies[name])
	}
	return b.String()
}

// tokenInput finds the form's token field, its attributes in any order.
var tokenInput = regexp.MustCompile(`(?i)<input\b[^>]*\bname\s*=\s*["']?token["'\s>][^>]*>`)

// tokenValue is the value attribute of an input tag.
var tokenValue = regexp.MustCompile(`(?i)\bvalue\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))`)

// formToken is the value of the login form's token field, "" if the page
// has none.
func formToken(page []byte) string {
	tag := tokenInput.Find(page)
	if tag == nil {
		return ""
	}
	m := tokenValue.FindSubmatch(tag)
	if m == nil {
		return ""
	}
	return html.UnescapeString(string(m[1]) + string(m[2]) + string(m[3]))
}

// pageHead keeps the first max bytes of a page written to it and discards
// the rest, so a login page of any size costs bounded memory.
type pageHead struct {
	buf bytes.Buffer
	max int
}

func (p *pageHead) Write(b []byte) (int, error) {
	if room := p.max - p.buf.Len(); room > 0 {
		p.buf.Write(b[:min(room, len(b))])
	}
	return len(b), nil
}

// loginMessage finds the error the login page shows, if it marks one.
func loginMessage(page []byte) string {
	i := bytes.Index(page, []byte(`class="error"`))
	if i < 0 {
		return ""
	}
	rest := page[i:]
	start := bytes.IndexByte(rest, '>')
	end := bytes.Index(rest, []byte("</"))
	if start < 0 || end <= start {
		return ""
	}
	return pageText(rest[start+1 : end])
}

// Login logs in now with the credentials of WithLogin, replacing the current
// session; it is how to check them before the first call. A client with an
// API key has nothing to log in with and returns nil.
//
// ERP web: GET /index.php, POST /index.php
func (c *Client) Login(ctx context.Context) error {
	if c.sess == nil {
		return nil
	}
	return c.web.Scrub(c.sess.login(ctx))
}
