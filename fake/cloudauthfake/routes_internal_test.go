package cloudauthfake

import (
	"testing"

	"github.com/apitwin/apitwin/internal/apitable"
	"github.com/apitwin/apitwin/internal/apitable/apitabletest"
)

// TestRoutesFromTable: the fake's router sends a request for each row of
// the endpoint table to that row's handler (cloudauth's own test holds the
// client to the same table), and the routes the fake exports for faults
// and the request log are the table's.
func TestRoutesFromTable(t *testing.T) {
	t.Parallel()
	tb := apitable.Cloudauth()
	apitabletest.CheckRoutes(t, tb, routeTable().Bind(nil).Match)
	for i, route := range []string{RouteLogin, RouteLogout, RouteUserInfo, RoutePublicKey} {
		if want := tb.Pattern(tb.Endpoints[i]); route != want {
			t.Errorf("route %q, the table's %q", route, want)
		}
	}
}
