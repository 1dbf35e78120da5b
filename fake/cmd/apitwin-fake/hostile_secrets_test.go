package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/cloudauthfake"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/controlapi"
	"github.com/apitwin/apitwin/fake/erpfake"
	"github.com/apitwin/apitwin/fake/mcpfake"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/internal/leaktest"
	"github.com/apitwin/apitwin/orch"
)

// secretCall is one request of TestNoSecretInAnyLogPageOrAnswer.
type secretCall struct {
	method, url string
	header      http.Header
	body        string
}

// TestNoSecretInAnyLogPageOrAnswer is issue 38's finding 4 against the
// program: the control API's request log showed the ERP's ERPAPIKEY (the
// redaction list named another header) and kept bodies as sent (the ERP
// admin's and created users' passwords, the cloudauth password, webhook
// secrets). It sends each service's secrets every way the service takes
// them: every credential header and query parameter, and every field of
// the service's SecretFields in a JSON body, a form and a query (the ERP's
// session login, cloudauth's login and the access_token it answers,
// sourcehost's hook tokens in JSON, form and multipart and a hook URL's
// password, mcp's configure_webhook token, orch's gRPC metadata). Then it
// reads everything the program shows: every control API answer, every
// console page and the program's stderr, and finds none of the secrets,
// in any form they travel in (as they are, JSON-, URL- or Go-quoted, in a
// body the API gives as base64), while the log does hold the requests,
// with "[REDACTED]" where the secrets were. stderr is read after SIGTERM,
// so that it holds the shutdown's lines too.
func TestNoSecretInAnyLogPageOrAnswer(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the program as a process")
	}
	p := startProcess(t, "--seed", "demo", "--erp-bare-login") // the session login below posts the bare form
	ctx := context.Background()
	erpURL, cloudURL := p.services["erp"]["url"], p.services["cloudauth"]["url"]
	shURL := strings.TrimSuffix(p.services["sourcehost"]["url"], "/api/v4")
	mcpURL, orchURL, ctlURL := p.services["mcp"]["url"], p.services["orch"]["url"], p.services["control"]["url"]
	erpKey, adminPassword := p.services["erp"]["api_key"], p.services["erp"]["admin_password"]
	shToken, mcpToken, ctlToken := p.services["sourcehost"]["token"], p.services["mcp"]["token"], p.services["control"]["token"]

	// The printed credentials are secrets, and so is each value made up
	// below.
	secrets := []string{erpKey, adminPassword, p.services["cloudauth"]["password"], shToken, mcpToken, ctlToken}
	n := 0
	secret := func(what string) string {
		n++
		s := fmt.Sprintf("s3cret%02d%s", n, strings.NewReplacer("_", "", "-", "").Replace(what))
		secrets = append(secrets, s)
		return s
	}
	noRedirect := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	send := func(c secretCall) (int, http.Header, string) {
		t.Helper()
		req, err := http.NewRequest(c.method, c.url, strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header = c.header
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", c.method, c.url, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, string(b)
	}
	hdr := func(kv ...string) http.Header {
		h := http.Header{}
		for i := 0; i+1 < len(kv); i += 2 {
			h.Set(kv[i], kv[i+1])
		}
		return h
	}
	jsonBody := func(fields map[string]any) string {
		b, _ := json.Marshal(fields)
		return string(b)
	}
	mustBe := func(what string, got int, want ...int) {
		t.Helper()
		for _, w := range want {
			if got == w {
				return
			}
		}
		t.Errorf("%s: %d, want one of %v", what, got, want)
	}

	// ERP: the key in every header and parameter the ERP reads, the
	// admin's session login and its cookie, users created and changed
	// with a password, and every secret field as JSON and query.
	users := erpURL + "/api/index.php/users"
	for _, h := range []http.Header{hdr("ERPAPIKEY", erpKey), hdr("DOLAPIKEY", erpKey), hdr("Authorization", "Bearer "+erpKey)} {
		send(secretCall{"GET", users + "/1", h, ""})
	}
	for _, q := range []string{"api_key", "ERPAPIKEY", "DOLAPIKEY"} {
		send(secretCall{"GET", users + "/1?" + q + "=" + erpKey, nil, ""})
	}
	st, h, _ := send(secretCall{"POST", erpURL + "/index.php", hdr("Content-Type", "application/x-www-form-urlencoded"),
		url.Values{"username": {"admin"}, "password": {adminPassword}}.Encode()})
	mustBe("ERP session login", st, http.StatusFound)
	var session string
	for _, c := range (&http.Response{Header: h}).Cookies() {
		session = c.Name + "=" + c.Value
		secrets = append(secrets, c.Value)
	}
	mustBe("ERP call with the session", func() int { s, _, _ := send(secretCall{"GET", users + "/1", hdr("Cookie", session), ""}); return s }(), http.StatusOK)
	erpJSON := hdr("ERPAPIKEY", erpKey, "Content-Type", "application/json")
	st, _, created := send(secretCall{"POST", users, erpJSON, jsonBody(map[string]any{"login": "newcomer", "pass": secret("erp-user-pass")})})
	mustBe("ERP user created with a password", st, http.StatusOK)
	send(secretCall{"PUT", users + "/" + strings.Trim(created, `"`), erpJSON, jsonBody(map[string]any{"pass": secret("erp-user-new-pass")})})
	for _, f := range erpfake.SecretFields() {
		send(secretCall{"POST", users, erpJSON, jsonBody(map[string]any{"login": "x" + f, f: secret("erp-json-" + f)})})
		send(secretCall{"GET", users + "?" + f + "=" + secret("erp-query-"+f), hdr("ERPAPIKEY", erpKey), ""})
	}

	// cloudauth: a login and the token it answers, used; every secret
	// field in a login's body.
	login := cloudURL + "/csp/gateway/am/api/login"
	st, _, answer := send(secretCall{"POST", login, hdr("Content-Type", "application/json"),
		jsonBody(map[string]any{"username": p.services["cloudauth"]["username"], "password": p.services["cloudauth"]["password"]})})
	mustBe("cloudauth login", st, http.StatusOK)
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal([]byte(answer), &tok); err != nil || tok.AccessToken == "" {
		t.Fatalf("cloudauth login answer %s: %v", answer, err)
	}
	secrets = append(secrets, tok.AccessToken)
	mustBe("cloudauth userinfo", func() int {
		s, _, _ := send(secretCall{"GET", cloudURL + "/csp/gateway/am/api/userinfo", hdr("Authorization", "Bearer "+tok.AccessToken), ""})
		return s
	}(), http.StatusOK)
	for _, f := range cloudauthfake.SecretFields() {
		send(secretCall{"POST", login, hdr("Content-Type", "application/json"), jsonBody(map[string]any{"username": "admin", f: secret("cloudauth-" + f)})})
	}

	// sourcehost: the token every way GitLab reads it; hooks with a secret
	// token as JSON, a form, a multipart form and a query, one to a URL
	// holding a password (its deliveries are listed); every secret field.
	receiver := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(receiver.Close)
	hookURL := strings.Replace(receiver.URL, "http://", "http://hookuser:"+secret("hook-url-password")+"@", 1) + "/hook"
	projects := shURL + "/api/v4/projects"
	for _, h := range []http.Header{hdr("PRIVATE-TOKEN", shToken), hdr("Authorization", "Bearer "+shToken), hdr("JOB-TOKEN", shToken)} {
		send(secretCall{"GET", projects, h, ""})
	}
	for _, q := range []string{"private_token", "job_token", "access_token"} {
		send(secretCall{"GET", projects + "?" + q + "=" + shToken, nil, ""})
	}
	shJSON := hdr("PRIVATE-TOKEN", shToken, "Content-Type", "application/json")
	hooks := projects + "/1/hooks"
	st, _, _ = send(secretCall{"POST", hooks, shJSON, jsonBody(map[string]any{"url": hookURL, "issues_events": true, "token": secret("hook-json")})})
	mustBe("sourcehost hook (JSON)", st, http.StatusCreated)
	send(secretCall{"POST", hooks, hdr("PRIVATE-TOKEN", shToken, "Content-Type", "application/x-www-form-urlencoded"),
		url.Values{"url": {receiver.URL + "/form"}, "token": {secret("hook-form")}}.Encode()})
	var mp strings.Builder
	mw := multipart.NewWriter(&mp)
	_ = mw.WriteField("url", receiver.URL+"/multipart")
	_ = mw.WriteField("token", secret("hook-multipart"))
	_ = mw.Close()
	send(secretCall{"POST", hooks, hdr("PRIVATE-TOKEN", shToken, "Content-Type", mw.FormDataContentType()), mp.String()})
	send(secretCall{"POST", hooks + "?url=" + url.QueryEscape(receiver.URL+"/query") + "&token=" + secret("hook-query"), hdr("PRIVATE-TOKEN", shToken), ""})
	for _, f := range sourcehostfake.SecretFields() {
		send(secretCall{"POST", hooks, shJSON, jsonBody(map[string]any{"url": receiver.URL + "/f", f: secret("sourcehost-" + f)})})
	}
	st, _, _ = send(secretCall{"POST", projects + "/1/issues", shJSON, `{"title":"a delivery to the hook with a password"}`})
	mustBe("sourcehost issue", st, http.StatusCreated)

	// mcp: the token, a request signature, configure_webhook's token (the
	// gateway sends it on to sourcehost) and every secret field.
	mcpHeader := hdr("Authorization", "Bearer "+mcpToken, "Content-Type", "application/json", "Accept", "application/json, text/event-stream",
		"X-MCP-Signature", "t=1767225600,nonce=abcdefghijklmnop,v2="+secret("mcpsignature"))
	st, _, answer = send(secretCall{"POST", mcpURL, mcpHeader, jsonBody(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": "configure_webhook", "arguments": map[string]any{"project_id": 1, "url": receiver.URL + "/mcp", "token": secret("mcp-hook")}}})})
	if st != http.StatusOK || strings.Contains(answer, `"error"`) {
		t.Errorf("mcp configure_webhook: %d %s", st, answer)
	}
	for _, f := range mcpfake.SecretFields() {
		send(secretCall{"POST", mcpURL, mcpHeader, jsonBody(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "configure_webhook",
			"params": map[string]any{"project_id": 1, "url": receiver.URL + "/mcp2", f: secret("mcp-" + f)}})})
	}

	// orch: a token over gRPC (metadata) and over HTTP.
	orchToken := secret("orch-token")
	og, err := orch.Dial(p.services["orch"]["grpc"], orch.WithInsecure(), orch.WithToken(orchToken), orch.WithoutRetries())
	if err != nil {
		t.Fatal(err)
	}
	defer og.Close()
	_, _ = og.DescribeWorkflow(ctx, "none", "")
	if _, err := og.StartWorkflow(ctx, "Noted", "q", nil, &orch.StartWorkflowOptions{ID: "noted"}); err != nil {
		t.Errorf("orch over gRPC: %v", err)
	}
	oh, err := orch.NewHTTP(orchURL, orch.WithToken(orchToken), orch.WithoutRetries())
	if err != nil {
		t.Fatal(err)
	}
	_, _ = oh.DescribeWorkflow(ctx, "none", "")

	// Everything the program shows: the control API's answers...
	ctl := controlapi.NewClient(ctlURL, ctlToken, nil)
	deadline := time.After(30 * time.Second) // a failsafe: the delivery is waited for, not timed
	for {
		ds, err := ctl.Deliveries(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(ds) > 0 {
			break
		}
		select {
		case <-deadline:
			t.Fatal("no webhook delivery listed")
		case <-time.After(10 * time.Millisecond):
		}
	}
	shown := map[string]string{}
	get := func(name, u string, hc *http.Client, auth bool) string {
		t.Helper()
		req, _ := http.NewRequest("GET", u, nil)
		if auth {
			req.Header.Set("Authorization", "Bearer "+ctlToken)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: %d %s", name, resp.StatusCode, b)
		}
		shown[name] = string(b)
		return string(b)
	}
	api := &http.Client{Timeout: 30 * time.Second}
	for _, path := range []string{"/api/services", "/api/clock", "/api/sourcehost/deliveries", "/api/orch/workflows", "/api/orch/task-queues",
		"/api/orch/history?namespace=default&workflow_id=noted", "/openapi.json"} {
		get(path, ctlURL+path, api, true)
	}
	logged := map[string][]control.Request{}
	for _, svc := range []string{"erp", "cloudauth", "orch", "sourcehost", "mcp"} {
		get("faults of "+svc, ctlURL+"/api/"+svc+"/faults", api, true)
		var recs []control.Request
		if err := json.Unmarshal([]byte(get("requests of "+svc, ctlURL+"/api/"+svc+"/requests", api, true)), &recs); err != nil {
			t.Fatal(err)
		}
		logged[svc] = recs
		for i, r := range recs { // the bodies decoded (the API gives those that are not UTF-8 as base64)
			shown[fmt.Sprintf("%s request %d, body decoded", svc, i)] = string(r.Body)
			shown[fmt.Sprintf("%s request %d, answer decoded", svc, i)] = string(r.ResponseBody)
		}
	}
	// ... every console page ...
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	get("the console's login page", ctlURL+"/login", browser, false)
	get("the console's overview", ctlURL+"/login?token="+url.QueryEscape(ctlToken), browser, false) // redirected to /
	for _, svc := range []string{"erp", "cloudauth", "orch", "sourcehost", "mcp"} {
		get("the console's "+svc+" page", ctlURL+"/s/"+svc, browser, false)
	}
	get("the console's script", ctlURL+"/static/console.js", browser, false)
	// ... and what the program wrote on stderr, read once it has stopped.
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Errorf("exit after SIGTERM: %v", err)
	}
	shown["stderr"] = p.stderr.String()

	for name, text := range shown {
		leaktest.NoSecretIn(t, name, text, secrets...)
	}

	// The log did keep the requests, with the marker where the secrets
	// were: what is checked above was there to be found.
	for svc, min := range map[string]int{"erp": 10, "cloudauth": 3, "orch": 2, "sourcehost": 10, "mcp": 2} {
		if len(logged[svc]) < min || !strings.Contains(shown["requests of "+svc], `[REDACTED]`) {
			t.Errorf("%s: %d requests logged, the marker in them %v", svc, len(logged[svc]), strings.Contains(shown["requests of "+svc], `[REDACTED]`))
		}
	}
	for _, want := range []struct{ page, text string }{
		{"the console's erp page", "[REDACTED]"}, {"requests of cloudauth", `\"access_token\":\"[REDACTED]\"`},
		{"requests of sourcehost", "token=[REDACTED]"}, {"/api/sourcehost/deliveries", "%5BREDACTED%5D@127.0.0.1"},
		{"requests of orch", `"Bearer [REDACTED]"`},
	} {
		if !strings.Contains(shown[want.page], want.text) {
			t.Errorf("%s lacks %s:\n%.2000s", want.page, want.text, shown[want.page])
		}
	}
}
