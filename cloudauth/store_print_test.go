package cloudauth_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/cloudauth"
)

// The in-memory store and keyring printed any way show what they hold
// (profile names, a count), never a token.
func TestMemoryStoresPrintNoToken(t *testing.T) {
	t.Parallel()
	const token = "eyJhbGciOiJSUzI1NiJ9.PRINT-TOKEN.sig"
	store := cloudauth.NewMemoryStore()
	keyring := cloudauth.NewMemoryKeyring()
	if err := store.Save("work", token); err != nil {
		t.Fatal(err)
	}
	if err := keyring.Set("cloudctl", "work", token); err != nil {
		t.Fatal(err)
	}
	var outs []string
	for _, v := range []any{store, keyring} {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
			outs = append(outs, fmt.Sprintf(verb, v))
		}
		var buf bytes.Buffer
		for _, h := range []slog.Handler{slog.NewTextHandler(&buf, nil), slog.NewJSONHandler(&buf, nil)} {
			slog.New(h).Info("printing", "value", v)
		}
		outs = append(outs, buf.String())
	}
	for _, out := range outs {
		if strings.Contains(out, "PRINT-TOKEN") {
			t.Errorf("printed a token: %s", out)
		}
	}
	if got := fmt.Sprint(store); got != `cloudauth.MemoryStore{profiles: ["work"]}` {
		t.Errorf("store printed as %s", got)
	}
	if got := fmt.Sprint(keyring); got != "cloudauth.MemoryKeyring{entries: 1}" {
		t.Errorf("keyring printed as %s", got)
	}
}
