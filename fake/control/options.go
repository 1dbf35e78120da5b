package control

import (
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/apitwin/apitwin/clock"
)

// Option configures a fake: every fake's New and Start take them, as does
// fake.New. The options every fake shares are declared here, once, and mean
// the same in each: WithClock, WithFault, WithMaxBody, WithRequestLog,
// WithMaxRecords, and how Start serves, WithTLS or WithInMemory. Each fake
// declares its own options, of this same type (erpfake.WithAdminPassword,
// orchfake.WithAuth, …).
//
//	srv := erpfake.Start(t, control.WithClock(clk), control.WithInMemory(),
//		erpfake.WithAdminPassword("secret"))
//
// A fake refuses an option it cannot use, and says which: another fake's
// own option, a negative bound, a fault it cannot inject, WithTLS given to
// New. New returns that error; Start fails the test with it. The zero
// Option does nothing.
type Option struct {
	// name is how errors name the option: "control.WithMaxBody",
	// "erpfake.WithAdminPassword".
	name string
	// shared applies an option every fake shares; own is a fake's own
	// option, a func(*C) error over that fake's configuration C.
	shared func(*Settings) error
	own    any
}

// String is the option's name ("control.WithClock").
func (o Option) String() string { return o.name }

// Settings are what the options every fake shares ask for, as a fake reads
// them from its options (Apply). Zero fields ask for the fake's defaults.
type Settings struct {
	// Clock is WithClock's; nil: the fake makes its own, at the current
	// wall time truncated to the second.
	Clock *clock.Fake
	// Faults are WithFault's, in the order given (Remaining as InjectFault
	// will count it).
	Faults []ActiveFault
	// MaxBody is WithMaxBody's.
	MaxBody int64
	// LogEntries and LogBodyBytes are WithRequestLog's.
	LogEntries, LogBodyBytes int
	// MaxRecords is WithMaxRecords'.
	MaxRecords int
	// TLS and InMemory say how Start serves (WithTLS, WithInMemory): at
	// most one is set.
	TLS, InMemory bool
}

// WithClock makes the fake read its time from clk, shared with other fakes
// or with the code under test: it drives every expiry, timeout, timer and
// rate-limit window of the fake. nil (the default) makes the fake a clock
// of its own at the current wall time, truncated to the second.
func WithClock(clk *clock.Fake) Option {
	return sharedOption("control.WithClock", func(s *Settings) error { s.Clock = clk; return nil })
}

// WithFault injects f on route when the fake is built, as InjectFault
// would. A fault the fake's InjectFault refuses (an invalid fault, a route
// or operation it does not have) is an error of New and Start.
func WithFault(route string, f Fault) Option {
	return sharedOption("control.WithFault", func(s *Settings) error {
		remaining := f.Times
		if remaining == 0 {
			remaining = -1
		}
		s.Faults = append(s.Faults, ActiveFault{Route: route, Fault: f, Remaining: remaining})
		return nil
	})
}

// WithMaxBody caps a request body at n bytes (0 keeps the fake's default,
// which its package documents; a negative n is an error): a larger body is
// refused with 413 in the service's error shape before it is read whole
// (orchfake: RESOURCE_EXHAUSTED, over gRPC too).
func WithMaxBody(n int64) Option {
	return sharedOption("control.WithMaxBody", func(s *Settings) error {
		if n < 0 {
			return errors.New(strconv.FormatInt(n, 10) + " bytes is negative")
		}
		s.MaxBody = n
		return nil
	})
}

// WithRequestLog bounds the request log: at most entries requests (0 keeps
// the default, 10,000), of each body its first bodyBytes bytes (0 keeps
// the default, 64 KiB). Negative values are an error.
func WithRequestLog(entries, bodyBytes int) Option {
	return sharedOption("control.WithRequestLog", func(s *Settings) error {
		if entries < 0 || bodyBytes < 0 {
			return fmt.Errorf("entries %d and body bytes %d must not be negative", entries, bodyBytes)
		}
		s.LogEntries, s.LogBodyBytes = entries, bodyBytes
		return nil
	})
}

// WithMaxRecords bounds the records the fake keeps: at most n of each kind
// (0 keeps the default, 100,000; a negative n is an error). Each fake's
// package says what its kinds are and how it refuses a record past the
// bound: as its service refuses one past its own limits, changing nothing.
func WithMaxRecords(n int) Option {
	return sharedOption("control.WithMaxRecords", func(s *Settings) error {
		if n < 0 {
			return errors.New(strconv.Itoa(n) + " records is negative")
		}
		s.MaxRecords = n
		return nil
	})
}

// WithTLS makes Start serve the fake over TLS, with a self-signed
// certificate that the clients the fake makes (Client, RawClient) trust.
// It is an option of Start: New refuses it (a program serving over TLS
// gives Serve a TLS listener of its own).
func WithTLS() Option {
	return sharedOption("control.WithTLS", func(s *Settings) error { s.TLS = true; return nil })
}

// WithInMemory serves the fake on an in-memory listener instead of a port:
// the same behaviour, buffered as sockets are, with no socket opened, so a
// suite can start thousands of fakes without waiting for ports. Only the
// clients the fake makes (Client, RawClient) reach it; its URL names a
// host no resolver answers ("http://erpfake-1.invalid"), and nothing else
// in the process is changed to reach it: http.DefaultClient does not. New
// given it serves in memory at once, until Close; Start, until the test
// ends.
func WithInMemory() Option {
	return sharedOption("control.WithInMemory", func(s *Settings) error { s.InMemory = true; return nil })
}

// ServeInMemoryByDefault makes every fake that this process starts with
// Start (and fake.Start) serve in memory, as if each were given
// WithInMemory, unless it is given WithTLS. It is for a test binary that
// wants no sockets at all: call it from TestMain, before any test runs.
// It is the one setting of the process this package keeps, it cannot be
// undone, and it changes nothing else: New still serves nothing until
// asked, and http.DefaultTransport is left as it was, so only the fakes'
// own clients (Client, RawClient) reach them.
//
//	func TestMain(m *testing.M) {
//		control.ServeInMemoryByDefault()
//		os.Exit(m.Run())
//	}
func ServeInMemoryByDefault() { inMemoryByDefault.Store(true) }

// InMemoryByDefault reports whether ServeInMemoryByDefault was called.
func InMemoryByDefault() bool { return inMemoryByDefault.Load() }

var inMemoryByDefault atomic.Bool

// OwnOption makes an option of one fake's own: apply sets it in the fake's
// configuration, of type C, and may refuse its value with an error. name
// is what errors call it ("erpfake.WithAdminPassword"). It is how each
// fake of this module declares its options; a test or program has no need
// of it.
func OwnOption[C any](name string, apply func(*C) error) Option {
	return Option{name: name, own: apply}
}

func sharedOption(name string, apply func(*Settings) error) Option {
	return Option{name: name, shared: apply}
}

// Apply reads opts for the fake named fake ("erpfake"), whose own options
// (made by OwnOption with the same C) configure cfg: it returns what the
// shared options ask for. The error names every option the fake cannot
// use: another fake's, or a value the option refuses; cfg is then
// partly configured and should be dropped.
func Apply[C any](fake string, cfg *C, opts []Option) (Settings, error) {
	var st Settings
	var errs []error
	for _, o := range opts {
		switch {
		case o.shared != nil:
			if err := o.shared(&st); err != nil {
				errs = append(errs, fmt.Errorf("%s: %s: %w", fake, o.name, err))
			}
		case o.own != nil:
			apply, ok := o.own.(func(*C) error)
			if !ok {
				errs = append(errs, fmt.Errorf("%s: %s is not an option of %s", fake, o.name, fake))
				continue
			}
			if err := apply(cfg); err != nil {
				errs = append(errs, fmt.Errorf("%s: %s: %w", fake, o.name, err))
			}
		}
	}
	if st.TLS && st.InMemory {
		errs = append(errs, fmt.Errorf("%s: control.WithTLS and control.WithInMemory: a fake serves over TLS or in memory, not both", fake))
	}
	return st, errors.Join(errs...)
}
