package fakeassert_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/erpfake"
	"github.com/apitwin/apitwin/fake/fakeassert"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

const (
	createIssue = "POST /api/v4/projects/{id}/issues"
	listIssues  = "GET /api/v4/projects/{id}/issues"
	neverSent   = "DELETE /api/v4/projects/{id}"
)

// started is a sourcehost fake that has received a project create, an
// issue create, and an issue list answered 503 by an injected fault.
func started(t *testing.T) *sourcehostfake.Server {
	t.Helper()
	srv := sourcehostfake.Start(t)
	c := srv.Client(sourcehost.WithRetry(sourcehost.RetryPolicy{Disabled: true}))
	ctx := context.Background()
	p, err := c.CreateProject(ctx, &sourcehost.CreateProjectRequest{Name: "shop", Visibility: "private"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateIssue(ctx, sourcehost.ProjectID(p.ID), &sourcehost.CreateIssueRequest{Title: "Checkout fails", Labels: sourcehost.Labels{"bug", "urgent"}}); err != nil {
		t.Fatal(err)
	}
	if err := srv.InjectFault(listIssues, control.Fault{Status: http.StatusServiceUnavailable}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListIssues(ctx, sourcehost.ProjectID(p.ID), nil); err == nil {
		t.Fatal("the injected 503 did not reach the client")
	}
	return srv
}

// check is one call of an assertion, its expected result, and what its
// failure must say.
type check struct {
	name    string
	run     func(t *recorder) bool
	pass    bool
	mention []string
}

func runChecks(t *testing.T, checks []check) {
	t.Helper()
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := &recorder{}
			got := c.run(r)
			if got != c.pass || r.failed() == c.pass {
				t.Fatalf("returned %v and reported %q; want pass %v", got, r.msgs, c.pass)
			}
			if r.helpers == 0 {
				t.Error("t.Helper was not called")
			}
			if r.stopped {
				t.Error("an assert function called FailNow")
			}
			for _, m := range c.mention {
				if !strings.Contains(r.text(), m) {
					t.Errorf("the failure does not mention %q:\n%s", m, r.text())
				}
			}
		})
	}
}

func TestAgainstAFake(t *testing.T) {
	t.Parallel()
	srv := started(t)
	everything := []string{ // a failure lists what the fake received
		"POST /api/v4/projects → 201 [POST /api/v4/projects]",
		"POST /api/v4/projects/1/issues → 201 [" + createIssue + "]",
		"GET /api/v4/projects/1/issues → 503 (fault) [" + listIssues + "]",
	}
	runChecks(t, []check{
		{"Requested", func(r *recorder) bool { return fakeassert.Requested(r, srv, createIssue) }, true, nil},
		{"Requested never sent", func(r *recorder) bool { return fakeassert.Requested(r, srv, neverSent) }, false,
			append([]string{`no request to "` + neverSent + `"; the fake received 3 requests:`}, everything...)},
		{"Requested with a path for a route", func(r *recorder) bool {
			return fakeassert.Requested(r, srv, "POST /api/v4/projects/1/issues")
		}, false, everything},
		{"Requested with a message", func(r *recorder) bool {
			return fakeassert.Requested(r, srv, neverSent, "cleanup of %s", "shop")
		}, false, []string{"Messages:", "cleanup of shop"}},

		{"RequestedTimes", func(r *recorder) bool { return fakeassert.RequestedTimes(r, srv, createIssue, 1) }, true, nil},
		{"RequestedTimes zero", func(r *recorder) bool { return fakeassert.RequestedTimes(r, srv, neverSent, 0) }, true, nil},
		{"RequestedTimes too few", func(r *recorder) bool { return fakeassert.RequestedTimes(r, srv, createIssue, 2) }, false,
			[]string{`1 request to "` + createIssue + `", want 2:`, everything[1]}},
		{"RequestedTimes too many", func(r *recorder) bool { return fakeassert.RequestedTimes(r, srv, createIssue, 0) }, false,
			[]string{`1 request to "` + createIssue + `", want 0:`}},
		{"RequestedTimes none", func(r *recorder) bool { return fakeassert.RequestedTimes(r, srv, neverSent, 1) }, false,
			append([]string{`0 requests to "` + neverSent + `", want 1; the fake received 3 requests:`}, everything...)},

		{"NotRequested", func(r *recorder) bool { return fakeassert.NotRequested(r, srv, neverSent) }, true, nil},
		{"NotRequested but was", func(r *recorder) bool { return fakeassert.NotRequested(r, srv, createIssue) }, false,
			[]string{`1 request to "` + createIssue + `", want none:`, everything[1]}},

		{"RequestedWith", func(r *recorder) bool {
			return fakeassert.RequestedWith(r, srv, createIssue, func(q control.Request) bool { return q.Caller == "root" })
		}, true, nil},
		{"RequestedWith on a header", func(r *recorder) bool {
			return fakeassert.RequestedWith(r, srv, listIssues, func(q control.Request) bool { return q.Header.Get("PRIVATE-TOKEN") != "" })
		}, true, nil},
		{"RequestedWith nothing matching", func(r *recorder) bool {
			return fakeassert.RequestedWith(r, srv, createIssue, func(q control.Request) bool { return q.Caller == "nobody" })
		}, false, []string{`none of the 1 request to "` + createIssue + `" matches:`, everything[1]}},
		{"RequestedWith no request", func(r *recorder) bool {
			return fakeassert.RequestedWith(r, srv, neverSent, func(control.Request) bool { return true })
		}, false, append([]string{`no request to "` + neverSent + `"`}, everything...)},
		{"RequestedWith nil", func(r *recorder) bool { return fakeassert.RequestedWith(r, srv, createIssue, nil) }, false,
			[]string{"needs a match function"}},

		{"RequestedWithJSON map", func(r *recorder) bool {
			return fakeassert.RequestedWithJSON(r, srv, createIssue, map[string]any{"title": "Checkout fails"})
		}, true, nil},
		{"RequestedWithJSON struct", func(r *recorder) bool {
			return fakeassert.RequestedWithJSON(r, srv, createIssue, struct {
				Title  string `json:"title"`
				Labels string `json:"labels"`
			}{"Checkout fails", "bug,urgent"})
		}, true, nil},
		{"RequestedWithJSON struct's zero field", func(r *recorder) bool {
			return fakeassert.RequestedWithJSON(r, srv, createIssue, struct {
				Title       string `json:"title"`
				Description string `json:"description"`
			}{Title: "Checkout fails"})
		}, false, []string{"description is missing"}},
		{"RequestedWithJSON RawMessage", func(r *recorder) bool {
			return fakeassert.RequestedWithJSON(r, srv, createIssue, json.RawMessage(`{"labels": "bug,urgent"}`))
		}, true, nil},
		{"RequestedWithJSON differing", func(r *recorder) bool {
			return fakeassert.RequestedWithJSON(r, srv, createIssue, map[string]any{"title": "Slow search"})
		}, false, []string{
			`none of the 1 request to "` + createIssue + `" has a JSON body holding {"title":"Slow search"}:`,
			`POST /api/v4/projects/1/issues → 201: title is "Checkout fails", want "Slow search"`,
			`in {"title":"Checkout fails","labels":"bug,urgent"}`,
		}},
		{"RequestedWithJSON missing field", func(r *recorder) bool {
			return fakeassert.RequestedWithJSON(r, srv, createIssue, map[string]any{"milestone_id": 3})
		}, false, []string{"milestone_id is missing"}},
		{"RequestedWithJSON no body", func(r *recorder) bool {
			return fakeassert.RequestedWithJSON(r, srv, listIssues, map[string]any{})
		}, false, []string{"GET /api/v4/projects/1/issues → 503 (fault): no body"}},
		{"RequestedWithJSON no request", func(r *recorder) bool {
			return fakeassert.RequestedWithJSON(r, srv, neverSent, map[string]any{})
		}, false, append([]string{`no request to "` + neverSent + `"`}, everything...)},

		{"Answered", func(r *recorder) bool { return fakeassert.Answered(r, srv, createIssue, 201) }, true, nil},
		{"Answered a fault", func(r *recorder) bool { return fakeassert.Answered(r, srv, listIssues, 503) }, true, nil},
		{"Answered otherwise", func(r *recorder) bool { return fakeassert.Answered(r, srv, createIssue, 200) }, false,
			[]string{`the newest request to "` + createIssue + `" was answered 201, want 200`, everything[1]}},
		{"Answered never", func(r *recorder) bool { return fakeassert.Answered(r, srv, neverSent, 204) }, false,
			append([]string{`no request to "` + neverSent + `"`}, everything...)},

		{"NoServerErrors despite a fault's 503", func(r *recorder) bool { return fakeassert.NoServerErrors(r, srv) }, true, nil},
		{"NoPanics", func(r *recorder) bool { return fakeassert.NoPanics(r, srv) }, true, nil},
	})
}

func TestAgainstAFakeWithNoRequests(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	runChecks(t, []check{
		{"Requested", func(r *recorder) bool { return fakeassert.Requested(r, srv, createIssue) }, false,
			[]string{`no request to "` + createIssue + `"; the fake received no request`}},
		{"RequestedTimes", func(r *recorder) bool { return fakeassert.RequestedTimes(r, srv, createIssue, 0) }, true, nil},
		{"NotRequested", func(r *recorder) bool { return fakeassert.NotRequested(r, srv, createIssue) }, true, nil},
		{"NoServerErrors", func(r *recorder) bool { return fakeassert.NoServerErrors(r, srv) }, true, nil},
	})
}

// The ERP answers 500 to a product ref already taken, and so does its
// fake: NoServerErrors reports it, NoPanics does not.
func TestServiceServerError(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t)
	ctx := context.Background()
	p := &erp.CreateProductRequest{Ref: "LAMP", Label: "Desk lamp", Price: erp.MustDecimal("39.90")}
	if _, err := srv.Client().CreateProduct(ctx, p); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Client().CreateProduct(ctx, p); err == nil {
		t.Fatal("a second product LAMP was created")
	}
	runChecks(t, []check{
		{"NoServerErrors", func(r *recorder) bool { return fakeassert.NoServerErrors(r, srv) }, false, []string{
			"1 request answered with a server error no injected fault caused:",
			"POST /api/index.php/products → 500 [POST /api/index.php/products]",
		}},
		{"NoPanics", func(r *recorder) bool { return fakeassert.NoPanics(r, srv) }, true, nil},
		{"Answered", func(r *recorder) bool {
			return fakeassert.Answered(r, srv, "POST /api/index.php/products", http.StatusInternalServerError)
		}, true, nil},
	})
}

// An assertion over a secret sees the marker the log keeps in its place,
// and the caller the fake authenticated says whose credential it was.
func TestSecretsAreTheMarker(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t)
	if _, err := srv.Client().CreateUser(context.Background(), &erp.CreateUserRequest{Login: "jane", Password: "jane-s3cret"}); err != nil {
		t.Fatal(err)
	}
	const route = "POST /api/index.php/users"
	runChecks(t, []check{
		{"the marker", func(r *recorder) bool {
			return fakeassert.RequestedWithJSON(r, srv, route, map[string]any{"login": "jane", "pass": "[REDACTED]"})
		}, true, nil},
		{"the secret", func(r *recorder) bool {
			return fakeassert.RequestedWithJSON(r, srv, route, map[string]any{"pass": "jane-s3cret"})
		}, false, []string{`pass is "[REDACTED]", want "jane-s3cret"`}},
		{"the caller", func(r *recorder) bool {
			return fakeassert.RequestedWith(r, srv, route, func(r control.Request) bool {
				return r.Caller == "admin" && r.Header.Get("ERPAPIKEY") == "[REDACTED]"
			})
		}, true, nil},
	})
}

// A body the request log cut at its bound cannot be compared, and the
// failure says so, with the option that keeps more.
func TestCutBody(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t, control.WithRequestLog(100, 16))
	if _, err := srv.Client().CreateProject(context.Background(), &sourcehost.CreateProjectRequest{Name: "shop", Description: strings.Repeat("x", 100)}); err != nil {
		t.Fatal(err)
	}
	runChecks(t, []check{
		{"RequestedWithJSON", func(r *recorder) bool {
			return fakeassert.RequestedWithJSON(r, srv, "POST /api/v4/projects", map[string]any{"name": "shop"})
		}, false, []string{
			"POST /api/v4/projects → 201: body cut by the request log at 16 of its ",
			"not comparable",
			"WithRequestLog",
		}},
		{"RequestedWith sees the cut", func(r *recorder) bool {
			return fakeassert.RequestedWith(r, srv, "POST /api/v4/projects", control.Request.Truncated)
		}, true, nil},
	})
}

// logFake is a fake whose request log is given: for answers no real fake
// gives on demand (a panic, a dropped connection).
type logFake struct {
	control.Controls // nil: fakeassert reads only the request log
	log              []control.Request
}

func (f *logFake) Requests() []control.Request { return f.log }

func (f *logFake) RequestsTo(route string) []control.Request {
	var out []control.Request
	for _, r := range f.log {
		if route == "" || r.Route == route {
			out = append(out, r)
		}
	}
	return out
}

func post(route, path, body string, status int) control.Request {
	return control.Request{Method: "POST", Path: path, Route: route, Body: []byte(body), BodySize: int64(len(body)), Status: status}
}

func TestAnswersNoFakeGivesOnDemand(t *testing.T) {
	t.Parallel()
	panicked := post("POST /v1/things", "/v1/things", `{}`, 500)
	panicked.Panic = "runtime error: index out of range [3] with length 3\ngoroutine 7 [running]:\n…"
	dropped := post("POST /v1/things", "/v1/things", `{}`, 0)
	dropped.Fault = true
	ownError := post("POST /v1/other", "/v1/other", `{}`, 502)
	faulted := post("POST /v1/other", "/v1/other", `{}`, 500)
	faulted.Fault = true
	grpc := control.Request{Transport: control.TransportGRPC, Method: "POST", Path: "/orch.v1.Service/Query", Route: "Query", Status: 504, Code: "DEADLINE_EXCEEDED"}
	unrouted := control.Request{Method: "GET", Path: "/v2/nowhere", Status: 404}
	f := &logFake{log: []control.Request{panicked, faulted, ownError, dropped, grpc, unrouted}}
	runChecks(t, []check{
		{"NoPanics", func(r *recorder) bool { return fakeassert.NoPanics(r, f) }, false, []string{
			"the fake panicked on 1 request (a bug in the fake):",
			"POST /v1/things → 500 (panic) [POST /v1/things]",
			"panic: runtime error: index out of range [3] with length 3",
		}},
		{"NoServerErrors", func(r *recorder) bool { return fakeassert.NoServerErrors(r, f) }, false, []string{
			"3 requests answered with a server error no injected fault caused:",
			"POST /v1/things → 500 (panic)",
			"POST /v1/other → 502 [POST /v1/other]",
			"POST /orch.v1.Service/Query → 504 DEADLINE_EXCEEDED [Query]",
		}},
		{"Requested lists the unrouted", func(r *recorder) bool { return fakeassert.Requested(r, f, "GET /v1/things") }, false,
			[]string{"GET /v2/nowhere → 404 [no route]"}},
		{"Requested the unrouted", func(r *recorder) bool { return fakeassert.Requested(r, f, "") }, true, nil},
		{"Answered dropped", func(r *recorder) bool { return fakeassert.Answered(r, f, "POST /v1/things", 0) }, true, nil},
		{"Answered dropped, want 200", func(r *recorder) bool { return fakeassert.Answered(r, f, "POST /v1/things", 200) }, false,
			[]string{"was answered 0 (no answer), want 200", "POST /v1/things → no answer (fault)"}},
		{"Answered a code", func(r *recorder) bool { return fakeassert.Answered(r, f, "Query", 200) }, false,
			[]string{"was answered 504 DEADLINE_EXCEEDED, want 200"}},
	})
	for _, c := range []struct {
		name string
		req  control.Request
		want string
	}{
		{"fault", faulted, "fault"},
		{"dropped", dropped, "no answer"},
	} {
		r := &recorder{}
		if !fakeassert.NoServerErrors(r, &logFake{log: []control.Request{c.req}}) {
			t.Errorf("%s: reported: %s", c.name, r.text())
		}
	}
}

// A failure lists the newest 20 requests, not all of them.
func TestLongLogs(t *testing.T) {
	t.Parallel()
	var log []control.Request
	for i := range 30 {
		log = append(log, post("POST /items", fmt.Sprintf("/items/%d", i), fmt.Sprintf(`{"n":%d}`, i), 201))
	}
	f := &logFake{log: log}
	listsNewest := func(r *recorder) {
		t.Helper()
		if strings.Contains(r.text(), "/items/9 ") || !strings.Contains(r.text(), "/items/10 ") || !strings.Contains(r.text(), "/items/29 ") {
			t.Errorf("the failure does not list exactly the newest 20:\n%s", r.text())
		}
		if !strings.Contains(r.text(), "(the newest 20 shown)") {
			t.Errorf("the failure does not say it lists only some:\n%s", r.text())
		}
	}
	for name, run := range map[string]func(*recorder) bool{
		"Requested":      func(r *recorder) bool { return fakeassert.Requested(r, f, "GET /items") },
		"RequestedTimes": func(r *recorder) bool { return fakeassert.RequestedTimes(r, f, "POST /items", 1) },
		"NotRequested":   func(r *recorder) bool { return fakeassert.NotRequested(r, f, "POST /items") },
		"RequestedWith": func(r *recorder) bool {
			return fakeassert.RequestedWith(r, f, "POST /items", func(control.Request) bool { return false })
		},
		"RequestedWithJSON": func(r *recorder) bool {
			return fakeassert.RequestedWithJSON(r, f, "POST /items", map[string]int{"n": 30})
		},
		"Answered": func(r *recorder) bool { return fakeassert.Answered(r, f, "POST /items", 200) },
	} {
		r := &recorder{}
		if run(r) {
			t.Errorf("%s passed", name)
			continue
		}
		listsNewest(r)
	}
	r := &recorder{}
	if !fakeassert.RequestedWithJSON(r, f, "POST /items", map[string]int{"n": 0}) {
		t.Errorf("the oldest request's body is not matched:\n%s", r.text())
	}
}

// RequestedWithJSON's subset match, on bodies a fake could have logged.
func TestJSONMatch(t *testing.T) {
	t.Parallel()
	const route = "POST /v1/orders"
	for _, c := range []struct {
		name string
		body string
		want any
		diff string // "" when it must match
	}{
		{"equal", `{"a":1}`, map[string]any{"a": 1}, ""},
		{"subset", `{"a":1,"b":"x","c":[1]}`, map[string]any{"b": "x"}, ""},
		{"empty want", `{"a":1}`, map[string]any{}, ""},
		{"nested subset", `{"a":{"b":1,"c":2}}`, map[string]any{"a": map[string]any{"c": 2}}, ""},
		{"nested missing", `{"a":{"b":1}}`, map[string]any{"a": map[string]any{"c": 2}}, "a.c is missing"},
		{"nested differing", `{"a":{"b":1}}`, map[string]any{"a": map[string]any{"b": 2}}, "a.b is 1, want 2"},
		{"not an object", `{"a":[1]}`, map[string]any{"a": map[string]any{}}, "a is [1], want an object"},
		{"body not an object", `[1]`, map[string]any{"a": 1}, "the body is [1], want an object"},
		{"array", `{"a":[1,{"b":2,"c":3}]}`, map[string]any{"a": []any{1, map[string]any{"b": 2}}}, ""},
		{"array order", `{"a":[1,2]}`, map[string]any{"a": []int{2, 1}}, "a[0] is 1, want 2"},
		{"array length", `{"a":[1,2,3]}`, map[string]any{"a": []int{1, 2}}, "a has 3 elements, want 2"},
		{"array for a string", `{"a":"x"}`, map[string]any{"a": []int{}}, `a is "x", want an array`},
		{"array in array", `{"a":[[1],[2]]}`, map[string]any{"a": [][]int{{1}, {3}}}, "a[1][0] is 2, want 3"},
		{"number forms", `{"a":1.0,"b":100,"c":-0.5,"d":0}`, map[string]any{"a": 1, "b": 1e2, "c": json.Number("-5e-1"), "d": json.Number("-0.0")}, ""},
		{"huge exponent", `{"a":1e99999999999999999999}`, map[string]any{"a": json.Number("1e99999999999999999999")}, ""},
		{"huge exponents", `{"a":1e99999999999999999999}`, map[string]any{"a": json.Number("10e99999999999999999998")}, "a is 1e99999999999999999999, want 10e99999999999999999998"},
		{"large exponent", `{"a":1e1000000000}`, map[string]any{"a": json.Number("10e999999999")}, ""},
		{"beyond float64", `{"id":9007199254740993}`, map[string]any{"id": int64(9007199254740992)}, "id is 9007199254740993, want 9007199254740992"},
		{"big integer", `{"id":9007199254740993}`, map[string]any{"id": uint64(9007199254740993)}, ""},
		{"string for a number", `{"id":"12"}`, map[string]any{"id": 12}, `id is "12", want 12`},
		{"null", `{"a":null}`, map[string]any{"a": nil}, ""},
		{"null missing", `{}`, map[string]any{"a": nil}, "a is missing"},
		{"bool", `{"a":true}`, map[string]any{"a": false}, "a is true, want false"},
		{"whole value", `"x"`, "x", ""},
		{"bytes", ` {"a": [1, 2]} `, []byte(`{"a":[1,2]}`), ""},
		{"not JSON", `a=1&client_secret=s3cret`, map[string]any{"a": 1}, "body not JSON (invalid character 'a' looking for beginning of value), 24 bytes"},
		{"two values", `{"a":1}{"a":2}`, map[string]any{"a": 1}, "body not JSON (more than one JSON value)"},
		{"keys in order", `{"a":1,"b":1}`, map[string]any{"b": 2, "a": 2}, "a is 1, want 2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := &logFake{log: []control.Request{post(route, "/v1/orders", c.body, 200)}}
			r := &recorder{}
			ok := fakeassert.RequestedWithJSON(r, f, route, c.want)
			switch {
			case c.diff == "" && !ok:
				t.Errorf("no match:\n%s", r.text())
			case c.diff != "" && ok:
				t.Errorf("matched; want %q", c.diff)
			case c.diff != "" && !strings.Contains(r.text(), c.diff):
				t.Errorf("the failure does not say %q:\n%s", c.diff, r.text())
			case strings.Contains(r.text(), "s3cret"):
				t.Errorf("the failure shows a form body:\n%s", r.text())
			}
		})
	}
}

func TestJSONWantUnusable(t *testing.T) {
	t.Parallel()
	f := &logFake{log: []control.Request{post("POST /v1", "/v1", `{}`, 200)}}
	runChecks(t, []check{
		{"not encodable", func(r *recorder) bool { return fakeassert.RequestedWithJSON(r, f, "POST /v1", make(chan int)) }, false,
			[]string{"want cannot be encoded as JSON"}},
		{"bytes not JSON", func(r *recorder) bool { return fakeassert.RequestedWithJSON(r, f, "POST /v1", []byte("{")) }, false,
			[]string{"want is not JSON"}},
		{"empty bytes", func(r *recorder) bool { return fakeassert.RequestedWithJSON(r, f, "POST /v1", json.RawMessage(nil)) }, false,
			[]string{"want is not JSON: empty"}},
	})
}

// A failure shows the start of a long body, not all of it.
func TestLongBody(t *testing.T) {
	t.Parallel()
	body := `{"text":"` + strings.Repeat("é", 1000) + `"}`
	f := &logFake{log: []control.Request{post("POST /v1", "/v1", body, 200)}}
	r := &recorder{}
	if fakeassert.RequestedWithJSON(r, f, "POST /v1", map[string]any{"text": "short"}) {
		t.Fatal("matched")
	}
	if strings.Count(r.text(), "é") > 600 || !strings.Contains(r.text(), fmt.Sprintf("… (%d bytes)", len(body))) || strings.Contains(r.text(), "�") {
		t.Errorf("the body is not cut at a rune and said to be:\n%s", r.text())
	}
}

// 20 requests are all listed; 21 are not.
func TestListBound(t *testing.T) {
	t.Parallel()
	for _, n := range []int{20, 21} {
		var log []control.Request
		for i := range n {
			log = append(log, post("POST /items", fmt.Sprintf("/items/%d", i), `{}`, 201))
		}
		r := &recorder{}
		fakeassert.NotRequested(r, &logFake{log: log}, "POST /items")
		all := strings.Contains(r.text(), "/items/0 ")
		note := strings.Contains(r.text(), "(the newest 20 shown)")
		if all != (n == 20) || note != (n == 21) || !strings.Contains(r.text(), fmt.Sprintf("/items/%d ", n-1)) {
			t.Errorf("%d requests listed as:\n%s", n, r.text())
		}
	}
}
