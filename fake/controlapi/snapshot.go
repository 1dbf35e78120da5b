package controlapi

import (
	"net/http"
	"sync/atomic"
)

// saver holds what SetSnapshot gave, set while the server may
// already serve.
type saver = atomic.Pointer[func() (SnapshotInfo, error)]

// SetSnapshot gives the control API what POST /api/snapshot does: save
// writes a snapshot of every fake where the program keeps them (its
// -state-dir) and says where. Without it, the route is refused with 409:
// there is nowhere to keep one.
func (s *Server) SetSnapshot(save func() (SnapshotInfo, error)) { s.save.Store(&save) }

// snapshot is POST /api/snapshot.
func (s *Server) snapshot(http.ResponseWriter, *http.Request) (any, error) {
	save := s.save.Load()
	if save == nil {
		return nil, &httpError{http.StatusConflict, "apitwin-fake runs without -state-dir: there is nowhere to keep a snapshot (start it with -state-dir DIR)"}
	}
	info, err := (*save)()
	if err != nil {
		return nil, &httpError{http.StatusInternalServerError, "the snapshot was not saved: " + err.Error()}
	}
	return info, nil
}
