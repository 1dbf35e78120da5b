package main

import (
	"context"
	"testing"
)

// TestExample keeps the example working against the embedded fake.
func TestExample(t *testing.T) {
	t.Setenv("SOURCEHOST_URL", "")
	if err := run(context.Background()); err != nil {
		t.Fatal(err)
	}
}
