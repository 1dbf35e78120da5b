package erp

import (
	"net/url"

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

// printableURL is raw with the password of its user information, if any,
// replaced (url.URL.Redacted): a root URL may carry a proxy's basic
// authentication, which net/http sends from it.
func printableURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	return u.Redacted()
}
