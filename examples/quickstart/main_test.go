package main

import (
	"context"
	"strings"
	"testing"
)

// TestQuickstart keeps the README's first command working: with nothing in
// the environment the story runs against the embedded fakes.
func TestQuickstart(t *testing.T) {
	t.Parallel()
	if err := run(context.Background(), func(string) string { return "" }); err != nil {
		t.Fatal(err)
	}
}

func TestQuickstartWantsEveryRealSetting(t *testing.T) {
	t.Parallel()
	env := map[string]string{"CLOUDAUTH_URL": "https://login.example.com", "CLOUDAUTH_USERNAME": "ops", "CLOUDAUTH_PASSWORD": "pw", "ERP_URL": "https://erp.example.com"}
	err := run(context.Background(), func(k string) string { return env[k] })
	if err == nil || !strings.Contains(err.Error(), "missing: ERP_API_KEY") {
		t.Fatalf("error %v, want one naming the missing settings", err)
	}
}
