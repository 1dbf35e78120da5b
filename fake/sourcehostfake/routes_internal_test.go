package sourcehostfake

import (
	"testing"

	"github.com/apitwin/apitwin/internal/apitable"
	"github.com/apitwin/apitwin/internal/apitable/apitabletest"
)

// TestRoutesFromTable: the fake's router sends a request for each row of
// the endpoint tables (the API's, and its authorization server's at the
// server's root) to that row's handler (sourcehost's own test holds the
// client to the same tables).
func TestRoutesFromTable(t *testing.T) {
	t.Parallel()
	match := routeTable().Bind(nil).Match
	apitabletest.CheckRoutes(t, apitable.Sourcehost(), match)
	apitabletest.CheckRoutes(t, apitable.SourcehostOAuth(), match)
}
