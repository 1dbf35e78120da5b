package fakekit

import (
	"context"
	"net"
	"reflect"
	"runtime"
	"testing"
	"time"
)

// TestClosedMemConnIsNotKeptByItsDeadline: net.Pipe's Close leaves a
// deadline's timer running, and the timer keeps the pipe. An http.Server
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
					runtime.AddCleanup(pipeOf(c), func(ch chan struct{}) { ch <- struct{}{} }, freed)
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
					t.Fatalf("after %d GC cycles, %d of 2 ends collected: a deadline's timer still holds a closed pipe", cycles, n)
				}
				runtime.GC()
				runtime.Gosched()
				cycles++
			}
		})
	}
}

// pipeOf is the net.Pipe end inside an in-memory connection: the object a
// deadline's timer refers to.
func pipeOf(c net.Conn) *byte {
	return (*byte)(reflect.ValueOf(c.(*memConn).Conn).UnsafePointer())
}
