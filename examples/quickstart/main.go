// Command quickstart runs one realistic story across the apitwin SDK and
// prints each step: an operator logs in through the cloud login gateway; a
// customer, a product and an invoice are made in the ERP and the invoice is
// validated; an order workflow starts in the orchestration service, whose
// worker's activities pack the parcel and open a shipping issue in the
// source-hosting service; the issue is read back through the mcp tool
// gateway; a summary ends it.
//
// With no flags and no setup it starts the embedded fakes (package fake) on
// loopback ports:
//
//	go run ./examples/quickstart
//
// To run the same story against real services, set all of CLOUDAUTH_URL,
// CLOUDAUTH_USERNAME and CLOUDAUTH_PASSWORD (CLOUDAUTH_TENANT is optional),
// ERP_URL and ERP_API_KEY, ORCH_ADDR (gRPC host:port; ORCH_TOKEN and
// ORCH_NAMESPACE optional), SOURCEHOST_URL and SOURCEHOST_TOKEN (a token with
// the api scope), and MCP_URL (the gateway; it uses the sourcehost token).
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake"
	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
	"github.com/apitwin/apitwin/sourcehost"
)

func main() {
	if err := run(context.Background(), os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

// clients are the story's clients, for real services or the fakes.
type clients struct {
	cloudauth  *cloudauth.Client
	login      cloudauth.LoginRequest
	erp        *erp.Client
	orch       *orch.Client
	sourcehost *sourcehost.Client
	mcp        *mcp.Client
	where      string
	close      func()
}

func run(ctx context.Context, getenv func(string) string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	c, err := connect(getenv)
	if err != nil {
		return err
	}
	defer c.close()
	fmt.Println("services:", c.where)

	// 0. The operator logs in: an RS256 token, verified against the
	// gateway's published key.
	login, err := c.cloudauth.Login(ctx, &c.login)
	if err != nil {
		return fmt.Errorf("cloudauth: %w", err)
	}
	token, err := c.cloudauth.VerifyToken(ctx, login.Raw())
	if err != nil {
		return fmt.Errorf("cloudauth: verify token: %w", err)
	}
	fmt.Printf("cloudauth: logged in as %s (tenant %s), token verified, valid until %s\n",
		token.Subject, token.Tenant, token.ExpiresAt.UTC().Format(time.RFC3339))
	defer func() {
		if err := c.cloudauth.Logout(context.WithoutCancel(ctx), token); err == nil {
			fmt.Println("cloudauth: logged out")
		}
	}()

	// 1. The ERP: a customer, a product, an invoice, validated.
	suffix := time.Now().Format("150405")
	customer, err := c.erp.CreateThirdparty(ctx, &erp.CreateThirdpartyRequest{
		Name: "Quickstart Customer " + suffix, Client: erp.Customer, Email: "buyer@example.com",
	})
	if err != nil {
		return fmt.Errorf("erp: create customer: %w", err)
	}
	fmt.Printf("erp: created customer %q (id %d)\n", customer.Name, customer.ID)
	product, err := c.erp.CreateProduct(ctx, &erp.CreateProductRequest{
		Ref: "QS-LAMP-" + suffix, Label: "Desk lamp", Price: erp.MustDecimal("39.90"), Type: erp.TypeProduct,
	})
	if err != nil {
		return fmt.Errorf("erp: create product: %w", err)
	}
	fmt.Printf("erp: created product %s %q at %s\n", product.Ref, product.Label, product.Price.Round(2))
	draft, err := c.erp.CreateInvoice(ctx, &erp.CreateInvoiceRequest{
		SocID: customer.ID, Type: erp.InvoiceStandard,
		Lines: []erp.LineRequest{{ProductID: product.ID, Qty: erp.DecimalFromInt(2)}},
	})
	if err != nil {
		return fmt.Errorf("erp: create invoice: %w", err)
	}
	invoice, err := c.erp.ValidateInvoice(ctx, draft.ID, nil)
	if err != nil {
		return fmt.Errorf("erp: validate invoice: %w", err)
	}
	fmt.Printf("erp: validated invoice %s for %s (total with tax %s)\n", invoice.Ref, customer.Name, invoice.TotalTTC.Round(2))

	// 2. Fulfilment: an order workflow in orch. Its worker runs two
	// activities: pack the parcel, then open a shipping issue in sourcehost.
	project, err := c.sourcehost.CreateProject(ctx, &sourcehost.CreateProjectRequest{
		Name: "quickstart-warehouse-" + suffix, Description: "Parcels to ship",
	})
	if err != nil {
		return fmt.Errorf("sourcehost: create project: %w", err)
	}
	fmt.Printf("sourcehost: created project %s for the warehouse\n", project.PathWithNamespace)

	const taskQueue = "quickstart-orders"
	w, err := orch.NewWorker(c.orch, taskQueue, nil)
	if err != nil {
		return err
	}
	if err := orch.RegisterActivity(w, "PackParcel", func(ctx context.Context, o shipment) (shipment, error) {
		o.Parcel = fmt.Sprintf("PARCEL-%s-%d", strings.Trim(o.Invoice, "()"), o.Qty)
		return o, nil
	}); err != nil {
		return err
	}
	if err := orch.RegisterActivity(w, "OpenShippingIssue", func(ctx context.Context, o shipment) (shipment, error) {
		is, err := c.sourcehost.CreateIssue(ctx, sourcehost.ProjectID(o.ProjectID), &sourcehost.CreateIssueRequest{
			Title:       fmt.Sprintf("Ship invoice %s to %s", o.Invoice, o.Customer),
			Description: fmt.Sprintf("%d x %s in parcel %s", o.Qty, o.Product, o.Parcel),
			Labels:      sourcehost.Labels{"shipping"},
		})
		if err != nil {
			return o, err
		}
		o.IssueIID = is.IID
		return o, nil
	}); err != nil {
		return err
	}
	step := &orch.ActivityOptions{StartToCloseTimeout: 30 * time.Second}
	if err := w.RegisterWorkflow("OrderFulfilment", orch.Sequence(
		orch.ActivityStep{ActivityType: "PackParcel", Options: step},
		orch.ActivityStep{ActivityType: "OpenShippingIssue", Options: step},
	)); err != nil {
		return err
	}
	if err := w.Start(ctx); err != nil {
		return fmt.Errorf("orch: start worker: %w", err)
	}
	defer w.Stop()

	run, err := c.orch.StartWorkflow(ctx, "OrderFulfilment", taskQueue, shipment{
		Invoice: invoice.Ref, Customer: customer.Name, Product: product.Label, Qty: 2, ProjectID: project.ID,
	}, &orch.StartWorkflowOptions{ID: "order-" + invoice.Ref + "-" + suffix})
	if err != nil {
		return fmt.Errorf("orch: start workflow: %w", err)
	}
	fmt.Printf("orch: started workflow %s (run %.8s) on task queue %s\n", run.ID, run.RunID, taskQueue)
	var shipped shipment
	if err := run.Get(ctx, &shipped); err != nil {
		return fmt.Errorf("orch: workflow result: %w", err)
	}
	completed := 0
	for ev, err := range run.History(ctx, nil) {
		if err != nil {
			return fmt.Errorf("orch: history: %w", err)
		}
		if ev.GetEventType() == orchpb.EventType_ActivityTaskCompleted {
			completed++
		}
	}
	fmt.Printf("orch: workflow completed after %d activities: parcel %s, shipping issue #%d\n",
		completed, shipped.Parcel, shipped.IssueIID)

	// 3. The gateway: the shipping issues, as an AI tool would see them.
	list, err := c.mcp.ListIssues(ctx, &mcp.ListIssuesParams{ProjectID: project.ID, Labels: []string{"shipping"}})
	if err != nil {
		return fmt.Errorf("mcp: list_issues: %w", err)
	}
	if len(list.Issues) == 0 {
		return errors.New("mcp: list_issues found no shipping issue")
	}
	for _, is := range list.Issues {
		fmt.Printf("mcp: list_issues → #%d %q [%s]\n", is.IID, is.Title, strings.Join(is.Labels, ", "))
	}

	fmt.Printf("summary: invoice %s (%s) validated for %s; workflow %s shipped parcel %s; %d shipping issue(s) open in %s\n",
		invoice.Ref, invoice.TotalTTC.Round(2), customer.Name, run.ID, shipped.Parcel, len(list.Issues), project.PathWithNamespace)
	return nil
}

// shipment is the order workflow's input, passed from activity to activity
// and returned as its result.
type shipment struct {
	Invoice   string `json:"invoice"`
	Customer  string `json:"customer"`
	Product   string `json:"product"`
	Qty       int    `json:"qty"`
	ProjectID int64  `json:"project_id"`
	Parcel    string `json:"parcel,omitempty"`
	IssueIID  int64  `json:"issue_iid,omitempty"`
}

// connect uses the real services when the environment names them all, and
// the embedded fakes when it names none.
func connect(getenv func(string) string) (*clients, error) {
	settings := []string{"CLOUDAUTH_URL", "CLOUDAUTH_USERNAME", "CLOUDAUTH_PASSWORD", "ERP_URL", "ERP_API_KEY", "ORCH_ADDR", "SOURCEHOST_URL", "SOURCEHOST_TOKEN", "MCP_URL"}
	var missing []string
	for _, k := range settings {
		if getenv(k) == "" {
			missing = append(missing, k)
		}
	}
	if len(missing) == len(settings) {
		f, err := fake.New()
		if err != nil {
			return nil, err
		}
		return &clients{
			// The fake's admin account (cloudauthfake's default password).
			cloudauth: f.Clients.CloudAuth, login: cloudauth.LoginRequest{Username: "admin", Password: "changeme"},
			erp: f.Clients.ERP, orch: f.Clients.Orch, sourcehost: f.Clients.SourceHost, mcp: f.Clients.MCP,
			where: "the embedded fakes (package fake)", close: f.Close,
		}, nil
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("to use real services set all of %s (missing: %s)",
			strings.Join(settings, ", "), strings.Join(missing, ", "))
	}
	a, err := cloudauth.New(getenv("CLOUDAUTH_URL"))
	if err != nil {
		return nil, err
	}
	login := cloudauth.LoginRequest{Username: getenv("CLOUDAUTH_USERNAME"), Password: getenv("CLOUDAUTH_PASSWORD"),
		Tenant: getenv("CLOUDAUTH_TENANT")}
	e, err := erp.New(getenv("ERP_URL"), erp.WithAPIKey(getenv("ERP_API_KEY")))
	if err != nil {
		return nil, err
	}
	var orchOpts []orch.Option
	if tok := getenv("ORCH_TOKEN"); tok != "" {
		orchOpts = append(orchOpts, orch.WithToken(tok))
	}
	if ns := getenv("ORCH_NAMESPACE"); ns != "" {
		orchOpts = append(orchOpts, orch.WithNamespace(ns))
	}
	o, err := orch.Dial(getenv("ORCH_ADDR"), orchOpts...)
	if err != nil {
		return nil, err
	}
	s, err := sourcehost.New(getenv("SOURCEHOST_URL"), sourcehost.WithToken(getenv("SOURCEHOST_TOKEN")))
	if err != nil {
		return nil, err
	}
	m, err := mcp.New(getenv("MCP_URL"), mcp.WithToken(getenv("SOURCEHOST_TOKEN")))
	if err != nil {
		return nil, err
	}
	return &clients{cloudauth: a, login: login, erp: e, orch: o, sourcehost: s, mcp: m, where: "real services from the environment", close: func() {}}, nil
}
