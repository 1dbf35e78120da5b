package leaktest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/apitwin/apitwin/apicall"
	"github.com/apitwin/apitwin/internal/leaktest"
)

// secret is written another way by JSON, by a query and by a path.
const secret = `s3cret p/w"&+é`

// recorder is a testing.TB that records what Errorf is given instead of
// failing the test; any other method of testing.TB panics.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// caught fails the test unless check, run against a recorder, reported an
// error holding how.
func caught(t *testing.T, how string, check func(testing.TB)) {
	t.Helper()
	r := &recorder{}
	check(r)
	for _, e := range r.errs {
		if strings.Contains(e, how) {
			return
		}
	}
	t.Errorf("a leak through %s was not caught; reported: %q", how, r.errs)
}

// clean fails the test if check, run against a recorder, reported anything.
func clean(t *testing.T, check func(testing.TB)) {
	t.Helper()
	r := &recorder{}
	check(r)
	if len(r.errs) != 0 {
		t.Errorf("a clean value was reported: %q", r.errs)
	}
}

// shows is a value that prints clean with every verb, but shows the
// secret through the one way named by leak.
type shows struct{ leak, s string }

func (v shows) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') && v.leak == "%#v" ||
		verb == 'v' && f.Flag('+') && v.leak == "%+v" ||
		verb == 'v' && !f.Flag('#') && !f.Flag('+') && v.leak == "%v" ||
		verb == 's' && v.leak == "%s" {
		_, _ = io.WriteString(f, v.s)
		return
	}
	_, _ = io.WriteString(f, "clean")
}

func (v shows) Error() string {
	if v.leak == "Error()" {
		return v.s
	}
	return "clean"
}

func (v shows) MarshalJSON() ([]byte, error) {
	if v.leak == "slog json" {
		return json.Marshal(v.s)
	}
	return []byte(`"clean"`), nil
}

func (v shows) MarshalText() ([]byte, error) {
	if v.leak == "slog text" {
		return []byte(v.s), nil
	}
	return []byte("clean"), nil
}

// TestNoSecretIn: a secret showing in any one rendering is caught, and so
// is any form of it; a value that shows none passes.
func TestNoSecretIn(t *testing.T) {
	t.Parallel()
	const plain = "s3cret p/w+é" // the same in JSON, quoted by slog's text handler
	for _, how := range []string{"Error()", "%v", "%+v", "%#v", "%s", "slog text", "slog json"} {
		v := shows{leak: how, s: plain}
		caught(t, "printed with "+how+" holds", func(tb testing.TB) { leaktest.NoSecretIn(tb, "v", v, plain) })
		caught(t, "printed with "+how+" holds", func(tb testing.TB) { leaktest.NoSecretIn(tb, "v", &v, plain) })
	}
	// Every form, written out rather than taken from SecretForms.
	for _, form := range []string{secret, `s3cret p/w\"\u0026+é`, url.QueryEscape(secret), url.PathEscape(secret)} {
		caught(t, form, func(tb testing.TB) { leaktest.NoSecretIn(tb, "v", "a secret ("+form+") inside", "other", secret) })
	}
	clean(t, func(tb testing.TB) { leaktest.NoSecretIn(tb, "v", shows{s: plain}, plain) })
	clean(t, func(tb testing.TB) { leaktest.NoSecretIn(tb, "v", errors.New("nothing to see"), secret) })
}

// hidden is an error whose message hides the error it wraps.
type hidden struct{ err error }

func (e hidden) Error() string { return "failed" }
func (e hidden) Unwrap() error { return e.err }

// TestNoSecretInErr: a secret is caught in an error deep in a chain, through
// Unwrap() error and Unwrap() []error, in a *url.Error's URL, and a
// reachable *DumpError is reported; a clean chain passes.
func TestNoSecretInErr(t *testing.T) {
	t.Parallel()
	deep := hidden{errors.Join(errors.New("other"), hidden{errors.New("token " + secret)})}
	caught(t, "or an error it wraps (*errors.errorString)", func(tb testing.TB) { leaktest.NoSecretInErr(tb, "err", deep, secret) })
	ue := &url.Error{Op: "Get", URL: "http://h/?s=" + url.QueryEscape(secret), Err: errors.New("stopped")}
	caught(t, "the *url.Error's URL", func(tb testing.TB) { leaktest.NoSecretInErr(tb, "err", hidden{ue}, secret) })

	req := httptest.NewRequest(http.MethodGet, "http://h/", nil)
	req.Header.Set("Authorization", "Bearer "+secret)
	_, err := leaktest.DumpingTransport(nil).RoundTrip(req)
	caught(t, "holds a secret", func(tb testing.TB) { leaktest.NoSecretInErr(tb, "err", err, secret) })
	caught(t, "is reachable", func(tb testing.TB) { leaktest.NoSecretInErr(tb, "err", hidden{err}, "other") })

	clean(t, func(tb testing.TB) {
		leaktest.NoSecretInErr(tb, "err", hidden{errors.Join(errors.New("a"), &url.Error{Op: "Get", URL: "http://h/", Err: io.EOF})}, secret)
	})
	clean(t, func(tb testing.TB) { leaktest.NoSecretInErr(tb, "err", nil, secret) })
}

// TestObserved: a secret in an error the hook saw, or in the log, is
// caught; what shows none passes.
func TestObserved(t *testing.T) {
	t.Parallel()
	outcome := func(o *leaktest.Observed, err error) {
		_, done := o.Hook(context.Background(), apicall.Call{})
		done(apicall.Outcome{Err: err})
	}
	var inHook leaktest.Observed
	outcome(&inHook, hidden{errors.New("token " + secret)})
	caught(t, "an error the hook saw", func(tb testing.TB) { inHook.Check(tb, secret) })

	var inLog leaktest.Observed
	inLog.Logger().Debug("call", "url", "http://h/?s="+url.QueryEscape(secret))
	caught(t, "the log", func(tb testing.TB) { inLog.Check(tb, secret) })

	var none leaktest.Observed
	outcome(&none, errors.New("failed"))
	outcome(&none, nil)
	none.Logger().Debug("call", slog.String("url", "http://h/"))
	clean(t, func(tb testing.TB) { none.Check(tb, secret) })
}

// TestServer: each way the server answers holds the secret.
func TestServer(t *testing.T) {
	t.Parallel()
	for _, s := range []*leaktest.Server{
		{Status: 429, ErrorBody: func(status int, quote string) string { return fmt.Sprintf(`{"status":%d,"m":%q}`, status, quote) }},
		{DecodeBody: func(quote string) string { return `{"n":"` + quote + `"}` }},
		{Redirect: true},
	} {
		s.Secrets = []string{secret}
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/x", nil))
		got := rec.Header().Get("Location") + rec.Body.String()
		r := &recorder{}
		leaktest.NoSecretIn(r, "the answer", got, secret)
		if len(r.errs) == 0 {
			t.Errorf("the answer %d %q does not hold the secret", rec.Code, got)
		}
		if s.Status == 429 && (rec.Code != 429 || rec.Header().Get("Retry-After") != "1") {
			t.Errorf("a 429 answered %d, Retry-After %q", rec.Code, rec.Header().Get("Retry-After"))
		}
	}
}
