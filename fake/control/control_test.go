package control_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/control"
)

func TestFaultValidate(t *testing.T) {
	t.Parallel()
	for _, f := range []control.Fault{
		{Times: -1}, {Latency: -time.Second}, {Status: 42}, {Status: 1000},
		{Body: "{}"}, {Drop: true, Status: 500}, {Drop: true, Code: "X"},
	} {
		if err := f.Validate(); err == nil || !strings.HasPrefix(err.Error(), "invalid fault: ") {
			t.Errorf("%+v: %v", f, err)
		}
	}
	for _, f := range []control.Fault{{}, {Status: 503, Times: 2}, {Status: 500, Body: "{}"}, {Drop: true}, {Latency: time.Second, OnClock: true}} {
		if err := f.Validate(); err != nil {
			t.Errorf("%+v: %v", f, err)
		}
	}
	if got := (control.Fault{Status: 503, Latency: time.Second, OnClock: true, Times: 2}).String(); got != "503 after 1s on the clock ×2" {
		t.Errorf("String %q", got)
	}
}

// A logged request prints without the credentials it carried, in every
// verb.
func TestRequestHidesCredentials(t *testing.T) {
	t.Parallel()
	r := control.Request{
		Method: "GET", Path: "/api/v4/projects", Status: 200,
		Query:  url.Values{"private_token": {"glpat-secret-1"}, "page": {"2"}},
		Header: http.Header{"Authorization": {"Bearer secret-2"}, "Private-Token": {"secret-3"}},
	}
	for _, format := range []string{"%v", "%+v", "%#v", "%s"} {
		out := fmt.Sprintf(format, r)
		if strings.Contains(out, "secret") {
			t.Errorf("%s prints a credential: %s", format, out)
		}
		if !strings.Contains(out, "/api/v4/projects") {
			t.Errorf("%s: %s", format, out)
		}
	}
	if !strings.Contains(r.String(), "page=2") {
		t.Errorf("String %q drops the rest of the query", r.String())
	}
}
