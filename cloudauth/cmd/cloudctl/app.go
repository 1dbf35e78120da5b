package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/internal/version"
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

// Exit statuses, as "cloudctl --help" documents them.
const (
	exitOK               = 0 // done
	exitFailure          = 1 // an error: the server refused, could not be reached, a file could not be read, …
	exitUsage            = 2 // a command line that cannot be run as written
	exitNotAuthenticated = 4 // no usable token: none stored, expired, or refused by the server
	// exitInterrupted is 128 + SIGINT, as shells, gh and kubectl report a
	// command ended by Ctrl-C.
	exitInterrupted = 130
)

// notAuthenticated ends a command that needs a usable token and has none,
// after it said why.
var notAuthenticated = &exitError{code: exitNotAuthenticated}

// app is one run of cloudctl.
type app struct {
	env     Env
	in      *bufio.Reader
	verbose bool
	output  string        // --output: "text" or "json"
	timeout time.Duration // --timeout; 0 leaves Env.Timeout or the library's default
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
	cmd, err := root.ExecuteContextC(ctx)
	switch {
	case err == nil:
		return exitOK
	case ctx.Err() != nil:
		// Ctrl-C (main's context is cancelled by SIGINT alone): whatever
		// the command was waiting on failed because of it, and saying so
		// is all there is to say. The command wrote nothing after the
		// context ended.
		fmt.Fprintln(a.env.Stderr, "interrupted")
		if a.verbose {
			fmt.Fprintln(a.env.Stderr, "  cause:", err)
		}
		return exitInterrupted
	}
	return a.report(cmd, err)
}

// report prints an error as cloudctl shows errors (its text alone, the
// specification's where it has one; more with --verbose) and returns the
// exit status. A usage error points at the help of the command it is
// about.
func (a *app) report(cmd *cobra.Command, err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			a.printErr(ee.err)
		}
		return ee.code
	}
	var ue *usageError
	if errors.As(err, &ue) || isCobraUsage(err) {
		help := "cloudctl --help"
		if cmd != nil {
			help = cmd.CommandPath() + " --help"
		}
		fmt.Fprintf(a.env.Stderr, "Error: %v\nRun '%s' for usage.\n", err, help)
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

// cmdName is a command's path without the program's name ("profile use").
func cmdName(cmd *cobra.Command) string {
	return strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
}

// quoted lists arguments as the user typed them, each quoted.
func quoted(argv []string) string {
	q := make([]string, len(argv))
	for i, s := range argv {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, " ")
}

// noArgs refuses arguments to a command that takes none.
func noArgs(cmd *cobra.Command, argv []string) error {
	if len(argv) > 0 {
		return &usageError{fmt.Errorf("%s takes no arguments, not %s", cmdName(cmd), quoted(argv))}
	}
	return nil
}

// subcommandOnly refuses a word that is none of a group command's
// subcommands ("cloudctl auth bogus"), which cobra would otherwise take as
// an argument of the group and answer with its help.
func subcommandOnly(cmd *cobra.Command, argv []string) error {
	if len(argv) > 0 {
		return &usageError{fmt.Errorf("unknown command %q for %q", argv[0], cmd.CommandPath())}
	}
	return nil
}

// oneArg wants exactly one argument, described by what ("a profile
// name").
func oneArg(what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, argv []string) error {
		switch {
		case len(argv) == 0:
			return &usageError{fmt.Errorf("%s needs %s", cmdName(cmd), what)}
		case len(argv) > 1:
			return &usageError{fmt.Errorf("%s takes 1 argument (%s), not %d: %s", cmdName(cmd),
				strings.Replace(what, "a ", "the ", 1), len(argv), quoted(argv))}
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
  CLI_TENANT      tenant (none: the server's default)
  CLI_USERNAME    username
  CLI_PROFILE     profile to use instead of the current one
  CLI_VERIFY_SSL  "false" turns certificate verification off
  CLI_CA_CERT     PEM file of certificate authorities to trust
  CLI_TOKEN       token to use instead of a stored one

Commands that show something (auth status, auth whoami, auth token,
profile list, profile current) print JSON with --output json.

Exit status:

  0    done
  1    an error (the server refused or could not be reached, a file could
       not be read or written, ...)
  2    a command line that cannot be run as written
  4    not authenticated: no token, an expired one, or one the server
       refuses (auth status, auth token, auth whoami)
  130  interrupted (Ctrl-C) while waiting on the server or at a prompt;
       nothing was stored`,
		Version:       version.Version,
		SilenceErrors: true,
		SilenceUsage:  true,
		// No Args: cobra's own check says "unknown command" of a word
		// that is not a subcommand.
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if a.output != "text" && a.output != "json" {
				return &usageError{fmt.Errorf("--output %q: want text or json", a.output)}
			}
			if a.timeout < 0 {
				return &usageError{fmt.Errorf("--timeout %v: want a positive duration such as 10s", a.timeout)}
			}
			return a.setup()
		},
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
	}
	root.SetVersionTemplate("cloudctl version {{.Version}}\n")
	root.SetIn(a.env.Stdin)
	root.SetOut(a.env.Stdout)
	root.SetErr(a.env.Stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err} })
	pf := root.PersistentFlags()
	pf.BoolVarP(&a.verbose, "verbose", "v", false, "say more: token expiry, where settings came from, error causes, requests")
	pf.BoolVar(&a.flags.NoVerifySSL, "no-verify-ssl", false, "do not verify the server's TLS certificate (insecure)")
	pf.StringVar(&a.flags.Profile, "profile", "", "profile to use (default: $CLI_PROFILE, else the current profile)")
	pf.StringVar(&a.flags.CACert, "ca-cert", "", "PEM file of certificate authorities to trust (default: $CLI_CA_CERT)")
	pf.StringVarP(&a.output, "output", "o", "text", "output format of the commands that show something: text or json")
	root.Flags().Bool("version", false, "print cloudctl's version")
	pf.DurationVar(&a.timeout, "timeout", 0, "how long each call to the server may take, retries included (default 30s)")
	_ = root.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"text", "json"}, cobra.ShellCompDirectiveNoFileComp))
	_ = root.RegisterFlagCompletionFunc("profile", a.completeProfiles)
	root.AddCommand(a.authCommand(), a.profileCommand(), a.apiCommand(), a.completionCommand())
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
	switch {
	case a.timeout > 0:
		opts = append(opts, cloudauth.WithTimeout(a.timeout))
	case a.env.Timeout > 0:
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

// json reports whether --output json asked for JSON.
func (a *app) json() bool { return a.output == "json" }

// printJSON writes v as indented JSON on standard output.
func (a *app) printJSON(v any) error {
	enc := json.NewEncoder(a.env.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func (a *app) warnf(format string, v ...any) {
	fmt.Fprintf(a.env.Stderr, "Warning: "+format+"\n", v...)
}

func (a *app) debugf(format string, v ...any) {
	if a.verbose {
		fmt.Fprintf(a.env.Stderr, "  "+format+"\n", v...)
	}
}
