package leaktest_test

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/apitwin/apitwin/apicall"
	"github.com/apitwin/apitwin/internal/leaktest"
)

// secret is written another way by encoding/json, by slog's JSON handler,
// by %q, by a query and by a path.
const secret = "s3cret p/w\"&+é\x01"

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

// caughtWith fails the test unless check, run against a recorder, reported
// that the value printed with how holds a secret.
func caughtWith(t *testing.T, how string, check func(testing.TB)) {
	t.Helper()
	r := &recorder{}
	check(r)
	for _, e := range r.errs {
		_, after, ok := strings.Cut(e, " printed with ")
		hows, _, ok2 := strings.Cut(after, " holds a secret")
		if ok && ok2 && slices.Contains(strings.Split(hows, ", "), how) {
			return
		}
	}
	t.Errorf("a leak printed with %s was not caught; reported: %q", how, r.errs)
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

// shows is a value that prints clean every way, but shows the secret
// through the one way named by leak.
type shows struct{ leak, s string }

func (v shows) Format(f fmt.State, verb rune) {
	how := fmt.Sprintf("%%%c", verb)
	switch {
	case verb == 'v' && f.Flag('#'):
		how = "%#v"
	case verb == 'v' && f.Flag('+'):
		how = "%+v"
	}
	out := "clean"
	if how == v.leak {
		out = v.s
	}
	switch verb {
	case 'q':
		out = strconv.Quote(out)
	case 'x':
		out = hex.EncodeToString([]byte(out))
	case 'X':
		out = strings.ToUpper(hex.EncodeToString([]byte(out)))
	}
	_, _ = io.WriteString(f, out)
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

// logged prints clean, but its LogValue, which slog's handlers call, is
// the secret.
type logged struct{ s string }

func (v logged) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, "clean") }
func (v logged) LogValue() slog.Value       { return slog.StringValue(v.s) }

// detailed is an error that prints clean, but whose exported field
// encoding/json writes.
type detailed struct{ Detail string }

func (e detailed) Error() string    { return "failed" }
func (e detailed) GoString() string { return "failed" }

// client hides its token behind a String method on the pointer, which fmt
// does not call for the struct printed by value.
type client struct{ token string }

func (c *client) String() string { return "client" }

// holder hides a secret one pointer away; %s and %q print it (fmt's
// bad-verb report) when the holder is printed by value.
type holder struct{ c *client }

func (h *holder) String() string { return "holder" }

// store holds a lock, which programs cannot copy (vet's copylocks), and a
// map that fmt would print whole by value.
type store struct {
	mu     sync.Mutex
	tokens map[string]string
}

// String names how many tokens s holds, under its lock.
func (s *store) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fmt.Sprintf("store{%d tokens}", len(s.tokens))
}

func (s *store) GoString() string { return s.String() }

// TestNoSecretIn: a secret showing in any one rendering is caught, and so
// is every form of it; a value that shows none passes.
func TestNoSecretIn(t *testing.T) {
	t.Parallel()
	const plain = "s3cret p/w+é" // the same in JSON, quoted by slog's text handler
	for _, how := range []string{"Error()", "%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "slog text", "slog json"} {
		v := shows{leak: how, s: plain}
		caughtWith(t, how, func(tb testing.TB) { leaktest.NoSecretIn(tb, "v", v, plain) })
		caughtWith(t, how, func(tb testing.TB) { leaktest.NoSecretIn(tb, "v", &v, plain) })
	}
	for _, how := range []string{"slog text", "slog json"} {
		caughtWith(t, how, func(tb testing.TB) { leaktest.NoSecretIn(tb, "v", logged{plain}, plain) })
	}
	caughtWith(t, "encoding/json", func(tb testing.TB) { leaktest.NoSecretIn(tb, "err", detailed{plain}, plain) })
	clean(t, func(tb testing.TB) { leaktest.NoSecretIn(tb, "v", shows{s: plain}, plain) })
	clean(t, func(tb testing.TB) { leaktest.NoSecretIn(tb, "v", logged{"other"}, plain) })
	clean(t, func(tb testing.TB) { leaktest.NoSecretIn(tb, "v", errors.New("nothing to see"), secret) })
	clean(t, func(tb testing.TB) { leaktest.NoSecretIn(tb, "v", "an empty secret is none", "") })
}

// TestNoSecretInEveryForm: every form of a secret is caught, each written
// out here rather than taken from SecretForms; and a []byte holding it, as
// fmt and slog print one.
func TestNoSecretInEveryForm(t *testing.T) {
	t.Parallel()
	var dec []string
	for _, b := range []byte(secret) {
		dec = append(dec, strconv.Itoa(int(b)))
	}
	b64 := base64.StdEncoding.EncodeToString([]byte(secret))
	for _, form := range []string{
		secret,
		`s3cret p/w\"\u0026+é\u0001`,                        // encoding/json
		`s3cret p/w\"&+é\u0001`,                             // slog's JSON handler
		`s3cret p/w\"&+é\x01`,                               // Go-quoted: %q, slog's text handler
		"s3cret+p%2Fw%22%26%2B%C3%A9%01",                    // a query
		"s3cret%20p%2Fw%22&+%C3%A9%01",                      // a path
		strings.Join(dec, " "),                              // %v of a []byte
		hex.EncodeToString([]byte(secret)),                  // %x
		strings.ToUpper(hex.EncodeToString([]byte(secret))), // %X
		b64[:len(b64)-4],                                    // encoding/json of a []byte, the whole groups of 3
	} {
		caught(t, form, func(tb testing.TB) { leaktest.NoSecretIn(tb, "v", "a secret ("+form+") inside", "other", secret) })
	}
	key := struct{ Key []byte }{[]byte(secret)}
	for _, how := range []string{"%v", "%x", "%X", "slog json"} {
		caughtWith(t, how, func(tb testing.TB) { leaktest.NoSecretIn(tb, "key", key, secret) })
	}
}

// TestNoSecretInByValue: a struct a pointer points to is printed by value
// too, where a String method on the pointer is bypassed, and what a
// pointer field points to shows with %s; not a struct that holds a lock.
func TestNoSecretInByValue(t *testing.T) {
	t.Parallel()
	c := &client{token: secret}
	caught(t, "v, by value printed with %v", func(tb testing.TB) { leaktest.NoSecretIn(tb, "v", c, secret) })
	caught(t, "v, by value printed with %s", func(tb testing.TB) { leaktest.NoSecretIn(tb, "v", &holder{c}, secret) })
	clean(t, func(tb testing.TB) { leaktest.NoSecretIn(tb, "v", &holder{c}, "other") })
	clean(t, func(tb testing.TB) {
		leaktest.NoSecretIn(tb, "v", &store{tokens: map[string]string{"work": secret}}, secret)
	})
	// The copy by value is what finds it: the pointer alone prints clean.
	var onlyPointer int
	for _, how := range []string{"%v", "%+v", "%#v", "%s", "%q"} {
		if strings.Contains(fmt.Sprintf(how, c), secret) {
			onlyPointer++
		}
	}
	if onlyPointer != 0 {
		t.Errorf("the *client shows the secret %d ways itself: the case tests nothing of the copy", onlyPointer)
	}
}

// hidden is an error whose message hides the error it wraps.
type hidden struct{ err error }

func (e hidden) Error() string { return "failed" }
func (e hidden) Unwrap() error { return e.err }

// TestNoSecretInErrorChain: a secret is caught in an error deep in a chain,
// through Unwrap() error and Unwrap() []error, in a *url.Error's URL, and a
// reachable *DumpError is reported; a clean chain passes.
func TestNoSecretInErrorChain(t *testing.T) {
	t.Parallel()
	deep := hidden{errors.Join(errors.New("other"), hidden{errors.New("token " + secret)})}
	caught(t, "or an error it wraps (*errors.errorString)", func(tb testing.TB) { leaktest.NoSecretIn(tb, "err", deep, secret) })
	wrapped := fmt.Errorf("call: %w", hidden{detailed{secret}})
	caught(t, "or an error it wraps (leaktest_test.detailed) printed with encoding/json", func(tb testing.TB) { leaktest.NoSecretIn(tb, "err", wrapped, secret) })
	ue := &url.Error{Op: "Get", URL: "http://h/?s=" + url.QueryEscape(secret), Err: errors.New("stopped")}
	caught(t, "the *url.Error's URL", func(tb testing.TB) { leaktest.NoSecretIn(tb, "err", hidden{ue}, secret) })

	req := httptest.NewRequest(http.MethodGet, "http://h/", nil)
	req.Header.Set("Authorization", "Bearer "+secret)
	_, err := leaktest.DumpingTransport(nil).RoundTrip(req)
	caught(t, "holds a secret", func(tb testing.TB) { leaktest.NoSecretIn(tb, "err", err, secret) })
	caught(t, "is reachable", func(tb testing.TB) { leaktest.NoSecretIn(tb, "err", hidden{err}, "other") })

	clean(t, func(tb testing.TB) {
		leaktest.NoSecretIn(tb, "err", hidden{errors.Join(errors.New("a"), &url.Error{Op: "Get", URL: "http://h/", Err: io.EOF})}, secret)
	})
	clean(t, func(tb testing.TB) { leaktest.NoSecretIn(tb, "err", nil, secret) })
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
