package erpfake

import (
	"crypto/subtle"
	"html"
	"io"
	"net/http"
	"strings"
	"time"
)

// The web interface, as far as the API's users meet it: the root page
// (the availability check) and the session login form.

const pageHead = `<!DOCTYPE html><html><head><meta charset="UTF-8"><title>ERP</title></head><body>`

// servePage answers the web root and /index.php: the home page for a live
// session, else the login form. Both are 200.
func (s *Server) servePage(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	u := s.st.sessionUser(r, s.cfg.sessionTimeout)
	s.mu.Unlock()
	if u != nil {
		writePage(w, http.StatusOK, `<div id="home">Logged in as `+html.EscapeString(u.login)+`</div>`)
		return
	}
	writePage(w, http.StatusOK, loginForm(""))
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

func writePage(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "text/html; charset=UTF-8")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, pageHead+body+"</body></html>")
}

// serveLogin answers the login form. A good login starts a session (a
// cookie) and redirects into the application; a refused one shows the form
// again with the ERP's message, with status 200, as the ERP does.
func (s *Server) serveLogin(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		writePage(w, http.StatusOK, loginForm("Bad value for login or password"))
		return
	}
	login, password := r.PostForm.Get("username"), r.PostForm.Get("password")
	s.mu.Lock()
	u := s.st.userByLogin(login)
	good := u != nil && u.enabled && u.password != "" && subtle.ConstantTimeCompare([]byte(password), []byte(u.password)) == 1
	var id string
	if good {
		id = randomHex(16)
		now := s.cfg.clock.Now()
		s.st.sessions[id] = &session{user: u, lastSeen: now}
		u.lastLogin = now.UTC().Truncate(time.Second)
	}
	s.mu.Unlock()
	if !good {
		writePage(w, http.StatusOK, loginForm("Bad value for login or password"))
		return
	}
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: id, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode})
	http.Redirect(w, r, "/index.php?mainmenu=home", http.StatusFound)
}
