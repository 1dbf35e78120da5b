package erp_test

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake/erpfake"
)

func TestOrderLifecycle(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	soc := tg.customer(t)
	p := tg.product(t, "40", "20")
	o, err := tg.c.CreateOrder(ctx, &erp.CreateOrderRequest{SocID: soc.ID, Lines: []erp.LineRequest{{ProductID: p.ID, Qty: dec("2")}}})
	if err != nil {
		t.Fatal(err)
	}
	if o.Status != erp.OrderDraft || !strings.HasPrefix(o.Ref, "(PROV") || !o.TotalHT.Equal(dec("80")) || !o.TotalTTC.Equal(dec("96")) {
		t.Fatalf("draft %+v", o)
	}
	// A draft cannot be closed.
	_, err = tg.c.CloseOrder(ctx, o.ID, nil)
	var e *erp.Error
	if !errors.Is(err, erp.ErrBadRequest) || !errors.As(err, &e) || !strings.Contains(e.Message, "draft") {
		t.Fatalf("closing a draft: %v", err)
	}
	v, err := tg.c.ValidateOrder(ctx, o.ID, &erp.ValidateOptions{NoTrigger: true})
	if err != nil || v.Status != erp.OrderValidated || !regexp.MustCompile(`^CO\d{4}-\d{4}$`).MatchString(v.Ref) {
		t.Fatalf("validated %+v %v", v, err)
	}
	if _, err := tg.c.ValidateOrder(ctx, o.ID, nil); !errors.Is(err, erp.ErrNothingDone) {
		t.Fatalf("second validation: %v", err)
	}
	closed, err := tg.c.CloseOrder(ctx, o.ID, nil)
	if err != nil || closed.Status != erp.OrderClosed || closed.Ref != v.Ref {
		t.Fatalf("closed %+v %v", closed, err)
	}
	if _, err := tg.c.CloseOrder(ctx, o.ID, nil); !errors.Is(err, erp.ErrNothingDone) {
		t.Fatalf("second close: %v", err)
	}
	got, err := tg.c.GetOrder(ctx, o.ID)
	if err != nil || got.Status != erp.OrderClosed || got.Status.String() != "closed" {
		t.Fatalf("get %+v %v", got, err)
	}
	if _, err := tg.c.GetOrder(ctx, 987654321); !errors.Is(err, erp.ErrNotFound) {
		t.Fatalf("missing: %v", err)
	}
}

func TestOrderListAndRules(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t)
	a, _ := srv.AddThirdparty(erpfake.ThirdpartySeed{Name: "A", Client: 1})
	b, _ := srv.AddThirdparty(erpfake.ThirdpartySeed{Name: "B", Client: 1})
	lines := []erpfake.LineSeed{{Qty: "1", Subprice: "5"}}
	srv.AddOrder(erpfake.OrderSeed{SocID: a, Lines: lines})
	srv.AddOrder(erpfake.OrderSeed{SocID: b, Lines: lines, Validated: true})
	srv.AddOrder(erpfake.OrderSeed{SocID: b, Lines: lines, Closed: true})
	c := srv.Client()
	page, err := c.ListOrders(ctx, &erp.ListOrdersOptions{ThirdpartyIDs: []erp.ID{erp.ID(b)}, ListOptions: erp.ListOptions{SortOrder: "desc"}})
	if err != nil || len(page.Items) != 2 || page.Items[0].Status != erp.OrderClosed || page.Items[1].Status != erp.OrderValidated {
		t.Fatalf("orders of B: %+v %v", page, err)
	}
	if _, err := c.CreateOrder(ctx, &erp.CreateOrderRequest{SocID: 42}); !errors.Is(err, erp.ErrBadRequest) {
		t.Fatalf("unknown socid: %v", err)
	}
	if _, err := c.CreateOrder(ctx, nil); err == nil {
		t.Fatal("nil request accepted")
	}
}
