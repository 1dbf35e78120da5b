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
