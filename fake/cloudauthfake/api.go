package cloudauthfake

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"sync"

	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/internal/fakekit"
)

// routeTable is every endpoint the fake serves, built once and shared by
// all instances.
var routeTable = sync.OnceValue(func() *fakekit.Routes[*Server] {
	rt := fakekit.NewRoutes[*Server]()
	rt.Handle(RouteLogin, (*Server).login)
	rt.Handle(RouteLogout, (*Server).logout)
	rt.Handle(RouteUserInfo, (*Server).userInfo)
	rt.Handle(RoutePublicKey, (*Server).publicKey)
	rt.NotFound(func(s *Server, w http.ResponseWriter, r *http.Request) {
		if allowed := rt.Allowed(r); len(allowed) > 0 {
			w.Header().Set("Allow", strings.Join(allowed, ", "))
			writeError(w, http.StatusMethodNotAllowed, "Method Not Allowed")
			return
		}
		writeError(w, http.StatusNotFound, "Not Found")
	})
	return rt
})

// errorBody is the gateway's error answer.
type errorBody struct {
	StatusCode int    `json:"statusCode"`
	Message    string `json:"message"`
	RequestID  string `json:"requestId"`
}

func writeError(w http.ResponseWriter, status int, msg string) {
	var id [8]byte
	_, _ = rand.Read(id[:])
	rid := hex.EncodeToString(id[:])
	w.Header().Set("X-Request-Id", rid)
	fakekit.WriteJSON(w, status, errorBody{StatusCode: status, Message: msg, RequestID: rid})
}

// errorAnswer is the gateway's error answer, for the kit (faults, bodies
// over the limit, panics).
func errorAnswer(_ *http.Request, status int, msg string) fakekit.Answer {
	if msg == "" {
		msg = http.StatusText(status)
	}
	var id [8]byte
	_, _ = rand.Read(id[:])
	rid := hex.EncodeToString(id[:])
	h := http.Header{"X-Request-Id": {rid}}
	if status == http.StatusTooManyRequests {
		h.Set("Retry-After", "1")
	}
	return fakekit.Answer{Status: status, Header: h, Body: errorBody{StatusCode: status, Message: msg, RequestID: rid}}
}

// unauthorized is the one answer to every refused credential or token, so
// that it does not tell which part was wrong.
func unauthorized(w http.ResponseWriter, bearerChallenge bool) {
	if bearerChallenge {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
	}
	writeError(w, http.StatusUnauthorized, "Unauthorized")
}

// loginBody is the login request; unknown fields are ignored, as the
// gateway does.
type loginBody struct {
	Username *string `json:"username"`
	Password *string `json:"password"`
	Tenant   string  `json:"tenant"`
}

func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	var body loginBody
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeError(w, http.StatusBadRequest, "The request body is not valid JSON")
		return
	}
	if body.Username == nil || body.Password == nil {
		writeError(w, http.StatusBadRequest, "username and password are required")
		return
	}
	tenant := body.Tenant
	if tenant == "" {
		tenant = s.cfg.defaultTenant
	}
	s.mu.Lock()
	_, ok := s.authenticate(tenant, *body.Username, *body.Password)
	iss := s.issuerLocked(r)
	s.mu.Unlock()
	if !ok {
		unauthorized(w, false)
		return
	}
	raw, err := s.issue(iss, tenant, *body.Username)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "signing the token failed")
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	fakekit.WriteJSON(w, http.StatusOK, map[string]any{
		"access_token": raw,
		"token_type":   "bearer",
		"expires_in":   int64(s.cfg.lifetime.Seconds()),
	})
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	raw, ok := bearer(r)
	if !ok {
		unauthorized(w, true)
		return
	}
	cl, err := s.check(raw)
	if err != nil {
		unauthorized(w, true)
		return
	}
	s.revoke(cl)
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) userInfo(w http.ResponseWriter, r *http.Request) {
	raw, ok := bearer(r)
	if !ok {
		unauthorized(w, true)
		return
	}
	cl, err := s.check(raw)
	if err != nil {
		unauthorized(w, true)
		return
	}
	u, found := s.LookupUser(cl.Tenant, cl.Subject)
	if !found { // a token signed for a user the fake does not hold (Sign)
		unauthorized(w, true)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	fakekit.WriteJSON(w, http.StatusOK, cloudauth.UserInfo{
		Subject: u.Username, Username: u.Username, Name: u.Name, Email: u.Email, Tenant: u.Tenant, Roles: u.Roles,
	})
}

func (s *Server) publicKey(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Cache-Control", "public, max-age=300")
	fakekit.WriteJSON(w, http.StatusOK, cloudauth.JWKS{Keys: []cloudauth.JWK{cloudauth.PublicJWK(s.cfg.kid, &s.cfg.key.PublicKey)}})
}
