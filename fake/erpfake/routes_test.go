package erpfake_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake/erpfake"
)

// TestCreateFromOrderIsARoute: POST /invoices/createfromorder/{orderid},
// which ServeMux cannot hold beside POST /invoices/{id}/validate, is a
// route as any other: the request log names it, and RequestsTo finds it
// (it was logged as "/", the fake's not-found route); another method on
// its path is 405, as on any POST-only path (it was 404).
func TestCreateFromOrderIsARoute(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t)
	const route = "POST /api/index.php/invoices/createfromorder/{orderid}"
	_, err := srv.Client().CreateInvoiceFromOrder(t.Context(), 404)
	var e *erp.Error
	if !errors.As(err, &e) || e.StatusCode != http.StatusNotFound {
		t.Fatalf("an unknown order: %v", err)
	}
	if reqs := srv.RequestsTo(route); len(reqs) != 1 || reqs[0].Status != http.StatusNotFound || reqs[0].Path != "/api/index.php/invoices/createfromorder/404" {
		t.Fatalf("RequestsTo(%q) = %+v, log %+v", route, reqs, srv.Requests())
	}
	err = srv.Client().Do(t.Context(), http.MethodGet, "/invoices/createfromorder/404", nil, nil, nil)
	if !errors.As(err, &e) || e.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("GET on the path: %v", err)
	}
}
