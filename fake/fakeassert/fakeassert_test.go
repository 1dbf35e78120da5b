package fakeassert_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/fakeassert"
	"github.com/apitwin/apitwin/fake/fakeassert/fakerequire"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

// recorder is a TestingT that keeps what a failed assertion said.
type recorder struct {
	msgs    []string
	stopped bool
}

func (r *recorder) Errorf(format string, args ...any) {
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}
func (r *recorder) FailNow()     { r.stopped = true }
func (r *recorder) failed() bool { return len(r.msgs) > 0 }
func (r *recorder) text() string { return strings.Join(r.msgs, "\n") }

const createIssue = "POST /api/v4/projects/{id}/issues"

// started is a sourcehost fake that has received one project create and
// one issue create, and a 503 injected on the issue list.
func started(t *testing.T) (*sourcehostfake.Server, int64) {
	t.Helper()
	srv := sourcehostfake.Start(t)
	c := srv.Client()
	ctx := context.Background()
	p, err := c.CreateProject(ctx, &sourcehost.CreateProjectRequest{Name: "shop", Visibility: "private"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateIssue(ctx, sourcehost.ProjectID(p.ID), &sourcehost.CreateIssueRequest{Title: "Checkout fails", Labels: sourcehost.Labels{"bug", "urgent"}}); err != nil {
		t.Fatal(err)
	}
	if err := srv.InjectFault("GET /api/v4/projects/{id}/issues", control.Fault{Status: 503}); err != nil {
		t.Fatal(err)
	}
	c.ListIssues(ctx, sourcehost.ProjectID(p.ID), nil) // answered 503 by the fault
	return srv, p.ID
}

func TestAssertions(t *testing.T) {
	t.Parallel()
	srv, _ := started(t)
	for _, tc := range []struct {
		name    string
		check   func(r *recorder) bool
		pass    bool
		mention string // in the failure's text
	}{
		{"requested", func(r *recorder) bool { return fakeassert.Requested(r, srv, createIssue) }, true, ""},
		{"not requested yet", func(r *recorder) bool { return fakeassert.Requested(r, srv, "DELETE /api/v4/projects/{id}") }, false, "POST /api/v4/projects/1/issues → 201"},
		{"times", func(r *recorder) bool { return fakeassert.RequestedTimes(r, srv, createIssue, 1) }, true, ""},
		{"wrong times", func(r *recorder) bool { return fakeassert.RequestedTimes(r, srv, createIssue, 2) }, false, "1 requests to"},
		{"not requested", func(r *recorder) bool { return fakeassert.NotRequested(r, srv, "DELETE /api/v4/projects/{id}") }, true, ""},
		{"requested after all", func(r *recorder) bool { return fakeassert.NotRequested(r, srv, createIssue) }, false, "unexpected"},
		{"with", func(r *recorder) bool {
			return fakeassert.RequestedWith(r, srv, createIssue, func(q control.Request) bool { return q.Caller == "root" })
		}, true, ""},
		{"with nothing matching", func(r *recorder) bool {
			return fakeassert.RequestedWith(r, srv, createIssue, func(q control.Request) bool { return q.Caller == "nobody" })
		}, false, "none of the 1 requests"},
		{"with JSON subset", func(r *recorder) bool {
			return fakeassert.RequestedWithJSON(r, srv, createIssue, map[string]any{"title": "Checkout fails"})
		}, true, ""},
		{"with JSON from a struct", func(r *recorder) bool {
			return fakeassert.RequestedWithJSON(r, srv, createIssue, struct {
				Labels string `json:"labels"`
			}{"bug,urgent"})
		}, true, ""},
		{"with JSON differing", func(r *recorder) bool {
			return fakeassert.RequestedWithJSON(r, srv, createIssue, map[string]any{"title": "Slow search"})
		}, false, `"title":"Checkout fails"`},
		{"with JSON missing field", func(r *recorder) bool {
			return fakeassert.RequestedWithJSON(r, srv, createIssue, map[string]any{"milestone_id": 3})
		}, false, "has a body holding"},
		{"with JSON no request", func(r *recorder) bool {
			return fakeassert.RequestedWithJSON(r, srv, "POST /api/v4/projects/{id}/hooks", map[string]any{})
		}, false, "no request to"},
		{"answered", func(r *recorder) bool { return fakeassert.Answered(r, srv, createIssue, 201) }, true, ""},
		{"answered otherwise", func(r *recorder) bool { return fakeassert.Answered(r, srv, createIssue, 200) }, false, "answered 201, want 200"},
		{"answered never", func(r *recorder) bool { return fakeassert.Answered(r, srv, "DELETE /api/v4/projects/{id}", 204) }, false, "no request"},
		{"a fault's 503 is no server error", func(r *recorder) bool { return fakeassert.NoServerErrors(r, srv) }, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{}
			if got := tc.check(r); got != tc.pass || r.failed() == tc.pass {
				t.Fatalf("returned %v with messages %q; want pass %v", got, r.msgs, tc.pass)
			}
			if !strings.Contains(r.text(), tc.mention) {
				t.Errorf("failure %q does not mention %q", r.text(), tc.mention)
			}
		})
	}
}

func TestFaultsAndCutBodies(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	// A 500 an injected fault made is the test's doing: not reported.
	srv.InjectFault("GET /api/v4/projects", control.Fault{Status: 500, Times: 1})
	srv.Client().ListProjects(context.Background(), nil)
	r := &recorder{}
	if !fakeassert.NoServerErrors(r, srv) {
		t.Fatalf("a fault's 500 reported: %q", r.msgs)
	}
	// A body the request log cut at its bound cannot be compared, and the
	// failure says so instead of showing it as a mismatch.
	big := strings.Repeat("x", 200<<10)
	srv.Client().CreateProject(context.Background(), &sourcehost.CreateProjectRequest{Name: "p", Description: big})
	r = &recorder{}
	fakeassert.RequestedWithJSON(r, srv, "POST /api/v4/projects", map[string]any{"name": "nope"})
	if !strings.Contains(r.text(), "cut at the log's") {
		t.Errorf("a body cut by the log is not said to be: %q", r.text())
	}
}

func TestRequireStops(t *testing.T) {
	t.Parallel()
	srv, _ := started(t)
	r := &recorder{}
	fakerequire.RequestedTimes(r, srv, createIssue, 1)
	fakerequire.Requested(r, srv, createIssue)
	fakerequire.NotRequested(r, srv, "DELETE /api/v4/projects/{id}")
	fakerequire.RequestedWith(r, srv, createIssue, func(control.Request) bool { return true })
	fakerequire.RequestedWithJSON(r, srv, createIssue, map[string]any{"title": "Checkout fails"})
	fakerequire.Answered(r, srv, createIssue, 201)
	fakerequire.NoServerErrors(r, srv)
	if r.stopped || r.failed() {
		t.Fatalf("passing checks stopped the test: %q", r.msgs)
	}
	fakerequire.RequestedTimes(r, srv, createIssue, 5)
	if !r.stopped || !r.failed() {
		t.Error("a failing check did not stop the test")
	}
}
