package main

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/erp"
)

// TestERPLoginFormAsTheProcessServesIt: issue 37, finding 1, on the wire.
// By default apitwin-fake's ERP refuses the bare login form as the ERP's
// CSRF check does (403, its text); --erp-bare-login takes it. The erp
// client logs in to both.
func TestERPLoginFormAsTheProcessServesIt(t *testing.T) {
	t.Parallel()
	for _, bare := range []bool{false, true} {
		args := []string{"--frozen-clock"}
		if bare {
			args = append(args, "--erp-bare-login")
		}
		p := startProcess(t, args...)
		erpURL, password := p.services["erp"]["url"], p.services["erp"]["admin_password"]
		resp, err := http.PostForm(erpURL+"/index.php", url.Values{"username": {"admin"}, "password": {password}})
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		refused := resp.StatusCode == http.StatusForbidden && strings.Contains(string(body), "refused by CSRF protection in main.inc.php. Token not provided.")
		if refused == bare {
			t.Errorf("bare=%v: the bare form answered %d %.200s", bare, resp.StatusCode, body)
		}
		c, err := erp.New(erpURL, erp.WithLogin("admin", password))
		if err != nil {
			t.Fatal(err)
		}
		if u, err := c.GetUser(context.Background(), 1); err != nil || u.Login != "admin" {
			t.Errorf("bare=%v: the client's login: %v", bare, err)
		}
	}
}
