package sourcehost_test

import (
	"testing"

	"github.com/apitwin/apitwin/internal/leaktest"
	"github.com/apitwin/apitwin/sourcehost"
)

// A client printed any way, its copy with another token too, shows neither
// token, even printed by value (fmt.Printf("%+v", *c)), where its String
// method is not called.
func TestClientPrintedAnyWayShowsNoToken(t *testing.T) {
	t.Parallel()
	const token, other = "glpat-PRINT-TOKEN-1111", "glpat-PRINT-OTHER-2222"
	c, err := sourcehost.New("http://git.example.com", sourcehost.WithToken(token))
	if err != nil {
		t.Fatal(err)
	}
	cp, err := c.WithToken(other)
	if err != nil {
		t.Fatal(err)
	}
	leaktest.NoSecretIn(t, "the client", c, token)
	leaktest.NoSecretIn(t, "the copy", cp, token, other)
}
