package erp

import (
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"strings"

	"github.com/apitwin/apitwin/internal/rest"
)

// minSecret is the shortest text taken for a secret: replacing one or two
// letters would shred every message (and a password that short guards
// nothing); internal/rest draws the same line.
const minSecret = 4

// secretForms returns the ways a secret can travel and come back in a
// server's answer: as it is, escaped inside a JSON string, and URL-encoded
// (a login form's body, a query). Secrets shorter than minSecret are left
// out.
func secretForms(secrets ...string) []string {
	var forms []string
	for _, s := range secrets {
		if len(s) < minSecret {
			continue
		}
		j, _ := json.Marshal(s)
		for _, f := range []string{s, string(j[1 : len(j)-1]), url.QueryEscape(s), url.PathEscape(s)} {
			if !slices.Contains(forms, f) {
				forms = append(forms, f)
			}
		}
	}
	// Longest first, so that a form containing another is replaced whole.
	slices.SortFunc(forms, func(a, b string) int { return len(b) - len(a) })
	return forms
}

// redactor replaces every form of some secrets with rest.Redacted; nil
// when there is nothing to hide.
func redactor(secrets ...string) *strings.Replacer {
	forms := secretForms(secrets...)
	if len(forms) == 0 {
		return nil
	}
	pairs := make([]string, 0, 2*len(forms))
	for _, f := range forms {
		pairs = append(pairs, f, rest.Redacted)
	}
	return strings.NewReplacer(pairs...)
}

// scrub hides secrets a request carried (a new user's password) from an
// error about it: a server may quote what it was sent. The *Error inside
// is cleaned in place (message, details, body); if the error's text still
// holds a secret, the error is wrapped in one whose text does not, which
// still unwraps to it.
func scrub(err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	r := redactor(secrets...)
	if r == nil {
		return err
	}
	var e *Error
	if errors.As(err, &e) {
		e.Message = r.Replace(e.Message)
		for i, d := range e.Details {
			e.Details[i] = r.Replace(d)
		}
		if len(e.Body) > 0 {
			e.Body = []byte(r.Replace(string(e.Body)))
		}
	}
	msg := err.Error()
	if clean := r.Replace(msg); clean != msg {
		return &scrubbedError{msg: clean, err: err}
	}
	return err
}

// scrubbedError is an error whose text had a secret taken out.
type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string { return e.msg }
func (e *scrubbedError) Unwrap() error { return e.err }

// GoString is the text, so %#v does not show the wrapped error's fields.
func (e *scrubbedError) GoString() string { return e.msg }

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
