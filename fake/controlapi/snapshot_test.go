package controlapi_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/controlapi"
)

// POST /api/snapshot answers what the program's save did; without one (no
// -state-dir) it is refused with 409, and a save that failed is a 500 that
// says so. It needs the bearer token, as every change does.
func TestSnapshotRoute(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := fake.Start(t, control.WithInMemory())
	srv, err := controlapi.New(f, controlapi.NewWallClock(f.Clock, false), token)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	c := controlapi.NewClient(ts.URL, token, ts.Client())
	_, err = c.Snapshot(ctx)
	var ae *controlapi.APIError
	if !errors.As(err, &ae) || ae.Status != http.StatusConflict {
		t.Errorf("without -state-dir: %v, want 409", err)
	}
	want := controlapi.SnapshotInfo{Path: "/state/state.json", Bytes: 42, Clock: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Taken: time.Date(2026, 1, 2, 3, 4, 6, 0, time.UTC)}
	saves := 0
	srv.SetSnapshot(func() (controlapi.SnapshotInfo, error) { saves++; return want, nil })
	if _, err := controlapi.NewClient(ts.URL, "not-the-token-at-all", ts.Client()).Snapshot(ctx); !errors.As(err, &ae) || ae.Status != http.StatusUnauthorized || saves != 0 {
		t.Errorf("without the token: %v (saves %d), want 401 and nothing saved", err, saves)
	}
	got, err := c.Snapshot(ctx)
	if err != nil || got != want || saves != 1 {
		t.Errorf("with a save: %+v %v (saves %d), want %+v", got, err, saves, want)
	}
	srv.SetSnapshot(func() (controlapi.SnapshotInfo, error) { return controlapi.SnapshotInfo{}, errors.New("disk full") })
	if _, err := c.Snapshot(ctx); !errors.As(err, &ae) || ae.Status != http.StatusInternalServerError || ae.Message != "the snapshot was not saved: disk full" {
		t.Errorf("a failed save: %v, want 500 saying why", err)
	}
}
