package workflow

import (
	"bytes"
	"fmt"

	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// Marker names and detail keys this package records.
const (
	sideEffectMarker = "SideEffect"
	versionMarker    = "Version"
	markerID         = "id"
	markerData       = "data"
)

// Version is a version of a change of the workflow's code (GetVersion).
type Version int

// DefaultVersion is the version of runs that started before a change was
// guarded by GetVersion.
const DefaultVersion Version = -1

// recordedMarker is a marker the history holds, by its name and id.
type markerKey struct{ name, id string }

func markerCommand(name, id string, data *orchpb.Payloads) *orchpb.Command {
	idp, _ := orch.EncodePayloads(id)
	return &orchpb.Command{
		CommandType: orchpb.CommandType_RECORD_MARKER,
		Attributes: &orchpb.Command_RecordMarkerCommandAttributes{RecordMarkerCommandAttributes: &orchpb.RecordMarkerCommandAttributes{
			MarkerName: name, Details: map[string]*orchpb.Payloads{markerID: idp, markerData: data},
		}},
	}
}

// markerIDOf is the id a marker's details carry ("" for none).
func markerIDOf(details map[string]*orchpb.Payloads) string {
	var id string
	if p := details[markerID]; p != nil {
		_ = orch.DecodePayloads(p, &id)
	}
	return id
}

// SideEffect runs fn once, the first time the code gets here, and records
// its result in the history; replays return the recorded value without
// running fn. The place for a random id or a reading of the clock. fn
// must not fail or block; its value is stored as JSON and decoded into
// valuePtr. A query never runs fn: its replay of events no task has
// handled yet stops the coroutine at a side effect not yet recorded (the
// query sees the state before it), and a query handler may not call
// SideEffect (see SetQueryHandler).
func SideEffect(ctx Context, fn func() any, valuePtr any) error {
	c := must(ctx)
	e := c.e
	e.readOnly("SideEffect")
	id := e.nextID()
	data, ok := e.markers[markerKey{sideEffectMarker, id}]
	switch {
	case ok:
	case e.replaying:
		// The history passed this point without the marker: the match
		// of the commands reports the difference; fn does not run.
		e.addCommand(markerCommand(sideEffectMarker, id, nil), nil)
		return fmt.Errorf("workflow: SideEffect %s: the history records no such side effect (non-deterministic code)", id)
	case e.query:
		// A query past the completed tasks: the next task runs fn and
		// records it; the query sees the state before it.
		c.co.waitUntil(func() bool { return false })
	default:
		p, err := orch.EncodePayloads(fn())
		if err != nil {
			return fmt.Errorf("workflow: SideEffect: %w", err)
		}
		data = p
	}
	e.addCommand(markerCommand(sideEffectMarker, id, data), nil)
	if valuePtr == nil {
		return nil
	}
	return orch.DecodePayloads(data, valuePtr)
}

// GetVersion guards a change of the workflow's code so runs started
// before it replay as they ran:
//
//	v := workflow.GetVersion(ctx, "add-fraud-check", workflow.DefaultVersion, 1)
//	if v == 1 {
//		// the new code
//	}
//
// A run that meets the call for the first time records maxSupported and
// gets it; a run whose history passed this point without the call (it
// started under the old code) gets DefaultVersion; a run that recorded a
// version gets that one. A recorded version outside [minSupported,
// maxSupported] fails the workflow task: the code no longer handles such
// runs. Calls with the same changeID return the same version.
func GetVersion(ctx Context, changeID string, minSupported, maxSupported Version) Version {
	c := must(ctx)
	e := c.e
	v, ok := e.versions[changeID]
	if !ok {
		e.readOnly("GetVersion")
		if data, recorded := e.markers[markerKey{versionMarker, changeID}]; recorded {
			var n int
			if err := orch.DecodePayloads(data, &n); err != nil {
				panic(fmt.Errorf("workflow: GetVersion %s: recorded version: %w", changeID, err))
			}
			v = Version(n)
			e.addCommand(markerCommand(versionMarker, changeID, data), nil)
		} else if e.replaying {
			v = DefaultVersion
		} else {
			v = maxSupported
			data, _ := orch.EncodePayloads(int(v))
			e.addCommand(markerCommand(versionMarker, changeID, data), nil)
		}
		e.versions[changeID] = v
	}
	if v < minSupported || v > maxSupported {
		panic(fmt.Errorf("workflow: GetVersion %s: version %d of this run is outside the supported %d to %d", changeID, v, minSupported, maxSupported))
	}
	return v
}

// sameMarker compares a marker command with its event: name and id.
func sameMarker(a *orchpb.RecordMarkerCommandAttributes, b *orchpb.MarkerRecordedEventAttributes) bool {
	if b == nil || a.GetMarkerName() != b.GetMarkerName() {
		return false
	}
	x, y := a.GetDetails()[markerID], b.GetDetails()[markerID]
	if x == nil || y == nil {
		return x == nil && y == nil
	}
	return len(x.GetPayloads()) == len(y.GetPayloads()) && (len(x.GetPayloads()) == 0 || bytes.Equal(x.GetPayloads()[0].GetData(), y.GetPayloads()[0].GetData()))
}
