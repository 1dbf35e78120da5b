package rest_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/internal/rest"
)

func TestNoRedirectAnswersTheRedirect(t *testing.T) {
	t.Parallel()
	redirect := func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/home" {
			io.WriteString(w, `{"page":"home"}`)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: "SID", Value: "s1"})
		http.Redirect(w, r, "/api/home", http.StatusFound)
	}
	f := newFixture(t, rest.Config{}, redirect)
	resp, err := f.c.Do(context.Background(), &rest.Request{Method: http.MethodPost, Path: "/login", Form: map[string][]string{"u": {"x"}}, NoRedirect: true}, nil)
	if err != nil || resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/api/home" || !strings.Contains(resp.Header.Get("Set-Cookie"), "SID=s1") {
		t.Fatalf("NoRedirect: %+v %v", resp, err)
	}
	// Without it the redirect is followed as usual.
	var out map[string]string
	resp, err = f.c.Do(context.Background(), &rest.Request{Method: http.MethodGet, Path: "/login"}, &out)
	if err != nil || resp.StatusCode != 200 || out["page"] != "home" {
		t.Fatalf("followed: %+v %v %v", resp, out, err)
	}
	// A 3xx without Location (304) stays an error even with NoRedirect.
	f2 := newFixture(t, rest.Config{}, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNotModified) })
	_, err = f2.c.Do(context.Background(), &rest.Request{Method: http.MethodPost, Path: "/x", NoRedirect: true}, nil)
	var te *testError
	if !errors.As(err, &te) || te.Status != http.StatusNotModified {
		t.Fatalf("304: %v", err)
	}
}

func TestNoRedirectKeepsACustomClientsPolicy(t *testing.T) {
	t.Parallel()
	called := 0
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { called++; return http.ErrUseLastResponse }}
	f := newFixture(t, rest.Config{HTTPClient: hc}, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/elsewhere", http.StatusFound)
	})
	_, err := f.c.Do(context.Background(), get("/x"), nil)
	var te *testError
	if !errors.As(err, &te) || te.Status != http.StatusFound || called != 1 {
		t.Fatalf("custom policy not used: %v, called %d", err, called)
	}
}

func TestIsErrorTurnsA2xxIntoAnError(t *testing.T) {
	t.Parallel()
	page := func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<b>module off</b>")
	}
	f := newFixture(t, rest.Config{IsError: func(r *http.Response) bool {
		return !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json")
	}}, page)
	var out map[string]any
	_, err := f.c.Do(context.Background(), get("/x"), &out)
	var te *testError
	if !errors.As(err, &te) || te.Status != 200 || te.Body != "<b>module off</b>" {
		t.Fatalf("err = %v", err)
	}
}

func TestTransientNarrowsRetriedServerErrors(t *testing.T) {
	t.Parallel()
	refusal := func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(500)
		io.WriteString(w, `{"error":{"code":500}}`)
	}
	transient := func(r *http.Response) bool {
		return !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json")
	}
	f := newFixture(t, rest.Config{Transient: transient}, refusal, status(200))
	if _, err := f.c.Do(context.Background(), get("/x"), nil); err == nil || f.s.count() != 1 {
		t.Fatalf("a refusal was retried: %v, %d requests", err, f.s.count())
	}
	proxy := func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(502)
	}
	f = newFixture(t, rest.Config{Transient: transient}, proxy, status(200))
	if _, err := f.c.Do(context.Background(), get("/x"), nil); err != nil || f.s.count() != 2 {
		t.Fatalf("a passing failure was not retried: %v, %d requests", err, f.s.count())
	}
}
