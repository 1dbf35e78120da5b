package cloudauthfake_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/fake/cloudauthfake"
	"github.com/apitwin/apitwin/internal/fakekit"
)

// FuzzFrontDoor sends scripts of arbitrary requests to the fake's HTTP
// front door: no handler may panic, every error must be the gateway's
// {"statusCode","message","requestId"}, a login must still work after each
// script, and a token is issued only for the right password.
func FuzzFrontDoor(f *testing.F) {
	seeds := []string{
		"POST " + cloudauth.LoginPath + "\nContent-Type: application/json\n\n{\"username\":\"admin\",\"password\":\"changeme\"}",
		"POST " + cloudauth.LoginPath + "\n\n{\"username\":null,\"password\":\"x\"}\n===\nPOST " + cloudauth.LoginPath + "\n\n[]",
		"POST " + cloudauth.LoginPath + "\n\n{\"username\":\"admin\",\"password\":\"changemE\",\"tenant\":\"x\"}",
		"GET " + cloudauth.UserInfoPath + "\nAuthorization: Bearer a.b.c",
		"POST " + cloudauth.LogoutPath + "\nAuthorization: Bearer eyJhbGciOiJub25lIn0.e30.",
		"GET " + cloudauth.PublicKeyPath + "\n===\nDELETE " + cloudauth.LoginPath + "\n===\nGET /nowhere",
		"POST " + cloudauth.LoginPath + "\n\n" + strings.Repeat("[", 100_000),
		"POST " + cloudauth.LoginPath + "\nContent-Type: text/plain; charset=\"utf-8\"\n\n{\"username\":\"admin\",\"password\":\"changeme\"}",
		"POST " + cloudauth.LoginPath + "\nContent-Type: application/json\n\n{\"username\":\"admin\",\"password\":\"changeme\"}garbage",
		"POST " + cloudauth.LoginPath + "\nContent-Type: \x00;;\n\n{}",
		"POST " + cloudauth.APITokenPath + "\nContent-Type: application/x-www-form-urlencoded\n\nrefresh_token=abc%zz&refresh_token=",
		"POST " + cloudauth.APITokenPath + "?refresh_token=x\nContent-Type: application/json\n\n{}",
	}
	fakekit.FuzzHTTP(f, seeds, func(t *testing.T) *fakekit.FuzzTarget {
		srv, err := cloudauthfake.New(cloudauthfake.WithKey(testKey(), "k1"))
		if err != nil {
			t.Fatal(err)
		}
		return &fakekit.FuzzTarget{
			Handler:  srv,
			Requests: srv.Requests,
			ErrorShape: func(status int, h http.Header, body []byte) error {
				var e struct {
					StatusCode int    `json:"statusCode"`
					Message    string `json:"message"`
					RequestID  string `json:"requestId"`
				}
				if err := json.Unmarshal(body, &e); err != nil {
					return err
				}
				if e.StatusCode != status || e.Message == "" || e.RequestID == "" || h.Get("X-Request-Id") != e.RequestID {
					return fmt.Errorf("error body %+v", e)
				}
				return nil
			},
			Probe: func() *http.Request {
				return httptest.NewRequest("POST", cloudauth.LoginPath, strings.NewReader(`{"username":"admin","password":"changeme"}`))
			},
			ProbeStatus: http.StatusOK,
			Check: func() error {
				// Every token issued was issued to a login with the right
				// password: every logged 200 login names admin as its caller.
				for _, r := range srv.RequestsTo(cloudauthfake.RouteLogin) {
					if r.Status == http.StatusOK && r.Caller != cloudauthfake.AdminUsername {
						return fmt.Errorf("a token for %q", r.Body)
					}
				}
				if _, ok := srv.LookupUser("", cloudauthfake.AdminUsername); !ok {
					return fmt.Errorf("admin is gone")
				}
				return nil
			},
		}
	})
}

// BenchmarkFakeLogin is the fake's own cost of a login: decoding, checking
// the password, signing an RS256 token.
func BenchmarkFakeLogin(b *testing.B) {
	srv, err := cloudauthfake.New(cloudauthfake.WithKey(testKey(), "k1"))
	if err != nil {
		b.Fatal(err)
	}
	const body = `{"username":"admin","password":"changeme"}`
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, httptest.NewRequest("POST", cloudauth.LoginPath, strings.NewReader(body)))
		if w.Code != 200 {
			b.Fatal(w.Code)
		}
	}
}

// BenchmarkFakeUserInfo is the fake's cost of checking a token.
func BenchmarkFakeUserInfo(b *testing.B) {
	srv, err := cloudauthfake.New(cloudauthfake.WithKey(testKey(), "k1"))
	if err != nil {
		b.Fatal(err)
	}
	raw, err := srv.IssueToken("", "admin")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest("GET", cloudauth.UserInfoPath, nil)
		req.Header.Set("Authorization", "Bearer "+raw)
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatal(w.Code)
		}
	}
}
