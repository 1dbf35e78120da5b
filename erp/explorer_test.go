package erp_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/erpfake"
)

func TestPing(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t)
	if err := anonymous(t, srv).Ping(ctx); err != nil {
		t.Fatal(err)
	}
	srv.InjectFault("GET /{$}", control.Fault{Status: 503, Body: "maintenance", Header: http.Header{"Content-Type": {"text/plain"}}})
	if err := srv.Client(erp.WithoutRetries()).Ping(ctx); !errors.Is(err, erp.ErrServer) {
		t.Fatalf("503: %v", err)
	}
	srv.ClearFaults()
	srv.InjectFault("GET /{$}", control.Fault{Status: 203, Body: "proxy"})
	if err := srv.Client().Ping(ctx); err == nil {
		t.Fatal("a 203 counted as available")
	}
	dead, _ := erp.New("http://127.0.0.1:1", erp.WithoutRetries())
	if err := dead.Ping(ctx); err == nil {
		t.Fatal("nothing listening, yet available")
	}
}

func TestDescribeAPI(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	d, err := tg.c.DescribeAPI(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Every endpoint of the specification's table is described.
	for _, ep := range []struct{ method, path string }{
		{"GET", "/users"}, {"GET", "/users/{id}"}, {"POST", "/users"}, {"PUT", "/users/{id}"}, {"DELETE", "/users/{id}"},
		{"GET", "/thirdparties"}, {"GET", "/thirdparties/{id}"}, {"POST", "/thirdparties"}, {"PUT", "/thirdparties/{id}"},
		{"GET", "/products"}, {"GET", "/products/{id}"}, {"POST", "/products"}, {"PUT", "/products/{id}"},
		{"GET", "/invoices"}, {"GET", "/invoices/{id}"}, {"POST", "/invoices"}, {"POST", "/invoices/{id}/validate"},
		{"GET", "/orders"}, {"GET", "/orders/{id}"}, {"POST", "/orders"}, {"POST", "/orders/{id}/validate"}, {"POST", "/orders/{id}/close"},
		{"POST", "/orders/{id}/reopen"}, {"POST", "/invoices/{id}/payments"}, {"GET", "/invoices/{id}/payments"},
		{"POST", "/invoices/{id}/lines"}, {"PUT", "/invoices/{id}/lines/{lineid}"}, {"DELETE", "/invoices/{id}/lines/{lineid}"},
		{"POST", "/invoices/createfromorder/{orderid}"}, {"DELETE", "/invoices/{id}"}, {"DELETE", "/thirdparties/{id}"},
		{"DELETE", "/products/{id}"}, {"GET", "/contacts"}, {"POST", "/contacts"}, {"PUT", "/contacts/{id}"}, {"DELETE", "/contacts/{id}"},
	} {
		if !d.Has(ep.method, ep.path) {
			t.Errorf("%s %s not described", ep.method, ep.path)
		}
	}
	if tg.fake == nil {
		return
	}
	if d.Swagger != "2.0" || d.BasePath != "/api/index.php" || len(d.Endpoints()) != 69 || len(d.Raw) == 0 {
		t.Fatalf("description %s %s %d", d.Swagger, d.BasePath, len(d.Endpoints()))
	}
	if first := d.Endpoints()[0]; first.Method != "GET" || first.Path != "/contacts" || first.Summary == "" {
		t.Fatalf("first endpoint %+v", first)
	}
	// Not a description: refused.
	tg.fake.InjectFault("GET /api/index.php/explorer/swagger.json", control.Fault{Status: 200, Body: `{"hello":1}`, Times: 1})
	if _, err := tg.c.DescribeAPI(ctx); err == nil {
		t.Fatal("a non-description accepted")
	}
	// The explorer switched off on its own is not the API switched off.
	tg.fake.InjectFault("GET /api/index.php/explorer/swagger.json", control.Fault{Status: 200, Body: "API explorer has been disabled",
		Header: http.Header{"Content-Type": {"text/html"}}, Times: 1})
	if _, err := tg.c.DescribeAPI(ctx); err == nil || errors.Is(err, erp.ErrAPINotEnabled) {
		t.Fatalf("explorer off: %v", err)
	}
}
