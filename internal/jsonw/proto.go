package jsonw

import (
	"bytes"
	"encoding/base64"
	"math/bits"
	"strconv"
	"time"
	"unicode/utf8"
)

// Proto is what the writers internal/cmd/jsongen generates for protobuf
// messages stand on: the tokens as protojson writes them. Its zero value
// writes into a new buffer with no space after commas.
type Proto struct {
	B []byte
	// Bad is set on the first thing protojson would refuse or write
	// another way; the caller then lets protojson answer, errors included.
	Bad bool
	// CommaSpace writes a space after each comma, as protojson does in
	// some binaries (it varies its output on purpose, once per binary).
	CommaSpace bool
	keys       []string // scratch for sorting a map's keys
}

// Comma writes the comma between two members or elements.
func (w *Proto) Comma() {
	w.B = append(w.B, ',')
	if w.CommaSpace {
		w.B = append(w.B, ' ')
	}
}

// String writes s as protojson does: '"', '\\' and control characters
// escaped, nothing else (HTML's characters, U+2028 and U+2029 stay as they
// are); invalid UTF-8 is Bad.
func (w *Proto) String(s string) {
	w.B = append(w.B, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				w.Bad = true
				return
			}
			i += n
			continue
		}
		if c >= ' ' && c != '"' && c != '\\' {
			i++
			continue
		}
		w.B = append(w.B, s[start:i]...)
		w.B = append(w.B, '\\')
		switch c {
		case '"', '\\':
			w.B = append(w.B, c)
		case '\b':
			w.B = append(w.B, 'b')
		case '\f':
			w.B = append(w.B, 'f')
		case '\n':
			w.B = append(w.B, 'n')
		case '\r':
			w.B = append(w.B, 'r')
		case '\t':
			w.B = append(w.B, 't')
		default:
			w.B = append(w.B, 'u')
			w.B = append(w.B, "0000"[1+(bits.Len32(uint32(c))-1)/4:]...)
			w.B = strconv.AppendUint(w.B, uint64(c), 16)
		}
		i++
		start = i
	}
	w.B = append(w.B, s[start:]...)
	w.B = append(w.B, '"')
}

// Bytes writes p in standard base64, padded.
func (w *Proto) Bytes(p []byte) {
	w.B = append(w.B, '"')
	w.B = base64.StdEncoding.AppendEncode(w.B, p)
	w.B = append(w.B, '"')
}

// Bool writes true or false.
func (w *Proto) Bool(v bool) { w.B = strconv.AppendBool(w.B, v) }

// Int writes a 32-bit integer (or an enum's number): unquoted.
func (w *Proto) Int(v int64) { w.B = strconv.AppendInt(w.B, v, 10) }

// Uint writes an unsigned 32-bit integer: unquoted.
func (w *Proto) Uint(v uint64) { w.B = strconv.AppendUint(w.B, v, 10) }

// Int64 writes a 64-bit integer: quoted, as protojson writes one.
func (w *Proto) Int64(v int64) {
	w.B = append(strconv.AppendInt(append(w.B, '"'), v, 10), '"')
}

// Uint64 writes an unsigned 64-bit integer: quoted.
func (w *Proto) Uint64(v uint64) {
	w.B = append(strconv.AppendUint(append(w.B, '"'), v, 10), '"')
}

// Timestamp bounds protojson accepts: years 1 to 9999.
const (
	minTimestamp = -62135596800
	maxTimestamp = 253402300799
)

// Timestamp writes a google.protobuf.Timestamp of secs and nanos: RFC 3339
// in UTC with 0, 3, 6 or 9 digits of fraction; out of protojson's range
// is Bad.
func (w *Proto) Timestamp(secs int64, nanos int32) {
	if secs < minTimestamp || secs > maxTimestamp || nanos < 0 || nanos > 999_999_999 {
		w.Bad = true
		return
	}
	w.B = append(w.B, '"')
	n := len(w.B)
	w.B = time.Unix(secs, int64(nanos)).UTC().AppendFormat(w.B, "2006-01-02T15:04:05.000000000")
	for range 2 {
		if bytes.HasSuffix(w.B[n:], []byte("000")) {
			w.B = w.B[:len(w.B)-3]
		}
	}
	if bytes.HasSuffix(w.B[n:], []byte(".000")) {
		w.B = w.B[:len(w.B)-4]
	}
	w.B = append(w.B, 'Z', '"')
}

// TakeKeys lends the writer's scratch for a map's keys, empty; a map
// written inside that one (while it is lent) gets a new one. GiveKeys gives
// it back.
func (w *Proto) TakeKeys() []string {
	k := w.keys[:0]
	w.keys = nil
	return k
}

// GiveKeys takes back the scratch TakeKeys lent, keeping none of its
// strings.
func (w *Proto) GiveKeys(k []string) {
	clear(k)
	w.keys = k[:0]
}
