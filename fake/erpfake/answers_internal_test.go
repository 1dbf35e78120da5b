package erpfake

import (
	"math/big"
	"math/rand"
	"reflect"
	"time"
)

// The scalars' Generate methods give jsonwtest.Check (json_gen_test.go)
// values of every kind, in both number styles.

func (num) Generate(rng *rand.Rand, _ int) reflect.Value {
	return reflect.ValueOf(num{v: rng.Int63() - rng.Int63(), native: rng.Intn(2) == 0, null: rng.Intn(5) == 0})
}

func (flag) Generate(rng *rand.Rand, _ int) reflect.Value {
	return reflect.ValueOf(flag{rng.Intn(2) == 0, rng.Intn(2) == 0})
}

func (amount) Generate(rng *rand.Rand, _ int) reflect.Value {
	a := amount{native: rng.Intn(2) == 0}
	switch rng.Intn(4) {
	case 0: // nil is 0
	case 1:
		a.x8, a.fixed = rng.Int63n(1e12)-5e11, true
	case 2:
		a.r = big.NewRat(rng.Int63n(1e9)-5e8, 100)
	default:
		a.r = big.NewRat(rng.Int63n(1e9)-5e8, rng.Int63n(1000)+1) // 1/3 and the like
	}
	return reflect.ValueOf(a)
}

func (unixTime) Generate(rng *rand.Rand, _ int) reflect.Value {
	n := numbers{native: rng.Intn(2) == 0}
	if rng.Intn(3) == 0 {
		return reflect.ValueOf(n.time(time.Time{}))
	}
	return reflect.ValueOf(n.time(time.Unix(rng.Int63n(4e9)-1e9, 0)))
}

// Generate gives jsonwtest.Check documents' lines: none, or a few of
// every kind, in both number styles.
func (linesOf) Generate(rng *rand.Rand, _ int) reflect.Value {
	c := &call{num: numbers{native: rng.Intn(2) == 0}}
	var lines []*line
	for i := range rng.Intn(4) {
		l := &line{id: int64(i + 1), typ: int64(rng.Intn(2)), desc: "line <é>", qty: big.NewRat(rng.Int63n(100), 1),
			subprice: big.NewRat(rng.Int63n(1e6), 100), discount: new(big.Rat), vat: big.NewRat(20, 1), ht: big.NewRat(1, 3),
			tva: new(big.Rat), ttc: big.NewRat(rng.Int63n(1e9), 100), rank: int64(i + 1)}
		if rng.Intn(2) == 0 {
			l.product = &product{id: 7, ref: "P\"7", label: "Widget"}
		}
		lines = append(lines, l)
	}
	return reflect.ValueOf(linesOf{c, lines})
}
