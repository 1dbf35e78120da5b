package sourcehostfake_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/internal/fakekit"
	"github.com/apitwin/apitwin/internal/testtools"
	"github.com/apitwin/apitwin/sourcehost"
)

// WithServeOnDemand serves in-process until its address is asked for:
// until then it names itself by the host each request was sent to, as a
// fake that adopted no URL (nothing started it); URL then opens its port,
// which answers, and the fake names itself by it.
func TestStartOnDemand(t *testing.T) {
	t.Parallel()
	testtools.SkipInMemory(t)
	ctx := context.Background()
	srv := sourcehostfake.Start(t, sourcehostfake.WithServeOnDemand())
	id, err := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	inproc := inProcessClient(t, srv)
	p, err := inproc.GetProject(ctx, sourcehost.ProjectID(id), nil)
	if err != nil || p.WebURL != "http://inproc.invalid/root/shop" {
		t.Fatalf("in-process before any address was asked for: %+v %v", p, err)
	}

	u := srv.URL()
	if !strings.HasPrefix(u, "http://127.0.0.1:") {
		t.Fatalf("URL = %q", u)
	}
	resp, err := srv.RawClient().Get(u + "/api/v4/version")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if p, err := srv.Client().GetProject(ctx, sourcehost.ProjectID(id), nil); err != nil || p.WebURL != u+"/root/shop" {
		t.Fatalf("through its port: %+v %v", p, err)
	}
	if srv.URL() != u {
		t.Fatalf("URL %q, then %q", u, srv.URL())
	}
}

// A client asked for first opens the port too.
func TestStartOnDemandClientOpens(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t, sourcehostfake.WithServeOnDemand())
	if _, err := srv.Client().CurrentUser(context.Background()); err != nil {
		t.Fatal(err)
	}
	if srv.URL() == "" {
		t.Fatal("a client of a fake that has no URL")
	}
}

// Closed before anything asked, it never serves.
func TestStartOnDemandClosed(t *testing.T) {
	t.Parallel()
	testtools.SkipInMemory(t)
	srv := sourcehostfake.Start(t, sourcehostfake.WithServeOnDemand())
	srv.Close()
	if u := srv.URL(); u != "" || srv.RawClient() != nil {
		t.Fatalf("a closed fake serves at %q", u)
	}
}

// StartInMemory names itself by its URL from the start, though its
// listener serves only once asked for (here by an in-process request made
// before anything asked for the URL or a client).
func TestStartInMemoryNamesItselfBeforeServing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := sourcehostfake.Start(t, control.WithInMemory())
	id, err := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	inproc := inProcessClient(t, srv)
	p, err := inproc.GetProject(ctx, sourcehost.ProjectID(id), nil)
	if err != nil {
		t.Fatal(err)
	}
	u := srv.URL()
	if !strings.HasPrefix(u, "http://sourcehostfake-") || p.WebURL != u+"/root/shop" {
		t.Fatalf("URL %q, web_url %q", u, p.WebURL)
	}
	if p, err := srv.Client().GetProject(ctx, sourcehost.ProjectID(id), nil); err != nil || p.WebURL != u+"/root/shop" {
		t.Fatalf("through its listener: %+v %v", p, err)
	}
}

// Closed before anything asked it to serve, StartInMemory still reports
// its URL and a client, as a fake that served and closed does; the client
// reaches nothing.
func TestStartInMemoryClosedBeforeServing(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t, control.WithInMemory())
	srv.Close()
	u := srv.URL()
	if !strings.HasPrefix(u, "http://sourcehostfake-") || srv.RawClient() == nil {
		t.Fatalf("after Close: URL %q, RawClient %v", u, srv.RawClient())
	}
	if _, err := srv.Client().CurrentUser(context.Background()); !errors.Is(err, fakekit.ErrMemListenerClosed) {
		t.Fatalf("a closed fake answered: %v", err)
	}
}

// inProcessClient is a client of srv that reaches it in process, through
// its handler, at a host that is not its URL.
func inProcessClient(t *testing.T, srv *sourcehostfake.Server) *sourcehost.Client {
	t.Helper()
	c, err := sourcehost.New("http://inproc.invalid", sourcehost.WithToken(srv.Token()),
		sourcehost.WithHTTPClient(&http.Client{Transport: fakekit.HandlerTransport{Handler: srv}}))
	if err != nil {
		t.Fatal(err)
	}
	return c
}
