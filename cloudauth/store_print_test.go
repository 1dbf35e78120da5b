package cloudauth_test

import (
	"fmt"
	"testing"

	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/internal/leaktest"
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
	leaktest.NoSecretIn(t, "the store", store, token, "PRINT-TOKEN")
	leaktest.NoSecretIn(t, "the keyring", keyring, token, "PRINT-TOKEN")
	if got := fmt.Sprint(store); got != `cloudauth.MemoryStore{profiles: ["work"]}` {
		t.Errorf("store printed as %s", got)
	}
	if got := fmt.Sprint(keyring); got != "cloudauth.MemoryKeyring{entries: 1}" {
		t.Errorf("keyring printed as %s", got)
	}
}
