// Package fake starts every apitwin fake at once, wired together as the real
// systems are, for tests and programs that talk to more than one of the
// services:
//
//	func TestOrderFlow(t *testing.T) {
//		f := fake.Start(t)
//		inv, err := f.Clients.ERP.CreateInvoice(ctx, …)
//		…
//		f.Clock.Advance(time.Hour) // every fake sees the hour pass
//	}
//
// What Start wires:
//   - one fake clock for all of them (Fakes.Clock), so token expiry, rate-limit
//     windows, pipelines, timeouts and timers move together;
//   - the mcp gateway in front of the sourcehost fake (the same one
//     Fakes.SourceHost controls), as the real gateway fronts the real service;
//   - a typed client for each (Fakes.Clients), already pointed at its fake
//     with valid credentials.
//
// Each fake keeps its own controls (seeding, fault injection, request logs):
// reach them through the fields of Fakes. A program that is not a test uses
// New and Close; fake/cmd/apitwin-fake serves the same set on fixed ports.
// Snapshot and Restore keep every fake's state, as one JSON document, for a
// program that must come back as it was (apitwin-fake -state-dir).
package fake

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake/cloudauthfake"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/erpfake"
	"github.com/apitwin/apitwin/fake/mcpfake"
	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/internal/fakekit"
	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/sourcehost"
)

// Fakes is every fake, started and wired together.
type Fakes struct {
	// Clock drives every fake: Advance it to move all of them at once.
	Clock *clock.Fake

	ERP        *erpfake.Server
	CloudAuth  *cloudauthfake.Server
	Orch       *orchfake.Server
	SourceHost *sourcehostfake.Server
	// MCP is the gateway in front of SourceHost.
	MCP *mcpfake.Server

	// Clients holds a typed client per fake, with valid credentials.
	Clients Clients

	closeOnce sync.Once
}

// Clients are typed clients pointed at the fakes.
type Clients struct {
	ERP *erp.Client
	// CloudAuth is not logged in: Login with the fake's admin (see
	// cloudauthfake.WithAdminPassword) or a seeded user.
	CloudAuth *cloudauth.Client
	// Orch talks gRPC to the orch fake in the "default" namespace; the fake
	// also serves HTTP/JSON (Fakes.Orch.HTTPClient).
	Orch       *orch.Client
	SourceHost *sourcehost.Client
	MCP        *mcp.Client
}

// Addrs are the listening addresses of the fakes ("host:port"; port 0 picks
// a free one). The zero value listens on free loopback ports.
type Addrs struct {
	ERP       string
	CloudAuth string
	// OrchGRPC and OrchHTTP are the orch fake's two transports.
	OrchGRPC   string
	OrchHTTP   string
	SourceHost string
	MCP        string
}

// Option configures Start and New: one of the options every fake shares,
// which New gives every fake (control.WithClock: one clock for all, the
// default being a new fake clock at the current time; control.WithInMemory;
// control.WithMaxBody, control.WithRequestLog, control.WithMaxRecords), or
// one of this package's below. control.WithFault names a route of one
// fake, so it goes to that fake (WithERP(control.WithFault(…))), and the
// fakes started together serve plain HTTP: given either, New returns an
// error, Start fails the test.
type Option = control.Option

// config is what this package's own options set.
type config struct {
	addrs      Addrs
	seed       *Seed
	erp        []erpfake.Option
	cloudauth  []cloudauthfake.Option
	orch       []orchfake.Option
	sourcehost []sourcehostfake.Option
	mcp        []mcpfake.Option
	forced     func(ForcedClose)
}

// option declares one of this package's options.
func option(name string, apply func(*config)) Option {
	return control.OwnOption("fake."+name, func(c *config) error { apply(c); return nil })
}

// WithAddrs chooses where New listens (Start always picks free ports).
func WithAddrs(a Addrs) Option { return option("WithAddrs", func(c *config) { c.addrs = a }) }

// WithSeed loads seed into the fakes once they run (see Seed).
func WithSeed(seed *Seed) Option { return option("WithSeed", func(c *config) { c.seed = seed }) }

// WithERP passes options to the ERP fake.
func WithERP(opts ...erpfake.Option) Option {
	return option("WithERP", func(c *config) { c.erp = append(c.erp, opts...) })
}

// WithCloudAuth passes options to the cloud login fake.
func WithCloudAuth(opts ...cloudauthfake.Option) Option {
	return option("WithCloudAuth", func(c *config) { c.cloudauth = append(c.cloudauth, opts...) })
}

// WithOrch passes options to the orch fake (WithAuth, WithLimits,
// WithTimeSkipping, …).
func WithOrch(opts ...orchfake.Option) Option {
	return option("WithOrch", func(c *config) { c.orch = append(c.orch, opts...) })
}

// WithSourceHost passes options to the sourcehost fake (and so to the
// gateway's upstream).
func WithSourceHost(opts ...sourcehostfake.Option) Option {
	return option("WithSourceHost", func(c *config) { c.sourcehost = append(c.sourcehost, opts...) })
}

// WithMCP passes options to the mcp gateway fake (its upstream is always
// the sourcehost fake).
func WithMCP(opts ...mcpfake.Option) Option {
	return option("WithMCP", func(c *config) { c.mcp = append(c.mcp, opts...) })
}

// ForcedClose is what WithForcedCloseReport reports: a fake's HTTP server
// that Close had to stop by force, because requests still ran on it when
// its grace (2 s) ran out; their connections were closed under them.
// Clients that were only connected, or still sending their headers, never
// cause one: their connections close at once.
type ForcedClose struct {
	// Service names the fake as New's errors do: "erpfake",
	// "cloudauthfake", "orchfake HTTP", "sourcehostfake", "mcpfake".
	Service string
	Addr    string        // the server's listening address
	Open    int           // connections still open when the grace ran out
	Grace   time.Duration // how long Close waited for them
}

// WithForcedCloseReport makes Close call report for each fake whose HTTP
// server it had to stop by force (see ForcedClose), before Close returns,
// and from several goroutines at once when several did: a program prints
// it, a test can fail on it. The orch fake's gRPC side is not reported.
func WithForcedCloseReport(report func(ForcedClose)) Option {
	return option("WithForcedCloseReport", func(c *config) { c.forced = report })
}

// Start starts every fake on free loopback ports (in memory with
// control.WithInMemory, or in a test binary that called
// control.ServeInMemoryByDefault) and closes them when the test ends. A
// fake that cannot start, or an option that cannot be used, fails the
// test.
func Start(tb testing.TB, opts ...Option) *Fakes {
	tb.Helper()
	f, err := newFakes(opts, true)
	if err != nil {
		tb.Fatalf("fake.Start: %v", err)
	}
	tb.Cleanup(f.Close)
	return f
}

// New starts every fake, for programs; Close stops them. On an error nothing
// is left running, and the error names the service and address that
// failed, or the option that cannot be used.
func New(opts ...Option) (*Fakes, error) { return newFakes(opts, false) }

// newFakes is New, or Start's (start: free ports, and the process's
// default of serving in memory).
func newFakes(opts []Option, start bool) (*Fakes, error) {
	var cfg config
	st, err := fakekit.Options("fake", &cfg, opts, start)
	if err == nil {
		err = sharedOnly(st)
	}
	if err != nil {
		return nil, err
	}
	if start {
		cfg.addrs = Addrs{}
	}
	f, err := startAll(cfg, st)
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// sharedOnly refuses the shared options that are one fake's to take.
func sharedOnly(st control.Settings) error {
	switch {
	case len(st.Faults) > 0:
		return errors.New("fake: control.WithFault names a route of one fake: give it to that fake, as in fake.WithERP(control.WithFault(…))")
	case st.TLS:
		return errors.New("fake: control.WithTLS: the fakes started together serve plain HTTP (or in memory)")
	}
	return nil
}

// forEach are the options of st that New gives each fake, then own, the
// fake's own: the gateway (records false) keeps no records, its upstream
// does.
func forEach(st control.Settings, records bool, own []control.Option) []control.Option {
	opts := []control.Option{control.WithClock(st.Clock)}
	if st.MaxBody != 0 {
		opts = append(opts, control.WithMaxBody(st.MaxBody))
	}
	if st.LogEntries != 0 || st.LogBodyBytes != 0 {
		opts = append(opts, control.WithRequestLog(st.LogEntries, st.LogBodyBytes))
	}
	if st.MaxRecords != 0 && records {
		opts = append(opts, control.WithMaxRecords(st.MaxRecords))
	}
	return append(opts, own...)
}

// startAll starts what it can; on an error the caller closes what started.
func startAll(cfg config, st control.Settings) (f *Fakes, err error) {
	if st.Clock == nil {
		st.Clock = clock.NewFake(time.Now())
	}
	f = &Fakes{Clock: st.Clock}
	with := func(own []control.Option) []control.Option { return forEach(st, true, own) }

	// The ports open while the fakes are made, all at once: on a loopback
	// crowded with connections in TIME_WAIT the kernel searches long for
	// each free port, and that search, six times over, is most of what New
	// costs. Each fake serves on its listener before its address is handed
	// out.
	var ls *listeners
	if !st.InMemory {
		ls = listenAll(cfg.addrs)
	}
	// refused closes the ports of a fake that could not be made.
	refused := func(err error) error {
		if ls != nil {
			ls.close()
		}
		return err
	}
	if f.ERP, err = erpfake.New(with(cfg.erp)...); err != nil {
		return f, refused(err)
	}
	if f.CloudAuth, err = cloudauthfake.New(with(cfg.cloudauth)...); err != nil {
		return f, refused(err)
	}
	if f.Orch, err = orchfake.New(with(cfg.orch)...); err != nil {
		return f, refused(err)
	}
	if f.SourceHost, err = sourcehostfake.New(with(cfg.sourcehost)...); err != nil {
		return f, refused(err)
	}

	// l are the fakes' listeners: the ports opened above, or in memory.
	var l [nListeners]net.Listener
	if st.InMemory {
		for i, name := range memListenerNames {
			l[i] = fakekit.NewMemListener(name)
		}
	} else {
		if err := ls.wait(); err != nil {
			return f, err
		}
		l = ls.l
	}
	// served is listener i for an HTTP fake, carrying the report of
	// WithForcedCloseReport: the fakes keep their servers to themselves.
	served := func(i int) net.Listener {
		if cfg.forced == nil {
			return l[i]
		}
		return fakekit.ReportForcedClose(l[i], func(fc fakekit.ForcedClose) {
			cfg.forced(ForcedClose{Service: listenerNames[i], Addr: fc.Addr, Open: fc.Open, Grace: fc.Grace})
		})
	}
	f.ERP.Serve(served(lERP))
	f.CloudAuth.Serve(served(lCloudAuth))
	f.Orch.ServeGRPC(l[lOrchGRPC])
	f.Orch.Serve(served(lOrchHTTP))
	f.SourceHost.Serve(served(lSourceHost))

	// The gateway is made once the sourcehost fake serves: it calls it at
	// its URL. Its records are the sourcehost fake's, bounded there.
	if f.MCP, err = mcpfake.New(forEach(st, false, append([]mcpfake.Option{mcpfake.WithUpstream(f.SourceHost)}, cfg.mcp...))...); err != nil {
		_ = l[lMCP].Close()
		return f, err
	}
	f.MCP.Serve(served(lMCP))

	if cfg.seed != nil {
		if err := cfg.seed.apply(f); err != nil {
			return f, err
		}
	}

	f.Clients = Clients{
		ERP:        f.ERP.Client(),
		CloudAuth:  f.CloudAuth.Client(),
		Orch:       f.Orch.Client(),
		SourceHost: f.SourceHost.Client(),
		MCP:        f.MCP.Client(),
	}
	return f, nil
}

// The listeners of listenAll, by index.
const (
	lERP = iota
	lCloudAuth
	lOrchGRPC
	lOrchHTTP
	lSourceHost
	lMCP
	nListeners
)

// listenerNames name the listeners in errors, by index.
var listenerNames = [nListeners]string{"erpfake", "cloudauthfake", "orchfake gRPC", "orchfake HTTP", "sourcehostfake", "mcpfake"}

// memListenerNames name the in-memory listeners (their hosts), by index.
var memListenerNames = [nListeners]string{"erpfake", "cloudauthfake", "orchfake-grpc", "orchfake", "sourcehostfake", "mcpfake"}

// listeners are the ports of New, opening.
type listeners struct {
	wg  sync.WaitGroup
	l   [nListeners]net.Listener
	err [nListeners]error
}

// listenAll starts opening every port of a.
func listenAll(a Addrs) *listeners {
	ls := &listeners{}
	for i, addr := range [nListeners]string{a.ERP, a.CloudAuth, a.OrchGRPC, a.OrchHTTP, a.SourceHost, a.MCP} {
		ls.wg.Go(func() { ls.l[i], ls.err[i] = fakekit.ListenTCP(addrOr(addr)) })
	}
	return ls
}

// wait waits for every port; when one failed, it closes the others and
// returns the first error, naming the fake.
func (ls *listeners) wait() error {
	ls.wg.Wait()
	var err error
	for i, e := range ls.err {
		if e != nil && err == nil {
			err = fmt.Errorf("%s: %w", listenerNames[i], e)
		}
	}
	if err != nil {
		ls.closeAll()
	}
	return err
}

// close waits for every port and closes them, for a New that failed
// before it served on them.
func (ls *listeners) close() {
	ls.wg.Wait()
	ls.closeAll()
}

func (ls *listeners) closeAll() {
	for _, l := range ls.l {
		if l != nil {
			_ = l.Close()
		}
	}
}

// Close stops every fake that runs. It is safe to call more than once.
// The fakes stop at once, each waiting on its own servers, so that Close
// costs the slowest of them rather than their sum.
func (f *Fakes) Close() {
	f.closeOnce.Do(func() {
		var wg sync.WaitGroup
		wg.Go(func() {
			// The gateway before the sourcehost fake: it calls it.
			if f.MCP != nil {
				f.MCP.Close()
			}
			if f.SourceHost != nil {
				f.SourceHost.Close()
			}
		})
		wg.Go(func() {
			if f.Clients.Orch != nil {
				_ = f.Clients.Orch.Close()
			}
			if f.Orch != nil {
				f.Orch.Close()
			}
		})
		if f.CloudAuth != nil {
			wg.Go(f.CloudAuth.Close)
		}
		if f.ERP != nil {
			f.ERP.Close()
		}
		wg.Wait()
	})
}

// Advance moves the shared clock: every fake sees d pass, and whatever falls
// due on the way (expiries, timeouts, timers, rate-limit windows) happens.
func (f *Fakes) Advance(d time.Duration) { f.Clock.Advance(d) }

func addrOr(addr string) string {
	if addr == "" {
		return "127.0.0.1:0"
	}
	return addr
}
