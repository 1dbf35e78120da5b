package fakekit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"testing"
	"time"
)

// TestClosedMemConnIsNotKeptByItsDeadline: net.Pipe's Close left a
// deadline's timer running, and the timer kept the pipe. An http.Server
// sets a read deadline of its IdleTimeout (two minutes) on every kept-alive
// connection, so each in-memory request stayed in the heap, with a timer in
// the runtime's, for two minutes after its fake closed: a suite starting
// thousands of fakes a minute kept thousands of each. Closed, both ends of
// a connection must be free to collect, whichever end closes first and
// whichever end had the deadline.
func TestClosedMemConnIsNotKeptByItsDeadline(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name             string
		deadlineOnServer bool
		serverFirst      bool
	}{
		{"idle server, client closes first", true, false},
		{"idle server, server closes first", true, true},
		{"waiting client, client closes first", false, false},
		{"waiting client, server closes first", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			freed := make(chan struct{}, 2)
			func() { // nothing of the connection outlives this
				l := NewMemListener("deadline")
				defer l.Close()
				accepted := make(chan net.Conn, 1)
				go func() {
					c, err := l.Accept()
					if err == nil {
						accepted <- c
					}
				}()
				client, err := l.DialContext(context.Background(), "tcp", "")
				if err != nil {
					t.Fatal(err)
				}
				server := <-accepted
				for _, c := range []net.Conn{client, server} {
					runtime.AddCleanup(c.(*memConn), func(ch chan struct{}) { ch <- struct{}{} }, freed)
				}
				waiting := server
				if !tc.deadlineOnServer {
					waiting = client
				}
				if err := waiting.SetReadDeadline(time.Now().Add(time.Hour)); err != nil {
					t.Fatal(err)
				}
				first, second := client, server
				if tc.serverFirst {
					first, second = server, client
				}
				first.Close()
				// The other end learns of the close, as a server reading the
				// next request does, then closes too.
				if _, err := second.Read(make([]byte, 1)); err == nil {
					t.Fatal("read from a closed pipe: no error")
				}
				second.Close()
			}()
			// Collected, the pipes' cleanups run on the runtime's goroutine:
			// wait for them over GC cycles, not a clock.
			for n, cycles := 0, 0; n < 2; {
				select {
				case <-freed:
					n++
					continue
				default:
				}
				if cycles == 100 {
					t.Fatalf("after %d GC cycles, %d of 2 ends collected: a deadline's timer still holds a closed connection", cycles, n)
				}
				runtime.GC()
				runtime.Gosched()
				cycles++
			}
		})
	}
}

// TestMemConnWriteDoesNotWaitForTheReader: a write returns once its bytes
// are buffered, as over TCP, up to MemConnBuffer unread bytes; past that
// it waits for the reader (or its deadline). net.Pipe buffered nothing, so
// an answer its client did not read held the handler until the fake's
// shutdown grace ran out. (A regression hangs here until the test times
// out.)
func TestMemConnWriteDoesNotWaitForTheReader(t *testing.T) {
	t.Parallel()
	a, b := newMemConns(&net.TCPAddr{}, memAddr("buffered"))
	defer a.Close()
	defer b.Close()
	sent := make([]byte, MemConnBuffer+10)
	for i := range sent {
		sent[i] = byte(i % 251)
	}
	if n, err := a.Write(sent[:MemConnBuffer]); n != MemConnBuffer || err != nil {
		t.Fatalf("a write of the buffer's size with no reader: %d, %v", n, err)
	}
	// Full: a write waits, and gives up at its deadline having written
	// nothing.
	a.SetWriteDeadline(time.Unix(1, 0))
	if n, err := a.Write(sent[MemConnBuffer:]); n != 0 || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a write to a full buffer past its deadline: %d, %v", n, err)
	} else if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
		t.Fatalf("%v is not a net.Error timeout", err)
	}
	a.SetWriteDeadline(time.Time{})
	wrote := make(chan error, 1)
	go func() {
		n, err := a.Write(sent[MemConnBuffer:])
		if err == nil && n != 10 {
			err = fmt.Errorf("wrote %d of 10", n)
		}
		wrote <- err
	}()
	got := make([]byte, len(sent))
	if _, err := io.ReadFull(b, got); err != nil {
		t.Fatal(err)
	}
	if err := <-wrote; err != nil {
		t.Fatalf("the write that waited for the reader: %v", err)
	}
	if !bytes.Equal(got, sent) {
		t.Fatal("read other bytes than were written")
	}
}

// TestMemConnClose: the other end reads what was written before Close,
// then io.EOF, and its writes fail; the closed end's reads, writes and
// deadlines fail (net.Pipe's errors).
func TestMemConnClose(t *testing.T) {
	t.Parallel()
	a, b := newMemConns(&net.TCPAddr{}, memAddr("close"))
	defer b.Close()
	if _, err := a.Write([]byte("last words")); err != nil {
		t.Fatal(err)
	}
	a.Close()
	if got, err := io.ReadAll(b); string(got) != "last words" || err != nil {
		t.Fatalf("read after the writer closed: %q, %v", got, err)
	}
	if _, err := b.Write([]byte("x")); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("write to a closed end: %v", err)
	}
	if _, err := a.Read(make([]byte, 1)); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("read on the closed end: %v", err)
	}
	if _, err := a.Write([]byte("x")); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("write on the closed end: %v", err)
	}
	if err := a.SetDeadline(time.Unix(1, 0)); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("deadline on the closed end: %v", err)
	}
	if err := a.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestMemConnDeadlineWakesAWaitingRead: a read deadline set while a Read
// waits ends the Read with a timeout; cleared, reads go on (as an
// http.Server aborts and resumes its background read).
func TestMemConnDeadlineWakesAWaitingRead(t *testing.T) {
	t.Parallel()
	a, b := newMemConns(&net.TCPAddr{}, memAddr("deadline"))
	defer a.Close()
	defer b.Close()
	read := make(chan error, 1)
	go func() {
		_, err := b.Read(make([]byte, 1))
		read <- err
	}()
	b.SetReadDeadline(time.Unix(1, 0)) // before or while it waits: the same end
	if err := <-read; !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past its deadline: %v", err)
	}
	b.SetReadDeadline(time.Time{})
	if _, err := a.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1)
	if n, err := b.Read(buf); n != 1 || err != nil || buf[0] != 'x' {
		t.Fatalf("read after the deadline was cleared: %d, %v", n, err)
	}
}

// TestMemConnKeepsOrderAcrossPartialReads: bytes come out in the order
// they went in when reads take part of what is buffered and writes fill
// the room the reads made (the buffer drops what was read as it goes).
func TestMemConnKeepsOrderAcrossPartialReads(t *testing.T) {
	t.Parallel()
	a, b := newMemConns(&net.TCPAddr{}, memAddr("order"))
	defer a.Close()
	defer b.Close()
	sent := make([]byte, MemConnBuffer+6)
	for i := range sent {
		sent[i] = byte(i % 253)
	}
	got := make([]byte, 0, len(sent))
	buf := make([]byte, 6)
	if _, err := a.Write(sent[:10]); err != nil {
		t.Fatal(err)
	}
	if n, err := io.ReadFull(b, buf); err != nil {
		t.Fatal(err)
	} else {
		got = append(got, buf[:n]...)
	}
	// 4 unread: exactly room for the rest, with no reader.
	if n, err := a.Write(sent[10:]); n != len(sent)-10 || err != nil {
		t.Fatalf("a write filling the room reads made: %d, %v", n, err)
	}
	a.Close()
	rest, err := io.ReadAll(b)
	if err != nil {
		t.Fatal(err)
	}
	if got = append(got, rest...); !bytes.Equal(got, sent) {
		t.Fatalf("read %d bytes, not in the order written", len(got))
	}
}
