package control_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/internal/leaktest"
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
	leaktest.NoSecretIn(t, "the request", r, "secret") // any of the three, or part of one
	leaktest.NoSecretIn(t, "the request's pointer", &r, "secret")
	for _, format := range []string{"%v", "%+v", "%#v", "%s"} {
		out := fmt.Sprintf(format, r)
		if !strings.Contains(out, "/api/v4/projects") {
			t.Errorf("%s: %s", format, out)
		}
	}
	if !strings.Contains(r.String(), "page=2") {
		t.Errorf("String %q drops the rest of the query", r.String())
	}
}

// A fault, a fault in force and a logged request each have one Go type,
// whose JSON is the control API's shape: written and read back as they
// were, a latency as a Go duration, a body that is not UTF-8 as base64,
// unknown fields refused, and a Request's credentials "[REDACTED]" even
// when it was made by hand.
func TestJSONShapes(t *testing.T) {
	t.Parallel()
	af := control.ActiveFault{Route: "GET /x", Remaining: -1, Fault: control.Fault{Status: 503, Code: "UNAVAILABLE",
		Message: "m", Body: "{}", Header: http.Header{"X-A": {"b"}}, Latency: 250 * time.Millisecond, OnClock: true, Times: 2}}
	b, err := json.Marshal(af)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"route":"GET /x","status":503,"code":"UNAVAILABLE","message":"m","body":"{}","header":{"X-A":["b"]},` +
		`"latency":"250ms","on_clock":true,"times":2,"remaining":-1}`
	if string(b) != want {
		t.Errorf("ActiveFault:\n%s\nwant\n%s", b, want)
	}
	var back control.ActiveFault
	if err := json.Unmarshal(b, &back); err != nil || back.Latency != af.Latency || back.Route != af.Route || back.Remaining != -1 || back.Header.Get("X-A") != "b" {
		t.Errorf("read back %+v, %v", back, err)
	}
	if b, _ := json.Marshal(control.ActiveFault{Fault: control.Fault{Drop: true}}); string(b) != `{"route":"","drop":true}` {
		t.Errorf("to inject: %s", b)
	}
	for in, wantErr := range map[string]string{
		`{"status":500,"bogus":1}`: `unknown field "bogus"`,
		`{"latency":"soon"}`:       `invalid fault: latency "soon" is not a duration`,
	} {
		var f control.Fault
		if err := json.Unmarshal([]byte(in), &f); err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("%s: %v, want %q", in, err, wantErr)
		}
	}

	r := control.Request{Method: "GET", Path: "/p", Duration: 1500 * time.Microsecond, Status: 200,
		Header: http.Header{"Authorization": {"Bearer secret-1"}}, Query: url.Values{"private_token": {"secret-2"}},
		Body: []byte{0xff, 0x00}, BodySize: 2, ResponseBody: []byte(`{"ok":true}`)}
	b, err = json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "secret") || !strings.Contains(string(b), `"duration_ms":1.5`) ||
		!strings.Contains(string(b), `"body":"/wA=","body_encoding":"base64"`) || !strings.Contains(string(b), `"response_body":"{\"ok\":true}"`) {
		t.Errorf("Request: %s", b)
	}
	var rb control.Request
	if err := json.Unmarshal(b, &rb); err != nil || !bytes.Equal(rb.Body, r.Body) || string(rb.ResponseBody) != `{"ok":true}` ||
		rb.Duration != r.Duration || rb.Header.Get("Authorization") != "Bearer [REDACTED]" {
		t.Errorf("read back %+v, %v", rb, err)
	}
}
