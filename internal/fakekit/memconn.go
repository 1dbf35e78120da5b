package fakekit

import (
	"io"
	"net"
	"os"
	"sync"
	"time"
)

// MemConnBuffer is how many bytes one direction of an in-memory connection
// holds that its reader has not read yet. A write that would go past it
// waits for the reader, as a write over TCP waits when the socket buffers
// are full; below it a write returns at once, as over loopback TCP (whose
// buffers hold a few megabytes). So a handler whose client never reads
// its answer (a test that checks the status and closes) still finishes,
// where a net.Pipe, which buffers nothing, held it until the fake's
// shutdown grace ran out. It bounds what a client that stops reading makes
// a connection hold.
const MemConnBuffer = 1 << 20

// memKeepBuffer is the largest buffer a drained direction keeps for its
// next bytes; a larger one is dropped, so an idle kept-alive connection
// does not hold what its largest answer needed.
const memKeepBuffer = 64 << 10

// memConn is one end of an in-memory connection: a net.Conn that reads
// what the other end wrote, with deadlines, and the addresses a TCP
// connection on loopback would have.
//
// It is not net.Pipe, for two reasons. A net.Pipe buffers nothing: each
// write waits until the other end has read all of it, which no socket
// does. And its Close leaves a pending deadline's timer running, which
// keeps the pipe: an http.Server sets a read deadline of its IdleTimeout
// (two minutes) on every kept-alive connection, so every closed in-memory
// connection stayed in the heap, with a timer in the runtime's, for two
// minutes. A memConn's Close stops its timers.
type memConn struct {
	in, out       *memStream // read from in, write to out
	local, remote net.Addr
	rd, wd        deadline
	rmu, wmu      sync.Mutex // one Read and one Write at a time, as on a socket
	closeOnce     sync.Once
	done          chan struct{} // closed by Close
}

// newMemConns returns the two ends of a new in-memory connection, each
// named by its own address and its peer's.
func newMemConns(clientAddr, serverAddr net.Addr) (client, server *memConn) {
	up, down := newMemStream(), newMemStream()
	client = &memConn{in: down, out: up, local: clientAddr, remote: serverAddr, done: make(chan struct{})}
	server = &memConn{in: up, out: down, local: serverAddr, remote: clientAddr, done: make(chan struct{})}
	return client, server
}

// Read reads what the other end wrote; io.EOF once it closed and all it
// wrote is read; os.ErrDeadlineExceeded past the read deadline;
// io.ErrClosedPipe after Close (net.Pipe's errors).
func (c *memConn) Read(b []byte) (int, error) {
	c.rmu.Lock()
	defer c.rmu.Unlock()
	for {
		switch {
		case isClosed(c.done):
			return 0, io.ErrClosedPipe
		case c.rd.expired():
			return 0, os.ErrDeadlineExceeded
		}
		n, eof := c.in.read(b)
		switch {
		case n > 0 || len(b) == 0:
			return n, nil
		case eof:
			return 0, io.EOF
		}
		select {
		case <-c.in.readable:
		case <-c.rd.wait():
		case <-c.done:
		}
	}
}

// Write writes b for the other end to read, waiting while its unread
// bytes fill MemConnBuffer; io.ErrClosedPipe once either end closed,
// os.ErrDeadlineExceeded past the write deadline.
func (c *memConn) Write(b []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	n := 0
	for {
		switch {
		case isClosed(c.done):
			return n, io.ErrClosedPipe
		case c.wd.expired():
			return n, os.ErrDeadlineExceeded
		}
		k, gone := c.out.write(b[n:])
		n += k
		switch {
		case gone:
			return n, io.ErrClosedPipe
		case n == len(b):
			return n, nil
		}
		select {
		case <-c.out.writable:
		case <-c.wd.wait():
		case <-c.done:
		}
	}
}

// Close ends the connection: the other end reads what was written, then
// io.EOF, and its writes fail; this end's deadlines stop, so no timer
// keeps it.
func (c *memConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.done)
		c.rd.stop()
		c.wd.stop()
		c.out.closeWriter()
		c.in.closeReader()
	})
	return nil
}

func (c *memConn) LocalAddr() net.Addr  { return c.local }
func (c *memConn) RemoteAddr() net.Addr { return c.remote }

func (c *memConn) SetDeadline(t time.Time) error {
	if err := c.rd.set(t, c.done); err != nil {
		return err
	}
	return c.wd.set(t, c.done)
}

func (c *memConn) SetReadDeadline(t time.Time) error  { return c.rd.set(t, c.done) }
func (c *memConn) SetWriteDeadline(t time.Time) error { return c.wd.set(t, c.done) }

// memStream is one direction of an in-memory connection: the bytes one end
// wrote that the other has not read.
type memStream struct {
	mu       sync.Mutex
	buf      []byte // unread: buf[off:]
	off      int
	eof      bool          // the writer closed: its reader gets io.EOF once buf is read
	gone     bool          // the reader closed: writes fail
	readable chan struct{} // a token when bytes come or the writer closes
	writable chan struct{} // a token when room frees or the reader closes
}

func newMemStream() *memStream {
	return &memStream{readable: make(chan struct{}, 1), writable: make(chan struct{}, 1)}
}

// read copies unread bytes into b, and reports whether the writer has
// closed (meaningful when there was nothing to read).
func (s *memStream) read(b []byte) (n int, eof bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.off == len(s.buf) {
		return 0, s.eof
	}
	n = copy(b, s.buf[s.off:])
	s.off += n
	if s.off == len(s.buf) {
		s.off = 0
		s.buf = s.buf[:0]
		if cap(s.buf) > memKeepBuffer {
			s.buf = nil
		}
	}
	notify(s.writable)
	return n, false
}

// write takes as much of p as the buffer has room for, and reports
// whether the reader has closed.
func (s *memStream) write(p []byte) (n int, gone bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gone {
		return 0, true
	}
	unread := len(s.buf) - s.off
	n = min(len(p), MemConnBuffer-unread)
	if n <= 0 {
		return 0, false
	}
	if s.off > 0 && s.off >= unread { // what was read is no longer kept
		copy(s.buf, s.buf[s.off:])
		s.buf = s.buf[:unread]
		s.off = 0
	}
	s.buf = append(s.buf, p[:n]...)
	notify(s.readable)
	return n, false
}

// closeWriter marks the end of what is written.
func (s *memStream) closeWriter() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.eof = true
	notify(s.readable)
}

// closeReader drops what was not read, and fails the writes to come.
func (s *memStream) closeReader() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gone = true
	s.buf, s.off = nil, 0
	notify(s.writable)
}

// notify leaves a token in ch (of capacity 1) unless one waits there: the
// one goroutine that waits on ch looks again at what changed.
func notify(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// deadline is one of a memConn's deadlines: a channel closed when it
// passes, by a timer that Close stops.
type deadline struct {
	mu     sync.Mutex
	timer  *time.Timer
	gen    uint64        // set's count: a timer set before the last set does nothing
	passed chan struct{} // closed when the deadline passes; made when first needed
}

// set sets the deadline to t (zero: none), unless done (the connection's
// end) is closed.
func (d *deadline) set(t time.Time, done <-chan struct{}) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if isClosed(done) {
		return io.ErrClosedPipe
	}
	d.stopLocked()
	if d.passed != nil && isClosed(d.passed) {
		d.passed = nil // passed before: a new deadline starts afresh
	}
	if t.IsZero() {
		return nil
	}
	if wait := time.Until(t); wait > 0 {
		gen := d.gen
		d.timer = time.AfterFunc(wait, func() {
			d.mu.Lock()
			defer d.mu.Unlock()
			if d.gen == gen {
				d.expireLocked()
			}
		})
		return nil
	}
	d.expireLocked()
	return nil
}

// stop stops the timer, if any.
func (d *deadline) stop() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stopLocked()
}

func (d *deadline) stopLocked() {
	d.gen++
	if d.timer != nil {
		d.timer.Stop()
		d.timer = nil
	}
}

func (d *deadline) expireLocked() {
	if d.passed == nil {
		d.passed = make(chan struct{})
	}
	if !isClosed(d.passed) {
		close(d.passed)
	}
}

// wait returns a channel closed when the deadline passes.
func (d *deadline) wait() <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.passed == nil {
		d.passed = make(chan struct{})
	}
	return d.passed
}

// expired reports whether the deadline has passed.
func (d *deadline) expired() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.passed != nil && isClosed(d.passed)
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
