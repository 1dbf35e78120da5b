package orchfake

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/internal/testtools"
	"github.com/apitwin/apitwin/orch/orchpb"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// These tests talk HTTP/2 to the gRPC side frame by frame, as a hostile
// client does (testtools.H2Client): gRPC's own client would keep to what
// the fake advertises.

func withGRPCWire(w grpcWire) Option { return option("withGRPCWire", func(c *config) { c.wire = w }) }

// dialH2 connects with dial and does the HTTP/2 handshake.
func dialH2(t *testing.T, dial dialFunc) *testtools.H2Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), failAfter)
	defer cancel()
	c, err := dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return testtools.NewH2Client(t, c)
}

// describe is the method the tests call: any would do.
const describe = orchpb.WorkflowService_DescribeNamespace_FullMethodName

// open sends the HEADERS of a call on stream id that never sends its
// message.
func open(t *testing.T, h *testtools.H2Client, id uint32) {
	t.Helper()
	if err := h.Headers(id, describe, false); err != nil {
		t.Fatal(err)
	}
}

// A call whose metadata is over 64 KiB is refused as gRPC decodes its
// header block, before the fake authenticates it or keeps anything of it:
// the call is reset (or, for a single value over the bound, which the
// decoder cannot even hold, the connection closed), and it never reaches
// the fake: the request log holds only the call made afterwards. gRPC's
// default allowed 16 MiB per call, before authentication.
func TestGRPCMetadataIsBoundedBeforeAuthentication(t *testing.T) {
	t.Parallel()
	many := make([]hpack.HeaderField, 256)
	for i := range many {
		many[i] = hpack.HeaderField{Name: fmt.Sprintf("x-m%d", i), Value: strings.Repeat("m", 4<<10)}
	}
	for name, md := range map[string][]hpack.HeaderField{
		"256 values of 4 KiB": many,
		"one value of 1 MiB":  {{Name: "x-big", Value: strings.Repeat("m", 1<<20)}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := Start(t, WithAuth())
			dial := grpcDial(s)
			h := dialH2(t, dial)
			var answered bool
			err := h.Headers(1, describe, false, md...) // fails when the fake has closed the connection already
			if err == nil {
				err = h.EmptyMessage(1)
			}
			if err == nil {
				err = h.Until(func(f http2.Frame) bool {
					if f.Header().StreamID != 1 {
						return false
					}
					_, reset := f.(*http2.RSTStreamFrame)
					answered = !reset
					return true
				})
			}
			if answered || testtools.IsTimeout(err) {
				t.Fatalf("a call with %s of metadata: answered %v, %v", name, answered, err)
			}
			h = dialH2(t, dial)
			if err := h.Headers(1, describe, false); err != nil {
				t.Fatal(err)
			}
			if err := h.EmptyMessage(1); err != nil {
				t.Fatal(err)
			}
			if err := h.Until(func(f http2.Frame) bool {
				return f.Header().StreamID == 1 && f.Header().Flags.Has(http2.FlagHeadersEndStream)
			}); err != nil {
				t.Fatalf("a call after it: %v", err)
			}
			if got := s.Requests(); len(got) != 1 || got[0].Code != "UNAUTHENTICATED" {
				t.Fatalf("request log %+v; want only the call after it, refused UNAUTHENTICATED", got)
			}
		})
	}
}

// A connection holds at most 100 calls at once: the 101st is refused with
// REFUSED_STREAM, and the fake says so in its SETTINGS. Without the cap a
// client held 50,000 calls waiting for their messages on one connection
// (+554 MB).
func TestGRPCStreamsPerConnectionAreCapped(t *testing.T) {
	t.Parallel()
	s := Start(t)
	h := dialH2(t, grpcDial(s))
	for i := range uint32(grpcMaxStreams + 1) {
		open(t, h, 2*i+1)
	}
	resets, err := h.PingAcked()
	if err != nil {
		t.Fatal(err)
	}
	if last := uint32(2*grpcMaxStreams + 1); len(resets) != 1 || resets[last] != http2.ErrCodeRefusedStream {
		t.Fatalf("streams reset: %v; want only stream %d, REFUSED_STREAM", resets, last)
	}
}

// A client that opens and resets streams in a loop (rapid reset) has its
// connection closed once it has reset more than 200 within 10 s; up to
// that it is served.
func TestGRPCRapidResetClosesTheConnection(t *testing.T) {
	t.Parallel()
	s := Start(t, withGRPCWire(grpcWire{resetWindow: time.Hour})) // every reset of the test in one window
	h := dialH2(t, grpcDial(s))
	id := uint32(1)
	reset := func() {
		open(t, h, id)
		if err := h.Fr.WriteRSTStream(id, http2.ErrCodeCancel); err != nil {
			t.Fatal(err)
		}
		id += 2
	}
	for range grpcResetBudget {
		reset()
	}
	if _, err := h.PingAcked(); err != nil {
		t.Fatalf("closed after %d resets: %v", grpcResetBudget, err)
	}
	reset()
	if _, err := h.PingAcked(); err == nil {
		t.Fatalf("still served after %d resets", grpcResetBudget+1)
	} else if errors.Is(err, context.DeadlineExceeded) || testtools.IsTimeout(err) {
		t.Fatalf("the connection waits: %v", err)
	}
}

// A connection with no call open is sent GOAWAY once it has been idle
// for the idle bound, and closed.
func TestGRPCIdleConnectionIsClosed(t *testing.T) {
	t.Parallel()
	s := Start(t, withGRPCWire(grpcWire{idle: 100 * time.Millisecond}))
	h := dialH2(t, grpcDial(s))
	var goaway bool
	err := h.Until(func(f http2.Frame) bool {
		_, ok := f.(*http2.GoAwayFrame)
		goaway = goaway || ok
		return false
	})
	if !goaway || testtools.IsTimeout(err) {
		t.Fatalf("idle connection: GOAWAY %v, ended by %v", goaway, err)
	}
}

// Each listener of the gRPC side holds at most maxConns connections: one
// more is closed at once (its TLS handshake, or the HTTP/2 one, fails)
// while those within the limit are served. (fakekit's tests show a slot
// freeing when a connection closes.)
func TestGRPCConnectionsPerListenerAreCapped(t *testing.T) {
	t.Parallel()
	for name, fake := range grpcDialers() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, dial := fake(t, withGRPCWire(grpcWire{maxConns: 2}))
			dialH2(t, dial)
			dialH2(t, dial)
			ctx, cancel := context.WithTimeout(t.Context(), failAfter)
			defer cancel()
			c, err := dial(ctx)
			if err != nil {
				return // refused during the TLS handshake
			}
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(failAfter))
			if _, err := c.Read(make([]byte, 1)); err == nil || testtools.IsTimeout(err) {
				t.Fatalf("a connection over the limit: read %v", err)
			}
		})
	}
}
