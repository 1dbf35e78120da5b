package orchfake_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// directPair is two fakes seeded alike: one answers List and Scan over
// HTTP by its direct path, the other through grpc-gateway only. Their run
// ids and page tokens are random, so answers are compared with those
// replaced by names.
type directPair struct {
	direct, gateway *orchfake.Server
	names           []*strings.Replacer // per fake: run id → RUN(workflow id)
}

func newDirectPair(t testing.TB, opts ...orchfake.Option) *directPair {
	t.Helper()
	p := &directPair{}
	for i := range 2 {
		s, err := orchfake.New(append([]orchfake.Option{control.WithClock(clock.NewFake(epoch))}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		orchfake.SetGatewayOnly(s, i == 1)
		if err := s.AddAPIKey("key-1", "default", orchfake.PermWorkflow); err != nil {
			t.Fatal(err)
		}
		if err := s.RegisterSearchAttribute("default", "CustomerId", orchfake.Keyword); err != nil {
			t.Fatal(err)
		}
		var pairs []string
		for j := range 12 {
			id := fmt.Sprintf("wf-%02d-%s", j, []string{"plain", "a/b", "é", `q"t`}[j%4])
			run, err := s.AddExecution(orchfake.ExecutionSeed{
				WorkflowID: id, WorkflowType: []string{"Order", "Refund"}[j%2],
				Status:           []string{"RUNNING", "COMPLETED", "FAILED"}[j%3],
				StartTime:        epoch.Add(-time.Duration(j) * time.Minute),
				SearchAttributes: map[string]any{"CustomerId": fmt.Sprintf("acme-%d", j%3)},
			})
			if err != nil {
				t.Fatal(err)
			}
			pairs = append(pairs, run, "RUN("+id+")")
		}
		if i == 0 {
			p.direct = s
		} else {
			p.gateway = s
		}
		p.names = append(p.names, strings.NewReplacer(pairs...))
	}
	return p
}

// token is page one's next_page_token from each fake, for page two.
func (p *directPair) token(t testing.TB, scan bool) [2]string {
	t.Helper()
	var toks [2]string
	for i, s := range []*orchfake.Server{p.direct, p.gateway} {
		c := orchpb.NewWorkflowServiceClient(s.Conn())
		var tok []byte
		if scan {
			r, err := c.ScanWorkflowExecutions(context.Background(), &orchpb.ScanWorkflowExecutionsRequest{Namespace: "default", PageSize: 5})
			if err != nil {
				t.Fatal(err)
			}
			tok = r.GetNextPageToken()
		} else {
			r, err := c.ListWorkflowExecutions(context.Background(), &orchpb.ListWorkflowExecutionsRequest{Namespace: "default", PageSize: 5})
			if err != nil {
				t.Fatal(err)
			}
			tok = r.GetNextPageToken()
		}
		toks[i] = base64.StdEncoding.EncodeToString(tok)
	}
	return toks
}

// answer is what one fake answered, normalised.
type answer struct {
	code   int
	header http.Header
	body   string
}

// serve sends the request mk builds (for fake i) to both fakes and
// returns their answers.
func (p *directPair) serve(mk func(i int) *http.Request) [2]answer {
	var out [2]answer
	for i, s := range []*orchfake.Server{p.direct, p.gateway} {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, mk(i))
		h := rec.Result().Header
		h.Del("Date")
		out[i] = answer{rec.Code, h, nextTokenJSON.ReplaceAllString(p.names[i].Replace(rec.Body.String()), `"next_page_token":"TOKEN"`)}
	}
	return out
}

func sameAnswer(t *testing.T, what string, a [2]answer) {
	t.Helper()
	d, g := a[0], a[1]
	if d.code != g.code || d.body != g.body || !maps.EqualFunc(d.header, g.header, slices.Equal) {
		t.Errorf("%s: the direct path answered\n%d %v\n%s\nthe gateway\n%d %v\n%s", what, d.code, d.header, d.body, g.code, g.header, g.body)
	}
}

// sameLog wants the two fakes' request logs of their HTTP calls alike:
// the same operation, caller, status, code and sizes for each, as the
// same pipeline writes them.
func (p *directPair) sameLog(t *testing.T) {
	t.Helper()
	var logs [2][]string
	for i, s := range []*orchfake.Server{p.direct, p.gateway} {
		for _, r := range s.Requests() {
			if r.Transport != orchfake.TransportHTTP {
				continue
			}
			for k := range r.Query { // each fake's own page token
				if strings.HasSuffix(strings.ToLower(k), "token") {
					r.Query[k] = []string{"TOKEN"}
				}
			}
			logs[i] = append(logs[i], fmt.Sprintf("%s %s %v body %d → route %q caller %q %d %q fault %v panicked %v answer %d",
				r.Method, r.Path, r.Query, r.BodySize, r.Route, r.Caller, r.Status, r.Code, r.Fault, r.Panic != "", r.ResponseSize))
		}
	}
	if !slices.Equal(logs[0], logs[1]) {
		t.Errorf("the request logs differ: direct path\n%s\ngateway\n%s", strings.Join(logs[0], "\n"), strings.Join(logs[1], "\n"))
	}
}

type directCase struct {
	name   string
	method string
	target string // "TOKEN" is replaced by each fake's own page token
	body   string
	header map[string]string
	direct bool // whether the direct path takes it
}

func (c directCase) request(tok string) *http.Request {
	var body *strings.Reader
	if c.body != "" {
		body = strings.NewReader(c.body)
	}
	target := strings.ReplaceAll(c.target, "TOKEN", url.QueryEscape(tok))
	var r *http.Request
	if body != nil {
		body = strings.NewReader(strings.ReplaceAll(c.body, "TOKEN", tok))
		r = httptest.NewRequest(c.method, target, body)
	} else {
		r = httptest.NewRequest(c.method, target, nil)
	}
	for k, v := range c.header {
		r.Header.Set(k, v)
	}
	return r
}

// TestListDirectSameAsGateway runs a table of List and Scan requests,
// valid and not, through the direct path and through the gateway, and
// wants the same status, headers (but Date) and body.
func TestListDirectSameAsGateway(t *testing.T) {
	t.Parallel()
	const wf = "/api/v1/namespaces/default/workflows"
	const beta = "/api/v1beta1/namespaces/default/workflows"
	open := []directCase{
		{"list", "GET", wf, "", nil, true},
		{"list empty query", "GET", wf + "?", "", nil, true},
		{"list page size", "GET", wf + "?page_size=3", "", nil, true},
		{"list pageSize", "GET", wf + "?pageSize=3", "", nil, true},
		{"list page size signed", "GET", wf + "?page_size=%2B3", "", nil, true},
		{"list query", "GET", wf + "?query=" + url.QueryEscape("WorkflowType = 'Order'") + "&page_size=2", "", nil, true},
		{"list query plus", "GET", wf + "?query=WorkflowType+%3D+'Refund'", "", nil, true},
		{"list bad query", "GET", wf + "?query=" + url.QueryEscape("WorkflowType = "), "", nil, true},
		{"list unknown attribute", "GET", wf + "?query=" + url.QueryEscape("Nope = 'x'"), "", nil, true},
		{"list empty pairs", "GET", wf + "?&&page_size=2&", "", nil, true},
		{"list page token", "GET", wf + "?page_size=5&next_page_token=TOKEN", "", nil, true},
		{"list pageToken camel", "GET", wf + "?pageSize=5&nextPageToken=TOKEN", "", nil, true},
		{"list token of another query", "GET", wf + "?page_size=5&query=" + url.QueryEscape("ORDER BY CustomerId") + "&next_page_token=TOKEN", "", nil, true},
		{"list garbage token", "GET", wf + "?next_page_token=AAAA", "", nil, true},
		{"list empty token", "GET", wf + "?next_page_token=", "", nil, true},
		{"list page size too big", "GET", wf + "?page_size=5000", "", nil, true},
		{"list page size negative", "GET", wf + "?page_size=-1", "", nil, true},
		{"list page size not a number", "GET", wf + "?page_size=x", "", nil, false},
		{"list page size overflow", "GET", wf + "?page_size=3000000000", "", nil, false},
		{"list page size empty", "GET", wf + "?page_size=", "", nil, false},
		{"list page size twice", "GET", wf + "?page_size=1&page_size=2", "", nil, false},
		{"list page size both names", "GET", wf + "?page_size=1&pageSize=2", "", nil, false},
		{"list token not base64", "GET", wf + "?next_page_token=%25%25", "", nil, false},
		{"list unknown parameter", "GET", wf + "?foo=1", "", nil, false},
		{"list namespace parameter", "GET", wf + "?namespace=other", "", nil, false},
		{"list map parameter", "GET", wf + "?query[a]=1", "", nil, false},
		{"list semicolon", "GET", wf + "?page_size=1;query=x", "", nil, false},
		{"list bad escape", "GET", wf + "?query=%zz", "", nil, false},
		{"list bad key escape", "GET", wf + "?%zz=1", "", nil, false},
		{"escaped version", "GET", "/api/%761/namespaces/default/workflows", "", nil, false},
		{"other version", "GET", "/api/v2/namespaces/default/workflows", "", nil, false},
		{"list many parameters", "GET", wf + "?page_size=1&&&&&&", "", nil, false},
		{"list key without value", "GET", wf + "?query", "", nil, true},
		{"beta list", "GET", beta + "?page_size=2", "", nil, true},
		{"beta list bad size", "GET", beta + "?page_size=x", "", nil, false},
		{"version header", "GET", wf, "", map[string]string{"Orch-API-Version": "v1beta1"}, true},
		{"bad version header", "GET", wf, "", map[string]string{"Orch-API-Version": "v9"}, true},
		{"payloads header", "GET", wf, "", map[string]string{orchfake.HeaderPayloads: "json"}, false},
		{"grpc timeout", "GET", wf, "", map[string]string{"Grpc-Timeout": "1S"}, false},
		{"trailers", "GET", wf, "", map[string]string{"TE": "trailers"}, false},
		{"unknown namespace", "GET", "/api/v1/namespaces/nope/workflows", "", nil, true},
		{"empty namespace", "GET", "/api/v1/namespaces//workflows", "", nil, true},
		{"escaped namespace", "GET", "/api/v1/namespaces/%64efault/workflows?page_size=1", "", nil, true},
		{"escaped slash namespace", "GET", "/api/v1/namespaces/de%2Ffault/workflows", "", nil, true},
		{"beta escaped namespace", "GET", "/api/v1beta1/namespaces/%64efault/workflows", "", nil, true},
		{"escaped literal", "GET", "/api/v1/namespaces/default/%77orkflows", "", nil, false},
		{"control character namespace", "GET", "/api/v1/namespaces/a%01b/workflows", "", nil, true},
		{"trailing slash", "GET", wf + "/", "", nil, false},
		{"count", "GET", wf + "/count", "", nil, false},
		{"head", "HEAD", wf, "", nil, false},
		{"put", "PUT", wf, "", nil, false},
		{"scan", "POST", wf + "/scan", `{"page_size":3}`, nil, true},
		{"scan no body", "POST", wf + "/scan", "", nil, true},
		{"scan blank body", "POST", wf + "/scan", " \n", nil, true},
		{"scan camel", "POST", wf + "/scan", `{"pageSize":3,"query":"WorkflowType = 'Order'"}`, nil, true},
		{"scan query string ignored", "POST", wf + "/scan?foo=bar", `{"page_size":3}`, nil, true},
		{"scan namespace in body", "POST", wf + "/scan", `{"namespace":"other","page_size":2}`, nil, true},
		{"scan token", "POST", wf + "/scan", `{"page_size":5,"next_page_token":"TOKEN"}`, nil, true},
		{"scan order by", "POST", wf + "/scan", `{"query":"ORDER BY StartTime"}`, nil, true},
		{"scan bad json", "POST", wf + "/scan", `{"page_size":`, nil, false},
		{"scan unknown field", "POST", wf + "/scan", `{"nope":1}`, nil, false},
		{"scan wrong type", "POST", wf + "/scan", `{"page_size":"x"}`, nil, false},
		{"scan payloads header", "POST", wf + "/scan", `{}`, map[string]string{orchfake.HeaderPayloads: "json"}, false},
		{"beta scan", "POST", beta + "/scan", `{"page_size":1}`, nil, true},
		{"method override", "POST", wf + "/scan", "{}", map[string]string{"X-HTTP-Method-Override": "GET"}, true},
		{"form content type", "POST", wf + "/scan", "{}", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, true},
		{"scan by get", "GET", wf + "/scan", "", nil, false},
		{"start by post", "POST", wf, `{"workflow_id":"new","workflow_type":{"name":"T"},"task_queue":{"name":"q"}}`, nil, false},
	}
	t.Run("open", func(t *testing.T) {
		t.Parallel()
		p := newDirectPair(t)
		for _, c := range open {
			toks := p.token(t, strings.Contains(c.target, "/scan"))
			if got := orchfake.TakesDirect(c.request(toks[0])); got != c.direct {
				t.Errorf("%s: direct path takes it: %v, want %v", c.name, got, c.direct)
			}
			sameAnswer(t, c.name, p.serve(func(i int) *http.Request { return c.request(toks[i]) }))
		}
		p.sameLog(t)
	})
	t.Run("auth", func(t *testing.T) {
		t.Parallel()
		p := newDirectPair(t, orchfake.WithAuth())
		for _, c := range []directCase{
			{"unauthenticated", "GET", wf, "", nil, true},
			{"bad key", "GET", wf, "", map[string]string{"Authorization": "Bearer nope"}, true},
			{"key", "GET", wf + "?page_size=2", "", map[string]string{"Authorization": "Bearer key-1"}, true},
			{"key other namespace", "GET", "/api/v1/namespaces/billing/workflows", "", map[string]string{"Authorization": "Bearer key-1"}, true},
			{"scan unauthenticated", "POST", wf + "/scan", "{}", nil, true},
			{"scan key", "POST", wf + "/scan", "{}", map[string]string{"Authorization": "Bearer key-1"}, true},
		} {
			sameAnswer(t, c.name, p.serve(func(int) *http.Request { return c.request("") }))
		}
		p.sameLog(t)
	})
	t.Run("rate limited", func(t *testing.T) {
		t.Parallel()
		p := newDirectPair(t, orchfake.WithLimits(orchfake.Limits{ClusterRequestsPerMinute: 3}))
		for i := range 5 { // the third onward is refused, with Retry-After
			c := directCase{"list", "GET", wf, "", nil, true}
			if i%2 == 1 {
				c = directCase{"scan", "POST", wf + "/scan", "{}", nil, true}
			}
			sameAnswer(t, fmt.Sprintf("call %d (%s)", i, c.name), p.serve(func(int) *http.Request { return c.request("") }))
		}
		p.sameLog(t)
	})
	t.Run("fault", func(t *testing.T) {
		t.Parallel()
		p := newDirectPair(t, control.WithFault("ListWorkflowExecutions", control.Fault{Status: http.StatusServiceUnavailable}))
		c := directCase{"list", "GET", wf, "", nil, true}
		sameAnswer(t, "fault", p.serve(func(int) *http.Request { return c.request("") }))
		p.sameLog(t)
	})
	t.Run("closed", func(t *testing.T) {
		t.Parallel()
		p := newDirectPair(t)
		p.direct.Close()
		p.gateway.Close()
		c := directCase{"list", "GET", wf, "", nil, true}
		sameAnswer(t, "closed", p.serve(func(int) *http.Request { return c.request("") }))
	})
}

// TestListDirectMalformedPath: a path net/url would not make (a broken
// escape in RawPath) goes to the gateway, which answers it.
func TestListDirectMalformedPath(t *testing.T) {
	t.Parallel()
	p := newDirectPair(t)
	mk := func(int) *http.Request {
		r := httptest.NewRequest("GET", "/api/v1/namespaces/x/workflows", nil)
		r.URL.Path = "/api/v1/namespaces/a%zz/workflows"
		r.URL.RawPath = "/api/v1/namespaces/a%zz/workflows"
		return r
	}
	if orchfake.TakesDirect(mk(0)) {
		t.Error("the direct path takes a malformed escape")
	}
	sameAnswer(t, "malformed escape", p.serve(mk))
}

// TestListDirectBodyPutBack: a Scan body the direct path cannot read is
// handed on as it came, bytes and error; a missing one is not read.
func TestListDirectBodyPutBack(t *testing.T) {
	t.Parallel()
	broken := errors.New("connection reset")
	r := httptest.NewRequest("POST", "/api/v1/namespaces/default/workflows/scan", nil)
	r.Body = io.NopCloser(io.MultiReader(strings.NewReader(`{"page`), iotest.ErrReader(broken)))
	if orchfake.TakesDirect(r) {
		t.Fatal("the direct path takes a body that fails")
	}
	if b, err := io.ReadAll(r.Body); string(b) != `{"page` || !errors.Is(err, broken) {
		t.Errorf("the body handed on reads %q, %v", b, err)
	}
	r = httptest.NewRequest("POST", "/api/v1/namespaces/default/workflows/scan", strings.NewReader(`{"page_size":`))
	if orchfake.TakesDirect(r) {
		t.Fatal("the direct path takes a body that does not decode")
	}
	if b, _ := io.ReadAll(r.Body); string(b) != `{"page_size":` {
		t.Errorf("the body handed on reads %q", b)
	}
	r.Body = nil
	if orchfake.TakesDirect(r) {
		t.Error("the direct path takes a request without a body")
	}
}

// FuzzListDirectQuery compares both paths on arbitrary query strings,
// namespace segments and, for a Scan (body not empty), bodies; its seed
// corpus runs in go test. One fake answers each request twice, by the
// direct path and through the gateway: without limits, so without
// rate-limit headers, both answers are the same bytes, run ids and page
// tokens included, whatever order ties take.
func FuzzListDirectQuery(f *testing.F) {
	for _, q := range []string{"", "page_size=2", "pageSize=1&query=WorkflowType%20%3D%20'Order'", "next_page_token=AAAA",
		"page_size=1&page_size=2", "query=%zz", "a;b", "&&", "query", "nextPageToken=-_-_", "page_size=+1", "page_size=0x10",
		"query=ORDER+BY+CustomerId&page_size=3", "namespace=x", "page_size=%31", "query[x]=1", "query.x=1"} {
		f.Add(q, "default", "")
	}
	f.Add("page_size=1", "%64efault", "")
	f.Add("", "de%2Ffault", "")
	f.Add("", "a%zz", "")
	f.Add("", "", "")
	for _, b := range []string{"{}", " ", `{"page_size":2,"query":"WorkflowType = 'Refund'"}`, `{"pageSize":"2"}`, `{"page_size":-1}`,
		`{"next_page_token":"AAAA"}`, `{"namespace":"x"}`, `{"page_size":1,"page_size":2}`, `[]`, `{"query":"ORDER BY StartTime"}`} {
		f.Add("page_size=1", "default", b)
	}
	s, err := orchfake.New(control.WithClock(clock.NewFake(epoch)), orchfake.WithoutLimits())
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(s.Close)
	seedSearch(f, s, 30)
	f.Fuzz(func(t *testing.T, query, ns, body string) {
		path := "/api/v1/namespaces/" + ns + "/workflows"
		method := http.MethodGet
		if body != "" {
			path, method = path+"/scan", http.MethodPost
		}
		u, err := url.Parse(path)
		if err != nil || strings.ContainsAny(ns, "/?#") {
			t.Skip()
		}
		var got [2]answer
		for i := range got {
			orchfake.SetGatewayOnly(s, i == 1)
			r := httptest.NewRequest(method, "/", strings.NewReader(body))
			r.URL.Path, r.URL.RawPath, r.URL.RawQuery = u.Path, u.RawPath, query
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, r)
			got[i] = answer{rec.Code, rec.Result().Header, rec.Body.String()}
		}
		orchfake.SetGatewayOnly(s, false)
		sameAnswer(t, fmt.Sprintf("%s ns %q query %q body %q", method, ns, query, body), got)
	})
}
