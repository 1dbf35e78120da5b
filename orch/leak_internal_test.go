package orch

import (
	"errors"
	"log/slog"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/apitwin/apitwin/internal/leaktest"
)

// TestClientLogHidesToken: whatever a client of either transport (or one
// made by WithNamespace) logs, a message, a string, a group, an error or any
// other value quoting the token, the log shows no form of it.
func TestClientLogHidesToken(t *testing.T) {
	t.Parallel()
	const token = `orch-L0g/t0ken+"&=`
	quote := leaktest.Quoting(token)
	conn, err := grpc.NewClient("passthrough:///never-dialled", grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	for name, build := range map[string]func(opts ...Option) (*Client, error){
		"grpc": func(opts ...Option) (*Client, error) { return NewFromConn(conn, opts...) },
		"http": func(opts ...Option) (*Client, error) { return NewHTTP("http://orch.example", opts...) },
		"grpc, WithNamespace": func(opts ...Option) (*Client, error) {
			c, err := NewFromConn(conn, opts...)
			if err != nil {
				return nil, err
			}
			return c.WithNamespace("other"), nil
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var obs leaktest.Observed
			c, err := build(WithToken(token), WithLogger(obs.Logger()))
			if err != nil {
				t.Fatal(err)
			}
			c.log.With("with", quote).WithGroup("g").Warn("failed "+quote,
				"string", quote, slog.Group("group", "inner", quote), "error", errors.New(quote), "any", []string{quote})
			obs.Check(t, token)
		})
	}
}
