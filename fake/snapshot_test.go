package fake_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/sourcehost"
)

// A set of fakes restored from another's snapshot answers every client as
// the first did, on the snapshot's time; SnapshotTimes reads the times.
func TestFakesSnapshotRestore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	at := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	src := fake.Start(t, control.WithInMemory(), control.WithClock(clock.NewFake(at)), fake.WithSeed(fake.DemoSeed()))
	inv, err := src.Clients.ERP.CreateInvoice(ctx, &erp.CreateInvoiceRequest{SocID: 1, Lines: []erp.LineRequest{{ProductID: 1, Qty: erp.DecimalFromInt(2)}}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := src.Clients.SourceHost.CreateProject(ctx, &sourcehost.CreateProjectRequest{Name: "kept"})
	if err != nil {
		t.Fatal(err)
	}
	run, err := src.Clients.Orch.StartWorkflow(ctx, "Order", "orders", nil, &orch.StartWorkflowOptions{ID: "order-1"})
	if err != nil {
		t.Fatal(err)
	}
	src.Clock.Advance(time.Minute)
	data, err := src.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	clockAt, taken, err := fake.SnapshotTimes(data)
	if err != nil || !clockAt.Equal(at.Add(time.Minute)) || time.Since(taken) < 0 {
		t.Errorf("SnapshotTimes: %v %v %v, want the fakes' time %v", clockAt, taken, err, at.Add(time.Minute))
	}

	dst := fake.Start(t, control.WithInMemory(), control.WithClock(clock.NewFake(at.Add(time.Hour))))
	if err := dst.Restore(data); err != nil {
		t.Fatal(err)
	}
	if now := dst.Clock.Now(); !now.Equal(at.Add(time.Minute)) {
		t.Errorf("the clock after the restore: %v, want the snapshot's %v", now, at.Add(time.Minute))
	}
	if got, err := dst.Clients.ERP.GetInvoice(ctx, inv.ID); err != nil || got.Ref != inv.Ref {
		t.Errorf("the invoice after the restore: %+v %v", got, err)
	}
	if got, err := dst.Clients.MCP.GetProject(ctx, &mcp.GetProjectParams{ProjectID: p.ID}); err != nil || got.Name != "kept" {
		t.Errorf("the project through the gateway after the restore: %+v %v", got, err)
	}
	if info, err := dst.Clients.Orch.DescribeWorkflow(ctx, "order-1", ""); err != nil || info.GetExecution().GetRunId() != run.RunID {
		t.Errorf("the workflow after the restore: %v %v", info, err)
	}
}

// A snapshot one fake refuses changes none of them, nor the clock.
func TestFakesRestoreRefusedChangesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	at := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	src := fake.Start(t, control.WithInMemory(), control.WithClock(clock.NewFake(at)))
	data, err := src.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(data), `"format": "orchfake"`, `"format": "nope"`, 1)
	if bad == string(data) {
		t.Fatal("no orch part to break")
	}
	dst := fake.Start(t, control.WithInMemory(), control.WithClock(clock.NewFake(at.Add(time.Hour))), fake.WithSeed(fake.DemoSeed()))
	err = dst.Restore([]byte(bad))
	if err == nil || !strings.Contains(err.Error(), "orchfake") {
		t.Fatalf("a snapshot with a broken orch part: %v, want an error naming orchfake", err)
	}
	if ps, err := dst.Clients.ERP.ListProducts(ctx, nil); err != nil || len(ps.Items) != 3 {
		t.Errorf("the ERP after a refused restore: %v %v, want the demo's 3 products", ps, err)
	}
	if now := dst.Clock.Now(); !now.Equal(at.Add(time.Hour)) {
		t.Errorf("the clock after a refused restore: %v", now)
	}
}
