package orchfake

import (
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/internal/testtools"
	"github.com/apitwin/apitwin/orch"
)

// grpcBuilt reports whether s has built its gRPC server.
func grpcBuilt(s *Server) bool {
	s.netMu.Lock()
	defer s.netMu.Unlock()
	return s.grpcSrv != nil
}

// A fake started for a test that only uses HTTP builds no gRPC server and
// opens no gRPC port; the first GRPCAddr opens it, and it serves the address
// it hands out.
func TestStartOpensTheGRPCSideOnFirstAsk(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		opts []Option
		addr func(string) bool
	}{
		{"loopback", nil, func(a string) bool { return strings.HasPrefix(a, "127.0.0.1:") }},
		{"tls", []Option{control.WithTLS()}, func(a string) bool { return strings.HasPrefix(a, "127.0.0.1:") }},
		{"in-memory", []Option{control.WithInMemory()}, func(a string) bool { return strings.HasSuffix(a, ".invalid") }},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if c.opts == nil {
				testtools.SkipInMemory(t)
			}
			s := Start(t, c.opts...)
			hc := s.HTTPClient()
			defer hc.Close()
			if _, err := hc.DescribeNamespace(t.Context(), DefaultNamespace); err != nil {
				t.Fatal(err)
			}
			if grpcBuilt(s) {
				t.Fatal("an HTTP call built the gRPC server")
			}
			addr := s.GRPCAddr()
			if !c.addr(addr) || s.GRPCAddr() != addr {
				t.Fatalf("GRPCAddr %q, then %q", addr, s.GRPCAddr())
			}
			gc := s.GRPCClient()
			defer gc.Close()
			if _, err := gc.DescribeNamespace(t.Context(), DefaultNamespace); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Conn needs no listener: it builds the gRPC server, not the promised port.
func TestConnOpensNoGRPCPort(t *testing.T) {
	t.Parallel()
	s := Start(t)
	if _, err := s.Client().DescribeNamespace(t.Context(), DefaultNamespace); err != nil {
		t.Fatal(err)
	}
	s.netMu.Lock()
	addr, lazy := s.grpcAddr, s.grpcLazy
	s.netMu.Unlock()
	if addr != "" || lazy == lazyNone {
		t.Fatalf("after Conn: address %q, promise %v", addr, lazy)
	}
}

// A fake closed before anything asked for its gRPC side hands out no
// address, and builds no gRPC server.
func TestGRPCAddrAfterCloseIsEmpty(t *testing.T) {
	t.Parallel()
	s := Start(t)
	s.Close()
	if a := s.GRPCAddr(); a != "" {
		t.Fatalf("GRPCAddr after Close = %q", a)
	}
	if grpcBuilt(s) {
		t.Fatal("Close built the gRPC server")
	}
}

// GRPCAddr racing Close (run with -race): either the listener opens before
// Close, which then stops it, or it never opens; Close returns either way,
// and GRPCAddr then answers what it answered in the race, or "".
func TestGRPCAddrRacesClose(t *testing.T) {
	t.Parallel()
	for range 20 {
		s := Start(t)
		var wg sync.WaitGroup
		var addr string
		wg.Go(func() { addr = s.GRPCAddr() })
		wg.Go(s.Close)
		wg.Wait()
		if a := s.GRPCAddr(); a != addr {
			t.Fatalf("GRPCAddr %q in the race, %q after", addr, a)
		}
	}
}

// Conn's gRPC server starts with its first call: a fake whose Client is
// made and never called builds none.
func TestConnServesOnFirstCall(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	c := s.Client()
	if grpcBuilt(s) {
		t.Fatal("Client built the gRPC server before any call")
	}
	if _, err := c.DescribeNamespace(t.Context(), DefaultNamespace); err != nil {
		t.Fatal(err)
	}
	if !grpcBuilt(s) {
		t.Fatal("a call went through without a gRPC server")
	}
}

// A call through Conn of a closed fake fails at once, whether Conn was
// made before Close (never called) or after.
func TestConnOfAClosedFakeFails(t *testing.T) {
	t.Parallel()
	before, err := New()
	if err != nil {
		t.Fatal(err)
	}
	cb := before.Client(orch.WithoutRetries())
	before.Close()
	after, err := New()
	if err != nil {
		t.Fatal(err)
	}
	after.Close()
	ca := after.Client(orch.WithoutRetries())
	for name, c := range map[string]*orch.Client{"made before Close": cb, "made after Close": ca} {
		if _, err := c.DescribeNamespace(t.Context(), DefaultNamespace); err == nil {
			t.Errorf("%s: a call to a closed fake succeeded", name)
		}
	}
	if grpcBuilt(before) || grpcBuilt(after) {
		t.Error("a closed fake built its gRPC server")
	}
}

// A gRPC listener served before anything calls over it (Listen, as
// fake.New does) builds the server with its first connection, and serves
// from the moment it listens; closed first, it builds none and its port
// stops answering.
func TestListenBuildsTheGRPCServerOnFirstConnection(t *testing.T) {
	t.Parallel()
	for _, call := range []bool{true, false} {
		s, err := New()
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Listen("127.0.0.1:0", "127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		if grpcBuilt(s) {
			t.Fatal("Listen built the gRPC server")
		}
		addr := s.GRPCAddr()
		if call {
			gc := s.GRPCClient()
			if _, err := gc.DescribeNamespace(t.Context(), DefaultNamespace); err != nil {
				t.Fatal(err)
			}
			gc.Close()
			if !grpcBuilt(s) {
				t.Fatal("a call went through without a gRPC server")
			}
		}
		s.Close() // returns once the listener's goroutine has
		if !call && grpcBuilt(s) {
			t.Fatal("Close built the gRPC server")
		}
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			t.Fatalf("call=%v: the gRPC port answers after Close", call)
		}
	}
}

// A first gRPC call racing Close (run with -race): the server is built in
// the race or not at all, and Close returns either way, leaving the call
// answered or refused.
func TestFirstGRPCCallRacesClose(t *testing.T) {
	t.Parallel()
	for range 20 {
		s, err := New()
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Listen("127.0.0.1:0", ""); err != nil {
			t.Fatal(err)
		}
		gc := s.GRPCClient(orch.WithoutRetries())
		var wg sync.WaitGroup
		wg.Go(func() { _, _ = gc.DescribeNamespace(t.Context(), DefaultNamespace) })
		wg.Go(s.Close)
		wg.Wait()
		gc.Close()
	}
}
