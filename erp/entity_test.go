package erp_test

import (
	"errors"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake/erpfake"
)

// entityClient is a client of tg's server that works in entity n. Against
// a real ERP (which needs its multi-company module and a second entity,
// named by ERP_TEST_ENTITY) the test skips without one.
func entityClient(t *testing.T, tg *target, n int) *erp.Client {
	t.Helper()
	url, key := "", ""
	if tg.fake != nil {
		url, key = tg.fake.URL(), tg.fake.APIKey()
	} else {
		e := os.Getenv("ERP_TEST_ENTITY")
		if e == "" {
			t.Skip("set ERP_TEST_ENTITY to a second entity of a multi-company ERP")
		}
		n, _ = strconv.Atoi(e)
		url, key = os.Getenv("ERP_TEST_URL"), os.Getenv("ERP_TEST_API_KEY")
		if url == "" || key == "" {
			url, key = os.Getenv("ERP_URL"), os.Getenv("ERP_API_KEY")
		}
	}
	c, err := erp.New(url, erp.WithAPIKey(key), erp.WithEntity(n))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestEntitiesSeeOnlyTheirRecords(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	other := entityClient(t, tg, 2)
	one := &target{c: tg.c, fake: tg.fake}
	two := &target{c: other, fake: tg.fake}

	tp1, tp2 := one.customer(t), two.customer(t)
	p1, p2 := one.product(t, "10", "20"), two.product(t, "10", "20")
	inv := func(tg *target, tp *erp.Thirdparty, p *erp.Product) *erp.Invoice {
		t.Helper()
		in, err := tg.c.CreateInvoice(ctx, &erp.CreateInvoiceRequest{SocID: tp.ID, Lines: []erp.LineRequest{{ProductID: p.ID, Qty: erp.MustDecimal("1")}}})
		if err != nil {
			t.Fatal(err)
		}
		return in
	}
	inv1, inv2 := inv(one, tp1, p1), inv(two, tp2, p2)
	if tg.fake != nil && (tp1.Entity != 1 || p1.Entity != 1 || inv1.Entity != 1 || tp2.Entity != 2 || p2.Entity != 2 || inv2.Entity != 2) {
		t.Errorf("entities: third parties %d %d, products %d %d, invoices %d %d", tp1.Entity, tp2.Entity, p1.Entity, p2.Entity, inv1.Entity, inv2.Entity)
	}

	// Each entity lists its own records and none of the other's.
	for _, tc := range []struct {
		name      string
		c         *erp.Client
		mine, not [3]erp.ID
	}{
		{"entity 1", tg.c, [3]erp.ID{tp1.ID, p1.ID, inv1.ID}, [3]erp.ID{tp2.ID, p2.ID, inv2.ID}},
		{"entity 2", other, [3]erp.ID{tp2.ID, p2.ID, inv2.ID}, [3]erp.ID{tp1.ID, p1.ID, inv1.ID}},
	} {
		tps, err := tc.c.ListThirdparties(ctx, &erp.ListThirdpartiesOptions{ListOptions: erp.ListOptions{Limit: 1000}})
		if err != nil {
			t.Fatal(err)
		}
		prs, err := tc.c.ListProducts(ctx, &erp.ListProductsOptions{ListOptions: erp.ListOptions{Limit: 1000}})
		if err != nil {
			t.Fatal(err)
		}
		invs, err := tc.c.ListInvoices(ctx, &erp.ListInvoicesOptions{ListOptions: erp.ListOptions{Limit: 1000}})
		if err != nil {
			t.Fatal(err)
		}
		listed := [3][]erp.ID{ids(tps.Items, func(x *erp.Thirdparty) erp.ID { return x.ID }),
			ids(prs.Items, func(x *erp.Product) erp.ID { return x.ID }), ids(invs.Items, func(x *erp.Invoice) erp.ID { return x.ID })}
		for k, kind := range []string{"third party", "product", "invoice"} {
			if !slices.Contains(listed[k], tc.mine[k]) || slices.Contains(listed[k], tc.not[k]) {
				t.Errorf("%s lists %ss %v; want %v and not %v", tc.name, kind, listed[k], tc.mine[k], tc.not[k])
			}
		}
		// The other entity's records are not found (the real ERP finds the
		// row and refuses it: 403).
		hidden := func(err error) bool {
			return errors.Is(err, erp.ErrNotFound) || tg.fake == nil && errors.Is(err, erp.ErrForbidden)
		}
		if _, err := tc.c.GetThirdparty(ctx, tc.not[0]); !hidden(err) {
			t.Errorf("%s gets the other's third party: %v", tc.name, err)
		}
		if _, err := tc.c.GetProduct(ctx, tc.not[1]); !hidden(err) {
			t.Errorf("%s gets the other's product: %v", tc.name, err)
		}
		if _, err := tc.c.GetInvoice(ctx, tc.not[2]); !hidden(err) {
			t.Errorf("%s gets the other's invoice: %v", tc.name, err)
		}
	}
	// An invoice in entity 2 cannot bill entity 1's third party.
	if _, err := other.CreateInvoice(ctx, &erp.CreateInvoiceRequest{SocID: tp1.ID, Lines: []erp.LineRequest{{ProductID: p2.ID, Qty: erp.MustDecimal("1")}}}); err == nil {
		t.Error("entity 2 invoiced entity 1's third party")
	}
	// WithEntity(1) is the default entity.
	if tg.fake != nil {
		c1, err := erp.New(tg.fake.URL(), erp.WithAPIKey(tg.fake.APIKey()), erp.WithEntity(1))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := c1.GetThirdparty(ctx, tp1.ID); err != nil || got.ID != tp1.ID {
			t.Errorf("entity 1 named: %v %v", got, err)
		}
		// The fake's own view is entity 1's.
		if tg.fake.Thirdparty(int64(tp2.ID)) != nil {
			t.Error("the fake's Thirdparty shows entity 2's record")
		}
		// A snapshot, which keeps entity 1 only, refuses to drop entity 2.
		if _, err := tg.fake.Snapshot(); err == nil || !strings.Contains(err.Error(), "entities besides entity 1") {
			t.Errorf("snapshot with entity 2's records: %v", err)
		}
	}
}

func ids[T any](items []*T, id func(*T) erp.ID) []erp.ID {
	out := make([]erp.ID, 0, len(items))
	for _, x := range items {
		out = append(out, id(x))
	}
	return out
}

func TestWithEntityRefusesANonCompany(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, -1, 1 << 31} {
		if _, err := erp.New("http://127.0.0.1:1", erp.WithEntity(n)); err == nil {
			t.Errorf("WithEntity(%d) accepted", n)
		}
	}
}

// TestBadEntityHeader: an entity that is not a company's numeric id is
// refused before anything is read or written.
func TestBadEntityHeader(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t)
	for _, v := range []string{"abc", "0", "-2", "+2", "2x", "2147483648"} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL()+erp.APIPath+"/thirdparties", strings.NewReader(`{"name":"x"}`))
		req.Header.Set(erp.APIKeyHeader, srv.APIKey())
		req.Header.Set(erp.EntityHeader, v)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		_, _ = io.Copy(&b, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 403 || b.String() != `{"error":{"code":403,"message":"Forbidden: Bad value for entity, must be the numeric ID of company."}}` {
			t.Errorf("%q: %d %s", v, resp.StatusCode, b.String())
		}
	}
	if n := len(srv.Thirdparties()); n != 0 {
		t.Fatalf("%d third parties written", n)
	}
}

// TestEntitiesBound: the fake holds the records of at most 100 entities
// besides the default one; a write in one more is refused, and reads of
// unknown entities keep nothing.
func TestEntitiesBound(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t)
	client := func(n int) *erp.Client {
		c, err := erp.New(srv.URL(), erp.WithAPIKey(srv.APIKey()), erp.WithEntity(n), erp.WithoutRetries())
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	for n := 1000; n < 1200; n++ { // reads keep no entity
		if _, err := client(n).ListThirdparties(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	for n := 2; n <= 101; n++ {
		if _, err := client(n).CreateThirdparty(ctx, &erp.CreateThirdpartyRequest{Name: "tp"}); err != nil {
			t.Fatalf("entity %d: %v", n, err)
		}
	}
	_, err := client(102).CreateThirdparty(ctx, &erp.CreateThirdpartyRequest{Name: "tp"})
	var e *erp.Error
	if !errors.As(err, &e) || e.StatusCode != 403 || !strings.Contains(e.Message, "Bad value for entity") {
		t.Fatalf("entity 102: %v", err)
	}
	if _, err := client(101).CreateThirdparty(ctx, &erp.CreateThirdpartyRequest{Name: "tp2"}); err != nil {
		t.Fatalf("a held entity: %v", err)
	}
}
