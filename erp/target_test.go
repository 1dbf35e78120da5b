package erp_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake/erpfake"
)

// target is where a behaviour test runs: the fake by default, or a real ERP
// when ERP_TEST_URL and ERP_TEST_API_KEY (or ERP_URL and ERP_API_KEY) are
// set (an administrator's key; tests create records with unique names and
// refs, and tests that need the fake's controls skip).
type target struct {
	c    *erp.Client
	fake *erpfake.Server // nil against a real server
}

func newTarget(t *testing.T, opts ...erpfake.Option) *target {
	t.Helper()
	url, key := os.Getenv("ERP_TEST_URL"), os.Getenv("ERP_TEST_API_KEY")
	if url == "" || key == "" {
		url, key = os.Getenv("ERP_URL"), os.Getenv("ERP_API_KEY")
	}
	if url != "" && key != "" {
		c, err := erp.New(url, erp.WithAPIKey(key))
		if err != nil {
			t.Fatal(err)
		}
		return &target{c: c}
	}
	srv := erpfake.Start(t, opts...)
	return &target{c: srv.Client(), fake: srv}
}

// needFake returns the fake, skipping the test against a real server.
func (tg *target) needFake(t *testing.T) *erpfake.Server {
	t.Helper()
	if tg.fake == nil {
		t.Skip("uses the fake's controls")
	}
	return tg.fake
}

// customer creates a customer with a unique name.
func (tg *target) customer(t *testing.T) *erp.Thirdparty {
	t.Helper()
	tp, err := tg.c.CreateThirdparty(ctx, &erp.CreateThirdpartyRequest{Name: "apitwin-test-" + unique(), Client: erp.Customer})
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

// product creates a product with a unique ref.
func (tg *target) product(t *testing.T, price, vat string) *erp.Product {
	t.Helper()
	p, err := tg.c.CreateProduct(ctx, &erp.CreateProductRequest{
		Ref: "APITWIN-" + unique(), Label: "Test product", Price: erp.MustDecimal(price), VATRate: erp.Ptr(erp.MustDecimal(vat)),
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func unique() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func dec(s string) erp.Decimal { return erp.MustDecimal(s) }

// diff compares values, reading Decimals and Times by value.
func diff(want, got any) string { return cmp.Diff(want, got) }

var ctx = context.Background()
