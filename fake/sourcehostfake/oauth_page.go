package sourcehostfake

import (
	"bytes"
	"crypto/subtle"
	"html/template"
	"net/http"
	"slices"
	"strings"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// The login-and-consent page of GET /oauth/authorize: plain HTML, a form
// that works without JavaScript, no asset from anywhere. The form carries
// a token (authenticity_token) that a cookie set with the page must
// repeat, and that names the request shown, so that a form posted from
// another site (login CSRF) or for another request is refused.
//
// The fake keeps no passwords: a user signs in with the username and, as
// the password, one of the user's active personal access tokens (which a
// test issues with IssueToken; apitwin-fake prints root's).

// oauthCookie holds the page's token; SameSite=Strict keeps it off posts
// from other sites.
const oauthCookie = "_sourcehostfake_oauth"

var oauthPage = template.Must(template.New("authorize").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Authorize {{.App}}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#222}
label{display:block;margin:.8rem 0 .2rem}input[type=text],input[type=password]{width:100%;padding:.4rem;box-sizing:border-box}
.error{color:#a00}button{margin:1rem .5rem 0 0;padding:.4rem 1rem}code{background:#eee;padding:0 .2rem}
</style>
</head>
<body>
<h1>Authorize {{.App}}</h1>
{{if .Error}}<p class="error" id="error">{{.Error}}</p>{{end}}
{{if .Pending}}
<p>{{.App}} asks to use your account{{if .Resource}} at <code>{{.Resource}}</code>{{end}} with these scopes:</p>
<ul id="scopes">{{range .Scopes}}<li><code>{{.}}</code></li>{{end}}</ul>
<form method="post" action="/oauth/authorize">
<input type="hidden" name="pending" value="{{.Pending}}">
<input type="hidden" name="authenticity_token" value="{{.CSRF}}">
<label for="username">Username</label>
<input type="text" id="username" name="username" value="{{.Username}}" autocomplete="username" required>
<label for="password">Password (a personal access token of yours)</label>
<input type="password" id="password" name="password" autocomplete="current-password">
<button type="submit" id="authorize" name="decision" value="approve">Authorize</button>
<button type="submit" id="deny" name="decision" value="deny" formnovalidate>Deny</button>
</form>
{{end}}
</body>
</html>
`))

type oauthPageData struct {
	App, Resource, Error, Pending, CSRF, Username string
	Scopes                                        []string
}

// writePage writes the page with status; its headers keep it out of
// frames and caches and let it load nothing.
func writePage(w http.ResponseWriter, status int, d oauthPageData) {
	var b bytes.Buffer
	if err := oauthPage.Execute(&b, d); err != nil {
		fakekit.WriteAnswer(w, message(http.StatusInternalServerError, "500 Internal Server Error"))
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(status)
	w.Write(b.Bytes())
}

// errorPage is an authorization request that cannot be sent back to its
// client: the page says why.
func errorPage(w http.ResponseWriter, a fakekit.Answer) {
	body, _ := a.Body.(map[string]string)
	writePage(w, a.Status, oauthPageData{App: "an application", Error: body["error"] + ": " + body["error_description"]})
}

// oauthAuthorizePage is GET /oauth/authorize: the login-and-consent page
// of a request that checks out, a redirect back with the error of one that
// does not, or an error page when there is nowhere safe to send it.
func (s *Server) oauthAuthorizePage(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	st := s.st
	req, fail, redirect := st.checkAuthorize(r.URL.Query())
	var d oauthPageData
	if fail == nil && redirect == "" {
		now := st.clock.Now()
		id, csrf := randomSecret("", 16), randomSecret("", 32)
		st.oauth.pending[id] = &oauthPending{req: req, csrf: csrf, expires: now.Add(oauthCodeLifetime)}
		st.oauth.remember(id, now)
		d = oauthPageData{App: req.app.name, Resource: req.resource, Pending: id, CSRF: csrf, Scopes: slices.Clone(req.scopes)}
	}
	s.mu.Unlock()
	switch {
	case fail != nil:
		errorPage(w, *fail)
	case redirect != "":
		http.Redirect(w, r, redirect, http.StatusFound)
	default:
		http.SetCookie(w, &http.Cookie{Name: oauthCookie, Value: d.CSRF, Path: "/oauth/authorize", HttpOnly: true, SameSite: http.SameSiteStrictMode,
			Secure: r.TLS != nil, MaxAge: int(oauthCodeLifetime.Seconds())})
		writePage(w, http.StatusOK, d)
	}
}

// oauthAuthorizeSubmit is POST /oauth/authorize, the page's form: the
// user signs in and approves (a code sent back to the client) or denies
// (access_denied sent back). A form whose token does not match its cookie
// and its page is 422, as GitLab refuses a request without a valid
// authenticity token; a wrong username or password shows the page again.
func (s *Server) oauthAuthorizeSubmit(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		fakekit.WriteAnswer(w, message(http.StatusBadRequest, "400 Bad request - the form could not be read"))
		return
	}
	f := r.PostForm
	cookie, _ := r.Cookie(oauthCookie)
	s.mu.Lock()
	st := s.st
	p := st.oauth.pending[f.Get("pending")]
	csrf := f.Get("authenticity_token")
	if p == nil || !st.clock.Now().Before(p.expires) || cookie == nil || csrf == "" ||
		subtle.ConstantTimeCompare([]byte(csrf), []byte(p.csrf)) != 1 || subtle.ConstantTimeCompare([]byte(cookie.Value), []byte(p.csrf)) != 1 {
		s.mu.Unlock()
		writePage(w, http.StatusUnprocessableEntity, oauthPageData{App: "an application",
			Error: "This sign-in page has expired or was not sent from this site. Start again from the application."})
		return
	}
	if f.Get("decision") == "deny" {
		delete(st.oauth.pending, f.Get("pending"))
		s.mu.Unlock()
		http.Redirect(w, r, errorRedirect(p.req, "access_denied", oauthErrorText["access_denied"]), http.StatusFound)
		return
	}
	u := st.userByName[strings.ToLower(f.Get("username"))]
	t := st.tokens[f.Get("password")]
	if u == nil || t == nil || t.user != u || t.oauth != nil || st.tokenState(t) != "" || u.state == "blocked" {
		d := oauthPageData{App: p.req.app.name, Resource: p.req.resource, Pending: f.Get("pending"), CSRF: p.csrf,
			Username: f.Get("username"), Scopes: slices.Clone(p.req.scopes), Error: "Invalid login or password."}
		s.mu.Unlock()
		writePage(w, http.StatusUnauthorized, d)
		return
	}
	delete(st.oauth.pending, f.Get("pending"))
	redirect := st.issueCode(p.req, u)
	s.mu.Unlock()
	http.SetCookie(w, &http.Cookie{Name: oauthCookie, Value: "", Path: "/oauth/authorize", MaxAge: -1})
	http.Redirect(w, r, redirect, http.StatusFound)
}
