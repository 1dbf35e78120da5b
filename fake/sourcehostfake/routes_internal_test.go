package sourcehostfake

import (
	"testing"

	"github.com/apitwin/apitwin/internal/apitable"
	"github.com/apitwin/apitwin/internal/apitable/apitabletest"
)

// TestRoutesFromTable: the fake's router sends a request for each row of
// the endpoint table to that row's handler (sourcehost's own test holds the
// client to the same table).
func TestRoutesFromTable(t *testing.T) {
	t.Parallel()
	apitabletest.CheckRoutes(t, apitable.Sourcehost(), routeTable().Bind(nil).Match)
}
