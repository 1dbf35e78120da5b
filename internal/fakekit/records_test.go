package fakekit_test

import (
	"testing"

	"github.com/apitwin/apitwin/internal/fakekit"
)

func TestRecordsDeriveThenKeepCounts(t *testing.T) {
	t.Parallel()
	walks := 0
	state := map[string]int{"issue": 2}
	r := fakekit.NewRecords(3, func(add func(string, int)) {
		walks++
		for k, n := range state {
			add(k, n)
		}
	})
	if !r.Room("issue", 1) || r.Room("issue", 2) || r.Count("issue") != 2 || walks != 1 {
		t.Fatalf("room 1 %v, room 2 %v, count %d, walks %d", r.Room("issue", 1), r.Room("issue", 2), r.Count("issue"), walks)
	}
	r.Add("issue", 1)
	if r.Room("issue", 1) || walks != 1 {
		t.Fatalf("full bound has room, or walked again (%d)", walks)
	}
	r.Add("issue", -3)
	state["issue"] = 3 // changed behind its back, as a seed rolled back does
	if r.Count("issue") != 0 {
		t.Fatalf("count %d", r.Count("issue"))
	}
	r.Forget()
	if r.Count("issue") != 3 || walks != 2 {
		t.Fatalf("count %d after Forget, walks %d", r.Count("issue"), walks)
	}
	if d := fakekit.NewRecords(0, nil); d.Max() != fakekit.DefaultMaxRecords || !d.Room("x", fakekit.DefaultMaxRecords) || d.Room("x", fakekit.DefaultMaxRecords+1) {
		t.Fatalf("default bound %d", d.Max())
	}
}
