package erpfake_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/erpfake"
	"github.com/google/go-cmp/cmp"
)

// What a client reads from a fake restored from a snapshot is what it read
// before, and numbering goes on where it stopped: the next invoice gets
// the next id, its validation the next ref.
func TestSnapshotRestoreAnswersAsBefore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := clock.NewFake(time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC))
	opts := []erpfake.Option{control.WithClock(clk), erpfake.WithAdminPassword("pw"), erpfake.WithAdminAPIKey("admin-key")}
	src := erpfake.Start(t, append(opts, control.WithInMemory())...)
	if err := src.Load(erpfake.Seed{
		Users:        []erpfake.UserSeed{{Login: "jdoe", Password: "jdoe-pw", APIKey: "jdoe-key"}},
		Thirdparties: []erpfake.ThirdpartySeed{{Name: "Acme", Customer: true, Town: "Lyon"}},
		Contacts:     []erpfake.ContactSeed{{Thirdparty: "Acme", Lastname: "Roe"}},
		Products:     []erpfake.ProductSeed{{Ref: "W-1", Label: "Widget", Price: "12.50", VATRate: "20"}},
		Invoices:     []erpfake.InvoiceSeed{{Thirdparty: "Acme", Validated: true, Lines: []erpfake.LineSeed{{Product: "W-1", Qty: "4"}}}},
		Orders:       []erpfake.OrderSeed{{Thirdparty: "Acme", Lines: []erpfake.LineSeed{{Description: "Setup", Qty: "1", Subprice: "90"}}}},
		Proposals:    []erpfake.ProposalSeed{{Thirdparty: "Acme", Signed: true, Lines: []erpfake.LineSeed{{Product: "W-1", Qty: "2"}}}},
	}); err != nil {
		t.Fatal(err)
	}
	c := src.Client()
	if _, err := c.AddInvoicePayment(ctx, 1, &erp.PaymentRequest{Mode: erp.PaymentTransfer, Num: "T-1", ClosePaid: true}); err != nil {
		t.Fatal(err)
	}
	data, err := src.Snapshot()
	if err != nil {
		t.Fatal(err)
	}

	dst := erpfake.Start(t, append(opts, control.WithInMemory())...)
	if err := dst.Restore(data); err != nil {
		t.Fatal(err)
	}
	read := func(s *erpfake.Server) []any {
		return []any{s.Users(), s.Thirdparties(), s.Contacts(), s.Products(), s.Invoices(), s.Orders(), s.Proposals()}
	}
	if diff := cmp.Diff(read(src), read(dst)); diff != "" {
		t.Errorf("records after the restore (-before +after):\n%s", diff)
	}
	jdoe := dst.ClientWithAPIKey("jdoe-key")
	if _, err := jdoe.GetInvoice(ctx, 1); err != nil {
		t.Errorf("jdoe's API key after the restore: %v", err)
	}
	inv, err := dst.Client().CreateInvoice(ctx, &erp.CreateInvoiceRequest{SocID: 1, Lines: []erp.LineRequest{{ProductID: 1, Qty: erp.DecimalFromInt(1)}}})
	if err != nil {
		t.Fatal(err)
	}
	if inv.ID != 2 {
		t.Errorf("the next invoice got id %d, want 2", inv.ID)
	}
	validated, err := dst.Client().ValidateInvoice(ctx, inv.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := "FA2611-0002"; validated.Ref != want {
		t.Errorf("the next invoice's ref %q, want %q", validated.Ref, want)
	}
}

// A snapshot that is not one, of another fake or version, or that does not
// hold together is refused by name, and the fake keeps its state.
func TestRestoreRefusesBadSnapshots(t *testing.T) {
	t.Parallel()
	s, err := erpfake.New()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddProduct(erpfake.ProductSeed{Ref: "KEPT", Label: "Kept"}); err != nil {
		t.Fatal(err)
	}
	head := `{"format":"erpfake","version":1,"admin":1,`
	for _, tt := range []struct{ name, data, want string }{
		{"not JSON", `[`, "not a snapshot"},
		{"another fake's", `{"format":"orchfake","version":1}`, `not a erpfake snapshot`},
		{"another version", `{"format":"erpfake","version":7}`, "version 7: this build reads version 1"},
		{"an unknown field", head + `"widgets":[]}`, "widgets"},
		{"ids out of order", head + `"products":[{"id":2,"ref":"a"},{"id":1,"ref":"b"}]}`, "products[1]: id 1"},
		{"a missing third party", head + `"orders":[{"id":1,"thirdparty":9,"lines":[]}]}`, "no thirdparty 9"},
		{"a missing product", head + `"thirdparties":[{"id":1}],"orders":[{"id":1,"thirdparty":1,"lines":[{"id":1,"product":4}]}]}`, "no product 4"},
		{"a missing payment", head + `"thirdparties":[{"id":1}],"invoices":[{"id":1,"thirdparty":1,"payments":[{"payment":3}]}]}`, "no payment 3"},
		{"a number that is not one", head + `"products":[{"id":1,"ref":"a","price":"12,5"}]}`, `"12,5" is not a number`},
		{"a login twice", head + `"users":[{"id":1,"login":"a"},{"id":2,"login":"A"}]}`, `login "A"`},
		{"a session of nobody", head + `"sessions":[{"id":"s","user":5}]}`, "sessions[0]"},
	} {
		err := s.Restore([]byte(tt.data))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error mentioning %q", tt.name, err, tt.want)
		}
	}
	if ps := s.Products(); len(ps) != 1 || ps[0].Ref != "KEPT" {
		t.Errorf("a refused snapshot changed the fake: %+v", ps)
	}
}

// FuzzRestore: no snapshot, however made, panics Restore or the reads after
// it; one it takes snapshots again to what it read.
func FuzzRestore(f *testing.F) {
	src, err := erpfake.New()
	if err != nil {
		f.Fatal(err)
	}
	if err := src.Load(erpfake.Seed{
		Thirdparties: []erpfake.ThirdpartySeed{{Name: "Acme", Customer: true}},
		Products:     []erpfake.ProductSeed{{Ref: "W-1", Label: "Widget", Price: "12.50"}},
		Invoices:     []erpfake.InvoiceSeed{{Thirdparty: "Acme", Validated: true, Lines: []erpfake.LineSeed{{Product: "W-1", Qty: "4"}}}},
	}); err != nil {
		f.Fatal(err)
	}
	seed, _ := src.Snapshot()
	f.Add(seed)
	f.Fuzz(func(t *testing.T, data []byte) {
		// Both with one admin's credentials, which a restore keeps.
		admin := []erpfake.Option{erpfake.WithAdminPassword("pw"), erpfake.WithAdminAPIKey("key")}
		s, err := erpfake.New(admin...)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Restore(data); err != nil {
			return
		}
		_, _, _ = s.Invoices(), s.Orders(), s.Products()
		first, err := s.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		s2, err := erpfake.New(admin...)
		if err != nil {
			t.Fatal(err)
		}
		if err := s2.Restore(first); err != nil {
			t.Fatalf("a snapshot the fake wrote does not restore: %v\n%s", err, first)
		}
		if second, _ := s2.Snapshot(); string(second) != string(first) {
			t.Fatalf("snapshots differ after a restore:\n%s\n%s", first, second)
		}
	})
}
