package fake_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/sourcehost"
)

func TestStartWiresEveryFake(t *testing.T) {
	t.Parallel()
	for _, mode := range []struct {
		name string
		opts []fake.Option
	}{{"loopback", nil}, {"in memory", []fake.Option{control.WithInMemory()}}} {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			testWiring(t, fake.Start(t, mode.opts...))
		})
	}
}

// In memory, no fake has a port: every URL names a host no resolver
// answers, and only the fakes' own clients reach them.
func TestInMemoryOpensNoPort(t *testing.T) {
	t.Parallel()
	f := fake.Start(t, control.WithInMemory())
	for _, u := range []string{f.ERP.URL(), f.CloudAuth.URL(), f.Orch.URL(), f.Orch.GRPCAddr(), f.SourceHost.URL(), f.MCP.URL()} {
		if !strings.Contains(u, ".invalid") {
			t.Errorf("%s is not an in-memory address", u)
		}
	}
	req, _ := http.NewRequest("GET", f.ERP.URL()+"/api/index.php/products", nil)
	req.Header.Set("ERPAPIKEY", f.ERP.APIKey())
	resp, err := f.ERP.RawClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("RawClient: %d", resp.StatusCode)
	}
	if _, err := (&http.Client{Transport: &http.Transport{}}).Get(f.ERP.URL() + "/api/index.php/products"); err == nil {
		t.Error("a client of its own reached the in-memory ERP")
	}
}

func testWiring(t *testing.T, f *fake.Fakes) {
	ctx := context.Background()

	if err := f.Clients.ERP.Ping(ctx); err != nil {
		t.Errorf("erp: %v", err)
	}
	me, err := f.Clients.SourceHost.CurrentUser(ctx)
	if err != nil {
		t.Fatalf("sourcehost: %v", err)
	}
	// The gateway fronts the same sourcehost fake: a project made through
	// one is seen through the other.
	p, err := f.Clients.SourceHost.CreateProject(ctx, &sourcehost.CreateProjectRequest{Name: "wired"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.Clients.MCP.GetProject(ctx, &mcp.GetProjectParams{ProjectID: p.ID})
	if err != nil {
		t.Fatalf("mcp: %v", err)
	}
	if got.ID != p.ID || me.Username == "" {
		t.Errorf("through the gateway: project %d, want %d", got.ID, p.ID)
	}
	if _, err := f.Clients.Orch.DescribeNamespace(ctx, "default"); err != nil {
		t.Errorf("orch over gRPC: %v", err)
	}
	if _, err := f.Orch.HTTPClient().DescribeCluster(ctx); err != nil {
		t.Errorf("orch over HTTP: %v", err)
	}
	gc := f.Orch.GRPCClient()
	defer gc.Close()
	if _, err := gc.DescribeCluster(ctx); err != nil {
		t.Errorf("orch over a dialled gRPC connection: %v", err)
	}
	if _, err := f.Clients.CloudAuth.PublicKeys(ctx); err != nil {
		t.Errorf("cloudauth: %v", err)
	}
	if f.MCP.Upstream() != f.SourceHost {
		t.Error("the gateway's upstream is not Fakes.SourceHost")
	}
}

// Every address New hands out is served from the moment it returns, and
// none once Close has.
func TestNewServesEveryAddressUntilClose(t *testing.T) {
	t.Parallel()
	f, err := fake.New()
	if err != nil {
		t.Fatal(err)
	}
	host := func(u string) string { return strings.TrimPrefix(u, "http://") }
	addrs := map[string]string{
		"erp": host(f.ERP.URL()), "cloudauth": host(f.CloudAuth.URL()), "orch HTTP": host(f.Orch.URL()),
		"orch gRPC": f.Orch.GRPCAddr(), "sourcehost": host(f.SourceHost.URL()), "mcp": host(f.MCP.URL()),
	}
	for name, a := range addrs {
		c, err := net.Dial("tcp", a)
		if err != nil {
			t.Fatalf("%s at %s: %v", name, a, err)
		}
		c.Close()
	}
	f.Close()
	for name, a := range addrs {
		if c, err := net.Dial("tcp", a); err == nil {
			c.Close()
			t.Errorf("%s at %s answers after Close", name, a)
		}
	}
}

func TestOneClockForAll(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	clk := clock.NewFake(start)
	f := fake.Start(t, control.WithClock(clk))
	for name, c := range map[string]*clock.Fake{
		"erp": f.ERP.Clock(), "cloudauth": f.CloudAuth.Clock(), "orch": f.Orch.Clock(), "sourcehost": f.SourceHost.Clock(), "mcp": f.MCP.Clock(),
	} {
		if c != clk {
			t.Errorf("%s runs on another clock", name)
		}
	}
	f.Advance(time.Hour)
	if got := f.Clock.Now(); !got.Equal(start.Add(time.Hour)) {
		t.Errorf("after Advance: %v", got)
	}
}

func TestDemoSeed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := fake.Start(t, fake.WithSeed(fake.DemoSeed()))

	customers, err := f.Clients.ERP.ListThirdparties(ctx, &erp.ListThirdpartiesOptions{Mode: erp.ModeCustomers})
	if err != nil {
		t.Fatal(err)
	}
	if len(customers.Items) != 2 {
		t.Errorf("customers: %d, want 2", len(customers.Items))
	}
	projects, err := f.Clients.SourceHost.ListProjects(ctx, &sourcehost.ListProjectsOptions{Search: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	if len(projects.Items) != 1 || projects.Items[0].PathWithNamespace != "alice/shop" {
		t.Fatalf("projects: %+v", projects.Items)
	}
	file, err := f.Clients.SourceHost.GetFile(ctx, sourcehost.ProjectID(projects.Items[0].ID), "README.md", "main")
	if err != nil {
		t.Fatal(err)
	}
	tok, err := f.Clients.CloudAuth.Login(ctx, &cloudauth.LoginRequest{Username: "alice", Password: "demo-password"})
	if err != nil {
		t.Fatalf("cloudauth login as the demo user: %v", err)
	}
	if _, err := f.Clients.CloudAuth.VerifyToken(ctx, tok.Raw()); err != nil {
		t.Errorf("verify the demo user's token: %v", err)
	}
	ns, err := f.Clients.Orch.DescribeNamespace(ctx, "orders")
	if err != nil {
		t.Fatalf("orch: the demo namespace: %v", err)
	}
	if got := ns.GetConfig().GetWorkflowExecutionRetentionTtl().AsDuration(); got != 72*time.Hour {
		t.Errorf("orders retention %v, want 72h", got)
	}
	if n, err := f.Clients.Orch.WithNamespace("orders").CountWorkflows(ctx, "CustomerId = 'acme' AND Amount > 10"); err != nil || n != 0 {
		t.Errorf("count with the demo's search attributes: %d, %v", n, err)
	}
	readme, err := file.Decode()
	if err != nil || !strings.HasPrefix(string(readme), "# Shop") {
		t.Errorf("README.md: %q, %v", readme, err)
	}
}

func TestParseSeed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, data, wantErr string
	}{
		{"yaml", "s.yaml", "erp:\n  products: [{ref: A, label: B, price: \"1\"}]\n", ""},
		{"json", "s.json", `{"sourcehost":{"users":[{"username":"bob","name":"Bob"}]}}`, ""},
		{"empty yaml", "s.yml", "", ""},
		{"unknown yaml field", "s.yaml", "erp:\n  prodcts: []\n", "prodcts"},
		{"unknown json field", "s.json", `{"erp":{"users":[{"logn":"x"}]}}`, "logn"},
		{"two json values", "s.json", `{} {}`, "more than one"},
		{"not json", "s.json", `erp: {}`, "seed s.json"},
		{"orch namespaces", "s.yaml", "orch:\n  namespaces: [{name: x, search_attributes: {A: Int}}]\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := fake.ParseSeed([]byte(tt.data), tt.file)
			if tt.wantErr == "" && err != nil {
				t.Fatalf("error: %v", err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("error %v, want one naming %q", err, tt.wantErr)
			}
		})
	}
}

func TestSeedRefusalNamesTheEntry(t *testing.T) {
	t.Parallel()
	seed, err := fake.ParseSeed([]byte("erp:\n  products:\n    - {ref: A, label: One}\n    - {ref: A, label: Two}\n"), "dup.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = fake.New(fake.WithSeed(seed))
	if err == nil || !strings.Contains(err.Error(), "erp.products[1]") {
		t.Fatalf("error %v, want one naming erp.products[1]", err)
	}
}

func TestSeedRefusesABadSearchAttributeType(t *testing.T) {
	t.Parallel()
	seed, err := fake.ParseSeed([]byte("orch:\n  namespaces: [{name: default, search_attributes: {Amount: Money}}]\n"), "bad.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = fake.New(fake.WithSeed(seed))
	if err == nil || !strings.Contains(err.Error(), "orch.namespaces[0]") || !strings.Contains(err.Error(), "search attribute Amount") {
		t.Fatalf("error %v, want one naming the attribute", err)
	}
}

func TestNewNamesTheBusyPort(t *testing.T) {
	t.Parallel()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	addr := busy.Addr().String()
	_, err = fake.New(fake.WithAddrs(fake.Addrs{SourceHost: addr}))
	if err == nil || !strings.Contains(err.Error(), "sourcehost") || !strings.Contains(err.Error(), addr[strings.LastIndex(addr, ":")+1:]) {
		t.Fatalf("error %v, want one naming sourcehost and the port", err)
	}
}

// A seed file holds everything each fake can be seeded with, in the fakes'
// own seed types: invoices and orders, executions, issues.
func TestSeedHoldsEveryResource(t *testing.T) {
	t.Parallel()
	const file = `
erp:
  thirdparties: [{name: Acme, customer: true}]
  products: [{ref: W-1, label: Widget, price: "10"}]
  invoices: [{thirdparty: Acme, lines: [{product: W-1, qty: "3"}], validated: true}]
  orders: [{thirdparty: Acme, lines: [{product: W-1, qty: "1"}]}]
cloudauth:
  users: [{username: bob, password: pw-bob, tenant: acme}]
orch:
  namespaces: [{name: orders, search_attributes: {CustomerId: Keyword}}]
  executions:
    - {namespace: orders, workflow_id: order-1, workflow_type: Order, status: completed, search_attributes: {CustomerId: acme}}
sourcehost:
  users: [{username: alice}]
  projects:
    - name: shop
      owner: alice
      issues: [{title: First issue}]
`
	for _, name := range []string{"full.yaml", "full.json"} {
		data := []byte(file)
		if name == "full.json" { // the same seed as JSON
			seed, err := fake.ParseSeed(data, "full.yaml")
			if err != nil {
				t.Fatal(err)
			}
			if data, err = json.Marshal(seed); err != nil {
				t.Fatal(err)
			}
		}
		seed, err := fake.ParseSeed(data, name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		f := fake.Start(t, fake.WithSeed(seed))
		if inv := f.ERP.Invoices(); len(inv) != 1 || inv[0].Status != 1 {
			t.Errorf("%s: invoices %+v", name, inv)
		}
		if n := len(f.ERP.Orders()); n != 1 {
			t.Errorf("%s: %d orders", name, n)
		}
		ex, ok := f.Orch.Execution("orders", "order-1", "")
		if !ok || ex.Info.GetStatus().String() != "COMPLETED" {
			t.Errorf("%s: execution %v %v", name, ok, ex.Info.GetStatus())
		}
		page, err := f.Clients.SourceHost.ListIssues(t.Context(), sourcehost.ProjectPath("alice/shop"), nil)
		if err != nil || len(page.Items) != 1 || page.Items[0].Title != "First issue" {
			t.Errorf("%s: issues %v %v", name, page, err)
		}
	}
}
