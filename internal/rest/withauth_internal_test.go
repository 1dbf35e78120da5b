package rest

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// The logger of WithAuth's copy hides the copy's secrets, the credential
// it was given as much as the original's: a record that carries one
// (which the client's own lines never do, having redacted it first) still
// shows none.
func TestWithAuthLoggerHidesTheCopysSecrets(t *testing.T) {
	t.Parallel()
	const first, second = "glpat-FIRST-TOKEN-111", "glpat-SECOND-TOKEN-22"
	var logs bytes.Buffer
	c, err := New(Config{Service: "test", BaseURL: "http://x.invalid", Secrets: []string{first},
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	cp := c.WithAuth(nil, second)
	cp.log.Info("tokens " + first + " " + second)
	if out := logs.String(); strings.Contains(out, first) || strings.Contains(out, second) || !strings.Contains(out, "tokens") {
		t.Errorf("the copy logged %q", out)
	}
	// A client without a logger makes copies without one.
	bare, err := New(Config{Service: "test", BaseURL: "http://x.invalid"})
	if err != nil {
		t.Fatal(err)
	}
	if bare.WithAuth(nil, second).log != nil {
		t.Error("a copy of a client without a logger has one")
	}
}
