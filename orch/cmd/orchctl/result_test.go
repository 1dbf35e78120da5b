package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/internal/leaktest"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/workflow"
)

// TestResultAsReturned: result, start --wait and query print the JSON the
// workflow gave, only indented: an integer beyond float64's 53 bits keeps
// its digits, and an object keeps the order of its keys. (They went
// through a map of any: 12345678901234567891 printed as
// 12345678901234567000, keys sorted.)
func TestResultAsReturned(t *testing.T) {
	t.Parallel()
	const in = `{"zeta":12345678901234567891,"alpha":[1.50,2e3]}`
	const want = "{\n  \"zeta\": 12345678901234567891,\n  \"alpha\": [\n    1.50,\n    2e3\n  ]\n}\n"
	each(t, func(t *testing.T, c cli) {
		wc := c.srv.Client(orch.WithClientLimits(orch.ClientLimits{RequestsPerSecond: orch.Unlimited}))
		t.Cleanup(func() { _ = wc.Close() })
		w, err := orch.NewWorker(wc, "raw", nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := workflow.Register(w, "Raw", func(ctx workflow.Context, in json.RawMessage) (json.RawMessage, error) {
			workflow.SetQueryHandler(ctx, "same", func() (any, error) { return in, nil })
			workflow.GetSignalChannel(ctx, "go").Receive(ctx, nil)
			return in, nil
		}); err != nil {
			t.Fatal(err)
		}
		if err := w.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(w.Stop)

		c.ok("workflow", "start", "-t", "Raw", "-q", "raw", "-w", "raw-1", "-i", in)
		if got := c.ok("workflow", "query", "raw-1", "--type", "same"); got != want {
			t.Errorf("query printed\n%s\nwant\n%s", got, want)
		}
		c.ok("workflow", "signal", "raw-1", "--name", "go")
		if got := c.ok("workflow", "result", "raw-1"); got != want {
			t.Errorf("result printed\n%s\nwant\n%s", got, want)
		}
	})
}

// TestVerboseHidesAURLPassword: --verbose names the HTTP address without
// the password or the token (given as the user) a URL may carry (it
// printed the URL as given, then the token as the user).
func TestVerboseHidesAURLPassword(t *testing.T) {
	t.Parallel()
	srv := orchfake.Start(t)
	for secret, user := range map[string]string{"s3cret-pw": "ops:s3cret-pw", "orch-TOKEN-as-user": "orch-TOKEN-as-user"} {
		u := strings.Replace(srv.URL(), "://", "://"+user+"@", 1)
		c := cli{t: t, srv: srv, env: map[string]string{EnvAddress: u}}
		r := c.run("--verbose", "namespace", "list")
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		leaktest.NoSecretIn(t, "what orchctl wrote", r.out+r.stderr, secret)
		if !strings.Contains(r.stderr, "HTTP/JSON API at http://%5BREDACTED%5D@") {
			t.Errorf("--verbose printed %q", r.stderr)
		}
	}
}

// TestNoSettingsNeededToComplete: help and shell completion, which call
// no service, work whatever ORCH_TLS holds (they failed with exit status
// 2 naming --tls, so a bad variable broke the shell's completion).
func TestNoSettingsNeededToComplete(t *testing.T) {
	t.Parallel()
	c := cli{t: t, env: map[string]string{EnvTLS: "bogus"}}
	if out := c.ok("completion", "bash"); !strings.Contains(out, "orchctl") {
		t.Errorf("completion bash printed %.100q", out)
	}
	if out := c.ok("help", "workflow"); !strings.Contains(out, "start") {
		t.Errorf("help workflow printed %q", out)
	}
	if out := c.ok("__complete", "workflow", ""); !strings.Contains(out, "start") {
		t.Errorf("__complete printed %q", out)
	}
	c.fails(exitUsage, `--tls "bogus"`, "namespace", "list")
}
