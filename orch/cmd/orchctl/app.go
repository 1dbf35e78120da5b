package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/apitwin/apitwin/internal/credential"
	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/internal/version"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// The environment variables orchctl reads.
const (
	EnvAddress   = "ORCH_ADDR"
	EnvNamespace = "ORCH_NAMESPACE"
	EnvToken     = "ORCH_TOKEN"
	EnvTLS       = "ORCH_TLS"
	EnvCACert    = "ORCH_CA_CERT"
)

// DefaultAddress is the service's usual gRPC port on this machine.
const DefaultAddress = "127.0.0.1:7233"

// Env is everything orchctl takes from the world, so tests can run its
// commands in-process.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Getenv reads an environment variable ("" when unset).
	Getenv func(string) string
	// ClientOptions are added to the client's (a test's fake clock).
	ClientOptions []orch.Option
}

// Exit statuses, as "orchctl --help" documents them.
const (
	exitOK               = 0
	exitFailure          = 1
	exitUsage            = 2
	exitNotCompleted     = 3
	exitNotAuthenticated = 4
)

// exitError ends a command with a status after printing err (if any).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageError is a command line that cannot be run as written.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usagef(format string, v ...any) error { return &usageError{fmt.Errorf(format, v...)} }

// app is one run of orchctl.
type app struct {
	env       Env
	address   string
	namespace string
	token     string
	tlsMode   string
	caCert    string
	output    string
	timeout   time.Duration
	verbose   bool

	client *orch.Client
}

// run executes orchctl with args and returns its exit status.
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
	a := &app{env: env}
	defer func() {
		if a.client != nil {
			_ = a.client.Close()
		}
	}()
	root := a.rootCommand()
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitOK
	}
	return a.report(cmd, err)
}

// report prints an error and returns the exit status it means.
func (a *app) report(cmd *cobra.Command, err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(a.env.Stderr, "Error:", ee.err)
		}
		return ee.code
	}
	var ue *usageError
	if errors.As(err, &ue) || isCobraUsage(err) {
		help := "orchctl --help"
		if cmd != nil {
			help = cmd.CommandPath() + " --help"
		}
		fmt.Fprintf(a.env.Stderr, "Error: %v\nRun '%s' for usage.\n", err, help)
		return exitUsage
	}
	fmt.Fprintln(a.env.Stderr, "Error:", err)
	if a.verbose {
		var oe *orch.Error
		if errors.As(err, &oe) {
			fmt.Fprintf(a.env.Stderr, "  code %s, operation %s\n", oe.Code, oe.Operation)
			for _, d := range oe.Details {
				fmt.Fprintf(a.env.Stderr, "  detail %s %s: %s\n", d.GetType(), d.GetField(), d.GetDescription())
			}
		}
	}
	if errors.Is(err, orch.ErrUnauthenticated) || errors.Is(err, orch.ErrPermissionDenied) {
		return exitNotAuthenticated
	}
	return exitFailure
}

func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command ", "unknown flag", "unknown shorthand flag", "flag needs an argument", "invalid argument ", "required flag(s) "} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "orchctl",
		Short: "Run and inspect workflows of a workflow-orchestration service",
		Long: `orchctl starts, lists, describes, follows, signals, queries, cancels and
terminates workflows, completes or fails their activities from outside
(activity), manages namespaces and task queues, and administers
search attributes (operator search-attribute), of a
workflow-orchestration service: over gRPC to a host:port address, over
HTTP/JSON to an http:// or https:// URL.

Settings come from flags, then the environment, then defaults:

  ORCH_ADDR       --address    host:port (gRPC) or URL (HTTP); default ` + DefaultAddress + `
  ORCH_NAMESPACE  --namespace  namespace; default "default"
  ORCH_TOKEN      --token      bearer credential (a JWT or an API key)
  ORCH_TLS        --tls        auto (TLS except to loopback), on, off
  ORCH_CA_CERT    --ca-cert    PEM file of certificate authorities to trust

--output json prints what the service answered, as its HTTP/JSON API
writes it (snake_case names, enums by name).

Exit status:

  0  done
  1  an error (the server refused or could not be reached, ...)
  2  a command line that cannot be run as written
  3  the workflow whose result was asked for did not complete
  4  not authenticated, or not allowed`,
		Version:       version.Version,
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE:          func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			switch cmd.Name() {
			case "completion", "help", cobra.ShellCompRequestCmd, cobra.ShellCompNoDescRequestCmd:
				return nil // they call no service: the settings do not matter
			}
			return a.checkFlags()
		},
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
	}
	root.SetVersionTemplate("orchctl version {{.Version}}\n")
	root.SetIn(a.env.Stdin)
	root.SetOut(a.env.Stdout)
	root.SetErr(a.env.Stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err} })
	pf := root.PersistentFlags()
	pf.StringVar(&a.address, "address", "", "host:port of the gRPC API, or http(s):// URL of the HTTP API (default $"+EnvAddress+", else "+DefaultAddress+")")
	pf.StringVarP(&a.namespace, "namespace", "n", "", "namespace (default $"+EnvNamespace+`, else "default")`)
	pf.StringVar(&a.token, "token", "", "bearer credential (default $"+EnvToken+"; prefer the variable)")
	pf.StringVar(&a.tlsMode, "tls", "", "TLS for gRPC: auto, on or off (default $"+EnvTLS+", else auto: TLS except to loopback)")
	pf.StringVar(&a.caCert, "ca-cert", "", "PEM file of certificate authorities to trust (default $"+EnvCACert+")")
	pf.StringVarP(&a.output, "output", "o", "table", "output format: table or json")
	pf.DurationVar(&a.timeout, "timeout", 30*time.Second, "how long each call may take (waits for results and followed histories excepted)")
	pf.BoolVarP(&a.verbose, "verbose", "v", false, "say more: the connection, error codes and details")
	_ = root.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"table", "json"}, cobra.ShellCompDirectiveNoFileComp))
	_ = root.RegisterFlagCompletionFunc("tls", cobra.FixedCompletions([]string{"auto", "on", "off"}, cobra.ShellCompDirectiveNoFileComp))
	root.AddCommand(a.workflowCommand(), a.namespaceCommand(), a.taskQueueCommand(), a.completionCommand())
	root.AddCommand(a.operatorCommand())
	root.AddCommand(a.activityCommand())
	root.AddCommand(a.scheduleCommand())
	return root
}

// checkFlags resolves the settings from flags and the environment.
func (a *app) checkFlags() error {
	if a.output != "table" && a.output != "json" {
		return usagef("--output %q: want table or json", a.output)
	}
	if a.timeout <= 0 {
		return usagef("--timeout %v: want a positive duration such as 10s", a.timeout)
	}
	pick := func(flag *string, env, def string) {
		if *flag == "" {
			*flag = a.env.Getenv(env)
		}
		if *flag == "" {
			*flag = def
		}
	}
	pick(&a.address, EnvAddress, DefaultAddress)
	pick(&a.namespace, EnvNamespace, "default")
	pick(&a.token, EnvToken, "")
	pick(&a.tlsMode, EnvTLS, "auto")
	pick(&a.caCert, EnvCACert, "")
	switch a.tlsMode {
	case "auto", "on", "off":
	default:
		return usagef("--tls %q: want auto, on or off", a.tlsMode)
	}
	return nil
}

// connect returns the client of the settings, made once.
func (a *app) connect() (*orch.Client, error) {
	if a.client != nil {
		return a.client, nil
	}
	opts := []orch.Option{orch.WithNamespace(a.namespace), orch.WithUserAgent("orchctl/" + version.Version),
		// A person is waiting: one retry, not three.
		orch.WithRetry(orch.RetryPolicy{MaxRetries: 1})}
	if a.token != "" {
		opts = append(opts, orch.WithToken(a.token))
	}
	if a.caCert != "" {
		opts = append(opts, orch.WithCAFile(a.caCert))
	}
	opts = append(opts, a.env.ClientOptions...)
	var c *orch.Client
	var err error
	if strings.HasPrefix(a.address, "http://") || strings.HasPrefix(a.address, "https://") {
		shown := "[unparsable URL, not shown]"
		if u, err := url.Parse(a.address); err == nil {
			shown = credential.RedactURL(u) // no user information (a password, a token as the user)
		}
		a.debugf("HTTP/JSON API at %s, namespace %s", shown, a.namespace)
		c, err = orch.NewHTTP(a.address, opts...)
	} else {
		host, _, serr := net.SplitHostPort(a.address)
		if serr != nil {
			return nil, usagef("--address %q: want host:port (gRPC) or an http(s):// URL", a.address)
		}
		plaintext := a.tlsMode == "off" || (a.tlsMode == "auto" && loopback(host))
		if plaintext {
			opts = append(opts, orch.WithInsecure())
		}
		a.debugf("gRPC API at %s (TLS %v), namespace %s", a.address, !plaintext, a.namespace)
		c, err = orch.Dial(a.address, opts...)
	}
	if err != nil {
		return nil, err
	}
	a.client = c
	return c, nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// call is the context of one call to the service: --timeout.
func (a *app) call(cmd *cobra.Command) (context.Context, context.CancelFunc) {
	return context.WithTimeout(cmd.Context(), a.timeout)
}

func (a *app) debugf(format string, v ...any) {
	if a.verbose {
		fmt.Fprintf(a.env.Stderr, "  "+format+"\n", v...)
	}
}

func (a *app) printf(format string, v ...any) { fmt.Fprintf(a.env.Stdout, format+"\n", v...) }

func (a *app) json() bool { return a.output == "json" }

// printJSON writes messages and values as indented JSON: a proto message
// as the HTTP/JSON API writes it, a slice of messages as an array.
func (a *app) printJSON(v any) error {
	raw, err := toJSON(v)
	if err != nil {
		return err
	}
	var buf strings.Builder
	if err := indent(&buf, raw); err != nil {
		return err
	}
	_, err = fmt.Fprintln(a.env.Stdout, buf.String())
	return err
}

func toJSON(v any) (json.RawMessage, error) {
	switch v := v.(type) {
	case proto.Message:
		return orchwire.MarshalJSON.Marshal(v)
	case json.RawMessage:
		return v, nil
	}
	return json.Marshal(v)
}

// messages turns a list of messages into raw JSON values for printJSON.
func messages[M proto.Message](list []M) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, 0, len(list))
	for _, m := range list {
		raw, err := orchwire.MarshalJSON.Marshal(m)
		if err != nil {
			return nil, err
		}
		out = append(out, raw)
	}
	return out, nil
}

// indent reformats raw as it is, numbers' digits, escapes and keys' order
// kept (a round trip through any made numbers float64 and sorted keys).
func indent(w io.StringWriter, raw []byte) error {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return err
	}
	_, err := w.WriteString(b.String())
	return err
}

// table writes rows aligned in columns, the first row being the header.
func (a *app) table(rows [][]string) {
	tw := tabwriter.NewWriter(a.env.Stdout, 0, 0, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	_ = tw.Flush()
}

// fields writes "Name  value" lines.
func (a *app) fields(rows [][2]string) {
	tw := tabwriter.NewWriter(a.env.Stdout, 0, 0, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\n", r[0], r[1])
	}
	_ = tw.Flush()
}

// when formats a timestamp, "" for none.
func when(ts *timestamppb.Timestamp) string {
	if ts == nil || (ts.GetSeconds() == 0 && ts.GetNanos() == 0) {
		return ""
	}
	return ts.AsTime().UTC().Format(time.RFC3339)
}

// payloadText shows a payload as a person reads it: its JSON, null, or
// its bytes in base64 with their encoding.
func payloadText(p *orchpb.Payload) string {
	if p == nil {
		return ""
	}
	switch enc := string(p.GetMetadata()[orch.MetadataEncoding]); enc {
	case orch.EncodingNull:
		return "null"
	case orch.EncodingJSON, "":
		if json.Valid(p.GetData()) {
			var buf bytes.Buffer
			if err := json.Compact(&buf, p.GetData()); err == nil {
				return buf.String()
			}
		}
		return strconv.Quote(string(p.GetData()))
	default:
		return enc + ":" + base64.StdEncoding.EncodeToString(p.GetData())
	}
}

func payloadsText(ps *orchpb.Payloads) string {
	var parts []string
	for _, p := range ps.GetPayloads() {
		parts = append(parts, payloadText(p))
	}
	return strings.Join(parts, ", ")
}

// inputValue reads a JSON value from the flag --<flag> (text) or
// --<flag>-file (file; "-" is standard input); nil when neither is given.
// Its errors name the flags.
func (a *app) inputValue(flag, text, file string) (any, error) {
	if text != "" && file != "" {
		return nil, usagef("give --%s or --%s-file, not both", flag, flag)
	}
	var data []byte
	switch {
	case text != "":
		data = []byte(text)
	case file == "-":
		b, err := io.ReadAll(a.env.Stdin)
		if err != nil {
			return nil, err
		}
		data = b
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		data = b
	default:
		return nil, nil
	}
	if !json.Valid(data) {
		return nil, usagef("the input is not JSON (--%s): %.80q (a string needs its quotes: '\"text\"')", flag, string(data))
	}
	var buf bytes.Buffer
	_ = json.Compact(&buf, data)
	return json.RawMessage(buf.String()), nil
}

// cmdName is a command's path without the program's name.
func cmdName(cmd *cobra.Command) string {
	return strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
}

// exactArgs wants n arguments, described by what.
func exactArgs(what ...string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, argv []string) error {
		if len(argv) != len(what) {
			if len(argv) < len(what) {
				return usagef("%s needs %s", cmdName(cmd), strings.Join(what[len(argv):], " and "))
			}
			return usagef("%s takes %d argument(s) (%s), not %d: %q", cmdName(cmd), len(what), strings.Join(what, ", "), len(argv), argv)
		}
		for i, s := range argv {
			if strings.TrimSpace(s) == "" {
				return usagef("%s: %s is empty", cmdName(cmd), what[i])
			}
		}
		return nil
	}
}

func noArgs(cmd *cobra.Command, argv []string) error {
	if len(argv) > 0 {
		return usagef("%s takes no arguments, not %q", cmdName(cmd), argv)
	}
	return nil
}

func (a *app) completionCommand() *cobra.Command {
	return &cobra.Command{
		Use:       "completion bash|zsh|fish|powershell",
		Short:     "Print a shell completion script",
		Long:      "Print the script that makes the shell complete orchctl's commands and flags:\n\n  source <(orchctl completion bash)",
		ValidArgs: []string{"bash", "zsh", "fish", "powershell"},
		Args: func(cmd *cobra.Command, argv []string) error {
			if err := exactArgs("a shell (bash, zsh, fish or powershell)")(cmd, argv); err != nil {
				return err
			}
			switch argv[0] {
			case "bash", "zsh", "fish", "powershell":
				return nil
			}
			return usagef("completion: unknown shell %q: want bash, zsh, fish or powershell", argv[0])
		},
		RunE: func(cmd *cobra.Command, argv []string) error {
			root, out := cmd.Root(), a.env.Stdout
			switch argv[0] {
			case "bash":
				return root.GenBashCompletionV2(out, true)
			case "zsh":
				return root.GenZshCompletion(out)
			case "fish":
				return root.GenFishCompletion(out, true)
			}
			return root.GenPowerShellCompletionWithDesc(out)
		},
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
