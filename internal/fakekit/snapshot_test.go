package fakekit_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/internal/fakekit"
)

type testSnap struct {
	fakekit.SnapshotHeader
	Name string               `json:"name"`
	At   fakekit.SnapshotTime `json:"at"`
}

// DecodeSnapshot names whose or which version a snapshot is before what in
// it does not read, and reads a good one in one pass.
func TestDecodeSnapshot(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, data, want string }{
		{"good", `{"format":"f","version":2,"name":"n","at":"2026-01-02T03:04:05.5Z"}`, ""},
		{"not JSON", `{"format":`, "not a snapshot"},
		{"more after it", `{"format":"f","version":2} {}`, "not a snapshot"},
		{"another format, with fields of its own", `{"format":"g","version":2,"other":1}`, `not a f snapshot (its format is "g")`},
		{"another version, with fields of its own", `{"format":"f","version":3,"other":1}`, "a f snapshot of version 3: this build reads version 2"},
		{"an unknown field", `{"format":"f","version":2,"other":1}`, `a f snapshot that does not read: json: unknown field "other"`},
		{"a bad time", `{"format":"f","version":2,"at":"yesterday"}`, `time "yesterday" is not RFC 3339`},
	} {
		var v testSnap
		err := fakekit.DecodeSnapshot([]byte(tt.data), "f", 2, &v)
		switch {
		case tt.want == "" && (err != nil || v.Name != "n" || !v.At.Time().Equal(time.Date(2026, 1, 2, 3, 4, 5, 5e8, time.UTC))):
			t.Errorf("%s: %+v %v", tt.name, v, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: %v, want an error mentioning %q", tt.name, err, tt.want)
		}
	}
}

// A SnapshotTime writes the zero time as "" and any other in UTC, and reads
// back what it wrote.
func TestSnapshotTime(t *testing.T) {
	t.Parallel()
	for _, in := range []time.Time{{}, time.Date(2026, 1, 2, 3, 4, 5, 6, time.FixedZone("x", 3600))} {
		b, err := json.Marshal(fakekit.SnapshotTime(in))
		if err != nil {
			t.Fatal(err)
		}
		var out fakekit.SnapshotTime
		if err := json.Unmarshal(b, &out); err != nil || !out.Time().Equal(in) {
			t.Errorf("%v wrote %s, read back %v %v", in, b, out.Time(), err)
		}
	}
	if b, _ := json.Marshal(fakekit.SnapshotTime{}); string(b) != `""` {
		t.Errorf("the zero time writes %s", b)
	}
}
