package orchfake

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/orch/orchpb"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// These tests talk HTTP/2 to the gRPC side frame by frame, as a hostile
// client does: gRPC's own client would keep to what the fake advertises.

func withGRPCWire(w grpcWire) Option { return func(c *config) { c.wire = w } }

// h2Client is a raw HTTP/2 client of the gRPC side.
type h2Client struct {
	t    *testing.T
	conn net.Conn
	fr   *http2.Framer
	enc  *hpack.Encoder
	hbuf bytes.Buffer
}

// dialH2 connects with dial and does the HTTP/2 handshake: the preface
// and SETTINGS both ways.
func dialH2(t *testing.T, dial dialFunc) *h2Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), failAfter)
	defer cancel()
	c, err := dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	_ = c.SetDeadline(time.Now().Add(failAfter))
	h := &h2Client{t: t, conn: c, fr: http2.NewFramer(c, c)}
	h.fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	h.enc = hpack.NewEncoder(&h.hbuf)
	if _, err := io.WriteString(c, clientPreface); err != nil {
		t.Fatal(err)
	}
	if err := h.fr.WriteSettings(); err != nil {
		t.Fatal(err)
	}
	f, err := h.fr.ReadFrame()
	if err != nil {
		t.Fatalf("no SETTINGS from the fake: %v", err)
	}
	if _, ok := f.(*http2.SettingsFrame); !ok {
		t.Fatalf("the fake's first frame is %v", f)
	}
	if err := h.fr.WriteSettingsAck(); err != nil {
		t.Fatal(err)
	}
	return h
}

// headers sends the HEADERS of a call to DescribeNamespace on stream id,
// with extra metadata, in frames of at most 16 KiB; end ends the stream
// (a call with no message). A write that fails (the fake closed the
// connection) fails the test, unless tolerated: the error is returned then.
func (h *h2Client) headers(id uint32, end bool, extra ...hpack.HeaderField) {
	h.t.Helper()
	if err := h.tryHeaders(id, end, extra...); err != nil {
		h.t.Fatal(err)
	}
}

func (h *h2Client) tryHeaders(id uint32, end bool, extra ...hpack.HeaderField) error {
	h.hbuf.Reset()
	for _, f := range append([]hpack.HeaderField{
		{Name: ":method", Value: "POST"}, {Name: ":scheme", Value: "http"},
		{Name: ":path", Value: orchpb.WorkflowService_DescribeNamespace_FullMethodName},
		{Name: ":authority", Value: "orchfake"}, {Name: "content-type", Value: "application/grpc"}, {Name: "te", Value: "trailers"},
	}, extra...) {
		_ = h.enc.WriteField(f)
	}
	block := h.hbuf.Bytes()
	const frag = 16 << 10
	first := block[:min(frag, len(block))]
	if err := h.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: first, EndStream: end, EndHeaders: len(block) <= frag}); err != nil {
		return err
	}
	for rest := block[len(first):]; len(rest) > 0; {
		n := min(frag, len(rest))
		if err := h.fr.WriteContinuation(id, n == len(rest), rest[:n]); err != nil {
			return err
		}
		rest = rest[n:]
	}
	return nil
}

// message sends an empty request message on stream id, ending the stream.
func (h *h2Client) message(id uint32) {
	h.t.Helper()
	if err := h.fr.WriteData(id, true, make([]byte, 5)); err != nil { // uncompressed, 0 bytes
		h.t.Fatal(err)
	}
}

// until reads frames until one for which stop reports true, answering the
// fake's pings; it returns the error that ended the connection instead,
// if it ended first.
func (h *h2Client) until(stop func(http2.Frame) bool) error {
	h.t.Helper()
	for {
		f, err := h.fr.ReadFrame()
		if err != nil {
			return err
		}
		if p, ok := f.(*http2.PingFrame); ok && !p.IsAck() {
			_ = h.fr.WritePing(true, p.Data)
		}
		if stop(f) {
			return nil
		}
	}
}

// pingAcked sends a ping and reads frames up to its ack, reporting the
// RST_STREAM frames met on the way; the fake answers frames in order, so
// what it did with the frames sent before the ping comes before the ack.
func (h *h2Client) pingAcked() (resets map[uint32]http2.ErrCode, err error) {
	h.t.Helper()
	data := [8]byte{'a', 'p', 'i', 't', 'w', 'i', 'n'}
	if err := h.fr.WritePing(false, data); err != nil {
		return nil, err
	}
	resets = map[uint32]http2.ErrCode{}
	err = h.until(func(f http2.Frame) bool {
		switch f := f.(type) {
		case *http2.RSTStreamFrame:
			resets[f.StreamID] = f.ErrCode
		case *http2.PingFrame:
			return f.IsAck() && f.Data == data
		}
		return false
	})
	return resets, err
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
			dial := func(ctx context.Context) (net.Conn, error) {
				var d net.Dialer
				return d.DialContext(ctx, "tcp", s.GRPCAddr())
			}
			h := dialH2(t, dial)
			var answered bool
			err := h.tryHeaders(1, false, md...) // fails when the fake has closed the connection already
			if err == nil {
				err = h.fr.WriteData(1, true, make([]byte, 5))
			}
			if err == nil {
				err = h.until(func(f http2.Frame) bool {
					if f.Header().StreamID != 1 {
						return false
					}
					_, reset := f.(*http2.RSTStreamFrame)
					answered = !reset
					return true
				})
			}
			if answered || isTimeout(err) {
				t.Fatalf("a call with %s of metadata: answered %v, %v", name, answered, err)
			}
			h = dialH2(t, dial)
			h.headers(1, false)
			h.message(1)
			if err := h.until(func(f http2.Frame) bool {
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
	h := dialH2(t, func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", s.GRPCAddr())
	})
	for i := range uint32(grpcMaxStreams + 1) {
		h.headers(2*i+1, false) // a call that never sends its message
	}
	resets, err := h.pingAcked()
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
	h := dialH2(t, func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", s.GRPCAddr())
	})
	id := uint32(1)
	reset := func() {
		h.headers(id, false)
		if err := h.fr.WriteRSTStream(id, http2.ErrCodeCancel); err != nil {
			t.Fatal(err)
		}
		id += 2
	}
	for range grpcResetBudget {
		reset()
	}
	if _, err := h.pingAcked(); err != nil {
		t.Fatalf("closed after %d resets: %v", grpcResetBudget, err)
	}
	reset()
	if _, err := h.pingAcked(); err == nil {
		t.Fatalf("still served after %d resets", grpcResetBudget+1)
	} else if errors.Is(err, context.DeadlineExceeded) || isTimeout(err) {
		t.Fatalf("the connection waits: %v", err)
	}
}

// A connection with no call open is sent GOAWAY once it has been idle
// for the idle bound, and closed.
func TestGRPCIdleConnectionIsClosed(t *testing.T) {
	t.Parallel()
	s := Start(t, withGRPCWire(grpcWire{idle: 100 * time.Millisecond}))
	h := dialH2(t, func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", s.GRPCAddr())
	})
	var goaway bool
	err := h.until(func(f http2.Frame) bool {
		_, ok := f.(*http2.GoAwayFrame)
		goaway = goaway || ok
		return false
	})
	if !goaway || isTimeout(err) {
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
			if _, err := c.Read(make([]byte, 1)); err == nil || isTimeout(err) {
				t.Fatalf("a connection over the limit: read %v", err)
			}
		})
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
