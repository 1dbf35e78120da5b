package controlapi_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake/controlapi"
)

// TestERPControls: issue 37. Through the control API a suite in any
// language switches the ERP's REST module off and on and its numbers
// between strings and JSON numbers (finding 2: only a Go option could),
// and makes and revokes a user's API key.
func TestERPControls(t *testing.T) {
	t.Parallel()
	e := start(t)
	ctx := context.Background()
	if st, err := e.c.ERPSettings(ctx); err != nil || st != (controlapi.ERPSettings{APIEnabled: true}) {
		t.Fatalf("settings at start: %+v %v", st, err)
	}
	off, on := false, true
	st, err := e.c.SetERPSettings(ctx, controlapi.ERPSettingsChange{APIEnabled: &off})
	if err != nil || st.APIEnabled || e.f.ERP.APIEnabled() {
		t.Fatalf("module off: %+v %v", st, err)
	}
	if _, err := e.f.ERP.Client().GetUser(ctx, 1); !errors.Is(err, erp.ErrAPINotEnabled) {
		t.Fatalf("a call with the module off: %v", err)
	}
	if st, err = e.c.SetERPSettings(ctx, controlapi.ERPSettingsChange{APIEnabled: &on, NativeNumbers: &on}); err != nil || !st.APIEnabled || !st.NativeNumbers {
		t.Fatalf("module on, native numbers: %+v %v", st, err)
	}
	status, body := e.raw(t, "GET", "/api/erp/settings", "", "", token)
	if status != 200 || strings.Join(strings.Fields(body), "") != `{"api_enabled":true,"native_numbers":true}` {
		t.Fatalf("GET settings: %d %q", status, body)
	}
	for _, bad := range []string{`{"api_enabled":"no"}`, `{"native":true}`, `[`} {
		if status, body := e.raw(t, "POST", "/api/erp/settings", "application/json", bad, token); status != 400 || !strings.Contains(body, `"error"`) {
			t.Errorf("%s: %d %s", bad, status, body)
		}
	}
	if !e.f.ERP.NativeNumbers() || !e.f.ERP.APIEnabled() {
		t.Fatal("a refused change changed something")
	}

	k, err := e.c.IssueERPAPIKey(ctx, "admin")
	if err != nil || k.Login != "admin" || len(k.APIKey) < 16 || strings.Contains(k.String(), k.APIKey) {
		t.Fatalf("key %v: %v", k, err)
	}
	if _, err := e.f.ERP.ClientWithAPIKey(k.APIKey).GetUser(ctx, 1); err != nil {
		t.Fatalf("the new key: %v", err)
	}
	if err := e.c.RevokeERPAPIKey(ctx, "admin"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.f.ERP.ClientWithAPIKey(k.APIKey).GetUser(ctx, 1); !errors.Is(err, erp.ErrUnauthorized) {
		t.Fatalf("a revoked key: %v", err)
	}
	var ae *controlapi.APIError
	if err := e.c.RevokeERPAPIKey(ctx, "admin"); !errors.As(err, &ae) || ae.Status != 404 {
		t.Fatalf("revoked twice: %v", err)
	}
	if _, err := e.c.IssueERPAPIKey(ctx, "nobody"); !errors.As(err, &ae) || ae.Status != 404 {
		t.Fatalf("unknown user: %v", err)
	}
}

// TestConsoleERPSwitches: the erp page's buttons switch the module and the
// numbers.
func TestConsoleERPSwitches(t *testing.T) {
	t.Parallel()
	e := start(t)
	hc := browser(t)
	check := login(t, e, hc)
	if _, _, page := fetch(t, hc, "GET", e.url+"/s/erp", nil); !strings.Contains(page, `id="erp-api-off"`) || !strings.Contains(page, `id="erp-numbers-native"`) {
		t.Fatal("the erp page has no switches")
	}
	post := func(field, value string) string {
		status, h, _ := fetch(t, hc, "POST", e.url+"/console/erp/erp-settings", url.Values{"check": {check}, "back": {"/s/erp"}, field: {value}})
		if status != http.StatusSeeOther {
			t.Fatalf("%s=%s: %d", field, value, status)
		}
		loc, _ := url.QueryUnescape(h.Get("Location"))
		return loc
	}
	if loc := post("api_enabled", "false"); e.f.ERP.APIEnabled() || !strings.Contains(loc, "REST module on: false") {
		t.Fatalf("module off: %s", loc)
	}
	if post("native_numbers", "true"); !e.f.ERP.NativeNumbers() || e.f.ERP.APIEnabled() {
		t.Fatal("native numbers")
	}
	if loc := post("native_numbers", "maybe"); !strings.Contains(loc, "not true or false") {
		t.Fatalf("a bad value: %s", loc)
	}
}
