package erp_test

import (
	"context"
	"fmt"

	"github.com/apitwin/apitwin/erp"
)

// Two companies of a multi-company ERP: a client per entity, each seeing
// only its own third parties.
func ExampleWithEntity() {
	srv := startFake()
	defer srv.Close()
	ctx := context.Background()

	hq, err := erp.New(srv.URL(), erp.WithAPIKey(srv.APIKey())) // entity 1
	if err != nil {
		panic(err)
	}
	branch, err := erp.New(srv.URL(), erp.WithAPIKey(srv.APIKey()), erp.WithEntity(2))
	if err != nil {
		panic(err)
	}
	if _, err := hq.CreateThirdparty(ctx, &erp.CreateThirdpartyRequest{Name: "Acme", Client: erp.Customer}); err != nil {
		panic(err)
	}
	b, err := branch.CreateThirdparty(ctx, &erp.CreateThirdpartyRequest{Name: "Globex", Client: erp.Customer})
	if err != nil {
		panic(err)
	}
	fmt.Println(b.Name, "in entity", b.Entity)
	for _, c := range []*erp.Client{hq, branch} {
		page, err := c.ListThirdparties(ctx, nil)
		if err != nil {
			panic(err)
		}
		for _, tp := range page.Items {
			fmt.Println(tp.Entity, tp.Name)
		}
	}
	// Output:
	// Globex in entity 2
	// 1 Acme
	// 2 Globex
}
