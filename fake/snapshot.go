package fake

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// SnapshotFormat and SnapshotVersion name the shape of Fakes.Snapshot;
// Restore reads this version only. Each fake's part has its own format and
// version inside (erpfake.SnapshotVersion, …).
const (
	SnapshotFormat  = "apitwin-fakes"
	SnapshotVersion = 1
)

// snapshot is every fake's state at one moment, with the time of the
// fakes' clock and the wall clock's then. The gateway (MCP) keeps no data
// of its own: its cache, rate-limit buckets and remembered token checks
// start empty after a restore, as after a restart of the real gateway.
type snapshot struct {
	fakekit.SnapshotHeader
	Clock      fakekit.SnapshotTime `json:"clock"` // the fakes' time
	Taken      fakekit.SnapshotTime `json:"taken"` // the wall clock's, when it was taken
	ERP        json.RawMessage      `json:"erp"`
	CloudAuth  json.RawMessage      `json:"cloudauth"`
	Orch       json.RawMessage      `json:"orch"`
	SourceHost json.RawMessage      `json:"sourcehost"`
}

// Snapshot returns the state of every fake as one versioned JSON document:
// each fake's Snapshot (its records, ids, pending work), the time of the
// fakes' clock and the wall clock's. Restore reads it back. It holds the
// fakes' credentials (passwords, API keys, tokens): keep it private. It
// may be taken after Close, which is how a program keeps everything its
// last requests did.
func (f *Fakes) Snapshot() ([]byte, error) {
	snap := snapshot{SnapshotHeader: fakekit.SnapshotHeader{Format: SnapshotFormat, Version: SnapshotVersion},
		Clock: fakekit.SnapshotTime(f.Clock.Now()), Taken: fakekit.SnapshotTime(time.Now())}
	var errs []error
	part := func(name string, take func() ([]byte, error)) json.RawMessage {
		b, err := take()
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
		return b
	}
	snap.ERP = part("erp", f.ERP.Snapshot)
	snap.CloudAuth = part("cloudauth", f.CloudAuth.Snapshot)
	snap.Orch = part("orch", f.Orch.Snapshot)
	snap.SourceHost = part("sourcehost", f.SourceHost.Snapshot)
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("fake: snapshot: %w", err)
	}
	// Written by hand around the parts, each already indented JSON: given
	// to the encoder whole they would be checked and indented again, which
	// doubled what a snapshot costs (measured: 15.6 MB of a busy set of
	// fakes).
	clock, _ := snap.Clock.MarshalJSON()
	taken, _ := snap.Taken.MarshalJSON()
	var b bytes.Buffer
	b.Grow(len(snap.ERP) + len(snap.CloudAuth) + len(snap.Orch) + len(snap.SourceHost) + 256)
	fmt.Fprintf(&b, "{\n \"format\": %q,\n \"version\": %d,\n \"clock\": %s,\n \"taken\": %s", SnapshotFormat, SnapshotVersion, clock, taken)
	for _, p := range []struct {
		name string
		data json.RawMessage
	}{{"erp", snap.ERP}, {"cloudauth", snap.CloudAuth}, {"orch", snap.Orch}, {"sourcehost", snap.SourceHost}} {
		fmt.Fprintf(&b, ",\n %q: ", p.name)
		b.Write(bytes.TrimSpace(p.data))
	}
	b.WriteString("\n}\n")
	return b.Bytes(), nil
}

// SnapshotTimes reads when a snapshot was taken: the fakes' time then, and
// the wall clock's. A program that restores it decides from them where
// the clock goes on (apitwin-fake: as far past the snapshot's time as the
// wall clock is past its own).
func SnapshotTimes(data []byte) (clock, taken time.Time, err error) {
	var snap snapshot
	if err := fakekit.DecodeSnapshot(data, SnapshotFormat, SnapshotVersion, &snap); err != nil {
		return time.Time{}, time.Time{}, fmt.Errorf("fake: %w", err)
	}
	return snap.Clock.Time(), snap.Taken.Time(), nil
}

// Restore puts every fake back as a snapshot found it (see Snapshot):
// first the clock, to the snapshot's time (backward too), then each fake,
// whose timers and pending work are due when they were due; moving the
// clock on from there makes happen, in order, what falls due. A snapshot
// any fake refuses is an error that names the fake, and changes nothing:
// the fakes and the clock are put back as they were.
func (f *Fakes) Restore(data []byte) error {
	var snap snapshot
	if err := fakekit.DecodeSnapshot(data, SnapshotFormat, SnapshotVersion, &snap); err != nil {
		return fmt.Errorf("fake: %w", err)
	}
	type part struct {
		name     string
		data     json.RawMessage
		snapshot func() ([]byte, error)
		restore  func([]byte) error
	}
	parts := []part{
		{"erp", snap.ERP, f.ERP.Snapshot, f.ERP.Restore},
		{"cloudauth", snap.CloudAuth, f.CloudAuth.Snapshot, f.CloudAuth.Restore},
		{"orch", snap.Orch, f.Orch.Snapshot, f.Orch.Restore},
		{"sourcehost", snap.SourceHost, f.SourceHost.Snapshot, f.SourceHost.Restore},
	}
	// What is there now, to put back should one part be refused.
	was, now := make([][]byte, len(parts)), f.Clock.Now()
	for i, p := range parts {
		if len(p.data) == 0 {
			return fmt.Errorf("fake: snapshot: no %s part", p.name)
		}
		b, err := p.snapshot()
		if err != nil {
			return fmt.Errorf("fake: %s: %w", p.name, err)
		}
		was[i] = b
	}
	f.Clock.Set(snap.Clock.Time())
	for i, p := range parts {
		if err := p.restore(p.data); err != nil {
			f.Clock.Set(now)
			for j := range i {
				_ = parts[j].restore(was[j]) // written by this build a moment ago
			}
			return fmt.Errorf("fake: snapshot: %w", err)
		}
	}
	return nil
}
