package fake_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/fake"
	"github.com/apitwin/apitwin/fake/cloudauthfake"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/erpfake"
	"github.com/apitwin/apitwin/fake/mcpfake"
	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
)

// starter is one fake's New and Start, over the options every fake takes.
type starter struct {
	name  string
	new   func(...control.Option) error
	start func(testing.TB, ...control.Option)
	// foreign is another fake's own option.
	foreign control.Option
}

func starters() []starter {
	closeAfter := func(c interface{ Close() }, err error) error {
		if err == nil {
			c.Close()
		}
		return err
	}
	return []starter{
		{"erpfake", func(o ...control.Option) error { return closeAfter(erpfake.New(o...)) },
			func(tb testing.TB, o ...control.Option) { erpfake.Start(tb, o...) }, sourcehostfake.WithRootToken("x")},
		{"cloudauthfake", func(o ...control.Option) error { return closeAfter(cloudauthfake.New(o...)) },
			func(tb testing.TB, o ...control.Option) { cloudauthfake.Start(tb, o...) }, erpfake.WithAdminPassword("x")},
		{"orchfake", func(o ...control.Option) error { return closeAfter(orchfake.New(o...)) },
			func(tb testing.TB, o ...control.Option) { orchfake.Start(tb, o...) }, erpfake.WithAdminPassword("x")},
		{"sourcehostfake", func(o ...control.Option) error { return closeAfter(sourcehostfake.New(o...)) },
			func(tb testing.TB, o ...control.Option) { sourcehostfake.Start(tb, o...) }, erpfake.WithAdminPassword("x")},
		{"mcpfake", func(o ...control.Option) error { return closeAfter(mcpfake.New(o...)) },
			func(tb testing.TB, o ...control.Option) { mcpfake.Start(tb, o...) }, erpfake.WithAdminPassword("x")},
		{"fake", func(o ...control.Option) error { return closeAfter(fake.New(o...)) },
			func(tb testing.TB, o ...control.Option) { fake.Start(tb, o...) }, erpfake.WithAdminPassword("x")},
	}
}

// Every fake refuses an option it cannot use with an error of New that
// names the fake and the option, and fails the test of Start with it;
// none panics, and none goes on with the option ignored (issue 32,
// finding 6: a bad WithFault panicked in four fakes and was an error in
// the fifth).
func TestEveryFakeRefusesBadOptions(t *testing.T) {
	t.Parallel()
	for _, f := range starters() {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			for _, c := range []struct {
				opts []control.Option
				want string
			}{
				{[]control.Option{control.WithFault("", control.Fault{Status: 7})}, "control.WithFault"},
				{[]control.Option{control.WithMaxBody(-1)}, "control.WithMaxBody: -1 bytes is negative"},
				{[]control.Option{control.WithRequestLog(10, -1)}, "control.WithRequestLog"},
				{[]control.Option{control.WithMaxRecords(-1)}, "control.WithMaxRecords"},
				{[]control.Option{f.foreign}, f.foreign.String() + " is not an option of " + f.name},
				{[]control.Option{control.WithTLS(), control.WithInMemory()}, "over TLS or in memory, not both"},
			} {
				err := f.new(c.opts...)
				if err == nil || !strings.HasPrefix(err.Error(), f.name+": ") || !strings.Contains(err.Error(), c.want) {
					t.Errorf("New(%v): %v, want an error naming %q", c.opts, err, c.want)
				}
				if msg := startFails(f.start, c.opts...); !strings.Contains(msg, c.want) {
					t.Errorf("Start(%v) failed the test with %q, want it to name %q", c.opts, msg, c.want)
				}
			}
			// WithTLS is Start's (the fakes started together, plain HTTP
			// or in memory, refuse it there too).
			if err := f.new(control.WithTLS()); err == nil || !strings.Contains(err.Error(), "control.WithTLS") {
				t.Errorf("New(WithTLS): %v", err)
			}
		})
	}
}

// startFails runs start with a testing.TB whose Fatal ends the start, as
// a test's does, and returns what it failed with ("" when it did not).
func startFails(start func(testing.TB, ...control.Option), opts ...control.Option) string {
	tb := &failingTB{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		start(tb, opts...)
	}()
	<-done
	for i := len(tb.cleanups) - 1; i >= 0; i-- {
		tb.cleanups[i]()
	}
	return tb.failed
}

// failingTB is a testing.TB that records its Fatal and ends the goroutine,
// as a test's Fatal does; what it does not define, it does not expect to
// be called (the embedded nil TB panics).
type failingTB struct {
	testing.TB
	failed   string
	cleanups []func()
}

func (f *failingTB) Helper()           {}
func (f *failingTB) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }
func (f *failingTB) Fatal(args ...any) { f.failed = fmt.Sprint(args...); runtime.Goexit() }
func (f *failingTB) Fatalf(format string, args ...any) {
	f.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// A fault on a route the fake does not have (a typo, another service's
// path) is refused by New, as control.WithFault says, instead of being
// kept to match nothing; a route of the fake, by its pattern, a concrete
// path, a broader pattern or every route ("") is taken.
func TestEveryFakeRefusesAFaultOnARouteItDoesNotHave(t *testing.T) {
	t.Parallel()
	f500 := control.Fault{Status: 500}
	for _, c := range []struct {
		name      string
		new       func(...control.Option) error
		good, bad []string
	}{
		{"erpfake", func(o ...control.Option) error { s, err := erpfake.New(o...); return closeIf(s, err) },
			[]string{"GET /api/index.php/invoices", "GET /api/index.php/invoices/{id}", "POST /api/index.php/invoices/7/validate", "POST /", "/api/", ""},
			[]string{"GET /api/index.php/invoice", "GET /api/v4/projects", "DELETE /api/index.php/setup"}},
		{"sourcehostfake", func(o ...control.Option) error { s, err := sourcehostfake.New(o...); return closeIf(s, err) },
			[]string{"GET /api/v4/projects", "GET /api/v4/projects/alice%2Fshop", "POST /api/v4/projects/{id}/issues", "/api/v4/user", ""},
			[]string{"GET /api/v4/projcts", "GET /api/index.php/invoices", "PATCH /api/v4/user"}},
		{"cloudauthfake", func(o ...control.Option) error { s, err := cloudauthfake.New(o...); return closeIf(s, err) },
			[]string{"POST /csp/gateway/am/api/login", "/csp/", ""},
			[]string{"POST /csp/gateway/am/api/logon", "GET /api/v4/user"}},
		{"mcpfake", func(o ...control.Option) error { s, err := mcpfake.New(o...); return closeIf(s, err) },
			[]string{"POST /mcp", "/mcp", ""},
			[]string{"POST /tools", "GET /mcp"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			for _, route := range c.good {
				if err := c.new(control.WithFault(route, f500)); err != nil {
					t.Errorf("WithFault(%q): %v", route, err)
				}
			}
			for _, route := range c.bad {
				err := c.new(control.WithFault(route, f500))
				if err == nil || !strings.Contains(err.Error(), "no route of this service matches") {
					t.Errorf("WithFault(%q): %v, want it refused", route, err)
				}
			}
		})
	}
}

// closeIf closes what a New returned, and returns its error.
func closeIf(c interface{ Close() }, err error) error {
	if err == nil {
		c.Close()
	}
	return err
}
