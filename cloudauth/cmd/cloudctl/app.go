package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/cloudauth"
)

// keyringService names cloudctl's keyring entries.
const keyringService = "cloudctl"

// Env is everything cloudctl takes from the world, so that tests can run
// its commands in-process with their own.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Getenv reads an environment variable ("" when unset).
	Getenv func(string) string
	// ConfigDir holds the configuration file and the fallback token files;
	// "" means cloudauth.DefaultConfigDir().
	ConfigDir string
	// Store keeps tokens; nil means the operating system's keyring with
	// files in ConfigDir/tokens as the fallback.
	Store cloudauth.TokenStore
	// Clock tells the time of token expiry and retry waits; nil means the
	// wall clock.
	Clock clock.Clock
	// Timeout bounds each call to the server; 0 means cloudauth's default.
	Timeout time.Duration
}

// exitError ends a command with a status, after the command has said what
// it had to.
type exitError struct {
	code int
	err  error // printed unless nil
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageError is a command line that cannot be run as written.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// Exit statuses.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// app is one run of cloudctl.
type app struct {
	env     Env
	in      *bufio.Reader
	verbose bool
	flags   cloudauth.Overrides
	dir     string
	store   cloudauth.TokenStore
}

// run executes cloudctl with args and returns its exit status.
func run(ctx context.Context, args []string, env Env) int {
	if env.Stdin == nil {
		env.Stdin = strings.NewReader("")
	}
	if env.Stdout == nil {
		env.Stdout = io.Discard
	}
	if env.Stderr == nil {
		env.Stderr = io.Discard
	}
	if env.Getenv == nil {
		env.Getenv = func(string) string { return "" }
	}
	if env.Clock == nil {
		env.Clock = clock.Real()
	}
	a := &app{env: env, in: bufio.NewReader(env.Stdin)}
	root := a.rootCommand()
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	return a.report(err)
}

// report prints an error as cloudctl shows errors (its text alone, the
// specification's where it has one; more with --verbose) and returns the
// exit status.
func (a *app) report(err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			a.printErr(ee.err)
		}
		return ee.code
	}
	var ue *usageError
	if errors.As(err, &ue) || isCobraUsage(err) {
		fmt.Fprintf(a.env.Stderr, "Error: %v\nRun 'cloudctl --help' for usage.\n", err)
		return exitUsage
	}
	a.printErr(err)
	return exitFailure
}

func (a *app) printErr(err error) {
	fmt.Fprintln(a.env.Stderr, err.Error())
	if !a.verbose {
		return
	}
	var ce *cloudauth.Error
	if errors.As(err, &ce) {
		fmt.Fprintln(a.env.Stderr, "  cause:", ce.Detail())
	}
}

// isCobraUsage recognises the errors cobra makes of a command line it
// cannot parse.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command ", "unknown flag", "unknown shorthand flag", "flag needs an argument", "invalid argument ", "required flag(s) "} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// args wraps a cobra argument check so its failure is a usage error.
func args(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, a []string) error {
		if err := check(cmd, a); err != nil {
			return &usageError{err}
		}
		return nil
	}
}

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "cloudctl",
		Short: "Log in to a cloud-automation platform and manage connection profiles",
		Long: `cloudctl logs in to a cloud-automation platform's login gateway, keeps the
token in the operating system's keyring (a file readable only by you when
there is none), and manages named connection profiles.

Settings come from flags, then the environment, then the profile in use,
then defaults:

  CLI_URL         server URL
  CLI_TENANT      tenant (default ` + cloudauth.DefaultTenant + `)
  CLI_USERNAME    username
  CLI_PROFILE     profile to use instead of the current one
  CLI_VERIFY_SSL  "false" turns certificate verification off
  CLI_CA_CERT     PEM file of certificate authorities to trust
  CLI_TOKEN       token to use instead of a stored one`,
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          args(cobra.NoArgs),
		RunE:          func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return a.setup()
		},
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
	}
	root.SetIn(a.env.Stdin)
	root.SetOut(a.env.Stdout)
	root.SetErr(a.env.Stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err} })
	pf := root.PersistentFlags()
	pf.BoolVarP(&a.verbose, "verbose", "v", false, "say more: token expiry, where settings came from, error causes, requests")
	pf.BoolVar(&a.flags.NoVerifySSL, "no-verify-ssl", false, "do not verify the server's TLS certificate (insecure)")
	pf.StringVar(&a.flags.Profile, "profile", "", "profile to use (default: $CLI_PROFILE, else the current profile)")
	pf.StringVar(&a.flags.CACert, "ca-cert", "", "PEM file of certificate authorities to trust (default: $CLI_CA_CERT)")
	root.AddCommand(a.authCommand(), a.profileCommand())
	return root
}

// setup finds the configuration directory and the token store.
func (a *app) setup() error {
	a.dir = a.env.ConfigDir
	if a.dir == "" {
		dir, err := cloudauth.DefaultConfigDir()
		if err != nil {
			return err
		}
		a.dir = dir
	}
	a.store = a.env.Store
	if a.store == nil {
		a.store = cloudauth.NewStore(keyringService, filepath.Join(a.dir, "tokens"), nil)
	}
	return nil
}

// settings loads the configuration and resolves the settings.
func (a *app) settings() (*cloudauth.Config, *cloudauth.Settings, error) {
	cfg, err := cloudauth.LoadConfig(a.dir)
	if err != nil {
		return nil, nil, err
	}
	s, err := cloudauth.ResolveSettings(a.flags, a.env.Getenv, cfg)
	if err != nil {
		return nil, nil, err
	}
	if a.verbose {
		for _, k := range []string{"profile", "url", "tenant", "username", "verify-ssl", "ca-cert", "token"} {
			if src, ok := s.Sources[k]; ok {
				a.debugf("%s from %s", k, src)
			}
		}
	}
	return cfg, s, nil
}

// client builds a client for the settings.
func (a *app) client(s *cloudauth.Settings) (*cloudauth.Client, error) {
	if s.URL == "" {
		return nil, errors.New("no server URL: give --url, set " + cloudauth.EnvURL + ", or use a profile")
	}
	opts := append(s.ClientOptions(), cloudauth.WithClock(a.env.Clock), cloudauth.WithUserAgent("cloudctl"),
		// A person is waiting: one retry after a second, not the library's
		// three over seven seconds, before saying the server is unreachable.
		cloudauth.WithRetry(cloudauth.RetryPolicy{MaxRetries: 1}))
	if a.env.Timeout > 0 {
		opts = append(opts, cloudauth.WithTimeout(a.env.Timeout))
	}
	if a.verbose {
		opts = append(opts, cloudauth.WithLogger(slog.New(slog.NewTextHandler(a.env.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	}
	if !s.VerifySSL {
		fmt.Fprintln(a.env.Stderr, "Warning: TLS certificate verification is off")
	}
	return cloudauth.New(s.URL, opts...)
}

func (a *app) printf(format string, v ...any) { fmt.Fprintf(a.env.Stdout, format+"\n", v...) }

func (a *app) warnf(format string, v ...any) {
	fmt.Fprintf(a.env.Stderr, "Warning: "+format+"\n", v...)
}

func (a *app) debugf(format string, v ...any) {
	if a.verbose {
		fmt.Fprintf(a.env.Stderr, "  "+format+"\n", v...)
	}
}
