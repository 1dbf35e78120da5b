package fakekit

import (
	"bytes"
	"crypto/tls"
	"net"
)

// MaxHeaderFields is how many header fields a request over HTTP/1.x may
// carry, as Apache's LimitRequestFields (100 by default): real clients
// send a few tens, proxies add a few more. net/http bounds only the bytes
// of the headers, and turns each field into a map entry of about 200
// bytes, so 64 KiB of tiny fields would cost some 2 MB of memory, held
// while the client takes its time over them.
const MaxHeaderFields = 100

// HTTP1Listener returns l with each connection's requests followed as an
// http.Server will read them (heads, Content-Length and chunked bodies),
// so that what net/http accepts but should not is refused before the
// server parses it:
//
//   - a request with both Content-Length and Transfer-Encoding, which
//     net/http serves by Transfer-Encoding after deleting Content-Length
//     (so no handler can tell), while a proxy in front may have framed
//     it by Content-Length: the way requests are smuggled (RFC 9112
//     section 6.1 lets a server refuse it, and requires it to close the
//     connection);
//   - Transfer-Encoding in an HTTP/1.0 request (RFC 9112 section 6.1:
//     faulty framing), or any Transfer-Encoding but one "chunked";
//   - a field folded over several lines (obsolete since RFC 7230; RFC
//     9112 section 5.2 lets a server refuse it);
//   - more than maxFields header fields (<= 0: MaxHeaderFields), refused
//     at the field past the bound, before the server has built them;
//   - a chunked body that does not follow the chunked coding.
//
// A refused request is answered as net/http answers a malformed one, "400
// Bad Request" in plain text, and its connection closed; the requests
// before it on the connection are served. A request's head must arrive
// whole before its body (as every client sends it); a head line longer
// than 256 bytes that carries Content-Length or Transfer-Encoding, or a
// chunk-size line over 256 bytes, is refused too (net/http accepts values
// padded with blanks that long; no client sends them).
//
// The listener must be served by an http.Server over plain HTTP/1.x:
// connections that are *tls.Conn are passed on unfollowed (an http.Server
// must see them as such, for HTTP/2 and the request's TLS state).
func HTTP1Listener(l net.Listener, maxFields int) net.Listener {
	if maxFields <= 0 {
		maxFields = MaxHeaderFields
	}
	return &http1Listener{Listener: l, maxFields: maxFields}
}

type http1Listener struct {
	net.Listener
	maxFields int
}

func (l *http1Listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	if _, ok := c.(*tls.Conn); ok {
		return c, nil
	}
	hc := &http1Conn{Conn: c}
	hc.f.maxFields = l.maxFields
	hc.f.startHead()
	return hc, nil
}

// http1Conn is a connection whose reads are followed. An http.Server reads
// a connection from one goroutine at a time (its background read and the
// request's reads take turns), so the follower needs no lock.
type http1Conn struct {
	net.Conn
	f       http1Follower
	refused error // once set, every read fails with it
}

func (c *http1Conn) Read(p []byte) (int, error) {
	if c.refused != nil {
		return 0, c.refused
	}
	n, err := c.Conn.Read(p)
	if n > 0 {
		if pass, rerr := c.f.feed(p[:n]); rerr != nil {
			// The bytes before the refused request are the server's (the
			// end of the previous request's body); the refused one never
			// reaches it. The next read fails, and the server answers 400.
			c.refused = rerr
			if pass > 0 {
				return pass, nil
			}
			return 0, rerr
		}
	}
	return n, err
}

func (c *http1Conn) CloseWrite() error { return closeWrite(c.Conn) }

// NetConn returns the connection underneath.
func (c *http1Conn) NetConn() net.Conn { return c.Conn }

// wireError is why a connection's request was refused. It is neither
// io.EOF nor a network error, so that an http.Server answers it 400 rather
// than dropping the connection silently.
type wireError string

func (e wireError) Error() string { return "fakekit: request refused: " + string(e) }

// The parts of an HTTP/1.x request stream the follower is in.
type h1state uint8

const (
	h1Head      h1state = iota // a request line and header fields, to the blank line
	h1Body                     // a body of Content-Length bytes
	h1ChunkSize                // a chunk-size line
	h1ChunkData                // a chunk's data
	h1ChunkEnd                 // the CRLF after a chunk's data
	h1Trailer                  // trailer fields, to the blank line
)

// lineKeep is how much of a line the follower keeps: enough for any field
// name it reads (Content-Length, Transfer-Encoding) and their values, and
// for a chunk size.
const lineKeep = 256

// http1Follower follows one connection's requests as net/http reads them
// (net/textproto for heads, net/http/internal for chunked bodies), keeping
// a bounded part of the current line.
type http1Follower struct {
	maxFields int
	state     h1state

	line    [lineKeep]byte
	lineLen int     // bytes of the current line, kept or not, '\n' excluded
	tail    [9]byte // its last bytes: the request line's version, and a '\r'
	crs     int     // '\r' in the current line

	// The head being read.
	lines   int // its lines so far, the request line included
	fields  int
	http10  bool
	cls     int    // Content-Length fields
	clValue uint64 // their value
	tes     int    // Transfer-Encoding fields
	chunked bool   // the last one says "chunked"

	remain  uint64 // bytes of the body or the chunk still to come
	crlfPos int    // of the CRLF after a chunk's data, how much came

	reqSeen int // bytes of the current request fed before (counted up to 4)
}

func (f *http1Follower) startHead() {
	*f = http1Follower{maxFields: f.maxFields, state: h1Head}
}

// feed follows p, the next bytes of the stream. When they break a rule it
// returns the error, and how many of them to pass on before it: those
// before the refused request, and enough of the request's own to make
// sure the server has at least 4 bytes of it. A server waiting for a
// connection's next request peeks at its first 4 bytes before it reads the
// request, and drops the connection without an answer when that fails;
// once they are in, it reads the request, meets the error, and answers
// 400. Those bytes are never a whole request line, let alone a head.
func (f *http1Follower) feed(p []byte) (pass int, err error) {
	reqAt := -1 // where in p the current request began, when it began in p
	if f.state == h1Head && f.lines == 0 && f.lineLen == 0 {
		reqAt = 0
	}
	refuse := func(err error) (int, error) {
		at, seen := reqAt, f.reqSeen
		if at < 0 {
			at = 0
		} else {
			seen = 0
		}
		return at + min(max(4-seen, 0), len(p)-at), err
	}
	for i := 0; i < len(p); {
		switch f.state {
		case h1Body, h1ChunkData:
			n := min(uint64(len(p)-i), f.remain)
			i += int(n)
			f.remain -= n
			if f.remain > 0 {
				continue
			}
			if f.state == h1Body {
				f.startHead()
				reqAt = i
			} else {
				f.state, f.crlfPos = h1ChunkEnd, 0
			}
		case h1ChunkEnd:
			if p[i] != "\r\n"[f.crlfPos] {
				return refuse(wireError("malformed chunked encoding"))
			}
			i++
			if f.crlfPos++; f.crlfPos == 2 {
				f.state = h1ChunkSize
			}
		default: // a line
			j := bytes.IndexByte(p[i:], '\n')
			end := len(p)
			if j >= 0 {
				end = i + j
			}
			f.add(p[i:end])
			if j < 0 {
				i = end
				continue
			}
			i = end + 1
			if err := f.endLine(); err != nil {
				return refuse(err)
			}
			if f.state == h1Head && f.lines == 0 {
				reqAt = i // a new request begins (or blank lines before one)
			}
		}
	}
	if reqAt >= 0 {
		f.reqSeen = min(len(p)-reqAt, 4)
	} else {
		f.reqSeen = min(f.reqSeen+len(p), 4)
	}
	return len(p), nil
}

// add appends b to the current line.
func (f *http1Follower) add(b []byte) {
	if f.lineLen < lineKeep {
		copy(f.line[f.lineLen:], b)
	}
	f.lineLen += len(b)
	f.crs += bytes.Count(b, []byte{'\r'})
	if len(b) >= len(f.tail) {
		copy(f.tail[:], b[len(b)-len(f.tail):])
	} else {
		copy(f.tail[:], f.tail[len(b):])
		copy(f.tail[len(f.tail)-len(b):], b)
	}
}

// endLine takes the line just ended (its '\n' read) and starts the next.
func (f *http1Follower) endLine() error {
	n, kept, crs := f.lineLen, f.lineLen <= lineKeep, f.crs
	crlf := n > 0 && f.tail[len(f.tail)-1] == '\r'
	tail := f.tail[1:] // the line's last 8 bytes (fewer in a shorter line: zeros before them)
	if crlf {
		n-- // net/textproto drops a '\r' before the '\n'
		tail = f.tail[:len(f.tail)-1]
	}
	line := f.line[:min(n, lineKeep)]
	var version [8]byte
	copy(version[:], tail)
	f.lineLen, f.crs, f.tail = 0, 0, [9]byte{}
	switch f.state {
	case h1Head:
		return f.headLine(line, n, kept, version)
	case h1ChunkSize:
		return f.chunkSizeLine(line, kept, crlf, crs)
	default: // h1Trailer: fields net/http reads (within 4 KB) and keeps apart
		if n == 0 {
			f.startHead()
		}
		return nil
	}
}

// headLine takes a line of a head: n bytes (its '\r' dropped), of which
// line is what was kept (all of it when kept), last its last 8.
func (f *http1Follower) headLine(line []byte, n int, kept bool, last [8]byte) error {
	if n == 0 {
		if f.lines == 0 {
			return nil // blank lines before a request: net/http skips or refuses them
		}
		return f.endHead()
	}
	f.lines++
	if f.lines == 1 { // the request line: "GET /path HTTP/1.1"
		f.http10 = string(last[:]) == "HTTP/1.0"
		return nil
	}
	if line[0] == ' ' || line[0] == '\t' {
		return wireError("a header field folded over several lines")
	}
	if f.fields++; f.fields > f.maxFields {
		return wireError("more header fields than the server takes")
	}
	colon := bytes.IndexByte(line, ':')
	if colon < 0 {
		return nil // a name longer than what is kept: neither field below (net/http refuses a line without a colon)
	}
	name := line[:colon]
	isCL, isTE := bytes.EqualFold(name, []byte("Content-Length")), bytes.EqualFold(name, []byte("Transfer-Encoding"))
	if !isCL && !isTE {
		return nil
	}
	if !kept {
		return wireError("a framing field's line is too long")
	}
	value := bytes.Trim(line[colon+1:], " \t")
	if isTE {
		f.tes++
		f.chunked = bytes.EqualFold(value, []byte("chunked"))
		return nil
	}
	v, ok := parseDecimal(value)
	if !ok {
		return wireError("a malformed Content-Length")
	}
	if f.cls++; f.cls > 1 && v != f.clValue {
		return wireError("Content-Length fields that differ")
	}
	f.clValue = v
	return nil
}

// endHead decides, at the blank line that ends a head, how its body is
// framed, or refuses it.
func (f *http1Follower) endHead() error {
	switch {
	case f.tes > 0 && f.cls > 0:
		return wireError("both Content-Length and Transfer-Encoding")
	case f.tes > 0 && f.http10:
		return wireError("Transfer-Encoding in an HTTP/1.0 request")
	case f.tes > 1 || (f.tes == 1 && !f.chunked):
		return wireError(`a Transfer-Encoding other than one "chunked"`)
	case f.tes == 1:
		f.state = h1ChunkSize
	case f.clValue > 0:
		f.state, f.remain = h1Body, f.clValue
	default:
		f.startHead()
	}
	return nil
}

// chunkSizeLine takes a chunk-size line ("1a;ext"), as net/http reads it:
// ended by CRLF with no other CR, the size in at most 16 hex digits before
// any ';' (after which comes an extension, ignored), blanks after the size
// only when there is no extension.
func (f *http1Follower) chunkSizeLine(line []byte, kept, crlf bool, crs int) error {
	if !crlf || crs != 1 {
		return wireError("a chunk-size line not ended by CRLF")
	}
	size, _, ext := bytes.Cut(line, []byte{';'})
	if !ext {
		if !kept { // the line's end, past what is kept, may not be blanks
			return wireError("a chunk-size line too long")
		}
		size = bytes.TrimRight(size, " \t")
	}
	v, ok := parseHex(size)
	if !ok {
		return wireError("a malformed chunk size")
	}
	if v == 0 {
		f.state = h1Trailer
		return nil
	}
	f.state, f.remain = h1ChunkData, v
	return nil
}

// parseDecimal parses a Content-Length as net/http does: digits only, at
// most what an int64 holds.
func parseDecimal(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	return v, v <= 1<<63-1
}

// parseHex parses a chunk size as net/http does: 1 to 16 hex digits.
func parseHex(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 16 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		v = v<<4 | uint64(d)
	}
	return v, true
}
