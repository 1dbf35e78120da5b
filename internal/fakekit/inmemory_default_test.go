package fakekit_test

import (
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/internal/fakekit"
)

// dialOf is the code behind the DialContext of http.DefaultTransport, to
// tell whether something replaced it (a func value compares only to nil).
func dialOf(t *testing.T) uintptr {
	t.Helper()
	tr, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		t.Fatalf("http.DefaultTransport is a %T", http.DefaultTransport)
	}
	return reflect.ValueOf(tr.DialContext).Pointer()
}

// Serving a fake in memory is asked for by an option, and leaves
// http.DefaultTransport as net/http made it: a test binary's other HTTP
// calls go where they always went (issue 32, finding 5: the variable
// APITWIN_FAKES_IN_MEMORY made Start serve in memory and routed
// http.DefaultTransport's every dial through the fakes' listeners). The
// variable means nothing now.
func TestInMemoryLeavesDefaultTransport(t *testing.T) {
	t.Setenv("APITWIN_FAKES_IN_MEMORY", "1") // no t.Parallel: a test that sets the environment cannot
	before := dialOf(t)
	hello := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("hello")) })

	var cfg struct{}
	st, err := fakekit.Options("shopfake", &cfg, []control.Option{control.WithInMemory()}, true)
	if err != nil || !st.InMemory {
		t.Fatalf("Options: %+v, %v", st, err)
	}
	var mem fakekit.Endpoint
	t.Cleanup(mem.Close)
	u := mem.ServeInMemoryOnDemand("shopfake", hello)
	if !strings.HasSuffix(u, ".invalid") {
		t.Fatalf("in memory at %q", u)
	}
	if got := get(t, mem.HTTPClient(), u); got != "hello" {
		t.Fatalf("the fake's own client read %q", got)
	}

	var port fakekit.Endpoint
	if u := port.StartFor(t, control.Settings{}, hello); !strings.HasPrefix(u, "http://127.0.0.1:") {
		t.Fatalf("with APITWIN_FAKES_IN_MEMORY=1, a fake started without WithInMemory serves at %q", u)
	}
	if dialOf(t) != before {
		t.Fatal("serving a fake in memory replaced http.DefaultTransport's dialer")
	}
}
