package erp_test

import (
	"iter"
	"slices"
	"strconv"
	"testing"

	"github.com/apitwin/apitwin/erp"
)

// Each list method and its iterator read the same records: paging by hand
// with a limit of 2 and letting the iterator page give the same records in
// the same order. The filters keep to the records made here, so it runs
// against a real ERP as well as the fake.
func TestListPagesAndIteratorAgree(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	prefix := "apitwin-pages-" + unique() + "-"
	var made []erp.ID
	for i := range 3 {
		tp, err := tg.c.CreateThirdparty(ctx, &erp.CreateThirdpartyRequest{Name: prefix + strconv.Itoa(i), Client: erp.Customer})
		if err != nil {
			t.Fatal(err)
		}
		made = append(made, tp.ID)
	}
	other := tg.customer(t) // neither filter takes it, nor its order
	p := tg.product(t, "10", "20")
	for _, customer := range []erp.ID{made[0], other.ID, made[0], made[0]} {
		if _, err := tg.c.CreateOrder(ctx, &erp.CreateOrderRequest{SocID: customer, Lines: []erp.LineRequest{{ProductID: p.ID, Qty: dec("1")}}}); err != nil {
			t.Fatal(err)
		}
	}
	byPage := func(n int) erp.ListOptions { return erp.ListOptions{Limit: 2, Page: n} }

	mine := erp.Field("t.nom").Like(prefix + "%")
	agreeERP(t, "third parties", 3,
		func(n int) (*erp.Page[erp.Thirdparty], error) {
			o := byPage(n)
			o.Filter = mine
			return tg.c.ListThirdparties(ctx, &erp.ListThirdpartiesOptions{ListOptions: o})
		},
		tg.c.AllThirdparties(ctx, &erp.ListThirdpartiesOptions{ListOptions: erp.ListOptions{Limit: 2, Filter: mine}}),
		func(tp *erp.Thirdparty) string { return tp.Name })
	agreeERP(t, "orders", 3,
		func(n int) (*erp.Page[erp.Order], error) {
			return tg.c.ListOrders(ctx, &erp.ListOrdersOptions{ListOptions: byPage(n), ThirdpartyIDs: made[:1]})
		},
		tg.c.AllOrders(ctx, &erp.ListOrdersOptions{ListOptions: erp.ListOptions{Limit: 2}, ThirdpartyIDs: made[:1]}),
		func(o *erp.Order) string { return strconv.FormatInt(int64(o.ID), 10) + " " + o.Ref })
}

// agreeERP checks that list, paged by hand from page 0 while each page is
// full, and all give the same keys in the same order, exactly want of
// them, in pages of at most two.
func agreeERP[T any](t *testing.T, name string, want int, list func(page int) (*erp.Page[T], error), all iter.Seq2[*T, error], key func(*T) string) {
	t.Helper()
	var paged []string
	for n := 0; ; n++ {
		pg, err := list(n)
		if err != nil {
			t.Fatalf("%s, page %d: %v", name, n, err)
		}
		if len(pg.Items) > 2 || pg.Page != n || n > 100 {
			t.Fatalf("%s, page %d: %d items, page %d", name, n, len(pg.Items), pg.Page)
		}
		for _, it := range pg.Items {
			paged = append(paged, key(it))
		}
		if !pg.More {
			break
		}
	}
	var walked []string
	for it, err := range all {
		if err != nil {
			t.Fatalf("%s, iterating: %v", name, err)
		}
		walked = append(walked, key(it))
	}
	if len(paged) != want || !slices.Equal(paged, walked) {
		t.Errorf("%s: paged %q, iterated %q (want %d)", name, paged, walked, want)
	}
}
