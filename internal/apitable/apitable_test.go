package apitable_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/internal/apitable"
)

func TestTablesAreWellFormed(t *testing.T) {
	t.Parallel()
	for _, tb := range apitable.Tables() {
		for _, p := range tb.Problems() {
			t.Error(p)
		}
	}
}

func TestProblems(t *testing.T) {
	t.Parallel()
	tb := &apitable.Table{Name: "t", DocsPrefix: "https://docs.example/", Endpoints: []apitable.Endpoint{
		{Method: "GET", Path: "/a", Handler: "a", Client: []string{"A"}, Docs: "https://docs.example/a"},
		{Method: "GET", Path: "/a", Handler: "a", Reason: "why", Docs: "https://docs.example/a"},
		{Method: "GET", Path: "/b", Handler: "b", Docs: "https://docs.example/b"},
		{Method: "GET", Path: "/c", Handler: "c", Client: []string{"C"}, Reason: "and why", Docs: "https://docs.example/c"},
		{Method: "TRACE", Path: "d", Client: []string{"D"}, Docs: "https://elsewhere/d"},
	}}
	got := tb.Problems()
	for _, want := range []string{
		"t GET /a: handler a serves another row too",
		"t GET /a: listed twice",
		"t GET /b: needs client methods or a reason why none calls it, not both",
		"t GET /c: needs client methods or a reason why none calls it, not both",
		"t TRACE d: method TRACE is not one the APIs use",
		"t TRACE d: the path does not start with /",
		"t TRACE d: no fake handler",
		"t TRACE d: docs link https://elsewhere/d is not under https://docs.example/",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("no problem %q in\n%s", want, strings.Join(got, "\n"))
		}
	}
	if len(got) != 8 {
		t.Errorf("%d problems, want 8:\n%s", len(got), strings.Join(got, "\n"))
	}
}

func TestEndpointAndPattern(t *testing.T) {
	t.Parallel()
	tb := apitable.ERPWeb()
	e := tb.Endpoints[0]
	if e.Endpoint() != "GET /" || tb.Pattern(e) != "GET /{$}" {
		t.Fatalf("endpoint %q, pattern %q", e.Endpoint(), tb.Pattern(e))
	}
	sh := apitable.Sourcehost()
	if got := sh.Calls("CreateIssue"); len(got) != 1 || sh.Pattern(got[0]) != "POST /api/v4/projects/{id}/issues" {
		t.Fatalf("CreateIssue calls %+v", got)
	}
	if got := apitable.ERP().Calls("CreateUser"); len(got) != 2 {
		t.Fatalf("CreateUser calls %+v, want its POST and the GET reading it back", got)
	}
}
