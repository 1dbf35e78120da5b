package cloudauthfake

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"maps"
	"mime"
	"net/http"
	"slices"
	"strings"

	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/internal/fakekit"
)

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
	if a, ok := refuseMediaType(r); !ok {
		return a
	}
	var body loginBody
	dec := json.NewDecoder(r.Body)
	if err := dec.Decode(&body); err != nil {
		return errorAnswer(r, http.StatusBadRequest, badJSON)
	}
	// One JSON value and nothing after it but white space, as the
	// gateway's JSON reader insists.
	if _, err := dec.Token(); err != io.EOF {
		return errorAnswer(r, http.StatusBadRequest, badJSON)
	}
	if body.Username == nil || body.Password == nil {
		return errorAnswer(r, http.StatusBadRequest, missingCredentials)
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

// The login's 400 messages: a body the gateway cannot read as JSON, and a
// JSON object without username or password (or with null for either).
const (
	badJSON            = "The request body is not valid JSON"
	missingCredentials = "username and password are required"
)

// refuseMediaType refuses a body the gateway would not read as JSON: one
// whose Content-Type is neither application/json nor a +json type. A body
// without a Content-Type is read as JSON. The answer is the gateway's 415
// "Content type '<type>' not supported", the type written as the gateway
// writes it (parameters joined with ';', no spaces).
func refuseMediaType(r *http.Request) (fakekit.Answer, bool) {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return fakekit.Answer{}, true
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err == nil && (mt == "application/json" || strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json")) {
		return fakekit.Answer{}, true
	}
	shown := strings.TrimSpace(ct)
	if err == nil {
		keys := slices.Sorted(maps.Keys(params))
		var b strings.Builder
		b.WriteString(mt)
		for _, k := range keys {
			b.WriteString(";" + k + "=" + params[k])
		}
		shown = b.String()
	}
	return errorAnswer(r, http.StatusUnsupportedMediaType, "Content type '"+oneLine(shown)+"' not supported"), false
}

// oneLine keeps a text the caller sent printable and short in a message.
func oneLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, ""))
	if len(s) > 100 {
		s = strings.ToValidUTF8(s[:100], "")
	}
	return s
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
	if err := s.revoke(cl); err != nil {
		// The token stays valid; a logout later, once a revoked token
		// has expired, succeeds.
		return errorAnswer(r, http.StatusServiceUnavailable, "Too many tokens revoked; try again later")
	}
	return fakekit.Answer{Status: http.StatusNoContent}
}

func (s *Server) userInfo(r *http.Request) fakekit.Answer {
	cl, ok := s.caller(r)
	if !ok {
		return unauthorized(r, true)
	}
	u, found := s.LookupUser(cl.Tenant, cl.Subject)
	if !found { // a token signed for a user the fake does not hold (SignToken)
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
