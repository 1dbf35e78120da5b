// Package fakecmd is the apitwin-fake program (fake/cmd/apitwin-fake, whose
// documentation says what it does), importable so that the tests of other
// programs can run it as a process without building it
// (internal/testtools.Main).
package fakecmd

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
	"sync"
	"syscall"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake"
	"github.com/apitwin/apitwin/fake/cloudauthfake"
	"github.com/apitwin/apitwin/fake/controlapi"
	"github.com/apitwin/apitwin/fake/erpfake"
	"github.com/apitwin/apitwin/internal/fakekit"
)

// Main is the program's main: it serves until SIGINT or SIGTERM.
func Main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := Run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "apitwin-fake:", err)
		}
		os.Exit(2)
	}
}

// Run is the program with its arguments, output and environment given:
// it serves until ctx ends.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
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
	forced := forcedCloses(stderr)
	opts = append(opts, fake.WithClock(clk), fake.WithForcedCloseReport(forced))

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
		ep := fakekit.Endpoint{OnForcedClose: func(fc fakekit.ForcedClose) {
			forced(fake.ForcedClose{Service: "control API", Addr: fc.Addr, Open: fc.Open, Grace: fc.Grace})
		}}
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

// forcedCloses reports, one line each on stderr, the servers the shutdown
// had to stop by force: a request held one past its grace, so the program
// did not exit as soon as it could. Several fakes stop at once, hence the
// lock.
func forcedCloses(stderr io.Writer) func(fake.ForcedClose) {
	var mu sync.Mutex
	return func(fc fake.ForcedClose) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(stderr, "apitwin-fake: shutdown: %s at %s: %d connections still busy after %v, closed\n",
			fc.Service, fc.Addr, fc.Open, fc.Grace)
	}
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
