package mcpredis_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/internal/credential"
	"github.com/apitwin/apitwin/internal/leaktest"
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
	leaktest.NoSecretIn(t, "the options", o, password)
	leaktest.NoSecretIn(t, "the options' pointer", &o, password)
	leaktest.NoSecretIn(t, "the store", s, password)
	if !strings.Contains(fmt.Sprint(o), credential.Redacted) || !strings.Contains(fmt.Sprint(o), "p:") {
		t.Errorf("Options' String hides what it should not, or does not say a password is set: %v", o)
	}
}
