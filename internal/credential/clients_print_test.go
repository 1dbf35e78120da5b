package credential_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/internal/leaktest"
	"github.com/apitwin/apitwin/internal/testtools"
	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/sourcehost"
)

// printed is a client as its tests print it, and one call of it.
type printed struct {
	client any
	call   func(context.Context) error
}

// clients builds each REST client (orch over HTTP) for base, none with a
// credential of its own but erp, whose key goes in a header of its own.
func clients(t *testing.T, base string) map[string]printed {
	t.Helper()
	out := map[string]printed{}
	e, err := erp.New(base, erp.WithAPIKey("erp-key-0123456789"), erp.WithoutRetries())
	if err != nil {
		t.Fatal(err)
	}
	out["erp"] = printed{e, func(ctx context.Context) error { _, err := e.GetUser(ctx, 1); return err }}
	c, err := cloudauth.New(base, cloudauth.WithoutRetries())
	if err != nil {
		t.Fatal(err)
	}
	out["cloudauth"] = printed{c, func(ctx context.Context) error { return c.Do(ctx, nil, http.MethodGet, "/x", nil, nil, nil) }}
	s, err := sourcehost.New(base, sourcehost.WithoutRetries())
	if err != nil {
		t.Fatal(err)
	}
	out["sourcehost"] = printed{s, func(ctx context.Context) error { _, err := s.ListProjects(ctx, nil); return err }}
	m, err := mcp.New(base, mcp.WithoutRetries())
	if err != nil {
		t.Fatal(err)
	}
	out["mcp"] = printed{m, func(ctx context.Context) error { return m.Call(ctx, "tools/list", nil, nil) }}
	o, err := orch.NewHTTP(base, orch.WithoutRetries())
	if err != nil {
		t.Fatal(err)
	}
	out["orch"] = printed{o, func(ctx context.Context) error { _, err := o.DescribeCluster(ctx); return err }}
	return out
}

// A base URL may carry credentials: a user and password, or a token
// given as the user (https://TOKEN@host), which net/http sends as basic
// authentication. Every client still sends them so, and shows them
// nowhere: not printed (every way, by value too), not in the error of a
// server that quotes them back, not in a transport error.
func TestEveryClientHidesItsBaseURLsCredentials(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const password, token = "base-url-pa55word-0123", "base-url-TOKEN-as-user-4567"
	// The server answers 400 quoting the credentials it was sent, and
	// notes them.
	var mu sync.Mutex
	var got []*url.Userinfo
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pw, ok := r.BasicAuth()
		mu.Lock()
		got = append(got, url.UserPassword(user, pw))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		msg, _ := json.Marshal("bad credentials: basic=" + trueFalse(ok) + " user=" + user + " password=" + pw)
		_, _ = w.Write([]byte(`{"message":` + string(msg) + `,"error":{"code":400,"message":` + string(msg) + `}}`))
	}))
	t.Cleanup(srv.Close)
	host := srv.Listener.Addr().String()
	refused := testtools.RefusedAddr(t)
	for _, tc := range []struct {
		user   *url.Userinfo
		secret string
	}{
		{url.UserPassword("proxy-user", password), password},
		{url.User(token), token},
	} {
		for name, p := range clients(t, (&url.URL{Scheme: "http", User: tc.user, Host: host}).String()) {
			leaktest.NoSecretIn(t, name+", printed", p.client, tc.secret)
			err := p.call(ctx)
			if err == nil {
				t.Errorf("%s: the call the server refused succeeded", name)
				continue
			}
			leaktest.NoSecretIn(t, name+": the error quoting the credentials", err, tc.secret)
		}
		// Each client sent them, as basic authentication.
		pw, _ := tc.user.Password()
		mu.Lock()
		if want := url.UserPassword(tc.user.Username(), pw).String(); len(got) != 5 {
			t.Errorf("the server saw %d requests, want 5", len(got))
		} else {
			for _, u := range got {
				if u.String() != want {
					t.Errorf("the server saw another basic authentication than the base URL's")
				}
			}
		}
		got = nil
		mu.Unlock()
		for name, p := range clients(t, (&url.URL{Scheme: "http", User: tc.user, Host: refused}).String()) {
			err := p.call(ctx)
			if err == nil {
				t.Errorf("%s: a call to a refused address succeeded", name)
				continue
			}
			leaktest.NoSecretIn(t, name+": the transport error", err, tc.secret)
		}
	}
}

func trueFalse(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
