package fakekit_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/internal/fakekit"
)

// echoKit is a kit whose one route answers with a token, and half as many
// bytes of padding as the body it was sent; seen has what its handler saw
// of the credentials, so that a test can tell masking from losing.
func echoKit(t *testing.T, limits fakekit.Limits, secretFields ...string) (*fakekit.Kit, *[]string) {
	t.Helper()
	var seen []string
	rt := fakekit.NewRoutes[string]()
	rt.Handle("/", func(_ string, w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		seen = append(seen, r.Header.Get("Authorization"), r.URL.Query().Get("private_token"), string(b))
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"access_token":"answered-secret-1","pad":"%s"}`, strings.Repeat("p", len(b)/2))
	})
	return fakekit.New(fakekit.Config{Routes: rt.Bind(""), Limits: limits, SecretFields: secretFields, SecretAnswerFields: secretFields}), &seen
}

// shown is everything the log holds of r, as text.
func shown(r control.Request) string {
	return fmt.Sprintf("%s %s %v %v %s %s", r.Path, r.Query, r.Header, r.Caller, r.Body, r.ResponseBody)
}

// The request log keeps no secret: credential headers, credential query
// parameters and the service's secret fields, in JSON, form and multipart
// bodies, requests and answers, over HTTP and through Begin (gRPC), are
// "[REDACTED]" in it, while the handler sees every one as it was sent.
func TestRequestLogKeepsNoSecret(t *testing.T) {
	t.Parallel()
	k, seen := echoKit(t, fakekit.Limits{}, "password", "token", "access_token")
	secrets := []string{}
	secret := func(name string) string {
		s := "s3cret-" + name + "-" + strconv.Itoa(len(secrets))
		secrets = append(secrets, s)
		return s
	}

	// Headers and query.
	req := httptest.NewRequest("GET", "/x?page=2&private_token="+secret("query")+"&PASSWORD="+secret("query-field"), nil)
	for _, h := range []string{"Authorization", "ERPAPIKEY", "DOLAPIKEY", "Cookie", "PRIVATE-TOKEN", "JOB-TOKEN", "X-MCP-Signature", "X-Sourcehost-Token"} {
		req.Header.Set(h, secret(h))
	}
	req.Header.Set("X-Request-Id", "kept-as-sent")
	k.ServeHTTP(httptest.NewRecorder(), req)

	// Bodies: JSON at any depth, a form, a multipart form.
	post := func(body, contentType string) {
		req := httptest.NewRequest("POST", "/x", strings.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		k.ServeHTTP(httptest.NewRecorder(), req)
	}
	post(`{"login":"admin","password":"`+secret("json")+`","hook":{"url":"http://x","Token":"`+secret("nested")+`"}}`, "application/json")
	post("username=admin&password="+secret("form")+"&title=kept", "application/x-www-form-urlencoded")
	var mp bytes.Buffer
	mw := multipart.NewWriter(&mp)
	_ = mw.WriteField("title", "kept")
	_ = mw.WriteField("token", secret("multipart"))
	_ = mw.Close()
	post(mp.String(), mw.FormDataContentType())

	// A gRPC call: metadata as headers, the message as JSON.
	ctx, x := k.Begin(context.Background(), control.TransportGRPC, "POST", "/svc/Method", http.Header{"Authorization": {"Bearer " + secret("metadata")}})
	_ = ctx
	x.SetBody([]byte(`{"namespace":"default","password":"`+secret("grpc")+`"}`), 50)
	x.Finish(200)

	reqs := k.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests logged, want 5", len(reqs))
	}
	for _, r := range reqs {
		out := shown(r)
		for _, s := range append(secrets, "answered-secret-1") {
			if strings.Contains(out, s) {
				t.Errorf("%s: the log holds %q:\n%s", r, s, out)
			}
		}
		if !strings.Contains(out, "[REDACTED]") {
			t.Errorf("%s: no marker where the secrets were:\n%s", r, out)
		}
	}
	if h := reqs[0].Header; h.Get("X-Request-Id") != "kept-as-sent" || h.Get("Erpapikey") != "[REDACTED]" || reqs[0].Query.Get("page") != "2" {
		t.Errorf("the log lost what is no secret, or kept a credential: %v %v", h, reqs[0].Query)
	}
	if !strings.Contains(string(reqs[2].Body), "title=kept") || !strings.Contains(string(reqs[1].Body), `"login":"admin"`) {
		t.Errorf("the log lost what is no secret: %s / %s", reqs[1].Body, reqs[2].Body)
	}
	// The handler saw the secrets as they were sent.
	all := strings.Join(*seen, " ")
	for _, s := range []string{secrets[0], secrets[2], secrets[10], "password=" + secrets[12]} {
		if !strings.Contains(all, s) {
			t.Errorf("the handler did not see %q: %s", s, all)
		}
	}
}

// The log says when it kept only part of a body or of an answer, and not
// when masking only changed a whole body's length.
func TestRequestLogSaysWhatItCut(t *testing.T) {
	t.Parallel()
	k, _ := echoKit(t, fakekit.Limits{LogBodyBytes: 64, MaxBody: 1 << 10}, "password")
	for _, body := range []string{
		`{"password":"a-long-secret-longer-than-the-marker"}`, // whole, masked shorter
		`{"password":"x"}`, // whole, masked longer
		`{"password":"` + strings.Repeat("s", 100) + `"}`, // cut inside the secret
		strings.Repeat("b", 2<<10),                        // refused, unread
	} {
		k.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/", strings.NewReader(body)))
	}
	reqs := k.Requests()
	type cut struct{ body, answer bool }
	want := []cut{{false, true}, {false, false}, {true, true}, {true, false}}
	for i, r := range reqs {
		if got := (cut{r.Truncated(), r.ResponseTruncated()}); got != want[i] {
			t.Errorf("request %d (%q → %q): truncated %+v, want %+v", i, r.Body, r.ResponseBody, got, want[i])
		}
		if len(r.Body) > 64 || len(r.ResponseBody) > 64 {
			t.Errorf("request %d: kept %d and %d bytes, past the limit of 64", i, len(r.Body), len(r.ResponseBody))
		}
		if strings.Contains(string(r.Body), "sss") || strings.Contains(string(r.Body), "a-long") {
			t.Errorf("request %d: the log holds the secret: %q", i, r.Body)
		}
	}
	if string(reqs[1].Body) != `{"password":"[REDACTED]"}` {
		t.Errorf("a whole body: %q", reqs[1].Body)
	}
}

// A request with thousands of header fields costs the log at most its
// header bound: the log keeps what fits, says it left the rest out, and
// counts what it keeps in its byte budget.
func TestRequestLogBoundsTheHeader(t *testing.T) {
	t.Parallel()
	k, _ := echoKit(t, fakekit.Limits{LogHeaderBytes: 4 << 10, LogBytes: 64 << 10})
	for range 20 {
		req := httptest.NewRequest("GET", "/", nil)
		for i := range 10_000 {
			req.Header["X-H"+strconv.Itoa(i)] = []string{"v"}
		}
		k.ServeHTTP(httptest.NewRecorder(), req)
	}
	reqs := k.Requests()
	if n := k.RequestCount(); n != len(reqs) {
		t.Errorf("RequestCount %d, Requests %d", n, len(reqs))
	}
	// 4 KiB of header per entry, 48 bytes a field and its text: fewer
	// than 80 fields each; and 64 KiB of log hold fewer than 16 entries.
	if len(reqs) == 0 || len(reqs) >= 16 {
		t.Errorf("%d entries kept within a 64 KiB budget", len(reqs))
	}
	for _, r := range reqs {
		if n := len(r.Header); n == 0 || n >= 80 || !r.HeaderTruncated {
			t.Fatalf("an entry keeps %d of 10,000 header fields, truncated %v", n, r.HeaderTruncated)
		}
	}
	req := httptest.NewRequest("GET", "/", nil)
	req.Header.Set("Accept", "x")
	k.ServeHTTP(httptest.NewRecorder(), req)
	if r := k.Requests(); r[len(r)-1].HeaderTruncated || r[len(r)-1].Header.Get("Accept") != "x" {
		t.Errorf("a small header: %v, truncated %v", r[len(r)-1].Header, r[len(r)-1].HeaderTruncated)
	}
}

// The byte budget of the log is what its entries hold in memory: a log
// full of requests with many small header fields and bodies (the costliest
// shape to keep per byte of text) holds, measured on the heap, within
// 1.5 times its budget. Not parallel: it reads the heap.
func TestRequestLogCountsWhatItHolds(t *testing.T) {
	const budget = 8 << 20
	k, _ := echoKit(t, fakekit.Limits{LogBytes: budget, LogHeaderBytes: 64 << 10}, "password")
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range 2_000 {
		req := httptest.NewRequest("POST", "/items?q="+strconv.Itoa(i), strings.NewReader(`{"n":`+strconv.Itoa(i)+`}`))
		for j := range 200 {
			// Strings of their own, as a server reading a request makes
			// them.
			req.Header[strings.Clone("X-F"+strconv.Itoa(j))] = []string{strconv.Itoa(i * j)}
		}
		k.ServeHTTP(httptest.NewRecorder(), req)
	}
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%d entries kept; heap %d bytes for a budget of %d", k.RequestCount(), held, budget)
	if k.RequestCount() >= 2_000 {
		t.Fatalf("the budget did not bind: %d entries kept", k.RequestCount())
	}
	if held > budget*3/2 {
		t.Errorf("the log holds %d bytes on the heap, past 1.5 times its budget of %d", held, budget)
	}
	runtime.KeepAlive(k)
}

// An answer its handler says is secret-free (Answer.SecretFree) is kept
// without a search for the secret answer fields, but the userinfo of its
// URLs is masked all the same; an answer that does not say so is searched.
func TestRequestLogMasksSecretFreeAnswersUserinfo(t *testing.T) {
	t.Parallel()
	const body = `{"description":"see https://bob:s3cret@hooks.example/x","token_name":"ci"}`
	rt := fakekit.NewRoutes[string]()
	rt.Handle("/free", func(_ string, w http.ResponseWriter, _ *http.Request) {
		fakekit.WriteAnswer(w, fakekit.Answer{Status: http.StatusOK, Raw: []byte(body), SecretFree: true})
	})
	rt.Handle("/searched", func(_ string, w http.ResponseWriter, _ *http.Request) {
		fakekit.WriteAnswer(w, fakekit.Answer{Status: http.StatusOK, Raw: []byte(`{"token":"answered-secret"}`)})
	})
	k := fakekit.New(fakekit.Config{Routes: rt.Bind(""), SecretAnswerFields: []string{"token"}})
	for _, path := range []string{"/free", "/searched"} {
		rec := httptest.NewRecorder()
		k.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", path, rec.Code, rec.Body)
		}
	}
	reqs := k.Requests()
	want := []string{
		`{"description":"see https://%5BREDACTED%5D@hooks.example/x","token_name":"ci"}`,
		`{"token":"[REDACTED]"}`,
	}
	for i, r := range reqs {
		if got := string(r.ResponseBody); got != want[i] {
			t.Errorf("%s: the log kept %s, want %s", r.Path, got, want[i])
		}
	}
}

// A pooled answer (Answer.Pooled) is kept by the log as it was written,
// and stays so, in the log and in what was read of it, while its buffer
// goes back for reuse as the log lets older answers go; so do answers too
// large to keep whole, and answers masked into a copy.
func TestRequestLogKeepsPooledAnswers(t *testing.T) {
	t.Parallel()
	rt := fakekit.NewRoutes[string]()
	rt.Handle("/", func(_ string, w http.ResponseWriter, r *http.Request) {
		b := fakekit.AnswerBuffer()
		b = fmt.Appendf(b, `{"n":%q,"pad":"%s"}`, r.URL.Query().Get("n"), strings.Repeat("p", len(r.URL.Query().Get("pad"))))
		if r.URL.Query().Has("secret") {
			b = fmt.Appendf(b[:0], `{"n":%q,"token":"answered-secret"}`, r.URL.Query().Get("n"))
		}
		fakekit.WriteAnswer(w, fakekit.Answer{Status: http.StatusOK, Raw: b, Pooled: true})
	})
	k := fakekit.New(fakekit.Config{Routes: rt.Bind(""), Limits: fakekit.Limits{LogEntries: 3, LogBodyBytes: 64},
		SecretAnswerFields: []string{"token"}})
	want := func(n int, query string) string {
		switch {
		case strings.Contains(query, "secret"):
			return fmt.Sprintf(`{"n":"%d","token":"[REDACTED]"}`, n)
		case strings.Contains(query, "pad="):
			return fmt.Sprintf(`{"n":"%d","pad":"%s`, n, strings.Repeat("p", 64-len(fmt.Sprintf(`{"n":"%d","pad":"`, n))))
		}
		return fmt.Sprintf(`{"n":"%d","pad":""}`, n)
	}
	queries := []string{"", "&secret", "&pad=" + strings.Repeat("x", 100)}
	var read []control.Request
	for n := range 30 {
		q := queries[n%len(queries)]
		rec := httptest.NewRecorder()
		k.ServeHTTP(rec, httptest.NewRequest("GET", "/?n="+strconv.Itoa(n)+q, nil))
		if got := rec.Body.String(); !strings.Contains(got, `"n":"`+strconv.Itoa(n)+`"`) {
			t.Fatalf("answer %d: %s", n, got)
		}
		if n == 3 {
			read = k.Requests() // answers 1 to 3, read before their buffers are reused
		}
	}
	check := func(what string, reqs []control.Request, first int) {
		t.Helper()
		if len(reqs) != 3 {
			t.Fatalf("%s: %d requests, want 3", what, len(reqs))
		}
		for i, r := range reqs {
			n := first + i
			if got, w := string(r.ResponseBody), want(n, queries[n%len(queries)]); got != w {
				t.Errorf("%s: answer %d kept as %s, want %s", what, n, got, w)
			}
		}
	}
	check("read early", read, 1)
	check("read last", k.Requests(), 27)
}
