package rest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/internal/rest"
	"github.com/apitwin/apitwin/retry"
)

// A base URL's user information is basic authentication, as net/http
// makes of it, unless the request carries its own Authorization; the base
// the client shows holds none of it.
func TestBaseURLUserIsBasicAuthentication(t *testing.T) {
	t.Parallel()
	seen := make(chan string, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen <- r.Header.Get("Authorization")
	}))
	t.Cleanup(srv.Close)
	base := strings.Replace(srv.URL, "://", "://proxy-user:proxy-pw-0123@", 1)
	for _, tc := range []struct {
		name      string
		authorize func(http.Header)
		want      string
	}{
		{"none of its own", nil, "Basic cHJveHktdXNlcjpwcm94eS1wdy0wMTIz"}, // proxy-user:proxy-pw-0123
		{"a bearer token", func(h http.Header) { h.Set("Authorization", "Bearer tok-4567") }, "Bearer tok-4567"},
	} {
		c, err := rest.New(rest.Config{Service: "test", BaseURL: base, Authorize: tc.authorize, Retry: retry.Policy{Disabled: true}})
		if err != nil {
			t.Fatal(err)
		}
		if c.BaseURL() != srv.URL {
			t.Errorf("%s: BaseURL %q, want %q", tc.name, c.BaseURL(), srv.URL)
		}
		if _, err := c.Do(context.Background(), &rest.Request{Method: http.MethodGet, Path: "/x"}, nil); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := <-seen; got != tc.want {
			t.Errorf("%s: the server saw Authorization %q, want %q", tc.name, got, tc.want)
		}
	}
}
