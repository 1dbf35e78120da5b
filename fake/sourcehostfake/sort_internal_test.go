package sourcehostfake

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortStableIsSlicesSortStable checks sortStable's shortcuts (in
// order, in reverse order) against slices.SortStableFunc, on lists in
// order, reversed, nearly so, and shuffled, with and without ties.
func TestSortStableIsSlicesSortStable(t *testing.T) {
	t.Parallel()
	type item struct{ key, id int }
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 40 {
		for _, shape := range []string{"ascending", "descending", "ties", "swapped", "shuffled"} {
			items := make([]item, n)
			for i := range items {
				items[i] = item{key: i, id: i}
				switch shape {
				case "descending":
					items[i].key = n - i
				case "ties":
					items[i].key = i / 3
				case "shuffled":
					items[i].key = rng.IntN(5)
				}
			}
			if shape == "swapped" && n > 2 {
				items[1], items[2] = items[2], items[1]
			}
			for _, desc := range []bool{false, true} {
				byKey := func(a, b item) int {
					r := cmp.Compare(a.key, b.key)
					if desc {
						return -r
					}
					return r
				}
				want := slices.Clone(items)
				slices.SortStableFunc(want, byKey)
				got := slices.Clone(items)
				sortStable(got, byKey)
				if !slices.Equal(got, want) {
					t.Fatalf("%s n=%d desc=%v: got %v, want %v", shape, n, desc, got, want)
				}
			}
		}
	}
}
