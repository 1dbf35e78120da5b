package orch_test

import (
	"testing"
)

// A nil request to a Raw method is an empty one, over both transports:
// ListNamespaces(nil) lists the namespace every service has, and
// ListSchedules(nil) lists the client's namespace's schedules.
func TestRawNilRequestIsEmpty(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		raw := e.client(t).Raw()
		ns, err := raw.ListNamespaces(t.Context(), nil)
		if err != nil || len(ns.GetNamespaces()) == 0 {
			t.Fatalf("ListNamespaces(nil): %v, %d namespaces", err, len(ns.GetNamespaces()))
		}
		if _, err := raw.ListSchedules(t.Context(), nil); err != nil {
			t.Fatalf("ListSchedules(nil): %v", err)
		}
	})
}
