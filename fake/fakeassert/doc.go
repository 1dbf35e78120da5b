// Package fakeassert checks what the code under test sent to an apitwin
// fake, in the style of testify's assert package: each function takes t
// first and an optional message last (msgAndArgs, as testify's), reports a
// failure through t.Errorf, returns whether it passed, and lets the test go
// on. Package fakerequire has the same functions, which stop the test with
// t.FailNow instead.
//
//	func TestReportsFailedOrder(t *testing.T) {
//		srv := sourcehostfake.Start(t)
//		project, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
//
//		reportFailedOrder(srv.Client(), project, 7) // the code under test
//
//		const route = "POST /api/v4/projects/{id}/issues"
//		fakeassert.RequestedTimes(t, srv, route, 1)
//		fakeassert.RequestedWithJSON(t, srv, route, map[string]any{"title": "Order 7 failed"})
//		fakeassert.Answered(t, srv, route, http.StatusCreated)
//		fakeassert.NoServerErrors(t, srv)
//	}
//
// A failure says what the fake did receive, not only what it did not:
//
//	Error:	no request to "DELETE /api/v4/projects/{id}"; the fake received 2 requests:
//		  POST /api/v4/projects → 201 [POST /api/v4/projects]
//		  POST /api/v4/projects/1/issues → 201 [POST /api/v4/projects/{id}/issues]
//
// # Fakes and routes
//
// The functions take any [control.Controls], which every fake implements
// (erpfake, cloudauthfake, orchfake, sourcehostfake, mcpfake), and read its
// request log through Requests and RequestsTo. A route is the one a request
// matched, as the fake registers it and RequestsTo takes it: the
// http.ServeMux pattern of the HTTP fakes ("GET /api/v4/projects/{id}",
// not the path a request had), or an operation name for orchfake
// ("StartWorkflowExecution", over gRPC and HTTP alike); "" names the
// requests that matched no route. Unlike InjectFault's, a route here is
// never a prefix or a wildcard. A failure lists each request with the
// route it matched in brackets, so a misspelt route shows itself.
//
// # The request log's bounds
//
// A fake's request log is bounded (WithRequestLog on each fake; by default
// the newest 10,000 requests and the first 64 KiB of each body), so these
// functions see what it kept: a test that sends more requests than the log
// holds counts only the newest, and a body the log cut short cannot be
// compared as JSON (RequestedWithJSON's failure says so). Long failures
// list at most the newest 20 requests.
//
// # Matching JSON bodies
//
// [RequestedWithJSON] matches a subset: every field of want must be in the
// body with an equal value, and fields want does not name are ignored. A
// test then states only what it is about, and does not break when the
// client starts sending a new field or a default. Objects nested in want
// are matched the same way; arrays must have the same elements in the same
// order (an array is a value, whose order and length usually matter);
// numbers are equal when their values are (1, 1.0 and 1e0), exactly, even
// beyond float64's precision. Give want as a map, which names only the
// fields it lists, or as a struct, whose every field is compared, zero
// values included, unless tagged omitempty or omitzero; json.RawMessage
// and []byte are taken as JSON text. For any other check of a body, header
// or query, use [RequestedWith] with a function of your own.
//
// # Secrets
//
// A fake's request log keeps no secret (see [control.Request]): the values
// of credential headers and query parameters, and of the fields each
// service keeps its secrets in (erpfake.SecretFields, …: passwords, a
// webhook's token, the token a login answers), are "[REDACTED]" in it,
// masked before the log stores them. An assertion over one sees that
// marker: RequestedWithJSON with {"pass": "[REDACTED]"} passes when an ERP
// user was created with a password, and fails for the password itself.
// An Authorization keeps its scheme ("Bearer [REDACTED]"). That the right
// credential was sent, the request's Caller says, who the fake
// authenticated it as:
//
//	fakeassert.RequestedWith(t, srv, "POST /api/index.php/users", func(r control.Request) bool {
//		return r.Caller == "admin" && r.Header.Get("ERPAPIKEY") == "[REDACTED]"
//	})
//
// # Server errors
//
// [NoPanics] fails if a handler of the fake panicked (a bug in the fake,
// which answered 500). [NoServerErrors] is wider: it fails on any 5xx the
// fake answered that no injected fault caused. Some services answer 5xx on
// purpose, and their fakes do too: the ERP answers 500 to some refusals (a
// product ref or login already taken, validating a document without lines)
// and orch answers DEADLINE_EXCEEDED (504) to a query no worker answered. A
// test that provokes one of those on purpose checks NoPanics instead, and
// the answer it expects with [Answered].
package fakeassert
