package erpfake_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/erpfake"
)

type answer struct {
	status int
	header http.Header
	body   string
}

// send makes a request by hand with admin's key (unless path carries its
// own credentials), to see exactly what the fake answers.
func send(t *testing.T, srv *erpfake.Server, method, path, contentType, body string, header ...string) answer {
	t.Helper()
	req, _ := http.NewRequest(method, srv.URL()+path, strings.NewReader(body))
	req.Header.Set("ERPAPIKEY", srv.APIKey())
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	client := *srv.RawClient() // a copy: the fake's own client, however it serves, not following redirects
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, string(b)}
}

const api = "/api/index.php"

func TestErrorShapesAndStatuses(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t)
	srv.AddThirdparty(erpfake.ThirdpartySeed{Name: "Acme", Client: 1})
	srv.AddProduct(erpfake.ProductSeed{Ref: "W", Label: "Widget", Price: "2"})
	inv, _ := srv.AddInvoice(erpfake.InvoiceSeed{SocID: 1, Lines: []erpfake.LineSeed{{ProductID: 1, Qty: "1"}}, Validated: true})
	for _, tc := range []struct {
		name                 string
		method, path, ct, in string
		header               []string
		status               int
		body                 string
	}{
		{"missing invoice", "GET", api + "/invoices/99", "", "", nil, 404, `{"error":{"code":404,"message":"Not Found: Invoice not found"}}`},
		{"malformed id", "GET", api + "/users/abc", "", "", nil, 404, `{"error":{"code":404,"message":"Not Found: User not found"}}`},
		{"no key", "GET", api + "/users", "", "", []string{"ERPAPIKEY", ""}, 401,
			`{"error":{"code":401,"message":"Unauthorized: Failed to login to API. Neither parameter 'HTTP_ERPAPIKEY' nor 'Authentication: Bearer' found on HTTP header (and no parameter ERPAPIKEY in URL)."}}`},
		{"bad key", "GET", api + "/users", "", "", []string{"ERPAPIKEY", "nope"}, 401,
			`{"error":{"code":401,"message":"Unauthorized: Error user not valid (not found with api key or bad status or bad validity dates) (conf->entity=1)"}}`},
		{"name missing", "POST", api + "/thirdparties", "application/json", `{"client":1}`, nil, 400, `{"error":{"code":400,"message":"Bad Request: name field missing"}}`},
		{"not JSON", "POST", api + "/thirdparties", "application/x-www-form-urlencoded", `name=x`, nil, 403,
			"{\"error\":{\"code\":403,\"message\":\"Forbidden: Content type `application/x-www-form-urlencoded` is not supported.\"}}"},
		{"malformed JSON", "POST", api + "/thirdparties", "application/json", `{"name":`, nil, 400, `{"error":{"code":400,"message":"Bad Request: Error parsing JSON"}}`},
		{"validated twice", "POST", api + "/invoices/" + itoa(inv) + "/validate", "application/json", `{}`, nil, 304, ``},
		{"duplicate ref", "POST", api + "/products", "application/json", `{"ref":"w","label":"x"}`, nil, 500,
			`{"error":{"0":"ErrorProductAlreadyExists","1":"ErrorProductAlreadyExists","code":500,"message":"Internal Server Error: Error creating product"}}`},
		{"bad limit", "GET", api + "/products?limit=ten", "", "", nil, 400,
			"{\"error\":{\"code\":400,\"message\":\"Bad Request: Invalid value specified for `limit`. Expecting integer value\"}}"},
		{"bad sort field", "GET", api + "/products?sortfield=t.nope", "", "", nil, 400,
			`{"error":{"code":400,"message":"Bad Request: Error when validating parameter sortfield -> unknown field t.nope"}}`},
		{"unknown route", "GET", api + "/invoices/1/nowhere", "", "", nil, 404, `{"error":{"code":404,"message":"Not Found"}}`},
		{"wrong method", "DELETE", api + "/invoices/1/validate", "", "", nil, 405, `{"error":{"code":405,"message":"Method Not Allowed"}}`},
		{"key in the URL", "GET", api + "/users/1?ERPAPIKEY=" + srv.APIKey(), "", "", []string{"ERPAPIKEY", ""}, 200, ""},
		{"api_key in the URL", "GET", api + "/users/1?api_key=" + srv.APIKey(), "", "", []string{"ERPAPIKEY", ""}, 200, ""},
	} {
		a := send(t, srv, tc.method, tc.path, tc.ct, tc.in, tc.header...)
		if a.status != tc.status || tc.body != "" && a.body != tc.body {
			t.Errorf("%s: %d %s", tc.name, a.status, a.body)
		}
		if tc.status >= 400 && a.header.Get("Content-Type") != "application/json" {
			t.Errorf("%s: Content-Type %q", tc.name, a.header.Get("Content-Type"))
		}
	}
	if a := send(t, srv, "DELETE", api+"/invoices/1/validate", "", ""); !strings.Contains(a.header.Get("Allow"), "POST") {
		t.Errorf("405 without Allow: %v", a.header)
	}
}

func TestModuleSwitchedOff(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t)
	srv.SetAPIEnabled(false)
	if srv.APIEnabled() {
		t.Fatal("still enabled")
	}
	for _, path := range []string{api + "/users", api + "/nowhere", api + "/explorer", api + "/explorer/swagger.json"} {
		a := send(t, srv, "GET", path, "", "")
		if a.status != 200 || !strings.HasPrefix(a.header.Get("Content-Type"), "text/html") || !strings.Contains(a.body, "Module <b>Api</b> must be enabled") {
			t.Errorf("%s: %d %q %s", path, a.status, a.header.Get("Content-Type"), a.body)
		}
	}
	if a := send(t, srv, "GET", "/", "", ""); a.status != 200 || !strings.Contains(a.body, `name="password"`) {
		t.Fatalf("web root: %d %s", a.status, a.body)
	}
	srv.SetAPIEnabled(true)
	if a := send(t, srv, "GET", api+"/users", "", ""); a.status != 200 {
		t.Fatalf("back on: %d", a.status)
	}
}

func TestWebLogin(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC))
	srv := erpfake.Start(t, control.WithClock(clk), erpfake.WithAdminPassword("pw"), erpfake.WithSessionTimeout(time.Hour))
	visitor, token := loginPage(t, srv)
	form := func(user, pw string) string {
		return url.Values{"token": {token}, "actionlogin": {"login"}, "username": {user}, "password": {pw}}.Encode()
	}
	bad := send(t, srv, "POST", "/index.php", "application/x-www-form-urlencoded", form("admin", "nope"), "Cookie", visitor)
	if bad.status != 200 || !strings.Contains(bad.body, `<div class="error">Bad value for login or password</div>`) || bad.header.Get("Set-Cookie") != "" {
		t.Fatalf("refused login: %d %v %s", bad.status, bad.header, bad.body)
	}
	good := send(t, srv, "POST", "/index.php", "application/x-www-form-urlencoded", form("ADMIN", "pw"), "Cookie", visitor)
	cookie := good.header.Get("Set-Cookie")
	if good.status != 302 || good.header.Get("Location") != "/index.php?mainmenu=home" || !strings.HasPrefix(cookie, erpfake.SessionCookie+"=") {
		t.Fatalf("login: %d %v", good.status, good.header)
	}
	cookie, _, _ = strings.Cut(cookie, ";")
	if cookie == visitor {
		t.Fatal("the login kept the visitor's session id")
	}
	if a := send(t, srv, "GET", "/", "", "", "Cookie", cookie); !strings.Contains(a.body, "Logged in as admin") {
		t.Fatalf("home: %s", a.body)
	}
	if a := send(t, srv, "GET", api+"/users/1", "", "", "Cookie", cookie, "ERPAPIKEY", ""); a.status != 200 {
		t.Fatalf("API with the session: %d %s", a.status, a.body)
	}
	clk.Advance(59 * time.Minute)
	if a := send(t, srv, "GET", api+"/users/1", "", "", "Cookie", cookie, "ERPAPIKEY", ""); a.status != 200 {
		t.Fatalf("used within the hour: %d", a.status)
	}
	clk.Advance(time.Hour)
	if a := send(t, srv, "GET", api+"/users/1", "", "", "Cookie", cookie, "ERPAPIKEY", ""); a.status != 401 || srv.Sessions() != 0 {
		t.Fatalf("idle an hour: %d, %d sessions", a.status, srv.Sessions())
	}
}

// loginPage fetches the login page as a browser does: the session cookie
// it sets ("name=value") and the form's token.
func loginPage(t *testing.T, srv *erpfake.Server) (cookie, token string) {
	t.Helper()
	a := send(t, srv, "GET", "/index.php", "", "")
	cookie, _, _ = strings.Cut(a.header.Get("Set-Cookie"), ";")
	_, rest, _ := strings.Cut(a.body, `name="token" value="`)
	token, _, _ = strings.Cut(rest, `"`)
	if a.status != 200 || !strings.HasPrefix(cookie, erpfake.SessionCookie+"=") || len(token) < 16 ||
		!strings.Contains(a.body, `<input type="hidden" name="actionlogin" value="login">`) {
		t.Fatalf("login page: %d %v %s", a.status, a.header, a.body)
	}
	return cookie, token
}

// TestWebLoginAsTheERPChecksIt: issue 37, finding 1. The ERP's
// main.inc.php refuses a POST without the login page's token (403, a line
// of text), cancels one whose token is not its session's (the login page
// again), and checks a password only with actionlogin=login. The fake
// accepted username and password alone.
func TestWebLoginAsTheERPChecksIt(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t, erpfake.WithAdminPassword("pw"))
	const formType = "application/x-www-form-urlencoded"
	visitor, token := loginPage(t, srv)
	other, otherToken := loginPage(t, srv)
	if again := send(t, srv, "GET", "/", "", "", "Cookie", visitor); again.header.Get("Set-Cookie") != "" || !strings.Contains(again.body, token) {
		t.Fatalf("the same visitor got another session or token: %v", again.header)
	}
	form := func(kv ...string) string {
		v := url.Values{}
		for i := 0; i < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return v.Encode()
	}
	for _, tc := range []struct {
		name, body, cookie string
		status             int
		want               string
	}{
		{"bare form", form("username", "admin", "password", "pw"), visitor, 403,
			"Access to this page this way (POST method or GET with a sensible value for 'action' parameter) is refused by CSRF protection in main.inc.php. Token not provided.\n"},
		{"empty token", form("token", "", "actionlogin", "login", "username", "admin", "password", "pw"), visitor, 403, "Token not provided."},
		{"token notrequired", form("token", "notrequired", "actionlogin", "login", "username", "admin", "password", "pw"), visitor, 403, "Token not provided."},
		{"another session's token", form("token", otherToken, "actionlogin", "login", "username", "admin", "password", "pw"), visitor, 200,
			`<div class="error">Security token has expired, so action has been canceled. Please try again.</div>`},
		{"token without its cookie", form("token", token, "actionlogin", "login", "username", "admin", "password", "pw"), "", 200,
			"Security token has expired"},
		{"no actionlogin", form("token", token, "username", "admin", "password", "pw"), visitor, 200, `name="password"`},
		{"actionlogin other", form("token", token, "actionlogin", "logout", "username", "admin", "password", "pw"), visitor, 200, `name="password"`},
	} {
		var h []string
		if tc.cookie != "" {
			h = []string{"Cookie", tc.cookie}
		}
		a := send(t, srv, "POST", "/index.php", formType, tc.body, h...)
		if a.status != tc.status || !strings.Contains(a.body, tc.want) || strings.Contains(a.header.Get("Set-Cookie"), "Location") || a.header.Get("Location") != "" {
			t.Errorf("%s: %d %v %s", tc.name, a.status, a.header, a.body)
		}
		if tc.status == 403 && !strings.HasPrefix(a.header.Get("Content-Type"), "text/html") {
			t.Errorf("%s: Content-Type %q", tc.name, a.header.Get("Content-Type"))
		}
		if strings.Contains(tc.name, "actionlogin") && strings.Contains(a.body, "Bad value") {
			t.Errorf("%s: the password was checked: %s", tc.name, a.body)
		}
	}
	if srv.Sessions() != 0 {
		t.Fatalf("%d sessions after refusals", srv.Sessions())
	}
	// The token goes with the query too, as the ERP reads it (GETPOST).
	good := send(t, srv, "POST", "/index.php?token="+otherToken, formType, form("actionlogin", "login", "username", "admin", "password", "pw"), "Cookie", other)
	if good.status != 302 || srv.Sessions() != 1 {
		t.Fatalf("login with the token in the query: %d %v", good.status, good.header)
	}
}

// TestWebLoginBare: WithBareLogin keeps the specification's form,
// username and password alone.
func TestWebLoginBare(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t, erpfake.WithAdminPassword("pw"), erpfake.WithBareLogin())
	a := send(t, srv, "POST", "/index.php", "application/x-www-form-urlencoded", url.Values{"username": {"admin"}, "password": {"pw"}}.Encode())
	if a.status != 302 || srv.Sessions() != 1 {
		t.Fatalf("bare login: %d %v %s", a.status, a.header, a.body)
	}
	c := srv.ClientWithLogin("admin", "pw")
	if err := c.Login(context.Background()); err != nil {
		t.Fatalf("the full form, bare: %v", err)
	}
}

func TestExplorerDescribesTheFake(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t)
	for _, path := range []string{api + "/explorer/swagger.json"} {
		a := send(t, srv, "GET", path, "", "", "ERPAPIKEY", "")
		var doc struct {
			Swagger  string                                `json:"swagger"`
			BasePath string                                `json:"basePath"`
			Paths    map[string]map[string]json.RawMessage `json:"paths"`
		}
		if a.status != 200 || json.Unmarshal([]byte(a.body), &doc) != nil || doc.Swagger != "2.0" || doc.BasePath != api || len(doc.Paths) != 42 {
			t.Fatalf("%s: %d %.200s", path, a.status, a.body)
		}
		if _, ok := doc.Paths["/orders/{id}/close"]["post"]; !ok || doc.Paths["/invoices/createfromorder/{orderid}"]["post"] == nil ||
			doc.Paths["/proposals/{id}/close"]["post"] == nil || doc.Paths["/orders/createfromproposal/{proposalid}"]["post"] == nil {
			t.Fatalf("close not described: %v", doc.Paths)
		}
	}
	if a := send(t, srv, "GET", "/nowhere", "", ""); a.status != 404 {
		t.Fatalf("web 404: %d", a.status)
	}
}

// TestExplorerServesAPage: issue 37, finding 3. The ERP serves the
// explorer's page at /explorer/ (its /explorer redirects there) and the
// description at /explorer/swagger.json; the fake answered the JSON at
// all three. The page is the fake's own, with nothing fetched from
// elsewhere.
func TestExplorerServesAPage(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t)
	if a := send(t, srv, "GET", api+"/explorer", "", ""); a.status != 302 || a.header.Get("Location") != api+"/explorer/" {
		t.Fatalf("/explorer: %d %v", a.status, a.header)
	}
	a := send(t, srv, "GET", api+"/explorer/", "", "")
	if a.status != 200 || !strings.HasPrefix(a.header.Get("Content-Type"), "text/html") || !strings.HasPrefix(a.body, "<!DOCTYPE html>") ||
		!strings.Contains(a.body, `<a href="swagger.json">`) || !strings.Contains(a.body, "<code>"+api+"/orders/{id}/close</code>") {
		t.Fatalf("/explorer/: %d %v %.300s", a.status, a.header, a.body)
	}
	for _, outside := range []string{"src=", "http://", "https://", "<script", "<link"} {
		if strings.Contains(a.body, outside) {
			t.Errorf("the page holds %q: %s", outside, a.body)
		}
	}
	srv.SetAPIEnabled(false)
	if a := send(t, srv, "GET", api+"/explorer/", "", ""); a.status != 200 || !strings.Contains(a.body, "Module <b>Api</b> must be enabled") {
		t.Fatalf("module off: %d %s", a.status, a.body)
	}
}

func TestSeedAndReadBack(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t)
	for name, err := range map[string]error{
		"user without login":  second(srv.AddUser(erpfake.UserSeed{})),
		"duplicate login":     second(srv.AddUser(erpfake.UserSeed{Login: "Admin"})),
		"key for nobody":      second(srv.IssueAPIKey("nobody")),
		"enable nobody":       srv.SetUserEnabled("nobody", true),
		"nameless thirdparty": second(srv.AddThirdparty(erpfake.ThirdpartySeed{})),
		"bad client kind":     second(srv.AddThirdparty(erpfake.ThirdpartySeed{Name: "x", Client: 9})),
		"product without ref": second(srv.AddProduct(erpfake.ProductSeed{Label: "x"})),
		"bad price":           second(srv.AddProduct(erpfake.ProductSeed{Ref: "x", Label: "x", Price: "cheap"})),
		"invoice for nobody":  second(srv.AddInvoice(erpfake.InvoiceSeed{SocID: 9})),
		"order for nobody":    second(srv.AddOrder(erpfake.OrderSeed{SocID: 9})),
	} {
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	soc, _ := srv.AddThirdparty(erpfake.ThirdpartySeed{Name: "Acme", Client: 3, Supplier: true})
	if _, err := srv.AddInvoice(erpfake.InvoiceSeed{SocID: soc, Validated: true}); err == nil {
		t.Error("an invoice without lines validated")
	}
	if srv.Invoice(1) != nil {
		t.Fatal("a refused seed left a draft behind")
	}
	if _, err := srv.AddInvoice(erpfake.InvoiceSeed{SocID: soc}); err != nil {
		t.Fatal(err)
	}
	tp := srv.Thirdparty(soc)
	if tp == nil || tp.CustomerCode == "" || tp.SupplierCode == "" || tp.Client != erp.CustomerProspect {
		t.Fatalf("read back %+v", tp)
	}
	if srv.Invoice(1) == nil || srv.Invoice(1).Status != erp.InvoiceDraft || srv.Invoice(99) != nil || srv.Order(1) != nil {
		t.Fatal("invoice read back")
	}
	if len(srv.Users()) != 1 || srv.User(1).Login != "admin" || len(srv.Products()) != 0 || len(srv.Orders()) != 0 || len(srv.Thirdparties()) != 1 || len(srv.Invoices()) != 1 {
		t.Fatal("lists read back")
	}
}

func second[T any](_ T, err error) error { return err }

func itoa(n int64) string { return erp.ID(n).String() }

func TestOptionsFromEnv(t *testing.T) {
	t.Parallel()
	env := map[string]string{"ERP_ADMIN_PASSWORD": "from-env"}
	srv := erpfake.Start(t, erpfake.OptionsFromEnv(func(k string) string { return env[k] })...)
	if srv.AdminPassword() != "from-env" {
		t.Fatalf("password %q", srv.AdminPassword())
	}
	if err := srv.ClientWithLogin("admin", "from-env").Login(t.Context()); err != nil {
		t.Fatal(err)
	}
	if len(erpfake.OptionsFromEnv(func(string) string { return "" })) != 0 {
		t.Fatal("options from an empty environment")
	}
}

// TestNativeNumbersSwitch: issue 37, finding 2. Whether numbers are
// answered as JSON numbers was fixed at New (WithNativeNumbers), so
// apitwin-fake and its control API could not ask; SetNativeNumbers
// switches it for the next request, and Reset goes back to the option.
func TestNativeNumbersSwitch(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t)
	srv.AddThirdparty(erpfake.ThirdpartySeed{Name: "Acme", Client: 1})
	get := func() string { return send(t, srv, "GET", api+"/thirdparties/1", "", "").body }
	if b := get(); !strings.Contains(b, `"id":"1"`) || !strings.Contains(b, `"client":"1"`) || srv.NativeNumbers() {
		t.Fatalf("strings by default: %s", b)
	}
	srv.SetNativeNumbers(true)
	if b := get(); !strings.Contains(b, `"id":1,`) || !strings.Contains(b, `"client":1,`) || !srv.NativeNumbers() {
		t.Fatalf("switched on: %s", b)
	}
	srv.Reset()
	if srv.NativeNumbers() {
		t.Fatal("Reset kept the switch")
	}
	native := erpfake.Start(t, erpfake.WithNativeNumbers())
	native.SetNativeNumbers(false)
	native.Reset()
	if !native.NativeNumbers() {
		t.Fatal("Reset did not go back to WithNativeNumbers")
	}
}
