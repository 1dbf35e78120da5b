package sourcehostfake

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// sudoScope is the scope a token needs to act as another user.
const sudoScope = "sudo"

// sudoIdentifier is who a request asks to act as: the sudo parameter (in
// the query, a form or a JSON body), else the Sudo header; "" for no one.
// The parameter wins, as the real service reads it first.
func sudoIdentifier(c *call) string {
	if c.p != nil {
		q := *c.p
		q.errs = nil // a sudo that is no string is no sudo; its problem is not the handler's
		if s, ok := q.str("sudo"); ok && s != "" {
			return s
		}
	}
	return c.r.Header.Get("Sudo")
}

// sudo makes the caller the user the request names in its sudo parameter
// or Sudo header, as the real service does for administrators: checked
// after the token, the route's scopes already satisfied by it. An
// anonymous request is 401; a caller who is no administrator 403 "403
// Forbidden - Must be admin to use sudo"; a token without the sudo scope
// 403 insufficient_scope (scope "sudo"); no such user (by id, or by
// username, case-insensitively) 404 "404 User with ID or username 'x'
// Not Found". It reports an error answer when it refuses.
func (s *Server) sudo(c *call) (fakekit.Answer, bool) {
	who := sudoIdentifier(c)
	if who == "" {
		return fakekit.Answer{}, false
	}
	switch {
	case c.user == nil:
		return message(http.StatusUnauthorized, "401 Unauthorized"), true
	case !c.user.admin:
		return message(http.StatusForbidden, "403 Forbidden - Must be admin to use sudo"), true
	case !slices.Contains(c.tok.scopes, sudoScope):
		return insufficientScope(sudoScope), true
	}
	u := c.st.userByName[strings.ToLower(who)]
	if id, err := strconv.ParseInt(who, 10, 64); err == nil {
		u = c.st.users[id]
	}
	if u == nil {
		return message(http.StatusNotFound, "404 User with ID or username '"+who+"' Not Found"), true
	}
	c.user = u
	return fakekit.Answer{}, false
}

// insufficientScope is the refusal of a token without any of the scopes
// named.
func insufficientScope(scopes ...string) fakekit.Answer {
	return fakekit.Answer{Status: http.StatusForbidden, Body: map[string]any{
		"error":             "insufficient_scope",
		"error_description": "The request requires higher privileges than provided by the access token.",
		"scope":             strings.Join(scopes, " "),
	}}
}
