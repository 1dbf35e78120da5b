package erpfake

import (
	"crypto/subtle"
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
	fakekit.WriteAnswer(w, page(http.StatusOK, loginForm("")))
}

// sessionLogin is the login of r's live session, "" if none.
func (s *Server) sessionLogin(r *http.Request) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if u := s.st.sessionUser(r, s.cfg.sessionTimeout); u != nil {
		return u.login
	}
	return ""
}

func loginForm(errorMessage string) string {
	var b strings.Builder
	b.WriteString(`<form id="login" method="POST" action="/index.php">`)
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

// serveLogin answers the login form. A good login starts a session (a
// cookie) and redirects into the application; a refused one shows the form
// again with the ERP's message, with status 200, as the ERP does.
func (s *Server) serveLogin(w http.ResponseWriter, r *http.Request) {
	refused := page(http.StatusOK, loginForm("Bad value for login or password"))
	if err := r.ParseForm(); err != nil { // the kit has read the body already, within its limit
		fakekit.WriteAnswer(w, refused)
		return
	}
	login, password := r.PostForm.Get("username"), r.PostForm.Get("password")
	id, user := s.startSession(login, password)
	if id == "" {
		fakekit.WriteAnswer(w, refused)
		return
	}
	fakekit.ExchangeFrom(r.Context()).SetCaller(user)
	cookie := &http.Cookie{Name: SessionCookie, Value: id, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode}
	fakekit.WriteAnswer(w, fakekit.Answer{Status: http.StatusFound, Raw: []byte{}, ContentType: "text/html; charset=UTF-8",
		Header: http.Header{"Set-Cookie": {cookie.String()}, "Location": {"/index.php?mainmenu=home"}}})
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
