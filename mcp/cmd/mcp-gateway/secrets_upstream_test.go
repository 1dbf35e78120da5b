package main

import (
	"net/url"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/internal/leaktest"
)

// The upstream URL's credentials, a user and password or a token given as
// the user (https://TOKEN@host, as GitLab's clone URLs take one), stay out
// of the log, as they stay out of the gateway's printed configuration.
func TestLogHoldsNoUpstreamCredentials(t *testing.T) {
	t.Parallel()
	up := upstream(t)
	for _, tc := range []struct {
		user   *url.Userinfo
		secret string
	}{
		{url.User("glpat-UPSTREAM-TOKEN-do-not-log"), "glpat-UPSTREAM-TOKEN-do-not-log"},
		{url.UserPassword("gw-user", "upstream-pa55word-do-not-log"), "upstream-pa55word-do-not-log"},
	} {
		u, err := url.Parse(up.URL())
		if err != nil {
			t.Fatal(err)
		}
		u.User = tc.user
		in := start(t, env(), "-listen", "127.0.0.1:0", "-upstream", u.String())
		if code := in.stop(); code != 0 {
			t.Errorf("exit code %d; log:\n%s", code, in.logs)
		}
		leaktest.NoSecretIn(t, "the log", in.logs.String(), tc.secret)
		// The log names the upstream, the marker where its credentials were.
		if want := "http://%5BREDACTED%5D@" + u.Host; !strings.Contains(in.logs.String(), want) {
			t.Errorf("the log does not name the upstream as %s:\n%s", want, in.logs)
		}
	}
}
