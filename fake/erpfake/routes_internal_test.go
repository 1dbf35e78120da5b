package erpfake

import (
	"testing"

	"github.com/apitwin/apitwin/internal/apitable"
	"github.com/apitwin/apitwin/internal/apitable/apitabletest"
)

// TestRoutesFromTable: the fake's router sends a request for each row of
// the endpoint tables to that row's handler (erp's own test holds the
// client to the same tables), POST /invoices/createfromorder/{orderid}
// too, though ServeMux cannot hold it beside POST /invoices/{id}/validate
// (Routes.HandleAside).
func TestRoutesFromTable(t *testing.T) {
	t.Parallel()
	if apitable.ERP().Root != apiRoot {
		t.Fatalf("the table's root %q is not the fake's %q", apitable.ERP().Root, apiRoot)
	}
	match := routeTable().routes.Bind(nil).Match
	apitabletest.CheckRoutes(t, apitable.ERP(), match)
	apitabletest.CheckRoutes(t, apitable.ERPWeb(), match)
}
