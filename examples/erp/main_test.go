package main

import (
	"context"
	"os"
	"strings"
	"testing"
)

// TestExample keeps the example working against the embedded fake. It
// cannot be parallel: it clears the environment with t.Setenv and captures
// os.Stdout.
func TestExample(t *testing.T) {
	t.Setenv("ERP_URL", "")
	t.Setenv("ERP_API_KEY", "")
	out := captureStdout(t, func() {
		if err := run(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
	for _, want := range []string{
		"session login as admin works too",
		"errors.Is(err, erp.ErrAlreadyExists) = true",
		": 212.97 + 42.59 VAT = 255.56",
		"errors.Is(err, erp.ErrNothingDone) = true",
		"validated due ",
		"errors.Is(err, erp.ErrBadRequest) = true",
		"validated and closed: closed, 239.88",
		`errors.Is(err, erp.ErrNotFound) = true, status 404, "Not Found: Invoice not found"`,
		"done\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, " validated due "); n != 1 {
		t.Errorf("the filtered list holds %d invoices, want the validated one alone:\n%s", n, out)
	}
}

// captureStdout returns what f prints on os.Stdout.
func captureStdout(t *testing.T, f func()) string {
	t.Helper()
	tmp, err := os.CreateTemp(t.TempDir(), "stdout")
	if err != nil {
		t.Fatal(err)
	}
	defer tmp.Close()
	saved := os.Stdout
	os.Stdout = tmp
	defer func() { os.Stdout = saved }()
	f()
	b, err := os.ReadFile(tmp.Name())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
