package fakekit

import (
	"testing"
)

// followAll feeds stream to a new follower in the pieces cuts make, and
// returns the follower and the error met (with the piece it was met in).
func followAll(stream []byte, cuts ...int) (*http1Follower, error) {
	f := &http1Follower{maxFields: MaxHeaderFields}
	f.startHead()
	at := 0
	for _, c := range append(cuts, len(stream)) {
		c = min(max(c, at), len(stream))
		if _, err := f.feed(stream[at:c]); err != nil {
			return f, err
		}
		at = c
	}
	return f, nil
}

// FuzzHTTP1Follower: the follower never panics, and how the stream is cut
// into reads changes nothing: the same refusal, or the same state at the
// end (a server reads a connection in whatever pieces the network gives).
func FuzzHTTP1Follower(f *testing.F) {
	for _, s := range []string{
		"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
		"POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\nabcGET / HTTP/1.0\r\n\r\n",
		"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3;x\r\nabc\r\n0\r\nT: 1\r\n\r\nGET / HTTP/1.1\n\n",
		"POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
		"POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n",
		"GET / HTTP/1.1\r\nA: 1\r\n 2\r\n\r\n",
		"POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
		"\r\n\r\nPOST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nA \r\n0123456789\r\n0\r\n\r\n",
	} {
		f.Add([]byte(s), uint16(3), uint16(17))
	}
	f.Fuzz(func(t *testing.T, stream []byte, cut1, cut2 uint16) {
		whole, werr := followAll(stream)
		split, serr := followAll(stream, int(cut1), int(cut2))
		bytewise, berr := followAll(stream, func() []int {
			cuts := make([]int, len(stream))
			for i := range cuts {
				cuts[i] = i
			}
			return cuts
		}()...)
		if werr != serr || werr != berr {
			t.Fatalf("refusal depends on the reads: whole %v, cut at %d and %d %v, byte by byte %v", werr, cut1, cut2, serr, berr)
		}
		if werr == nil && (*whole != *split || *whole != *bytewise) {
			t.Fatalf("state depends on the reads:\nwhole %+v\ncut   %+v\nbytes %+v", *whole, *split, *bytewise)
		}
	})
}

// The bytes passed before a refusal are those before the refused request,
// and its first 4 (see feed), whatever the reads.
func TestFollowerPassesFourBytesOfARefusedRequest(t *testing.T) {
	t.Parallel()
	good := "POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc"
	bad := "POST / HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n"
	for _, c := range []struct {
		name  string
		reads []string
		pass  []int // what each read passes; the last one fails
	}{
		{"one read", []string{good + bad}, []int{len(good) + 4}},
		{"the bad head in its own read", []string{good, bad}, []int{len(good), 4}},
		{"the bad head's first 2 bytes before", []string{good + bad[:2], bad[2:]}, []int{len(good) + 2, 2}},
		{"the bad head's first 9 bytes before", []string{good + bad[:9], bad[9:]}, []int{len(good) + 9, 0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := &http1Follower{maxFields: MaxHeaderFields}
			f.startHead()
			for i, r := range c.reads {
				pass, err := f.feed([]byte(r))
				if pass != c.pass[i] || (err != nil) != (i == len(c.reads)-1) {
					t.Fatalf("read %d: pass %d, err %v; want %d, and an error on the last read", i, pass, err, c.pass[i])
				}
			}
		})
	}
}
