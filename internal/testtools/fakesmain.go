package testtools

import (
	"context"
	"errors"
	"flag"
	"net"
	"os"
	"testing"

	"github.com/apitwin/apitwin/fake/control"
)

// InMemoryFlag names the flag of the fakes' test binaries that serves
// every fake their tests Start in memory (control.ServeInMemoryByDefault):
// .ci/run runs the fakes' suites a second time with it,
//
//	go test ./fake/erpfake -args -fakes.inmemory
//
// so that they hold in memory as on loopback.
const InMemoryFlag = "fakes.inmemory"

// FakesMain is the TestMain of a package whose tests start fakes: it runs
// the tests with the fakes on loopback, or with -fakes.inmemory every fake
// in memory. A package whose tests need real sockets (a browser, curl)
// does not use it.
//
// Its tests look no name up in the DNS: net.DefaultResolver answers from
// /etc/hosts alone (localhost), and fails any other name at once. A test
// that reaches a fake in memory with a client not wired to it (a plain
// http.Client, say) fails with "no such host" for the fake's
// ".invalid" host, as it would anyway, without a query leaving the
// machine.
func FakesMain(m *testing.M) {
	inMemory := flag.Bool(InMemoryFlag, false, "serve every fake the tests Start in memory (control.ServeInMemoryByDefault)")
	flag.Parse()
	if *inMemory {
		control.ServeInMemoryByDefault()
	}
	net.DefaultResolver = &net.Resolver{PreferGo: true, Dial: func(context.Context, string, string) (net.Conn, error) {
		return nil, errNoDNS
	}}
	os.Exit(m.Run())
}

// errNoDNS is what a lookup in the DNS meets in FakesMain's tests.
var errNoDNS = errors.New("testtools: the fakes' tests look up no name in the DNS")

// SkipInMemory skips a test of what a fake started without options does
// on its port (a port opened on demand, an address on loopback) in a run
// that serves every fake in memory (-fakes.inmemory), which has no port to
// test; the run on loopback tests it.
func SkipInMemory(tb testing.TB) {
	tb.Helper()
	if control.InMemoryByDefault() {
		tb.Skip("every fake serves in memory in this run (-fakes.inmemory): no port to test")
	}
}
