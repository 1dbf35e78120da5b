package fake_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/sourcehost"
)

// Every fake at once, loaded with the demo data, and a client for each.
// A test would write fake.Start(t, fake.WithSeed(fake.DemoSeed())), which
// closes them when it ends; a program (or an example) uses New and Close.
func Example() {
	f, err := fake.New(fake.WithSeed(fake.DemoSeed()),
		control.WithClock(clock.NewFake(time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC))))
	if err != nil {
		panic(err)
	}
	defer f.Close()
	ctx := context.Background()

	page, err := f.Clients.ERP.ListThirdparties(ctx, &erp.ListThirdpartiesOptions{Mode: erp.ModeCustomers})
	if err != nil {
		panic(err)
	}
	for _, tp := range page.Items {
		fmt.Println("erp customer:", tp.Name)
	}

	p, err := f.Clients.SourceHost.GetProject(ctx, sourcehost.ProjectPath("alice/shop"), nil)
	if err != nil {
		panic(err)
	}
	fmt.Println("sourcehost:", p.PathWithNamespace, p.Visibility)

	// The gateway fronts the same sourcehost fake.
	list, err := f.Clients.MCP.ListProjects(ctx, &mcp.ListProjectsParams{})
	if err != nil {
		panic(err)
	}
	fmt.Println("mcp:", list.TotalCount, list.Projects[0].Namespace+"/"+list.Projects[0].Path)

	run, err := f.Clients.Orch.StartWorkflow(ctx, "OrderWorkflow", "orders", nil, &orch.StartWorkflowOptions{ID: "order-1"})
	if err != nil {
		panic(err)
	}
	fmt.Println("orch:", run.ID, run.Started)

	tok, err := f.Clients.CloudAuth.Login(ctx, &cloudauth.LoginRequest{Username: "alice", Password: "demo-password"})
	if err != nil {
		panic(err)
	}
	fmt.Println("cloudauth:", tok.Subject, tok.Tenant)
	// Output:
	// erp customer: Acme Corporation
	// erp customer: Globex
	// sourcehost: alice/shop private
	// mcp: 1 alice/shop
	// orch: order-1 true
	// cloudauth: alice default
}

// One clock drives every fake: Advance moves them all, so a cloud login
// token expires and a workflow's execution timeout fires in the same step,
// with no real waiting.
func ExampleFakes_Advance() {
	f, err := fake.New(fake.WithSeed(fake.DemoSeed()),
		control.WithClock(clock.NewFake(time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC))))
	if err != nil {
		panic(err)
	}
	defer f.Close()
	ctx := context.Background()

	tok, err := f.Clients.CloudAuth.Login(ctx, &cloudauth.LoginRequest{Username: "alice", Password: "demo-password"})
	if err != nil {
		panic(err)
	}
	run, err := f.Clients.Orch.StartWorkflow(ctx, "OrderWorkflow", "orders", nil,
		&orch.StartWorkflowOptions{ID: "order-1", ExecutionTimeout: 10 * time.Minute})
	if err != nil {
		panic(err)
	}

	f.Advance(time.Hour)

	_, err = f.Clients.CloudAuth.VerifyToken(ctx, tok.Raw())
	fmt.Println("token expired:", errors.Is(err, cloudauth.ErrTokenExpired))
	info, err := run.Describe(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println("workflow:", info.GetStatus())
	fmt.Println("clock:", f.Clock.Now().Format("15:04"))
	// Output:
	// token expired: true
	// workflow: TIMED_OUT
	// clock: 10:00
}
