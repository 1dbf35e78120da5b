package gateway

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// A log of any length keeps only its last max bytes, cut at a whole line
// (or at least a whole character), and counts them all.
func TestTailWriter(t *testing.T) {
	t.Parallel()
	const max = 1024
	var all bytes.Buffer
	w := &tailWriter{max: max}
	for i := range 500 { // written in pieces of every size, as a body arrives
		line := fmt.Sprintf("line %d: %s\n", i, strings.Repeat("é", i%40))
		all.WriteString(line)
		if _, err := w.Write([]byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	got, truncated := w.text()
	if !truncated || w.total != int64(all.Len()) || len(got) > max || !strings.HasSuffix(all.String(), got) || !strings.HasPrefix(got, "line ") {
		t.Fatalf("truncated %v, total %d of %d, kept %d bytes starting %q", truncated, w.total, all.Len(), len(got), got[:min(20, len(got))])
	}
	if cap(w.buf) > 2*max {
		t.Errorf("buffer grew to %d bytes for a window of %d", cap(w.buf), max)
	}
	// One write larger than the window, with no newline: a whole
	// character first.
	w = &tailWriter{max: max}
	w.Write([]byte("x" + strings.Repeat("é", max)))
	if got, truncated := w.text(); !truncated || !utf8.ValidString(got) || len(got) < max-1 {
		t.Errorf("one long write: truncated %v, %d bytes, valid UTF-8 %v", truncated, len(got), utf8.ValidString(got))
	}
	// Full, it is a ring: writes go into the one buffer, and what it keeps
	// is still the last max bytes in order, however the writes fall.
	w = &tailWriter{max: max}
	all.Reset()
	for i := range 3 * max / 7 {
		piece := []byte("abcdefghijklmnopq"[:1+i%17])
		all.Write(piece)
		w.Write(piece)
	}
	ring := &w.buf[0]
	for range 101 {
		w.Write([]byte("0123456"))
		all.WriteString("0123456")
	}
	if &w.buf[0] != ring || len(w.buf) != max {
		t.Errorf("the full window was moved or grown: %d bytes", len(w.buf))
	}
	if got, want := string(w.kept()), all.String()[all.Len()-max:]; got != want {
		t.Errorf("kept %q, want the last %d bytes %q", got[:20], max, want[:20])
	}
	// A short log is all there.
	w = &tailWriter{max: max}
	w.Write([]byte("ok\n"))
	if got, truncated := w.text(); truncated || got != "ok\n" {
		t.Errorf("short log: %q %v", got, truncated)
	}
}
