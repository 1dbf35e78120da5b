package erp_test

import (
	"testing"

	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/internal/leaktest"
)

// A client printed any way shows neither its API key nor its login's
// password, even printed by value or kept in an unexported field.
func TestClientPrintedAnyWayShowsNoCredential(t *testing.T) {
	t.Parallel()
	const key, password = "erp-PRINT-KEY-1111", "erp-PRINT-PASSWORD-2222"
	for _, opt := range []erp.Option{erp.WithAPIKey(key), erp.WithBearerAPIKey(key), erp.WithLogin("admin", password)} {
		c, err := erp.New("http://erp.example.com", opt)
		if err != nil {
			t.Fatal(err)
		}
		leaktest.NoSecretIn(t, "the client", c, key, password)
		// Kept in a field of a program's own type, where fmt calls no
		// method of the client's (unexported field) and prints its fields.
		type service struct{ erp erp.Client }
		leaktest.NoSecretIn(t, "a program's value holding the client", &service{*c}, key, password)
	}
}
