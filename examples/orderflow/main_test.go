package main

import (
	"context"
	"testing"
)

// TestExample runs the example against the embedded fake.
func TestExample(t *testing.T) {
	t.Parallel()
	if err := run(context.Background(), func(string) string { return "" }); err != nil {
		t.Fatal(err)
	}
}
