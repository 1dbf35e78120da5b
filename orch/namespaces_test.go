package orch_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/orch"
)

func TestNamespaces(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		c := e.client(t)
		names := []string{uid("ns-a"), uid("ns-b"), uid("ns-c")}
		for _, n := range names {
			err := c.RegisterNamespace(t.Context(), n, &orch.RegisterNamespaceOptions{
				Description: "test", OwnerEmail: "ops@example.com", Retention: 48 * time.Hour, Data: map[string]string{"team": "orders"},
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		ns, err := c.DescribeNamespace(t.Context(), names[0])
		if err != nil {
			t.Fatal(err)
		}
		if ns.GetNamespaceInfo().GetName() != names[0] || ns.GetNamespaceInfo().GetOwnerEmail() != "ops@example.com" ||
			ns.GetConfig().GetWorkflowExecutionRetentionTtl().AsDuration() != 48*time.Hour || ns.GetNamespaceInfo().GetData()["team"] != "orders" {
			t.Errorf("described %v", ns)
		}
		// Usable at once.
		if _, err := c.WithNamespace(names[1]).StartWorkflow(t.Context(), "W", "q", nil, nil); err != nil {
			t.Errorf("start in a new namespace: %v", err)
		}
		err = c.RegisterNamespace(t.Context(), names[0], nil)
		if !errors.Is(err, orch.ErrAlreadyExists) {
			t.Errorf("second registration: %v", err)
		}
		err = c.RegisterNamespace(t.Context(), "bad name!", nil)
		var oe *orch.Error
		if !errors.Is(err, orch.ErrInvalidArgument) || !errors.As(err, &oe) || len(oe.Details) == 0 || oe.Details[0].GetField() == "" {
			t.Errorf("bad name: %v", err)
		}
		_, err = c.DescribeNamespace(t.Context(), uid("missing"))
		if !errors.Is(err, orch.ErrNamespaceNotFound) || !errors.Is(err, orch.ErrNotFound) {
			t.Errorf("unknown namespace: %v", err)
		}
		if _, err := c.WithNamespace(uid("missing")).StartWorkflow(t.Context(), "W", "q", nil, nil); !errors.Is(err, orch.ErrNamespaceNotFound) {
			t.Errorf("start in an unknown namespace: %v", err)
		}
		// Listing pages through all, one at a time.
		seen := map[string]bool{}
		for ns, err := range c.AllNamespaces(t.Context(), &orch.ListOptions{PageSize: 1}) {
			if err != nil {
				t.Fatal(err)
			}
			seen[ns.GetNamespaceInfo().GetName()] = true
		}
		for _, n := range append(names, "default") {
			if !seen[n] {
				t.Errorf("%s not listed", n)
			}
		}
		page, err := c.ListNamespaces(t.Context(), &orch.ListOptions{PageSize: 2})
		if err != nil || len(page.Items) != 2 || len(page.NextPageToken) == 0 {
			t.Errorf("first page: %+v, %v", page, err)
		}
		_, err = c.ListNamespaces(t.Context(), &orch.ListOptions{PageToken: []byte("forged")})
		if !errors.Is(err, orch.ErrInvalidArgument) || !strings.Contains(err.Error(), "token") {
			t.Errorf("forged token: %v", err)
		}
	})
}
