package credential_test

import (
	"net/http"
	"net/url"
	"reflect"
	"testing"

	"github.com/apitwin/apitwin/internal/credential"
)

func TestRedactHeader(t *testing.T) {
	t.Parallel()
	h := http.Header{
		"Set-Cookie":   {"sid=s3cret; Path=/", "other=x"},
		"Content-Type": {"application/json"},
		"dolapikey":    {"k3y"}, // not canonical: still a credential
	}
	got := credential.RedactHeader(h, "[REDACTED]")
	want := http.Header{"Set-Cookie": {"sid=[REDACTED]", "other=[REDACTED]"}, "Content-Type": {"application/json"}, "dolapikey": {"[REDACTED]"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("RedactHeader = %v, want %v", got, want)
	}
	if h["Set-Cookie"][0] != "sid=s3cret; Path=/" {
		t.Errorf("the header given was changed: %v", h)
	}
	if credential.RedactHeader(nil, "x") != nil || credential.RedactHeader(http.Header{}, "x") != nil {
		t.Error("an empty header is not nil")
	}
	for _, name := range []string{"authorization", "PRIVATE-TOKEN", "X-Mcp-Signature"} {
		if !credential.IsHeader(name) {
			t.Errorf("%s is not a credential header", name)
		}
	}
	if credential.IsHeader("X-Request-Id") {
		t.Error("X-Request-Id is taken for a credential header")
	}
}

func TestRedactURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://hooks.example/x":                         "https://hooks.example/x",
		"https://user:s3cret@hooks.example/x?a=1":         "https://%5BREDACTED%5D@hooks.example/x?a=1",
		"https://hooks.example/x?token=s3cret&page=2":     "https://hooks.example/x?token=[REDACTED]&page=2",
		"http://bob@hooks.example/?PRIVATE_TOKEN=glpat-1": "http://%5BREDACTED%5D@hooks.example/?PRIVATE_TOKEN=[REDACTED]",
	} {
		u, err := url.Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := credential.RedactURL(u); got != want {
			t.Errorf("RedactURL(%s) = %s, want %s", in, got, want)
		}
	}
}

// A redacted value keeps how the credential was sent, never the credential.
func TestRedactValue(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, value, want string }{
		{"Authorization", "Bearer s3cret", "Bearer [REDACTED]"},
		{"authorization", "bearer s3cret", "Bearer [REDACTED]"},
		{"Authorization", "Basic dXNlcjpzM2NyZXQ=", "Basic [REDACTED]"},
		{"Authorization", "s3cret", "[REDACTED]"},      // a bare key: no scheme to keep
		{"Authorization", "s3cret more", "[REDACTED]"}, // not a scheme
		{"Proxy-Authorization", "Negotiate x", "Negotiate [REDACTED]"},
		{"Cookie", "DOLSESSID_x=s3cret; lang=fr", "DOLSESSID_x=[REDACTED]; lang=[REDACTED]"},
		{"Set-Cookie", "sid=s3cret; Path=/; HttpOnly", "sid=[REDACTED]"},
		{"Cookie", "s3cret; a=b", "[REDACTED]; a=[REDACTED]"}, // no name: all of it goes
		{"Set-Cookie", "s3cret", "[REDACTED]"},
		{"ERPAPIKEY", "s3cret", "[REDACTED]"},
		{"Private-Token", "glpat-s3cret", "[REDACTED]"},
	} {
		if got := credential.RedactValue(tt.name, tt.value); got != tt.want {
			t.Errorf("RedactValue(%s, %q) = %q, want %q", tt.name, tt.value, got, tt.want)
		}
	}
}
