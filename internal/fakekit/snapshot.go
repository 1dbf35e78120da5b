package fakekit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// SnapshotHeader opens every fake's snapshot: whose it is and the version
// of its shape. A fake reads only its own format, and only the versions it
// knows: a snapshot of another version is refused by name rather than half
// read.
type SnapshotHeader struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
}

// EncodeSnapshot writes v, a fake's snapshot (whose first field is a
// SnapshotHeader), as indented JSON: a snapshot is kept in a file people
// read and diff.
func EncodeSnapshot(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", " ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// DecodeSnapshot reads data into v after checking its header: the format
// must be format and the version version. Fields v does not know are
// refused, as is anything after the one JSON value: a snapshot written by
// something else is an error, never a state read in part. The document is
// read once; only when it does not read is its header read again, to say
// whose or which version it is rather than which field is unknown.
func DecodeSnapshot(data []byte, format string, version int, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil && dec.More() {
		err = errors.New("more data after the snapshot")
	}
	var h SnapshotHeader
	if err != nil {
		if herr := json.Unmarshal(data, &h); herr != nil {
			return fmt.Errorf("not a snapshot: %w", jsonError(data, herr))
		}
	} else if hv, ok := v.(interface{ Header() SnapshotHeader }); ok {
		h = hv.Header()
	} else if herr := json.Unmarshal(data, &h); herr != nil { // v without its header: read it apart
		return fmt.Errorf("not a snapshot: %w", jsonError(data, herr))
	}
	switch {
	case h.Format != format:
		return fmt.Errorf("not a %s snapshot (its format is %q)", format, h.Format)
	case h.Version != version:
		return fmt.Errorf("a %s snapshot of version %d: this build reads version %d", format, h.Version, version)
	case err != nil:
		return fmt.Errorf("a %s snapshot that does not read: %w", format, jsonError(data, err))
	}
	return nil
}

// Header returns h: a snapshot type that embeds SnapshotHeader has it, so
// DecodeSnapshot reads its header from the one decoding.
func (h SnapshotHeader) Header() SnapshotHeader { return h }

// jsonError says where in data a JSON error is, when encoding/json knows.
func jsonError(data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("%w (at byte %d of %d)", err, syn.Offset, len(data))
	case errors.As(err, &typ):
		return fmt.Errorf("%w (at byte %d of %d)", err, typ.Offset, len(data))
	}
	return err
}

// SnapshotTime is a time as a snapshot keeps it: RFC 3339 with
// nanoseconds, in UTC, "" for the zero time (a record's "never").
type SnapshotTime time.Time

// MarshalJSON writes the time, or "" for the zero time.
func (t SnapshotTime) MarshalJSON() ([]byte, error) {
	if time.Time(t).IsZero() {
		return []byte(`""`), nil
	}
	return json.Marshal(time.Time(t).UTC().Format(time.RFC3339Nano))
}

// UnmarshalJSON reads what MarshalJSON writes.
func (t *SnapshotTime) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if s == "" {
		*t = SnapshotTime{}
		return nil
	}
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return fmt.Errorf("time %q is not RFC 3339", s)
	}
	*t = SnapshotTime(v)
	return nil
}

// Time is t as a time.Time.
func (t SnapshotTime) Time() time.Time { return time.Time(t) }

// SnapshotTimePtr is SnapshotTime for an optional time: nil stays nil.
func SnapshotTimePtr(t *time.Time) *SnapshotTime {
	if t == nil {
		return nil
	}
	st := SnapshotTime(*t)
	return &st
}

// TimePtr is the optional time a SnapshotTimePtr kept.
func (t *SnapshotTime) TimePtr() *time.Time {
	if t == nil {
		return nil
	}
	v := time.Time(*t)
	return &v
}
