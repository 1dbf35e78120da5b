package erpfake

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"html"
	"net/http"
	"strings"
	"time"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// The web interface, as far as the API's users meet it: the root page
// (the availability check) and the session login form.

const pageHead = `<!DOCTYPE html><html><head><meta charset="UTF-8"><title>ERP</title></head><body>`

// maxSessionsBeforePrune is how many web sessions may be open before a
// login drops the expired ones (a PHP session store is swept the same
// way, now and then, not at every request).
const maxSessionsBeforePrune = 10_000

// servePage answers the web root and /index.php: the home page for a live
// session, else the login form. Both are 200.
func (s *Server) servePage(w http.ResponseWriter, r *http.Request) {
	if login := s.sessionLogin(r); login != "" {
		fakekit.ExchangeFrom(r.Context()).SetCaller(login)
		fakekit.WriteAnswer(w, page(http.StatusOK, `<div id="home">Logged in as `+html.EscapeString(login)+`</div>`))
		return
	}
	id, fresh := s.visitorID(r)
	a := page(http.StatusOK, loginForm("", s.csrfToken(id)))
	if fresh {
		a.Header = http.Header{"Set-Cookie": {sessionCookie(id).String()}}
	}
	fakekit.WriteAnswer(w, a)
}

// visitorID is the session id of a visitor not logged in: the one its
// cookie carries, or a new one (fresh) for the page to set. The ERP starts
// a PHP session for every page, the login page too, and keeps the login
// form's token in it; the fake keeps nothing for such a visitor: the token
// is derived from the id (csrfToken), so any number of visitors cost no
// memory.
func (s *Server) visitorID(r *http.Request) (id string, fresh bool) {
	if c, err := r.Cookie(SessionCookie); err == nil && isSessionID(c.Value) {
		return c.Value, false
	}
	return randomHex(16), true
}

// isSessionID reports whether v has the form of the ids the fake gives.
func isSessionID(v string) bool {
	if len(v) != 32 {
		return false
	}
	_, err := hex.DecodeString(v)
	return err == nil
}

// csrfToken is the login form's token for the session id: what the form
// must post back with that session's cookie.
func (s *Server) csrfToken(id string) string {
	m := hmac.New(sha256.New, s.csrfKey[:])
	m.Write([]byte(id))
	return hex.EncodeToString(m.Sum(nil)[:16])
}

// validToken reports whether token is the one the login page gave r's
// session cookie.
func (s *Server) validToken(r *http.Request, token string) bool {
	c, err := r.Cookie(SessionCookie)
	if err != nil || !isSessionID(c.Value) {
		return false
	}
	return hmac.Equal([]byte(token), []byte(s.csrfToken(c.Value)))
}

func sessionCookie(id string) *http.Cookie {
	return &http.Cookie{Name: SessionCookie, Value: id, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode}
}

// csrfRefused is the ERP's answer to a POST without a token: its
// main.inc.php prints this, with status 403, before any page.
func csrfRefused() fakekit.Answer {
	return fakekit.Answer{Status: http.StatusForbidden, ContentType: "text/html; charset=UTF-8", Raw: []byte(
		"Access to this page this way (POST method or GET with a sensible value for 'action' parameter) is refused by CSRF protection in main.inc.php. Token not provided.\n" +
			"If you access your server behind a proxy using url rewriting and the parameter is provided by caller, you might check that all HTTP header are propagated (or add the line $dolibarr_nocsrfcheck=1 into your conf.php file or MAIN_SECURITY_CSRF_WITH_TOKEN to 0 into setup).\n")}
}

// The login page's messages, in the ERP's English.
const (
	msgBadLogin     = "Bad value for login or password"
	msgTokenExpired = "Security token has expired, so action has been canceled. Please try again."
)

// sessionLogin is the login of r's live session, "" if none.
func (s *Server) sessionLogin(r *http.Request) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if u := s.st.sessionUser(r, s.cfg.sessionTimeout); u != nil {
		return u.login
	}
	return ""
}

// loginForm is the login page's form, with the token of the visitor's
// session and the hidden actionlogin=login the ERP checks the password on.
func loginForm(errorMessage, token string) string {
	var b strings.Builder
	b.WriteString(`<form id="login" method="POST" action="/index.php">`)
	b.WriteString(`<input type="hidden" name="token" value="` + token + `">`)
	b.WriteString(`<input type="hidden" name="actionlogin" value="login">`)
	if errorMessage != "" {
		b.WriteString(`<div class="error">` + html.EscapeString(errorMessage) + `</div>`)
	}
	b.WriteString(`<input type="text" name="username"><input type="password" name="password"><input type="submit" value="Login"></form>`)
	return b.String()
}

func page(status int, body string) fakekit.Answer {
	return fakekit.Answer{Status: status, Raw: []byte(pageHead + body + "</body></html>"), ContentType: "text/html; charset=UTF-8"}
}

// webNotFound is the web server's answer for a path that is neither a page
// nor the API.
func webNotFound() fakekit.Answer {
	return page(http.StatusNotFound, "<h1>Not Found</h1><p>The requested URL was not found on this server.</p>")
}

// serveLogin answers the login form as the ERP's main.inc.php does with
// its CSRF protection on: a POST without a token is refused with 403 (a
// line of text, no page); a token that is not the one the login page gave
// this session's cookie cancels the form (the login page again, 200, with
// the ERP's warning); a form without actionlogin=login is not a login (the
// login page, nothing checked); then the password is checked. A good login
// starts a session (a new cookie) and redirects into the application; a
// refused one shows the form again with the ERP's message, with status
// 200. WithBareLogin checks only the username and password.
func (s *Server) serveLogin(w http.ResponseWriter, r *http.Request) {
	id, fresh := s.visitorID(r)
	form := func(msg string) fakekit.Answer {
		a := page(http.StatusOK, loginForm(msg, s.csrfToken(id)))
		if fresh {
			a.Header = http.Header{"Set-Cookie": {sessionCookie(id).String()}}
		}
		return a
	}
	if err := r.ParseForm(); err != nil { // the kit has read the body already, within its limit
		fakekit.WriteAnswer(w, form(msgBadLogin))
		return
	}
	if !s.cfg.bareLogin {
		// The ERP reads the token from the query or the body (GETPOST).
		switch token := r.Form.Get("token"); {
		case token == "" || token == "notrequired":
			fakekit.WriteAnswer(w, csrfRefused())
			return
		case !s.validToken(r, token):
			fakekit.WriteAnswer(w, form(msgTokenExpired))
			return
		case r.Form.Get("actionlogin") != "login":
			fakekit.WriteAnswer(w, form(""))
			return
		}
	}
	login, password := r.PostForm.Get("username"), r.PostForm.Get("password")
	sid, user := s.startSession(login, password)
	if sid == "" {
		fakekit.WriteAnswer(w, form(msgBadLogin))
		return
	}
	fakekit.ExchangeFrom(r.Context()).SetCaller(user)
	fakekit.WriteAnswer(w, fakekit.Answer{Status: http.StatusFound, Raw: []byte{}, ContentType: "text/html; charset=UTF-8",
		Header: http.Header{"Set-Cookie": {sessionCookie(sid).String()}, "Location": {"/index.php?mainmenu=home"}}})
}

// startSession checks a login and password and opens a session for them:
// its id and the user's login, or "" when refused.
func (s *Server) startSession(login, password string) (id, user string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.st.userByLogin(login)
	if u == nil || !u.enabled || u.password == "" || subtle.ConstantTimeCompare([]byte(password), []byte(u.password)) != 1 {
		return "", ""
	}
	if len(s.st.sessions) >= max(s.st.pruneAt, maxSessionsBeforePrune) {
		// Swept again only once as many more are open: the cost of a
		// sweep is spread over the logins that made it needed.
		s.st.pruneSessions(s.cfg.sessionTimeout)
		s.st.pruneAt = 2 * len(s.st.sessions)
	}
	id = randomHex(16)
	now := s.cfg.clock.Now()
	s.st.sessions[id] = &session{user: u, lastSeen: now}
	u.lastLogin = now.UTC().Truncate(time.Second)
	return id, u.login
}
