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
package main

import (
	"context"
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
	"github.com/apitwin/apitwin/fake/erpfake"
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
	clk := clock.NewFake(time.Now())
	opts = append(opts, fake.WithClock(clk))

	f, err := fake.New(opts...)
	if err != nil {
		return err
	}
	defer f.Close()

	fmt.Fprintf(stdout, "erp         url=%s api_key=%s admin_user=admin admin_password=%s\n",
		f.ERP.URL(), f.ERP.APIKey(), f.ERP.AdminPassword())
	fmt.Fprintf(stdout, "cloudauth   url=%s username=admin password=%s tenant=%s\n",
		f.CloudAuth.URL(), *cloudauthPassword, f.CloudAuth.DefaultTenant())
	fmt.Fprintf(stdout, "orch        grpc=%s url=%s namespace=default auth=off\n", f.Orch.GRPCAddr(), f.Orch.URL())
	fmt.Fprintf(stdout, "sourcehost  url=%s/api/v4 token=%s\n", f.SourceHost.URL(), f.SourceHost.Token())
	fmt.Fprintf(stdout, "mcp         url=%s/mcp token=%s\n", f.MCP.URL(), f.MCP.Token())
	fmt.Fprintln(stdout, "ready")

	if *frozen {
		<-ctx.Done()
	} else {
		followWallClock(ctx, clk)
	}
	fmt.Fprintln(stderr, "apitwin-fake: shutting down")
	return nil
}

// followWallClock moves the fakes' clock to the wall clock's time every
// tenth of a second, so that whatever is due (expiries, timers, pipeline
// steps) happens at about the time it would for real, until ctx ends.
func followWallClock(ctx context.Context, clk *clock.Fake) {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			if now.After(clk.Now()) {
				clk.Set(now)
			}
		}
	}
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
