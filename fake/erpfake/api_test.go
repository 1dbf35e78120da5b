package erpfake

import (
	"math"
	"math/big"
	"strings"
	"testing"
)

// TestDecMatchesFloatString checks the integer path of the amounts the fake
// writes against big.Rat's FloatString, which it stands in for.
func TestDecMatchesFloatString(t *testing.T) {
	t.Parallel()
	rats := []*big.Rat{
		new(big.Rat), big.NewRat(1, 1), big.NewRat(-1, 1), big.NewRat(12345, 100), big.NewRat(-12345, 100),
		big.NewRat(3, 2), big.NewRat(-1, 2), big.NewRat(1, 100_000_000), big.NewRat(-1, 100_000_000),
		big.NewRat(1, 3), big.NewRat(-2, 3), big.NewRat(1, 1_000_000_000), big.NewRat(5, 1_000_000_000),
		big.NewRat(-5, 1_000_000_000), big.NewRat(math.MaxInt64, 1), big.NewRat(math.MinInt64, 1),
		big.NewRat(math.MaxInt64/100_000_000, 1), big.NewRat(math.MaxInt64/100_000_000+1, 1),
		big.NewRat(-(math.MaxInt64 / 100_000_000), 1), big.NewRat(-(math.MaxInt64/100_000_000 + 1), 1),
		big.NewRat(math.MaxInt64, 100), new(big.Rat).SetFrac(new(big.Int).Lsh(big.NewInt(1), 80), big.NewInt(3)),
		new(big.Rat).SetFrac(big.NewInt(7), new(big.Int).Lsh(big.NewInt(1), 70)),
	}
	for num := int64(-1000); num <= 1000; num += 7 {
		for _, den := range []int64{1, 2, 4, 5, 8, 10, 16, 25, 100, 125, 400, 1000, 3, 7, 1 << 20} {
			rats = append(rats, big.NewRat(num, den))
		}
	}
	for _, r := range rats {
		want := r.FloatString(8)
		if got := string(appendDec8([]byte("x"), r)); got != "x"+want {
			t.Errorf("%s: %s, want x%s", r, got, want)
		}
		if got := amountText(numbers{}.dec(r)); got != `"`+want+`"` {
			t.Errorf("%s as a string: %s", r, got)
		}
		native := strings.TrimRight(want, "0")
		if strings.HasSuffix(native, ".") {
			native += "0"
		}
		if got := amountText(numbers{native: true}.dec(r)); got != native {
			t.Errorf("%s as a number: %s, want %s", r, got, native)
		}
	}
	if got := amountText(numbers{}.dec(nil)); got != `"0.00000000"` {
		t.Errorf("nil: %s", got)
	}
}

// TestPaidAndRemain8 checks the integer path of an invoice's paid and
// remaining amounts against paidSum and remain, which it stands in for:
// halves of a cent both ways, negative totals (credit notes), amounts
// finer than 1e-8 and beyond int64, which must fall back.
func TestPaidAndRemain8(t *testing.T) {
	t.Parallel()
	amounts := []*big.Rat{
		new(big.Rat), big.NewRat(12009, 100), big.NewRat(-4813, 100), big.NewRat(1, 200), big.NewRat(-1, 200),
		big.NewRat(3, 200), big.NewRat(-3, 200), big.NewRat(1, 100_000_000), big.NewRat(499_999, 100_000_000),
		big.NewRat(500_001, 100_000_000), big.NewRat(-500_000, 100_000_000), big.NewRat(1, 3),
		big.NewRat(1, 1_000_000_000), big.NewRat(math.MaxInt64/1000, 1), big.NewRat(1<<50, 1), big.NewRat(-(1 << 50), 1),
	}
	checked := 0
	for _, ttc := range amounts {
		for _, p1 := range amounts {
			for _, p2 := range []*big.Rat{nil, big.NewRat(1, 200), big.NewRat(1<<50, 1)} {
				inv := &invoice{}
				inv.ttc = ttc
				inv.payments = []paymentPart{{amount: p1}}
				if p2 != nil {
					inv.payments = append(inv.payments, paymentPart{amount: p2})
				}
				paid, remain, ok := inv.paidAndRemain8()
				if !ok {
					continue
				}
				checked++
				if got, want := string(appendFixed8(nil, paid)), inv.paidSum().FloatString(8); got != want {
					t.Errorf("ttc %s, payments %v: paid %s, want %s", ttc, inv.payments, got, want)
				}
				if got, want := string(appendFixed8(nil, remain)), inv.remain().FloatString(8); got != want {
					t.Errorf("ttc %s, payments %v: remain %s, want %s", ttc, inv.payments, got, want)
				}
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d cases took the integer path", checked)
	}
	inv := &invoice{}
	inv.ttc = big.NewRat(1, 3)
	if _, _, ok := inv.paidAndRemain8(); ok {
		t.Error("a total of 1/3 took the integer path")
	}
}

// amountText is what a writes.
func amountText(a amount) string { return string(a.appendJSON(nil)) }
