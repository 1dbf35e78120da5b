package main

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake/controlapi"
)

// TestERPSwitchesAndKeysAsAProcess: issue 37, finding 2 and the control
// API's ERP operations, on the wire. --erp-native-numbers makes the ERP
// answer JSON numbers from the start; the control API switches the numbers
// and the REST module, and makes and revokes API keys, for suites that do
// not write Go.
func TestERPSwitchesAndKeysAsAProcess(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := startProcess(t, "--frozen-clock", "--erp-native-numbers")
	erpURL, key := p.services["erp"]["url"], p.services["erp"]["api_key"]
	user := func(k string) (int, string) {
		req, _ := http.NewRequest("GET", erpURL+erp.APIPath+"/users/1", nil)
		req.Header.Set(erp.APIKeyHeader, k)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if st, b := user(key); st != 200 || !strings.Contains(b, `"id":1,`) {
		t.Fatalf("--erp-native-numbers: %d %.200s", st, b)
	}
	ctl := controlapi.NewClient(p.services["control"]["url"], p.services["control"]["token"], nil)
	off := false
	if _, err := ctl.SetERPSettings(ctx, controlapi.ERPSettingsChange{NativeNumbers: &off}); err != nil {
		t.Fatal(err)
	}
	if st, b := user(key); st != 200 || !strings.Contains(b, `"id":"1"`) {
		t.Fatalf("numbers switched to strings: %d %.200s", st, b)
	}
	if _, err := ctl.SetERPSettings(ctx, controlapi.ERPSettingsChange{APIEnabled: &off}); err != nil {
		t.Fatal(err)
	}
	c, err := erp.New(erpURL, erp.WithAPIKey(key))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetUser(ctx, 1); !errors.Is(err, erp.ErrAPINotEnabled) {
		t.Fatalf("the module off: %v", err)
	}
	on := true
	if st, err := ctl.SetERPSettings(ctx, controlapi.ERPSettingsChange{APIEnabled: &on}); err != nil || !st.APIEnabled || st.NativeNumbers {
		t.Fatalf("back on: %+v %v", st, err)
	}
	k, err := ctl.IssueERPAPIKey(ctx, "admin")
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := user(key); st != 401 {
		t.Fatalf("the key before a new one: %d", st)
	}
	if st, _ := user(k.APIKey); st != 200 {
		t.Fatalf("the new key: %d", st)
	}
	if err := ctl.RevokeERPAPIKey(ctx, "admin"); err != nil {
		t.Fatal(err)
	}
	if st, b := user(k.APIKey); st != 401 || !strings.Contains(b, "Unauthorized") {
		t.Fatalf("a revoked key: %d %s", st, b)
	}
}
