package erp_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/erpfake"
	"github.com/apitwin/apitwin/internal/leaktest"
)

func TestBearerAPIKey(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	c := srv.Client(erp.WithBearerAPIKey(srv.APIKey()))
	if _, err := c.GetUser(ctx, 1); err != nil {
		t.Fatal(err)
	}
	r := srv.RequestsTo(userGet)[0] // the fake's log keeps the scheme, not the key
	if h := r.Header; h.Get("Authorization") != "Bearer [REDACTED]" || h.Get(erp.APIKeyHeader) != "" || r.Caller != "admin" {
		t.Fatalf("headers %v, caller %q", h, r.Caller)
	}
	leaktest.NoSecretIn(t, "the client", c, srv.APIKey())
	for _, s := range []string{fmt.Sprint(c), fmt.Sprintf("%#v", c)} {
		if !strings.Contains(s, "bearer") {
			t.Fatalf("client printed as %s", s)
		}
	}
	if _, err := erp.New(srv.URL(), erp.WithBearerAPIKey(" ")); err == nil {
		t.Fatal("an empty bearer key was taken")
	}
	_, err := srv.Client(erp.WithBearerAPIKey("not-a-key")).GetUser(ctx, 1)
	if !errors.Is(err, erp.ErrUnauthorized) {
		t.Fatalf("wrong bearer key: %v", err)
	}
}

// The ERP's own words reach the caller: 404 "Account not found" for an
// update of a user that does not exist, 501 for an API it does not have.
func TestErrorsAsTheERPWordsThem(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	_, err := tg.c.UpdateUser(ctx, 987654, &erp.UpdateUserRequest{Job: erp.Ptr("x")})
	var e *erp.Error
	if !errors.Is(err, erp.ErrNotFound) || !errors.As(err, &e) || e.Message != "Not Found: Account not found" {
		t.Fatalf("update of a missing user: %v", err)
	}
	err = tg.c.Do(ctx, http.MethodGet, "/nowhere", nil, nil, nil)
	if !errors.Is(err, erp.ErrServer) || !errors.As(err, &e) || e.StatusCode != 501 || e.Message != "API not found (failed to include API file)" {
		t.Fatalf("unknown API: %v", err)
	}
	if srv := tg.fake; srv != nil {
		n := 0
		for _, r := range srv.Requests() {
			if r.Path == "/api/index.php/nowhere" {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("a 501 was sent %d times", n)
		}
	}
}

// Every create reads the new record whether the server answers it or its
// bare id (as most ERP versions do), with numbers as strings or as JSON
// numbers.
func TestCreatesReadBareIDs(t *testing.T) {
	t.Parallel()
	for _, opts := range [][]erpfake.Option{
		{erpfake.WithBareCreateIDs()},
		{erpfake.WithBareCreateIDs(), erpfake.WithNativeNumbers()},
		{erpfake.WithNativeNumbers()},
		nil,
	} {
		srv := erpfake.Start(t, opts...)
		c := srv.Client()
		u, err := c.CreateUser(ctx, &erp.CreateUserRequest{Login: "jdoe", Lastname: "Doe"})
		if err != nil || u.ID != 2 || u.Lastname != "Doe" {
			t.Fatalf("%d options: user %+v %v", len(opts), u, err)
		}
		tp, err := c.CreateThirdparty(ctx, &erp.CreateThirdpartyRequest{Name: "Acme", Client: erp.Customer})
		if err != nil || tp.ID != 1 || tp.Name != "Acme" {
			t.Fatalf("%d options: third party %+v %v", len(opts), tp, err)
		}
		p, err := c.CreateProduct(ctx, &erp.CreateProductRequest{Ref: "W", Label: "Widget", Price: dec("2.5")})
		if err != nil || p.ID != 1 || !p.Price.Equal(dec("2.5")) {
			t.Fatalf("%d options: product %+v %v", len(opts), p, err)
		}
		lines := []erp.LineRequest{{ProductID: p.ID, Qty: dec("2")}}
		inv, err := c.CreateInvoice(ctx, &erp.CreateInvoiceRequest{SocID: tp.ID, Lines: lines})
		if err != nil || inv.ID != 1 || !inv.TotalHT.Equal(dec("5")) || len(inv.Lines) != 1 {
			t.Fatalf("%d options: invoice %+v %v", len(opts), inv, err)
		}
		o, err := c.CreateOrder(ctx, &erp.CreateOrderRequest{SocID: tp.ID, Lines: lines})
		if err != nil || o.ID != 1 || !o.TotalHT.Equal(dec("5")) {
			t.Fatalf("%d options: order %+v %v", len(opts), o, err)
		}
	}
}

// ErrAlreadyExists matches the ERP's code and the translation some
// objects send in its place.
func TestAlreadyExistsTranslated(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t)
	srv.InjectFault("POST /api/index.php/users", control.Fault{Status: 500, Times: 1, Header: http.Header{"Content-Type": {"application/json"}},
		Body: `{"error":{"code":500,"message":"Internal Server Error: Error creating","0":"Login jdoe already exists."}}`})
	_, err := srv.Client().CreateUser(ctx, &erp.CreateUserRequest{Login: "jdoe"})
	if !errors.Is(err, erp.ErrAlreadyExists) || !errors.Is(err, erp.ErrServer) {
		t.Fatalf("translated: %v", err)
	}
	_, err = srv.Client().GetUser(ctx, 99)
	if errors.Is(err, erp.ErrAlreadyExists) {
		t.Fatalf("a 404 matched: %v", err)
	}
}
