package erpfake_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake/erpfake"
)

// Seeded proposals: a draft, a validated one, one closed signed or not
// signed; contradictory or line-less seeds are refused.
func TestProposalSeeds(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t)
	lines := []erpfake.LineSeed{{Description: "Audit", Qty: "2", Subprice: "50", VATRate: "20"}}
	if err := srv.Load(erpfake.Seed{
		Thirdparties: []erpfake.ThirdpartySeed{{Name: "Acme", Customer: true}},
		Proposals: []erpfake.ProposalSeed{
			{Thirdparty: "Acme", Lines: lines, RefClient: "Q-1"},
			{Thirdparty: "Acme", Lines: lines, Validated: true},
			{Thirdparty: "Acme", Lines: lines, Signed: true},
			{Thirdparty: "Acme", Lines: lines, NotSigned: true},
		},
	}); err != nil {
		t.Fatal(err)
	}
	all := srv.Proposals()
	want := []erp.ProposalStatus{erp.ProposalDraft, erp.ProposalValidated, erp.ProposalSigned, erp.ProposalNotSigned}
	if len(all) != len(want) {
		t.Fatalf("%d proposals, want %d", len(all), len(want))
	}
	final := regexp.MustCompile(`^PR\d{4}-\d{4}$`)
	for i, p := range all {
		if p.Status != want[i] || !p.TotalTTC.Equal(erp.MustDecimal("120")) || (i > 0) != final.MatchString(p.Ref) {
			t.Errorf("proposal %d: %s %s %s", i+1, p.Ref, p.Status, p.TotalTTC)
		}
	}
	if p := srv.Proposal(1); p == nil || p.RefClient != "Q-1" || !strings.HasPrefix(p.Ref, "(PROV") {
		t.Errorf("draft %+v", p)
	}
	if srv.Proposal(99) != nil {
		t.Error("a proposal that is not there was found")
	}
	for _, bad := range []erpfake.ProposalSeed{
		{Thirdparty: "Acme", Lines: lines, Signed: true, NotSigned: true},
		{Thirdparty: "Acme", Validated: true},
		{Thirdparty: "Nobody", Lines: lines},
	} {
		if _, err := srv.AddProposal(bad); err == nil {
			t.Errorf("seed %+v accepted", bad)
		}
	}
	if n := len(srv.Proposals()); n != 4 {
		t.Errorf("%d proposals after refused seeds, want 4", n)
	}
}
