// Command quickstart runs one realistic story across the apitwin SDK and
// prints each step: an operator logs in through the cloud login gateway, an
// order is invoiced in the ERP, shipped through a task in the source-hosting
// service, and the shipping issue is read back through the mcp tool gateway.
//
// With no flags and no setup it starts the embedded fakes (package fake) on
// loopback ports:
//
//	go run ./examples/quickstart
//
// To run the same story against real services, set all of CLOUDAUTH_URL,
// CLOUDAUTH_USERNAME and CLOUDAUTH_PASSWORD (CLOUDAUTH_TENANT is optional),
// ERP_URL and ERP_API_KEY, SOURCEHOST_URL and SOURCEHOST_TOKEN (a token with
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

	// 2. Shipping: a project for the warehouse and an issue for the parcel.
	project, err := c.sourcehost.CreateProject(ctx, &sourcehost.CreateProjectRequest{
		Name: "quickstart-warehouse-" + suffix, Description: "Parcels to ship",
	})
	if err != nil {
		return fmt.Errorf("sourcehost: create project: %w", err)
	}
	issue, err := c.sourcehost.CreateIssue(ctx, sourcehost.ProjectID(project.ID), &sourcehost.CreateIssueRequest{
		Title:       fmt.Sprintf("Ship invoice %s to %s", invoice.Ref, customer.Name),
		Description: fmt.Sprintf("2 x %s", product.Label),
		Labels:      sourcehost.Labels{"shipping"},
	})
	if err != nil {
		return fmt.Errorf("sourcehost: create issue: %w", err)
	}
	fmt.Printf("sourcehost: opened shipping issue #%d in %s\n", issue.IID, project.PathWithNamespace)

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

	fmt.Printf("summary: invoice %s (%s) validated for %s; %d shipping issue(s) open in %s\n",
		invoice.Ref, invoice.TotalTTC.Round(2), customer.Name, len(list.Issues), project.PathWithNamespace)
	return nil
}

// connect uses the real services when the environment names them all, and
// the embedded fakes when it names none.
func connect(getenv func(string) string) (*clients, error) {
	settings := []string{"CLOUDAUTH_URL", "CLOUDAUTH_USERNAME", "CLOUDAUTH_PASSWORD", "ERP_URL", "ERP_API_KEY", "SOURCEHOST_URL", "SOURCEHOST_TOKEN", "MCP_URL"}
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
			erp: f.Clients.ERP, sourcehost: f.Clients.SourceHost, mcp: f.Clients.MCP,
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
	s, err := sourcehost.New(getenv("SOURCEHOST_URL"), sourcehost.WithToken(getenv("SOURCEHOST_TOKEN")))
	if err != nil {
		return nil, err
	}
	m, err := mcp.New(getenv("MCP_URL"), mcp.WithToken(getenv("SOURCEHOST_TOKEN")))
	if err != nil {
		return nil, err
	}
	return &clients{cloudauth: a, login: login, erp: e, sourcehost: s, mcp: m, where: "real services from the environment", close: func() {}}, nil
}
