package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/itchyny/gojq"
	"github.com/spf13/cobra"

	"github.com/apitwin/apitwin/cloudauth"
)

// maxAPIInput bounds what --input and a field's @file read, and maxAPIAnswer
// what cloudctl api keeps of an answer to filter it (--jq).
const (
	maxAPIInput  = 10 << 20
	maxAPIAnswer = 64 << 20
)

// apiOptions are cloudctl api's flags.
type apiOptions struct {
	method    string
	fields    []string // -F: typed
	rawFields []string // -f: strings
	input     string
	jq        string
}

func (a *app) apiCommand() *cobra.Command {
	var o apiOptions
	cmd := &cobra.Command{
		Use:   "api <path>",
		Short: "Make an authenticated call to the server and print the answer",
		Long: `Make a call to the server in use with the token of the profile in use (renewed
first when it has expired and can be), and print the answer's body. The
path is on the server ("/csp/gateway/am/api/userinfo"); a full URL is
refused, so that the token goes nowhere else.

Fields: -f/--raw-field key=value adds a string; -F/--field key=value adds a
typed value: true, false and null, integers, and @file for the contents of
a file (@- for standard input), else a string. Fields go in the query of a
GET and in a JSON object body otherwise; with fields and no --method, the
method is POST. --input file (- for standard input) sends the file's JSON
(compacted) as the body instead, and the fields go in the query. --jq filters a JSON
answer with a jq expression (gojq; the environment is not visible to it),
printing strings as they are.

  cloudctl api /csp/gateway/am/api/userinfo --jq .username
  cloudctl api -X POST /some/path -F count=3 -f name=web

Exit status: 0 for a 2xx answer, 1 for another (the server's message is
printed) or a call that failed, 4 when there is no usable token.`,
		Args: oneArg("a path"),
		RunE: func(cmd *cobra.Command, argv []string) error { return a.api(cmd.Context(), cmd, argv[0], &o) },
	}
	f := cmd.Flags()
	f.StringVarP(&o.method, "method", "X", "", "HTTP method (default GET, or POST with fields or --input)")
	f.StringArrayVarP(&o.fields, "field", "F", nil, "a typed field key=value (true, false, null, integers, @file), repeatable")
	f.StringArrayVarP(&o.rawFields, "raw-field", "f", nil, "a string field key=value, repeatable")
	f.StringVar(&o.input, "input", "", "file to send as the JSON body (- for standard input)")
	f.StringVarP(&o.jq, "jq", "q", "", "filter a JSON answer with a jq expression")
	return cmd
}

func (a *app) api(ctx context.Context, cmd *cobra.Command, path string, o *apiOptions) error {
	u, err := url.Parse(path)
	if err != nil || u.Scheme != "" || u.Host != "" || !strings.HasPrefix(u.Path, "/") {
		return &usageError{fmt.Errorf("%s takes a path on the server starting with /, not %q", cmdName(cmd), path)}
	}
	var filter *gojq.Code
	if o.jq != "" {
		q, err := gojq.Parse(o.jq)
		if err != nil {
			return &usageError{fmt.Errorf("--jq: %w", err)}
		}
		// No environment: a filter is no way to print CLI_TOKEN.
		if filter, err = gojq.Compile(q, gojq.WithEnvironLoader(func() []string { return nil })); err != nil {
			return &usageError{fmt.Errorf("--jq: %w", err)}
		}
	}
	params := map[string]any{}
	var order []string
	add := func(kv string, typed bool) error {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return &usageError{fmt.Errorf("field %q: want key=value", kv)}
		}
		if _, dup := params[k]; !dup {
			order = append(order, k)
		}
		if !typed {
			params[k] = v
			return nil
		}
		val, err := a.typedField(v)
		if err != nil {
			return fmt.Errorf("field %s: %w", k, err)
		}
		params[k] = val
		return nil
	}
	for _, kv := range o.rawFields {
		if err := add(kv, false); err != nil {
			return err
		}
	}
	for _, kv := range o.fields {
		if err := add(kv, true); err != nil {
			return err
		}
	}
	method := strings.ToUpper(o.method)
	if method == "" {
		method = http.MethodGet
		if len(params) > 0 || o.input != "" {
			method = http.MethodPost
		}
	}
	query := u.Query()
	var body any
	switch {
	case o.input != "":
		b, err := a.readFileArg(o.input)
		if err != nil {
			return fmt.Errorf("--input: %w", err)
		}
		if !json.Valid(b) {
			return fmt.Errorf("--input: %s is not JSON", o.input)
		}
		body = json.RawMessage(b)
		addQuery(query, order, params)
	case method == http.MethodGet || method == http.MethodHead || method == http.MethodDelete:
		addQuery(query, order, params)
	case len(params) > 0:
		body = params
	}

	_, s, err := a.settings()
	if err != nil {
		return err
	}
	if s.URL == "" {
		return errors.New("no server URL: give --url, set " + cloudauth.EnvURL + ", or use a profile")
	}
	raw, source, err := a.token(ctx, s)
	if errors.Is(err, cloudauth.ErrNoToken) {
		fmt.Fprintf(a.env.Stderr, "Not logged in (profile %s). Log in with: cloudctl auth login\n", s.TokenKey())
		return notAuthenticated
	}
	if err != nil {
		return err
	}
	tok, err := cloudauth.ParseToken(raw)
	if err != nil {
		fmt.Fprintf(a.env.Stderr, "Not logged in: the token from %s is not a token the server issued\n", source)
		return notAuthenticated
	}
	c, err := a.client(s)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	w := io.Writer(a.env.Stdout)
	if filter != nil {
		w = &limitedWriter{w: &out, n: maxAPIAnswer}
	}
	if err := c.Do(ctx, tok, method, u.EscapedPath(), query, body, w); err != nil {
		if errors.Is(err, cloudauth.ErrUnauthorized) {
			fmt.Fprintf(a.env.Stderr, "Not logged in: %s does not accept the token from %s (expired, logged out, or revoked)\n", s.URL, source)
			return notAuthenticated
		}
		return err
	}
	if filter == nil {
		return nil
	}
	return a.runJQ(ctx, filter, out.Bytes())
}

// typedField is -F's value: true, false, null, an integer, @file's
// contents, else the string.
func (a *app) typedField(v string) (any, error) {
	switch v {
	case "true":
		return true, nil
	case "false":
		return false, nil
	case "null":
		return nil, nil
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return n, nil
	}
	if name, ok := strings.CutPrefix(v, "@"); ok {
		b, err := a.readFileArg(name)
		if err != nil {
			return nil, err
		}
		return string(b), nil
	}
	return v, nil
}

// readFileArg reads a file named on the command line ("-": standard
// input), at most maxAPIInput bytes.
func (a *app) readFileArg(name string) ([]byte, error) {
	var r io.Reader = a.in
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, maxAPIInput+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxAPIInput {
		return nil, fmt.Errorf("%s holds more than %d bytes", name, maxAPIInput)
	}
	return b, nil
}

// addQuery puts fields in a query, in the order given.
func addQuery(q url.Values, order []string, params map[string]any) {
	for _, k := range order {
		switch v := params[k].(type) {
		case nil:
			q.Add(k, "")
		case string:
			q.Add(k, v)
		default:
			q.Add(k, fmt.Sprint(v))
		}
	}
}

// runJQ prints what the filter makes of a JSON answer: strings as they
// are, other values as JSON, one a line.
func (a *app) runJQ(ctx context.Context, filter *gojq.Code, answer []byte) error {
	var v any
	if err := json.Unmarshal(answer, &v); err != nil {
		return fmt.Errorf("--jq: the answer is not JSON: %w", err)
	}
	iter := filter.RunWithContext(ctx, v)
	for {
		r, ok := iter.Next()
		if !ok {
			return nil
		}
		switch r := r.(type) {
		case error:
			var halt *gojq.HaltError
			if errors.As(r, &halt) && halt.Value() == nil {
				return nil
			}
			return fmt.Errorf("--jq: %w", r)
		case string:
			a.printf("%s", r)
		default:
			b, err := gojq.Marshal(r)
			if err != nil {
				return fmt.Errorf("--jq: %w", err)
			}
			a.printf("%s", b)
		}
	}
}

// limitedWriter keeps at most n bytes and fails past them.
type limitedWriter struct {
	w io.Writer
	n int64
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > l.n {
		return 0, fmt.Errorf("the answer is larger than %d bytes", maxAPIAnswer)
	}
	l.n -= int64(len(p))
	return l.w.Write(p)
}
