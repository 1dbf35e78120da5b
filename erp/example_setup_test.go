package erp_test

import (
	"context"
	"fmt"

	"github.com/apitwin/apitwin/erp"
)

func ExampleClient_ListPaymentTypes() {
	srv := startFake()
	defer srv.Close()
	c := srv.Client()

	// The payment types an invoice can be paid with; each one's id is the
	// PaymentMode a payment names.
	for pt, err := range c.AllPaymentTypes(context.Background(), nil) {
		if err != nil {
			panic(err)
		}
		fmt.Println(pt.Code, pt.Label, pt.Mode() == erp.PaymentCheque)
	}
	// Output:
	// CB Credit card false
	// CHQ Cheque true
	// LIQ Cash false
	// PRE Direct debit false
	// TIP TIP false
	// VIR Transfer false
}

func ExampleClient_GetCountry() {
	srv := startFake()
	defer srv.Close()
	c := srv.Client()
	ctx := context.Background()

	de, _ := c.GetCountry(ctx, 5, "fr_FR")
	fmt.Println(de.Code, de.CodeISO, de.Label, de.EEC)
	// Names in a language, filtered on a part of the name; AllCountries
	// reads every page.
	for k, err := range c.AllCountries(ctx, &erp.CountryOptions{Name: "ie", Lang: "de_DE"}) {
		if err != nil {
			panic(err)
		}
		fmt.Println(k.Code, k.Label)
	}
	// Output:
	// DE DEU Allemagne true
	// BE Belgien
	// ES Spanien
	// IT Italien
	// NL Niederlande
}

func ExampleClient_ListCurrencies() {
	srv := startFake()
	defer srv.Close()
	c := srv.Client()

	p, err := c.ListCurrencies(context.Background(), &erp.DictionaryOptions{ListOptions: erp.ListOptions{
		Filter: erp.Field("t.code_iso").In("EUR", "GBP", "USD"),
	}})
	if err != nil {
		panic(err)
	}
	for _, k := range p.Items {
		fmt.Println(k.CodeISO, k.Symbol(), k.Label)
	}
	// Output:
	// EUR € Euros
	// GBP £ Pound sterling
	// USD $ US Dollar
}
