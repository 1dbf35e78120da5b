package sourcehost_test

import (
	"errors"
	"testing"

	"github.com/apitwin/apitwin/sourcehost"
)

// GET /version answers a signed-in caller (it was 404, so the published
// Go client's Version.GetVersion failed) and refuses an anonymous one.
func TestVersion(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	v, err := tg.c.Version(ctx)
	if err != nil || v.Version == "" || v.Revision == "" {
		t.Fatalf("version %+v %v", v, err)
	}
	srv := tg.needFake(t)
	anon, err := sourcehost.New(srv.URL(), sourcehost.WithHTTPClient(srv.RawClient()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := anon.Version(ctx); !errors.Is(err, sourcehost.ErrUnauthorized) {
		t.Fatalf("anonymous: %v", err)
	}
}
