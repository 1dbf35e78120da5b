package controlapi

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"sync"
	"time"
)

// The console's sessions. Logging in with the control token opens one: a
// random id in an HttpOnly, SameSite=Strict cookie (Secure when the
// console is served over TLS), never the token itself, so that a cookie
// that leaks (a browser profile, a proxy's log) is worth a session that
// ends, not the token. A session ends SessionLifetime after the login, on
// the wall clock (the fakes' clock is the test's to move), or at logout;
// at most MaxSessions are open, the oldest ending first past that.

const (
	// SessionLifetime is how long a console login lasts.
	SessionLifetime = 12 * time.Hour
	// MaxSessions is how many console logins are open at once.
	MaxSessions = 100
)

// sessionCookie holds the console's session id.
const sessionCookie = "apitwin_console"

// sessions are the console's open logins, by id, with when each ends.
type sessions struct {
	mu   sync.Mutex
	ends map[string]time.Time
	now  func() time.Time // the wall clock; tests move it
}

func newSessions() *sessions {
	return &sessions{ends: map[string]time.Time{}, now: time.Now}
}

// open starts a session and returns its id. Past MaxSessions, the ended
// sessions go, then the oldest.
func (ss *sessions) open() string {
	var b [32]byte
	_, _ = rand.Read(b[:]) // crypto/rand never fails (it panics if the system's source does)
	id := hex.EncodeToString(b[:])
	ss.mu.Lock()
	defer ss.mu.Unlock()
	now := ss.now()
	if len(ss.ends) >= MaxSessions {
		oldest := ""
		for k, end := range ss.ends {
			if !now.Before(end) {
				delete(ss.ends, k)
			} else if oldest == "" || end.Before(ss.ends[oldest]) {
				oldest = k
			}
		}
		if len(ss.ends) >= MaxSessions {
			delete(ss.ends, oldest)
		}
	}
	ss.ends[id] = now.Add(SessionLifetime)
	return id
}

// valid reports whether id is an open session.
func (ss *sessions) valid(id string) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	end, ok := ss.ends[id]
	if ok && !ss.now().Before(end) {
		delete(ss.ends, id)
		return false
	}
	return ok
}

// close ends a session.
func (ss *sessions) close(id string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	delete(ss.ends, id)
}

// session is the open session r's cookie names, "" if none.
func (s *Server) session(r *http.Request) string {
	c, err := r.Cookie(sessionCookie)
	if err != nil || c.Value == "" || !s.sessions.valid(c.Value) {
		return ""
	}
	return c.Value
}

// setSessionCookie gives the browser the session id, or, for "", removes
// the cookie.
func setSessionCookie(w http.ResponseWriter, r *http.Request, id string) {
	c := &http.Cookie{Name: sessionCookie, Value: id, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: r.TLS != nil, MaxAge: int(SessionLifetime / time.Second)}
	if id == "" {
		c.MaxAge = -1
	}
	http.SetCookie(w, c)
}

// formCheck is the value the console's forms carry in a session: an HMAC
// of the session id keyed by the token, which a page of another site
// cannot know, and which ends with the session.
func (s *Server) formCheck(session string) string {
	m := hmac.New(sha256.New, []byte(s.token))
	m.Write([]byte("apitwin-fake console form\x00" + session))
	return hex.EncodeToString(m.Sum(nil))
}

// formCheckOK reports whether v is the form check of session.
func (s *Server) formCheckOK(session, v string) bool {
	return session != "" && hmac.Equal([]byte(v), []byte(s.formCheck(session)))
}
