package control

import (
	"context"
	"net/http"
	"time"
)

// SnapshotInfo is what POST /api/snapshot answers: the snapshot of every
// fake that apitwin-fake (run with -state-dir) wrote, and where.
type SnapshotInfo struct {
	// Path is the file written: state.json in the -state-dir.
	Path string `json:"path"`
	// Bytes is its size.
	Bytes int64 `json:"bytes"`
	// Clock is the fakes' time in the snapshot, Taken the wall clock's.
	Clock time.Time `json:"clock"`
	Taken time.Time `json:"taken"`
}

// Snapshot makes apitwin-fake write a snapshot of every fake to its
// -state-dir now, as it does at shutdown, so that a crash after it loses
// nothing before it. Without -state-dir it is refused (409).
func (c *Client) Snapshot(ctx context.Context) (SnapshotInfo, error) {
	var out SnapshotInfo
	return out, c.call(ctx, http.MethodPost, "/api/snapshot", nil, "", &out)
}
