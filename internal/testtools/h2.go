package testtools

import (
	"bytes"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// H2Client is a raw HTTP/2 client of a gRPC server, frame by frame, for
// tests that send what a hostile client sends: gRPC's own client keeps to
// what the server advertises (metadata size, streams at once).
type H2Client struct {
	tb   testing.TB
	Conn net.Conn
	Fr   *http2.Framer
	enc  *hpack.Encoder
	hbuf bytes.Buffer
}

// h2Bound bounds every read and write of an H2Client: reaching it fails
// the test, it is no measure.
const h2Bound = 30 * time.Second

// NewH2Client does the HTTP/2 handshake on c (the preface and SETTINGS
// both ways) and returns the client; c is closed when tb ends.
func NewH2Client(tb testing.TB, c net.Conn) *H2Client {
	tb.Helper()
	tb.Cleanup(func() { _ = c.Close() })
	_ = c.SetDeadline(time.Now().Add(h2Bound))
	h := &H2Client{tb: tb, Conn: c, Fr: http2.NewFramer(c, c)}
	h.Fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	h.enc = hpack.NewEncoder(&h.hbuf)
	if _, err := io.WriteString(c, http2.ClientPreface); err != nil {
		tb.Fatal(err)
	}
	if err := h.Fr.WriteSettings(); err != nil {
		tb.Fatal(err)
	}
	f, err := h.Fr.ReadFrame()
	if err != nil {
		tb.Fatalf("no SETTINGS from the server: %v", err)
	}
	if _, ok := f.(*http2.SettingsFrame); !ok {
		tb.Fatalf("the server's first frame is %v", f)
	}
	if err := h.Fr.WriteSettingsAck(); err != nil {
		tb.Fatal(err)
	}
	return h
}

// Headers sends the HEADERS of a gRPC call to method ("/pkg.Service/Method")
// on stream id, with extra metadata, in frames of at most 16 KiB; end ends
// the stream. A write that fails (the server closed the connection) is
// returned.
func (h *H2Client) Headers(id uint32, method string, end bool, extra ...hpack.HeaderField) error {
	h.hbuf.Reset()
	for _, f := range append([]hpack.HeaderField{
		{Name: ":method", Value: "POST"}, {Name: ":scheme", Value: "http"}, {Name: ":path", Value: method},
		{Name: ":authority", Value: "test"}, {Name: "content-type", Value: "application/grpc"}, {Name: "te", Value: "trailers"},
	}, extra...) {
		_ = h.enc.WriteField(f)
	}
	block := h.hbuf.Bytes()
	const frag = 16 << 10
	first := block[:min(frag, len(block))]
	if err := h.Fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: first, EndStream: end, EndHeaders: len(block) <= frag}); err != nil {
		return err
	}
	for rest := block[len(first):]; len(rest) > 0; {
		n := min(frag, len(rest))
		if err := h.Fr.WriteContinuation(id, n == len(rest), rest[:n]); err != nil {
			return err
		}
		rest = rest[n:]
	}
	return nil
}

// EmptyMessage sends an empty gRPC message on stream id, ending the stream.
func (h *H2Client) EmptyMessage(id uint32) error {
	return h.Fr.WriteData(id, true, make([]byte, 5)) // uncompressed, 0 bytes
}

// Until reads frames until one for which stop reports true, answering the
// server's pings; it returns the error that ended the connection instead,
// if it ended first.
func (h *H2Client) Until(stop func(http2.Frame) bool) error {
	for {
		f, err := h.Fr.ReadFrame()
		if err != nil {
			return err
		}
		if p, ok := f.(*http2.PingFrame); ok && !p.IsAck() {
			_ = h.Fr.WritePing(true, p.Data)
		}
		if stop(f) {
			return nil
		}
	}
}

// PingAcked sends a ping and reads frames up to its ack, returning the
// RST_STREAM frames met on the way: a server answers frames in order, so
// what it did with the frames sent before the ping comes before the ack.
func (h *H2Client) PingAcked() (resets map[uint32]http2.ErrCode, err error) {
	data := [8]byte{'a', 'p', 'i', 't', 'w', 'i', 'n'}
	if err := h.Fr.WritePing(false, data); err != nil {
		return nil, err
	}
	resets = map[uint32]http2.ErrCode{}
	err = h.Until(func(f http2.Frame) bool {
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

// IsTimeout reports whether err is a network timeout: in these tests, a
// server that waits where it should have answered or closed.
func IsTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
