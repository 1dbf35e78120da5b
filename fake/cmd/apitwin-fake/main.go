// Command apitwin-fake serves every apitwin fake on local ports, for people
// not writing Go: point a program, a script, curl or cloudctl at the printed
// URLs and credentials.
//
//	go run ./fake/cmd/apitwin-fake              # default ports, empty fakes
//	go run ./fake/cmd/apitwin-fake --seed demo  # with demo data
//
// Ports (each changeable by flag; 0 picks a free one):
//
//	erp         8080  (or ERP_PORT)  the ERP's web root; API at /api/index.php
//	cloudauth   8090                 the cloud login gateway (/csp/gateway/am/api/…); cloudctl's CLI_URL
//	orch        7233 gRPC, 7243 HTTP the orchestration service (gRPC with reflection; HTTP under /api/v1)
//	sourcehost  8929                 the source-hosting API at /api/v4
//	mcp         8930                 the tool gateway at /mcp, in front of sourcehost
//	control     8999                 the control API (/api/…, /openapi.json) and the web console (/)
//
// ERP_ADMIN_PASSWORD sets the ERP admin's password, as in a deployment.
// --seed loads data: "demo" for the built-in demo, or a JSON or YAML file in
// the shape documented at fake.Seed. --erp-bare-create-ids makes the ERP
// answer a create with the new record's bare id, as most ERP versions do.
//
// It prints one line per service, "<service> url=<url> <credential>=<value>
// …", then "ready", and serves until SIGINT or SIGTERM, when it shuts down
// cleanly. The fakes' shared clock follows the wall clock, so tokens expire
// and pipelines move on as they would for real. A port already in use is an
// error that names it.
//
// The control line, "control url=<url> token=<token>", is where a test
// suite in any language drives the fakes (reset, seed, faults, the clock,
// the request logs; see <url>/openapi.json) with the token as
// "Authorization: Bearer <token>", and where a person opens the console
// (<url>/login?token=<token>). It listens on loopback unless
// --control-host says otherwise; the token is new at every start unless
// APITWIN_CONTROL_TOKEN gives one (at least 16 characters).
// --control-port -1 serves no control API.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake"
	"github.com/apitwin/apitwin/fake/cloudauthfake"
	"github.com/apitwin/apitwin/fake/controlapi"
	"github.com/apitwin/apitwin/fake/erpfake"
	"github.com/apitwin/apitwin/internal/fakekit"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "apitwin-fake:", err)
		}
		os.Exit(2)
	}
}

// run serves until ctx ends.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := flag.NewFlagSet("apitwin-fake", flag.ContinueOnError)
	fs.SetOutput(stderr)
	erpPort := 8080
	if p := getenv("ERP_PORT"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n > 65535 {
			return fmt.Errorf("ERP_PORT %q is not a port number", p)
		}
		erpPort = n
	}
	host := fs.String("host", "127.0.0.1", "address to listen on")
	fs.IntVar(&erpPort, "erp-port", erpPort, "port of the ERP (web root and /api/index.php); default ERP_PORT or 8080")
	cloudauthPort := fs.Int("cloudauth-port", 8090, "port of the cloud login gateway")
	cloudauthPassword := fs.String("cloudauth-admin-password", "changeme", "password of the cloud login gateway's admin user")
	orchGRPCPort := fs.Int("orch-grpc-port", 7233, "port of the orchestration service's gRPC side")
	orchHTTPPort := fs.Int("orch-http-port", 7243, "port of the orchestration service's HTTP/JSON side (/api/v1)")
	sourcehostPort := fs.Int("sourcehost-port", 8929, "port of the source-hosting API (/api/v4)")
	mcpPort := fs.Int("mcp-port", 8930, "port of the mcp tool gateway (/mcp)")
	seedArg := fs.String("seed", "", `data to load: "demo", or a JSON or YAML file (see fake.Seed)`)
	frozen := fs.Bool("frozen-clock", false, "keep the fakes' clock still instead of following the wall clock")
	controlHost := fs.String("control-host", "127.0.0.1", "address the control API and console listen on (loopback unless you mean otherwise: it can reset and fault every fake)")
	controlPort := fs.Int("control-port", 8999, "port of the control API and web console; -1 serves none")
	erpBareIDs := fs.Bool("erp-bare-create-ids", false, "the ERP answers a create with the new record's bare id (12), as most ERP versions do, instead of the record")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: apitwin-fake [flags]\n\nServes every apitwin fake on local ports until interrupted.\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q (flags only; see --help)", fs.Args())
	}

	opts := []fake.Option{
		fake.WithAddrs(fake.Addrs{
			ERP:        hostPort(*host, erpPort),
			CloudAuth:  hostPort(*host, *cloudauthPort),
			OrchGRPC:   hostPort(*host, *orchGRPCPort),
			OrchHTTP:   hostPort(*host, *orchHTTPPort),
			SourceHost: hostPort(*host, *sourcehostPort),
			MCP:        hostPort(*host, *mcpPort),
		}),
		fake.WithERP(erpfake.OptionsFromEnv(getenv)...),
		fake.WithERP(erpOptions(*erpBareIDs)...),
		fake.WithCloudAuth(cloudauthfake.WithAdminPassword(*cloudauthPassword)),
	}
	switch *seedArg {
	case "":
	case "demo":
		opts = append(opts, fake.WithSeed(fake.DemoSeed()))
	default:
		seed, err := fake.LoadSeed(*seedArg)
		if err != nil {
			return err
		}
		opts = append(opts, fake.WithSeed(seed))
	}
	controlToken := getenv("APITWIN_CONTROL_TOKEN")
	if controlToken == "" {
		controlToken = randomToken()
	} else if len(controlToken) < controlapi.MinTokenLength {
		return fmt.Errorf("APITWIN_CONTROL_TOKEN must be at least %d characters", controlapi.MinTokenLength)
	}
	clk := clock.NewFake(time.Now())
	opts = append(opts, fake.WithClock(clk))

	f, err := fake.New(opts...)
	if err != nil {
		return err
	}
	defer f.Close()
	wall := controlapi.NewWallClock(clk, !*frozen)
	controlURL := ""
	if *controlPort >= 0 {
		srv, err := controlapi.New(f, wall, controlToken)
		if err != nil {
			return err
		}
		var ep fakekit.Endpoint
		if controlURL, err = ep.Listen(hostPort(*controlHost, *controlPort), srv); err != nil {
			return fmt.Errorf("control API: %w", err)
		}
		defer ep.Close()
	}

	fmt.Fprintf(stdout, "erp         url=%s api_key=%s admin_user=admin admin_password=%s\n",
		f.ERP.URL(), f.ERP.APIKey(), f.ERP.AdminPassword())
	fmt.Fprintf(stdout, "cloudauth   url=%s username=admin password=%s tenant=%s\n",
		f.CloudAuth.URL(), *cloudauthPassword, f.CloudAuth.DefaultTenant())
	fmt.Fprintf(stdout, "orch        grpc=%s url=%s namespace=default auth=off\n", f.Orch.GRPCAddr(), f.Orch.URL())
	fmt.Fprintf(stdout, "sourcehost  url=%s/api/v4 token=%s\n", f.SourceHost.URL(), f.SourceHost.Token())
	fmt.Fprintf(stdout, "mcp         url=%s/mcp token=%s\n", f.MCP.URL(), f.MCP.Token())
	if controlURL != "" {
		fmt.Fprintf(stdout, "control     url=%s token=%s\n", controlURL, controlToken)
	}
	fmt.Fprintln(stdout, "ready")

	wall.Run(ctx)
	fmt.Fprintln(stderr, "apitwin-fake: shutting down")
	return nil
}

// randomToken is a new control token: 128 random bits in hex.
func randomToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// erpOptions are the ERP fake's options the flags set.
func erpOptions(bareCreateIDs bool) []erpfake.Option {
	if bareCreateIDs {
		return []erpfake.Option{erpfake.WithBareCreateIDs()}
	}
	return nil
}

func hostPort(host string, port int) string {
	return net.JoinHostPort(host, strconv.Itoa(port))
}
