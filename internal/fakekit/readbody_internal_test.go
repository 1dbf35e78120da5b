package fakekit

import (
	"bytes"
	"io"
	"testing"
)

// askingReader records the largest read asked of it: what a reader of the
// body had allocated before the bytes arrived.
type askingReader struct {
	r       io.Reader
	largest int
}

func (a *askingReader) Read(p []byte) (int, error) {
	a.largest = max(a.largest, len(p))
	return a.r.Read(p)
}

// A body announced large is read as it arrives, not into a buffer of the
// announced size: a client announcing 10 MiB and sending a byte a second
// held 10 MiB of the fake's memory for the whole body timeout.
func TestReadBodyDoesNotAllocateTheAnnouncedLength(t *testing.T) {
	t.Parallel()
	for _, size := range []int{1, 32 << 10, 32<<10 + 1, 3 << 20} {
		want := bytes.Repeat([]byte{'x'}, size)
		ar := &askingReader{r: bytes.NewReader(want)}
		got, err := readBody(ar, int64(size), 10<<20)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("size %d: %d bytes, %v", size, len(got), err)
		}
		if ar.largest > 32<<10 {
			t.Errorf("size %d: a read of %d bytes asked at once", size, ar.largest)
		}
	}
	// Announced 10 MiB, one byte sent: the client went away.
	ar := &askingReader{r: bytes.NewReader([]byte{'x'})}
	if _, err := readBody(ar, 10<<20, 10<<20); err == nil {
		t.Fatal("a short body read whole")
	}
	if ar.largest > 32<<10 {
		t.Errorf("a read of %d bytes asked for a body announced 10 MiB", ar.largest)
	}
}
