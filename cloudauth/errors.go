package cloudauth

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/apitwin/apitwin/internal/rest"
)

// The texts of these errors are the specification's, word for word; the
// command-line client prints them as they are.
var (
	// ErrUnauthorized is a 401 answer: a wrong username or password, a
	// locked account or a wrong tenant at login, or a token the server no
	// longer accepts (revoked or expired) on later calls.
	//lint:ignore ST1005 the specification's text, printed as it is
	ErrUnauthorized = errors.New("Authentication failed: 401 Unauthorized")
	// ErrCertificateVerifyFailed means the server's TLS certificate could
	// not be verified: signed by an authority the client does not trust,
	// expired, or for another host name.
	//lint:ignore ST1005 the specification's text, printed as it is
	ErrCertificateVerifyFailed = errors.New("Authentication failed: SSL: CERTIFICATE_VERIFY_FAILED")
	// ErrConnectionTimeout means the server could not be reached or did not
	// answer in time (see WithTimeout): refused connections, unknown hosts
	// and silent servers alike.
	//lint:ignore ST1005 the specification's text, printed as it is
	ErrConnectionTimeout = errors.New("Authentication failed: Connection timeout")
	// ErrInsecureStorage is the warning of a token store that could not keep
	// a token in the operating system's keyring and kept it in its fallback
	// (a file only the user can read) instead. See FallbackStore.
	//lint:ignore ST1005 the specification's text, printed as it is
	ErrInsecureStorage = errors.New("Could not store token securely")
)

// Other sentinels, matched by errors.Is.
var (
	ErrBadRequest  = errors.New("cloudauth: bad request")  // 400
	ErrForbidden   = errors.New("cloudauth: forbidden")    // 403
	ErrNotFound    = errors.New("cloudauth: not found")    // 404
	ErrRateLimited = errors.New("cloudauth: rate limited") // 429
	ErrServer      = errors.New("cloudauth: server error") // 5xx

	// ErrTokenExpired is a token whose exp time has passed (beyond the
	// leeway).
	ErrTokenExpired = errors.New("cloudauth: token is expired")
	// ErrTokenInvalid is a token that is not a well-formed JWT, is not
	// signed with RS256 by a key the server publishes, comes from another
	// issuer, or lacks a required claim.
	ErrTokenInvalid = errors.New("cloudauth: token is invalid")
	// ErrNoToken is returned by a TokenStore that holds no token for a
	// profile.
	ErrNoToken = errors.New("cloudauth: no token stored")
)

// Error is a failed call to the login gateway: an error answer of the
// server (StatusCode set), or a connection that failed (StatusCode 0, Err
// the transport's error).
//
// Its text is the specification's for the three failures it names —
// "Authentication failed: 401 Unauthorized", "Authentication failed: SSL:
// CERTIFICATE_VERIFY_FAILED", "Authentication failed: Connection timeout" —
// and "cloudauth: <method> <path>: <status> <message>" for the rest. The
// cause of a connection failure is reachable with errors.As and
// errors.Unwrap (an *x509.UnknownAuthorityError, a *net.OpError,
// context.DeadlineExceeded, …).
type Error struct {
	// StatusCode is the HTTP status, 0 when no answer came.
	StatusCode int
	Method     string
	Path       string
	// Message is the server's message ("Unauthorized").
	Message string
	// RequestID is the server's request id, for its operators.
	RequestID string
	// Body is the raw answer (at most 1 MiB), secrets removed.
	Body []byte
	// Err is the transport's error when no answer came.
	Err error
}

func (e *Error) Error() string {
	switch {
	case e.StatusCode == http.StatusUnauthorized:
		return ErrUnauthorized.Error()
	case e.StatusCode == 0 && e.certificate():
		return ErrCertificateVerifyFailed.Error()
	case e.StatusCode == 0:
		return ErrConnectionTimeout.Error()
	}
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.StatusCode)
	}
	return fmt.Sprintf("cloudauth: %s %s: %d %s", e.Method, e.Path, e.StatusCode, msg)
}

// Is matches the sentinel of the error's status or failure.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrUnauthorized:
		return e.StatusCode == http.StatusUnauthorized
	case ErrCertificateVerifyFailed:
		return e.StatusCode == 0 && e.certificate()
	case ErrConnectionTimeout:
		return e.StatusCode == 0 && !e.certificate()
	case ErrBadRequest:
		return e.StatusCode == http.StatusBadRequest
	case ErrForbidden:
		return e.StatusCode == http.StatusForbidden
	case ErrNotFound:
		return e.StatusCode == http.StatusNotFound
	case ErrRateLimited:
		return e.StatusCode == http.StatusTooManyRequests
	case ErrServer:
		return e.StatusCode >= 500
	}
	return false
}

// Unwrap returns the transport's error, nil for an error answer.
func (e *Error) Unwrap() error { return e.Err }

// Detail describes the failure for a person who asked for more (the
// command line's --verbose): the server's message or the transport's
// error, which Error leaves out to keep the specification's text.
func (e *Error) Detail() string {
	if e.Err != nil {
		return e.Err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %d %s", e.Method, e.Path, e.StatusCode, http.StatusText(e.StatusCode))
	if e.Message != "" && e.Message != http.StatusText(e.StatusCode) {
		b.WriteString(": " + e.Message)
	}
	if e.RequestID != "" {
		b.WriteString(" (request id " + e.RequestID + ")")
	}
	return b.String()
}

func (e *Error) certificate() bool { return isCertificateError(e.Err) }

// isCertificateError reports whether a transport error is a failed
// verification of the server's certificate.
func isCertificateError(err error) bool {
	if err == nil {
		return false
	}
	var (
		verify   *tls.CertificateVerificationError
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
	)
	return errors.As(err, &verify) || errors.As(err, &unknown) || errors.As(err, &hostname) || errors.As(err, &invalid)
}

// transportError turns a failed exchange without an answer into an *Error,
// unless the caller cancelled it, which is no failure of the server's.
func transportError(parent context.Context, method, path string, err error) error {
	if parent.Err() != nil && errors.Is(err, context.Canceled) {
		return err // the REST core's, which names the call already
	}
	return &Error{Method: method, Path: path, Err: err}
}

// errorBody is the gateway's error answer:
//
//	{"statusCode":401,"message":"Unauthorized","requestId":"7f3a…"}
type errorBody struct {
	StatusCode int    `json:"statusCode"`
	Message    string `json:"message"`
	RequestID  string `json:"requestId"`
}

// decodeError is the rest hook that reads an error answer.
func decodeError(resp *http.Response, body []byte) error {
	e := &Error{StatusCode: resp.StatusCode, Body: body}
	if resp.Request != nil {
		e.Method, e.Path = resp.Request.Method, resp.Request.URL.Path
	}
	e.RequestID = resp.Header.Get("X-Request-Id")
	var eb errorBody
	if json.Unmarshal(body, &eb) == nil {
		e.Message = rest.Excerpt(eb.Message)
		if eb.RequestID != "" {
			e.RequestID = eb.RequestID
		}
	} else if !bytes.HasPrefix(bytes.TrimSpace(body), []byte("<")) {
		e.Message = rest.Excerpt(string(body))
	}
	return e
}

// scrubError is the REST core's ScrubError: an *Error is cleaned of the
// secrets in place (its message, request id and body, and the transport's
// error it wraps), so errors.As still finds it.
func scrubError(err error, s *rest.Scrubber) (error, bool) {
	e, ok := err.(*Error)
	if !ok {
		return err, false
	}
	e.Method, e.Path, e.Message = s.String(e.Method), s.String(e.Path), s.String(e.Message)
	e.RequestID, e.Body = s.String(e.RequestID), s.Bytes(e.Body)
	e.Err = s.Error(e.Err)
	return e, true
}
