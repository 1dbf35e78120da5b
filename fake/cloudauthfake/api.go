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
	handle := func(pattern string, fn func(s *Server, r *http.Request) fakekit.Answer) {
		rt.Handle(pattern, func(s *Server, w http.ResponseWriter, r *http.Request) { fakekit.WriteAnswer(w, fn(s, r)) })
	}
	handle(RouteLogin, (*Server).login)
	handle(RouteLogout, (*Server).logout)
	handle(RouteUserInfo, (*Server).userInfo)
	handle(RoutePublicKey, (*Server).publicKey)
	rt.NotFound(func(s *Server, w http.ResponseWriter, r *http.Request) {
		if allowed := rt.Allowed(r); len(allowed) > 0 {
			a := errorAnswer(r, http.StatusMethodNotAllowed, "Method Not Allowed")
			a.Header.Set("Allow", strings.Join(allowed, ", "))
			fakekit.WriteAnswer(w, a)
			return
		}
		fakekit.WriteAnswer(w, errorAnswer(r, http.StatusNotFound, "Not Found"))
	})
	return rt
})

// errorBody is the gateway's error answer.
type errorBody struct {
	StatusCode int    `json:"statusCode"`
	Message    string `json:"message"`
	RequestID  string `json:"requestId"`
}

// errorAnswer is the gateway's error answer, {"statusCode","message",
// "requestId"} with the request id also in X-Request-Id; msg "" is the
// status's text. The kit answers with it too (faults, bodies over the
// limit, panics).
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
func unauthorized(r *http.Request, bearerChallenge bool) fakekit.Answer {
	a := errorAnswer(r, http.StatusUnauthorized, "Unauthorized")
	if bearerChallenge {
		a.Header.Set("WWW-Authenticate", `Bearer error="invalid_token"`)
	}
	return a
}

// noStore is a JSON answer that must not be cached (tokens, user details).
func noStore(body any) fakekit.Answer {
	return fakekit.Answer{Status: http.StatusOK, Header: http.Header{"Cache-Control": {"no-store"}}, Body: body}
}

// loginBody is the login request; unknown fields are ignored, as the
// gateway does.
type loginBody struct {
	Username *string `json:"username"`
	Password *string `json:"password"`
	Tenant   string  `json:"tenant"`
}

func (s *Server) login(r *http.Request) fakekit.Answer {
	var body loginBody
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		return errorAnswer(r, http.StatusBadRequest, "The request body is not valid JSON")
	}
	if body.Username == nil || body.Password == nil {
		return errorAnswer(r, http.StatusBadRequest, "username and password are required")
	}
	tenant := body.Tenant
	if tenant == "" {
		tenant = s.cfg.defaultTenant
	}
	iss, ok := s.checkLogin(r, tenant, *body.Username, *body.Password)
	if !ok {
		return unauthorized(r, false)
	}
	fakekit.ExchangeFrom(r.Context()).SetCaller(*body.Username)
	raw, err := s.issue(iss, tenant, *body.Username)
	if err != nil {
		return errorAnswer(r, http.StatusInternalServerError, "signing the token failed")
	}
	return noStore(map[string]any{
		"access_token": raw,
		"token_type":   "bearer",
		"expires_in":   int64(s.cfg.lifetime.Seconds()),
	})
}

// caller verifies the request's bearer token and names its subject in the
// request log.
func (s *Server) caller(r *http.Request) (*tokenClaims, bool) {
	raw, ok := bearer(r)
	if !ok {
		return nil, false
	}
	cl, err := s.check(raw)
	if err != nil {
		return nil, false
	}
	fakekit.ExchangeFrom(r.Context()).SetCaller(cl.Subject)
	return cl, true
}

func (s *Server) logout(r *http.Request) fakekit.Answer {
	cl, ok := s.caller(r)
	if !ok {
		return unauthorized(r, true)
	}
	s.revoke(cl)
	return fakekit.Answer{Status: http.StatusNoContent}
}

func (s *Server) userInfo(r *http.Request) fakekit.Answer {
	cl, ok := s.caller(r)
	if !ok {
		return unauthorized(r, true)
	}
	u, found := s.LookupUser(cl.Tenant, cl.Subject)
	if !found { // a token signed for a user the fake does not hold (Sign)
		return unauthorized(r, true)
	}
	return noStore(cloudauth.UserInfo{
		Subject: u.Username, Username: u.Username, Name: u.Name, Email: u.Email, Tenant: u.Tenant, Roles: u.Roles,
	})
}

func (s *Server) publicKey(*http.Request) fakekit.Answer {
	ks := s.keys.Load()
	doc := cloudauth.JWKS{Keys: []cloudauth.JWK{cloudauth.PublicJWK(ks.current.kid, &ks.current.key.PublicKey)}}
	if ks.previous != nil {
		doc.Keys = append(doc.Keys, cloudauth.PublicJWK(ks.previous.kid, &ks.previous.key.PublicKey))
	}
	return fakekit.Answer{Status: http.StatusOK, Header: http.Header{"Cache-Control": {"public, max-age=300"}}, Body: doc}
}
