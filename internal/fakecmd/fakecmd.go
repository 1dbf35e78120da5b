// Package fakecmd is the apitwin-fake program (fake/cmd/apitwin-fake, whose
// documentation says what it does), importable so that the tests of other
// programs can run it as a process without building it
// (internal/testtools.Main).
package fakecmd

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake"
	"github.com/apitwin/apitwin/fake/cloudauthfake"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/controlapi"
	"github.com/apitwin/apitwin/fake/erpfake"
	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
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
	sshPort := fs.Int("sourcehost-ssh-port", 22, "the port the source-hosting fake's projects say SSH is on, in ssh_url_to_repo (ssh://git@host:port/… when not 22); the fake serves no SSH")
	erpNative := fs.Bool("erp-native-numbers", false, "the ERP answers numbers as JSON numbers (\"id\":12) instead of strings (\"id\":\"12\"); the control API switches it too (POST /api/erp/settings)")
	erpBareLogin := fs.Bool("erp-bare-login", false, "the ERP's login form takes username and password alone, as the specification shows it, instead of checking the login page's CSRF token and actionlogin=login as the ERP does")
	orchAuth := fs.Bool("orch-auth", false, "turn the orchestration service's authentication on: every call then needs \"Authorization: Bearer <api_key>\", the key printed on its line (it grants orch:* in every namespace)")
	stateDirArg := fs.String("state-dir", "", "keep the credentials, and every fake's data at shutdown and on POST /api/snapshot, in `DIR` (made 0700), and restore them at start")
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
	given := map[string]bool{} // the flags set on the command line
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })

	// With -state-dir, the credentials made at the first start are used
	// again (a flag or variable given now wins, for this run), and the
	// fakes come back as the last snapshot left them.
	var sd *stateDir
	var kept *credentials // nil: none yet
	var saved []byte      // the last snapshot; nil: none yet
	if *stateDirArg != "" {
		var err error
		if sd, kept, saved, err = openStateDir(*stateDirArg); err != nil {
			return err
		}
	}
	var signingKey *rsa.PrivateKey
	switch {
	case kept != nil:
		signingKey = kept.key
		if !given["cloudauth-admin-password"] {
			*cloudauthPassword = kept.CloudAuth.AdminPassword
		}
	case sd != nil:
		// A key of its own, kept with the credentials, so that tokens
		// issued before a restart verify after it.
		k, err := rsa.GenerateKey(rand.Reader, cloudauthfake.KeyBits)
		if err != nil {
			return fmt.Errorf("making the cloudauth signing key: %w", err)
		}
		signingKey = k
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
		fake.WithERP(keptERP(kept)...),
		fake.WithERP(erpfake.OptionsFromEnv(getenv)...), // after the kept ones: ERP_ADMIN_PASSWORD wins
		fake.WithERP(erpOptions(*erpBareIDs, *erpBareLogin, *erpNative)...),
		fake.WithCloudAuth(cloudauthfake.WithAdminPassword(*cloudauthPassword)),
		fake.WithSourceHost(sourcehostfake.WithSSHPort(*sshPort)),
	}
	if signingKey != nil {
		opts = append(opts, fake.WithCloudAuth(cloudauthfake.WithKey(signingKey, "")))
	}
	if kept != nil {
		opts = append(opts, fake.WithSourceHost(sourcehostfake.WithRootToken(kept.SourceHost.Token)))
	}
	restoring := saved != nil
	switch {
	case *seedArg == "":
	case restoring:
		fmt.Fprintf(stderr, "apitwin-fake: --seed %s not loaded: the fakes come back from %s\n", *seedArg, filepath.Join(sd.dir, stateFile))
	case *seedArg == "demo":
		opts = append(opts, fake.WithSeed(fake.DemoSeed()))
	default:
		seed, err := fake.LoadSeed(*seedArg)
		if err != nil {
			return err
		}
		opts = append(opts, fake.WithSeed(seed))
	}
	controlToken := getenv("APITWIN_CONTROL_TOKEN")
	switch {
	case controlToken != "" && len(controlToken) < controlapi.MinTokenLength:
		return fmt.Errorf("APITWIN_CONTROL_TOKEN must be at least %d characters", controlapi.MinTokenLength)
	case controlToken == "" && kept != nil:
		controlToken = kept.Control.Token
	case controlToken == "":
		controlToken = randomToken()
	}
	orchKey := randomToken()
	if kept != nil && kept.Orch.APIKey != "" {
		orchKey = kept.Orch.APIKey
	}
	if *orchAuth {
		opts = append(opts, fake.WithOrch(orchfake.WithAuth()))
	}
	// Restored, the fakes start at the snapshot's time; the clock goes on
	// from there once they hold their data (see resumeAt).
	start, taken := time.Now(), time.Time{}
	if restoring {
		start, taken, _ = fake.SnapshotTimes(saved) // read by openStateDir already
	}
	clk := clock.NewFake(start)
	forced := forcedCloses(stderr)
	opts = append(opts, control.WithClock(clk), fake.WithForcedCloseReport(forced))

	f, err := fake.New(opts...)
	if err != nil {
		return err
	}
	defer f.Close()
	if restoring {
		err := f.Restore(saved)
		saved = nil // it holds the fakes' credentials: not kept longer than needed
		if err != nil {
			return fmt.Errorf("%s: %w (remove it to start with empty fakes)", filepath.Join(sd.dir, stateFile), err)
		}
	}
	if *orchAuth {
		if err := f.Orch.AddAPIKey(orchKey, "", orchfake.PermAll); err != nil {
			return err
		}
	}
	if sd != nil && kept == nil {
		c := &credentials{key: signingKey}
		c.ERP.APIKey, c.ERP.AdminPassword = f.ERP.APIKey(), f.ERP.AdminPassword()
		c.CloudAuth.AdminPassword = *cloudauthPassword
		c.SourceHost.Token, c.Control.Token = f.SourceHost.Token(), controlToken
		c.Orch.APIKey = orchKey
		if err := sd.saveCredentials(c); err != nil {
			return err
		}
	}
	wall := controlapi.NewWallClock(clk, !*frozen)
	if restoring && !*frozen {
		wall.Set(resumeAt(start, taken, time.Now())) // what fell due while down happens now, in order
	}
	controlURL := ""
	var ep fakekit.Endpoint
	if *controlPort >= 0 {
		srv, err := controlapi.New(f, wall, controlToken)
		if err != nil {
			return err
		}
		if sd != nil {
			srv.SetSnapshot(func() (controlapi.SnapshotInfo, error) { return sd.save(f) })
		}
		ep.OnForcedClose = func(fc fakekit.ForcedClose) {
			forced(fake.ForcedClose{Service: "control API", Addr: fc.Addr, Open: fc.Open, Grace: fc.Grace})
		}
		if controlURL, err = ep.Listen(hostPort(*controlHost, *controlPort), srv); err != nil {
			return fmt.Errorf("control API: %w", err)
		}
		defer ep.Close()
	}

	fmt.Fprintf(stdout, "erp         url=%s api_key=%s admin_user=admin admin_password=%s\n",
		f.ERP.URL(), f.ERP.APIKey(), f.ERP.AdminPassword())
	fmt.Fprintf(stdout, "cloudauth   url=%s username=admin password=%s tenant=%s\n",
		f.CloudAuth.URL(), *cloudauthPassword, f.CloudAuth.DefaultTenant())
	if *orchAuth {
		fmt.Fprintf(stdout, "orch        grpc=%s url=%s namespace=default auth=on api_key=%s\n", f.Orch.GRPCAddr(), f.Orch.URL(), orchKey)
	} else {
		fmt.Fprintf(stdout, "orch        grpc=%s url=%s namespace=default auth=off\n", f.Orch.GRPCAddr(), f.Orch.URL())
	}
	fmt.Fprintf(stdout, "sourcehost  url=%s/api/v4 token=%s\n", f.SourceHost.URL(), f.SourceHost.Token())
	fmt.Fprintf(stdout, "mcp         url=%s/mcp token=%s\n", f.MCP.URL(), f.MCP.Token())
	if controlURL != "" {
		fmt.Fprintf(stdout, "control     url=%s token=%s\n", controlURL, controlToken)
	}
	fmt.Fprintln(stdout, "ready")

	wall.Run(ctx)
	fmt.Fprintln(stderr, "apitwin-fake: shutting down")
	if sd != nil {
		// Once nothing serves, so that what the last requests did is in.
		ep.Close()
		f.Close()
		info, err := sd.save(f)
		if err != nil {
			return fmt.Errorf("saving the fakes' state: %w", err)
		}
		fmt.Fprintf(stderr, "apitwin-fake: state saved to %s\n", info.Path)
	}
	return nil
}

// keptERP are the ERP's options for credentials kept in a -state-dir.
func keptERP(kept *credentials) []erpfake.Option {
	if kept == nil {
		return nil
	}
	return []erpfake.Option{erpfake.WithAdminAPIKey(kept.ERP.APIKey), erpfake.WithAdminPassword(kept.ERP.AdminPassword)}
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
func erpOptions(bareCreateIDs, bareLogin, nativeNumbers bool) []erpfake.Option {
	var opts []erpfake.Option
	if nativeNumbers {
		opts = append(opts, erpfake.WithNativeNumbers())
	}
	if bareCreateIDs {
		opts = append(opts, erpfake.WithBareCreateIDs())
	}
	if bareLogin {
		opts = append(opts, erpfake.WithBareLogin())
	}
	return opts
}

func hostPort(host string, port int) string {
	return net.JoinHostPort(host, strconv.Itoa(port))
}
