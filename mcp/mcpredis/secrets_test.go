package mcpredis_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/mcp/mcpredis"
)

// The Redis password never prints: not in any fmt verb of Options or of a
// Store, nor in slog output, as the gateway's signing secret does not.
func TestPasswordNeverPrints(t *testing.T) {
	t.Parallel()
	const password = "redis-pa55word-0123"
	o := mcpredis.Options{Password: password, DB: 2, Prefix: "p:"}
	s := mcpredis.Open("127.0.0.1:1", o)
	defer s.Close()
	var outs []string
	for _, v := range []any{o, &o, s} {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
			outs = append(outs, fmt.Sprintf(verb, v))
		}
	}
	var buf bytes.Buffer
	for _, h := range []slog.Handler{slog.NewJSONHandler(&buf, nil), slog.NewTextHandler(&buf, nil)} {
		slog.New(h).Info("redis", "options", o, "store", s)
	}
	outs = append(outs, buf.String())
	for _, out := range outs {
		if strings.Contains(out, password) {
			t.Errorf("the password printed: %s", out)
		}
	}
	if !strings.Contains(fmt.Sprint(o), "[redacted]") || !strings.Contains(fmt.Sprint(o), "p:") {
		t.Errorf("Options' String hides what it should not, or does not say a password is set: %v", o)
	}
}
