package erp_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/erpfake"
)

const productsRoute = "GET /api/index.php/products"

func seedProducts(tb testing.TB, srv *erpfake.Server, n int) {
	tb.Helper()
	for i := range n {
		if _, err := srv.AddProduct(erpfake.ProductSeed{Ref: fmt.Sprintf("P%05d", i), Label: "Product", Price: "1.5"}); err != nil {
			tb.Fatal(err)
		}
	}
}

func TestAllPagesThrough1000Records(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		opts     []erpfake.Option
		limit    int
		requests int
	}{
		// 1,000 records in pages of 100: ten full pages, then an empty one
		// (a full page may be the last; only a short one proves it).
		{"pages of 100", nil, 0, 11},
		{"pages of 300", nil, 300, 4},
		// Older versions answer the empty page with 404 "No product found".
		{"empty page is 404", []erpfake.Option{erpfake.WithEmptyListNotFound()}, 0, 11},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := erpfake.Start(t, tc.opts...)
			seedProducts(t, srv, 1000)
			c := srv.Client()
			opts := &erp.ListProductsOptions{ListOptions: erp.ListOptions{Limit: tc.limit}}
			n := 0
			for p, err := range c.AllProducts(ctx, opts) {
				if err != nil {
					t.Fatal(err)
				}
				if want := fmt.Sprintf("P%05d", n); p.Ref != want {
					t.Fatalf("item %d is %s, want %s", n, p.Ref, want)
				}
				n++
			}
			if n != 1000 {
				t.Fatalf("iterated %d", n)
			}
			if got := len(srv.RequestsTo(productsRoute)); got != tc.requests {
				t.Fatalf("%d requests, want %d", got, tc.requests)
			}
			if opts.Page != 0 || opts.Limit != tc.limit {
				t.Fatalf("the caller's options changed: %+v", opts)
			}
		})
	}
}

func TestAllStopsOnShortPageAndBreak(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t)
	seedProducts(t, srv, 250)
	c := srv.Client()
	n := 0
	for _, err := range c.AllProducts(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 250 || len(srv.RequestsTo(productsRoute)) != 3 {
		t.Fatalf("%d items in %d requests", n, len(srv.RequestsTo(productsRoute)))
	}
	srv.ResetRequests()
	for range c.AllProducts(ctx, &erp.ListProductsOptions{ListOptions: erp.ListOptions{Limit: 10, Page: 2}}) {
		break
	}
	reqs := srv.RequestsTo(productsRoute)
	if len(reqs) != 1 || reqs[0].Query.Get("page") != "2" || reqs[0].Query.Get("limit") != "10" {
		t.Fatalf("breaking fetched %d pages: %+v", len(reqs), reqs)
	}
	// An error ends the iteration with it.
	srv.InjectFault(productsRoute, control.Fault{Status: 403, Times: 1})
	var got error
	for _, err := range c.AllProducts(ctx, nil) {
		got = err
	}
	if !errors.Is(got, erp.ErrForbidden) {
		t.Fatalf("err = %v", got)
	}
}

func TestListPageInfo(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t)
	seedProducts(t, srv, 25)
	c := srv.Client()
	page, err := c.ListProducts(ctx, &erp.ListProductsOptions{ListOptions: erp.ListOptions{Limit: 10, Page: 2, WithTotal: true}})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 5 || page.Page != 2 || page.Limit != 10 || page.More || page.Total != 25 || page.PageCount != 3 {
		t.Fatalf("page %+v", page)
	}
	page, err = c.ListProducts(ctx, &erp.ListProductsOptions{ListOptions: erp.ListOptions{Limit: 10}})
	if err != nil || len(page.Items) != 10 || !page.More || page.Total != -1 {
		t.Fatalf("page %+v %v", page, err)
	}
	// A server that ignores pagination_data answers a bare array.
	srv.InjectFault(productsRoute, control.Fault{Status: 200, Body: `[{"id":"1","ref":"X"}]`, Times: 1})
	page, err = c.ListProducts(ctx, &erp.ListProductsOptions{ListOptions: erp.ListOptions{WithTotal: true}})
	if err != nil || len(page.Items) != 1 || page.Total != -1 {
		t.Fatalf("bare array: %+v %v", page, err)
	}
	// An empty list, both ways.
	empty, err := c.ListProducts(ctx, &erp.ListProductsOptions{ListOptions: erp.ListOptions{Filter: erp.Field("t.ref").Eq("none")}})
	if err != nil || len(empty.Items) != 0 || empty.More {
		t.Fatalf("empty: %+v %v", empty, err)
	}
	old := erpfake.Start(t, erpfake.WithEmptyListNotFound())
	empty, err = old.Client().ListProducts(ctx, nil)
	if err != nil || len(empty.Items) != 0 {
		t.Fatalf("404 empty: %+v %v", empty, err)
	}
	// But a 404 that is not the ERP saying "no records" stays an error.
	srv.InjectFault(productsRoute, control.Fault{Status: 404, Body: "<html>nginx</html>", Header: http.Header{"Content-Type": {"text/html"}}, Times: 1})
	if _, err := c.ListProducts(ctx, nil); !errors.Is(err, erp.ErrNotFound) {
		t.Fatalf("proxy 404: %v", err)
	}
}

func TestListOptionsSent(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t)
	c := srv.Client()
	_, err := c.ListProducts(ctx, &erp.ListProductsOptions{Mode: erp.ModeServicesOnly, ListOptions: erp.ListOptions{
		Limit: 5, Page: 1, SortField: "t.label", SortOrder: "desc", Filter: erp.Field("t.label").Like("O'B%"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	q := srv.RequestsTo(productsRoute)[0].Query
	want := map[string]string{"limit": "5", "page": "1", "sortfield": "t.label", "sortorder": "DESC", "mode": "2", "sqlfilters": `(t.label:like:'O\'B%')`}
	for k, v := range want {
		if q.Get(k) != v {
			t.Errorf("%s = %q, want %q", k, q.Get(k), v)
		}
	}
	for _, bad := range []erp.ListOptions{
		{Limit: -1}, {Page: -2}, {SortField: "t.ref; drop"}, {SortOrder: "sideways"}, {Filter: erp.Field("1bad").Eq(1)},
	} {
		if _, err := c.ListProducts(ctx, &erp.ListProductsOptions{ListOptions: bad}); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	if n := len(srv.RequestsTo(productsRoute)); n != 1 {
		t.Fatalf("bad options reached the server: %d requests", n)
	}
	// What the server refuses of a filter the builder cannot check.
	_, err = c.ListProducts(ctx, &erp.ListProductsOptions{ListOptions: erp.ListOptions{Filter: erp.Field("t.nosuch").Eq(1)}})
	var e *erp.Error
	if !errors.Is(err, erp.ErrBadRequest) || !errors.As(err, &e) || e.Message != "Bad Request: Error when validating parameter sqlfilters -> unknown field t.nosuch" {
		t.Fatalf("unknown field: %v", err)
	}
	if _, err := c.ListProducts(ctx, &erp.ListProductsOptions{ListOptions: erp.ListOptions{Filter: erp.RawFilter("(t.ref:=:'x'")}}); !errors.Is(err, erp.ErrBadRequest) {
		t.Fatalf("malformed raw filter: %v", err)
	}
}

func TestCreateAnsweredWithBareID(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t, erpfake.WithBareCreateIDs())
	c := srv.Client()
	tp, err := c.CreateThirdparty(ctx, &erp.CreateThirdpartyRequest{Name: "Bare", Client: erp.Prospect})
	if err != nil || tp.ID != 1 || tp.Name != "Bare" || tp.Client != erp.Prospect {
		t.Fatalf("%+v %v", tp, err)
	}
	if got := srv.RequestsTo("POST /api/index.php/thirdparties")[0].Status; got != 200 || len(srv.RequestsTo("GET /api/index.php/thirdparties/{id}")) != 1 {
		t.Fatal("the record was not read back")
	}
	// When reading it back fails, the error says the record exists.
	srv.InjectFault("GET /api/index.php/products/{id}", control.Fault{Status: 403})
	_, err = c.CreateProduct(ctx, &erp.CreateProductRequest{Ref: "R", Label: "L"})
	if !errors.Is(err, erp.ErrForbidden) || !strings.Contains(fmt.Sprint(err), "created products 1") {
		t.Fatalf("read-back failure: %v", err)
	}
}

// TestOneIteratorRangedConcurrently: the sequence AllX returns may be
// ranged by several goroutines at once, each getting every record once, in
// order (the pages' options are each fetch's own: a shared copy was a data
// race, caught by -race).
func TestOneIteratorRangedConcurrently(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t)
	seedProducts(t, srv, 60)
	all := srv.Client().AllProducts(ctx, &erp.ListProductsOptions{ListOptions: erp.ListOptions{Limit: 7}})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			n := 0
			for p, err := range all {
				if err != nil {
					t.Error(err)
					return
				}
				if want := fmt.Sprintf("P%05d", n); p.Ref != want {
					t.Errorf("item %d is %s, want %s", n, p.Ref, want)
					return
				}
				n++
			}
			if n != 60 {
				t.Errorf("iterated %d", n)
			}
		})
	}
	wg.Wait()
}
