package credential_test

import (
	"net/http"
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
	want := http.Header{"Set-Cookie": {"[REDACTED]"}, "Content-Type": {"application/json"}, "dolapikey": {"[REDACTED]"}}
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
