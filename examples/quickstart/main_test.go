package main

import (
	"context"
	"testing"
)

// TestQuickstart keeps the README's first command working.
func TestQuickstart(t *testing.T) {
	t.Setenv("SOURCEHOST_URL", "")
	if err := run(context.Background()); err != nil {
		t.Fatal(err)
	}
}
