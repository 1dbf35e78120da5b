package fakeassert_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/fakeassert"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

// recorder is a TestingT that keeps what failed assertions said, for
// examples and tests to show; a test passes its *testing.T instead.
type recorder struct {
	msgs    []string
	stopped bool // FailNow was called
	helpers int  // Helper was called
}

func (r *recorder) Errorf(format string, args ...any) {
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}
func (r *recorder) FailNow()     { r.stopped = true }
func (r *recorder) Helper()      { r.helpers++ }
func (r *recorder) failed() bool { return len(r.msgs) > 0 }
func (r *recorder) text() string { return strings.Join(r.msgs, "\n") }

// errors is the text of each failure's "Error:" field, without testify's
// layout around it (its Error Trace names files and lines).
func (r *recorder) errors() []string {
	var out []string
	for _, m := range r.msgs {
		var lines []string
		in := false
		for line := range strings.SplitSeq(m, "\n") {
			switch {
			case strings.HasPrefix(line, "\tError:"):
				in = true
			case strings.HasPrefix(line, "\t ") && in:
				// A continuation line, indented under its label.
			default:
				in = false
				continue
			}
			if !in {
				continue
			}
			_, content, _ := strings.Cut(line[1:], "\t")
			lines = append(lines, content)
		}
		out = append(out, strings.Join(lines, "\n"))
	}
	return out
}

// startExampleFake serves a fake on loopback for an example; a test would
// use sourcehostfake.Start(t).
func startExampleFake() *sourcehostfake.Server {
	srv, err := sourcehostfake.New()
	if err != nil {
		panic(err)
	}
	if _, err := srv.Listen("127.0.0.1:0"); err != nil {
		panic(err)
	}
	return srv
}

// reportFailedOrder is the code under test: it opens an issue.
func reportFailedOrder(ctx context.Context, c *sourcehost.Client, project int64, order int) error {
	_, err := c.CreateIssue(ctx, sourcehost.ProjectID(project), &sourcehost.CreateIssueRequest{
		Title:  fmt.Sprintf("Order %d failed", order),
		Labels: sourcehost.Labels{"orders", "bug"},
	})
	return err
}

// A test checks what the code under test sent, naming only the fields it
// is about. In a test, t is the test's *testing.T; here a recorder stands
// in for it.
func Example() {
	srv := startExampleFake()
	defer srv.Close()
	project, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})

	_ = reportFailedOrder(context.Background(), srv.Client(), project, 7)

	t := &recorder{}
	const route = "POST /api/v4/projects/{id}/issues"
	fmt.Println(fakeassert.RequestedTimes(t, srv, route, 1))
	fmt.Println(fakeassert.RequestedWithJSON(t, srv, route, map[string]any{"title": "Order 7 failed"}))
	fmt.Println(fakeassert.Answered(t, srv, route, http.StatusCreated))
	fmt.Println(fakeassert.NotRequested(t, srv, "DELETE /api/v4/projects/{id}"))
	fmt.Println(fakeassert.NoServerErrors(t, srv))
	// Output:
	// true
	// true
	// true
	// true
	// true
}

// A failure lists what the fake did receive, with the route each request
// matched, so that a wrong route or a request never sent shows at once.
func Example_failure() {
	srv := startExampleFake()
	defer srv.Close()
	project, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
	_ = reportFailedOrder(context.Background(), srv.Client(), project, 7)

	t := &recorder{}
	fakeassert.Requested(t, srv, "POST /api/v4/projects/{id}/merge_requests")
	fakeassert.RequestedWithJSON(t, srv, "POST /api/v4/projects/{id}/issues", map[string]any{"title": "Order 8 failed"})
	for _, e := range t.errors() {
		fmt.Println(e)
	}
	// Output:
	// no request to "POST /api/v4/projects/{id}/merge_requests"; the fake received 1 request:
	//   POST /api/v4/projects/1/issues → 201 [POST /api/v4/projects/{id}/issues]
	// none of the 1 request to "POST /api/v4/projects/{id}/issues" has a JSON body holding {"title":"Order 8 failed"}:
	//   POST /api/v4/projects/1/issues → 201: title is "Order 7 failed", want "Order 8 failed"
	//       in {"title":"Order 7 failed","labels":"orders,bug"}
}

// RequestedWith takes any check of a request: here, that the code under
// test sent its caller's token, and retried after an injected 503.
func ExampleRequestedWith() {
	srv := startExampleFake()
	defer srv.Close()
	project, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
	srv.InjectFault("GET /api/v4/projects/{id}", control.Fault{Status: http.StatusServiceUnavailable, Times: 1})

	_, err := srv.Client().GetProject(context.Background(), sourcehost.ProjectID(project), nil)
	fmt.Println(err)

	t := &recorder{}
	const route = "GET /api/v4/projects/{id}"
	fmt.Println(fakeassert.RequestedWith(t, srv, route, func(r control.Request) bool {
		return r.Caller == "root" && r.Status == http.StatusOK
	}))
	fmt.Println(fakeassert.RequestedTimes(t, srv, route, 2))
	fmt.Println(fakeassert.NoServerErrors(t, srv)) // the 503 was the injected fault's
	// Output:
	// <nil>
	// true
	// true
	// true
}
