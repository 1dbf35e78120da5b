package erp

import (
	"net/url"
	"strings"

	"github.com/apitwin/apitwin/internal/credential"
	"github.com/apitwin/apitwin/internal/rest"
)

// scrubError is the REST core's ScrubError: an *Error is cleaned of the
// secrets in place (message, method, path, details, body). Every other
// error the core cleans itself (see rest.Scrubber.Error).
func scrubError(err error, s *rest.Scrubber) (error, bool) {
	x, ok := err.(*Error)
	if !ok {
		return err, false
	}
	x.Message = s.String(x.Message)
	x.Method, x.Path = s.String(x.Method), s.String(x.Path)
	for i, d := range x.Details {
		x.Details[i] = s.String(d)
	}
	x.Body = s.Bytes(x.Body)
	return x, true
}

// printableURL is raw with its user information, if any, replaced
// (credential.RedactURL): a root URL may carry a proxy's basic
// authentication, or a token given as the user, which url.URL.Redacted
// would keep. A URL that does not parse is not shown if it may hold one.
func printableURL(raw string) string {
	u, err := url.Parse(raw)
	switch {
	case err != nil && strings.Contains(raw, "@"):
		return "[unparsable URL, not shown]"
	case err != nil || u.User == nil:
		return raw
	}
	return credential.RedactURL(u)
}
