package sample

import (
	"math/rand"
	"reflect"
	"time"
)

// Generate gives Check stamps of every kind: years JSON's fast path writes
// and those it leaves to the layout.
func (stamp) Generate(rng *rand.Rand, _ int) reflect.Value {
	secs := rng.Int63n(400e9) - 200e9
	return reflect.ValueOf(stamp(time.Unix(secs, rng.Int63n(1e9))))
}
