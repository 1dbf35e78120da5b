package orch_test

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/internal/leaktest"
	"github.com/apitwin/apitwin/orch"
)

func TestAuth(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		srv := e.fake(t)
		// No credentials, and bad ones, are UNAUTHENTICATED.
		_, err := e.client(t).DescribeNamespace(t.Context(), "")
		if !errors.Is(err, orch.ErrUnauthenticated) {
			t.Errorf("no token: %v", err)
		}
		_, err = e.client(t, orch.WithToken("not-a-valid-credential")).DescribeNamespace(t.Context(), "")
		if !errors.Is(err, orch.ErrUnauthenticated) || strings.Contains(err.Error(), "not-a-valid-credential") {
			t.Errorf("bad token: %v", err)
		}
		// A JWT with the permission works; one without is denied with the
		// specification's text.
		reader := srv.IssueToken("reader", "default", orchfake.PermNamespaceRead, orchfake.PermWorkflowRead)
		var logs bytes.Buffer
		c := e.client(t, orch.WithToken(reader), orch.WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
		if _, err := c.DescribeNamespace(t.Context(), ""); err != nil {
			t.Errorf("reader describes: %v", err)
		}
		_, err = c.StartWorkflow(t.Context(), "W", "q", nil, nil)
		if !errors.Is(err, orch.ErrPermissionDenied) || !strings.HasPrefix(err.Error(), "PermissionDenied: access denied") {
			t.Errorf("reader starts: %v", err)
		}
		// A wildcard covers what is below it.
		starter := srv.IssueToken("starter", "default", orchfake.PermWorkflow)
		if _, err := e.client(t, orch.WithToken(starter)).StartWorkflow(t.Context(), "W", "q", nil, nil); err != nil {
			t.Errorf("orch:workflow:* starts: %v", err)
		}
		// An API key works the same way.
		if err := srv.AddAPIKey("key-0123456789", "default", orchfake.PermAll); err != nil {
			t.Fatal(err)
		}
		if _, err := e.client(t, orch.WithToken("key-0123456789")).DescribeCluster(t.Context()); err != nil {
			t.Errorf("API key: %v", err)
		}
		// The token shows nowhere.
		leaktest.NoSecretIn(t, "the client", c, reader)
		leaktest.NoSecretIn(t, "the log", logs.String(), reader)
		if !strings.Contains(logs.String(), "PermissionDenied") {
			t.Errorf("the failed call was not logged: %s", logs.String())
		}
	}, orchfake.WithAuth())
}
