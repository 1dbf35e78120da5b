package sourcehostfake

import (
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// The records lists answer with (projects, issues, merge requests,
// pipelines, notes, members, and the users and milestones inside them) are
// written straight from the state into one buffer, with the state locked:
// no intermediate structs, maps or joined strings per item (issue 18).
// Each append function writes exactly what encoding/json wrote for the
// struct it replaced: the same keys in the same order, the same escaping,
// null and absent where it had them (TestListAnswersAreUnchanged pins it).

// appendString appends s as a JSON string escaped exactly as encoding/json
// escapes it: HTML's <, > and & too, invalid UTF-8 as \ufffd, and U+2028
// and U+2029.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	b = appendEscaped(b, s)
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"

// jsonSafe tells the ASCII bytes a JSON string holds as they are: not
// control characters, quotes, backslashes, nor HTML's <, > and &.
var jsonSafe = func() (safe [utf8.RuneSelf]bool) {
	for c := byte(0x20); c < utf8.RuneSelf; c++ {
		safe[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return safe
}()

// appendEscaped appends the inside of s as a JSON string (encoding/json's
// appendString with HTML escaping, without the quotes).
//
// A string written in pieces escapes as the whole would whenever every
// boundary between two pieces has an ASCII byte on at least one side (a
// literal "/" between two paths, a number after a URL): UTF-8 decoding
// never reads across such a boundary. The joined strings below keep to
// that.
func appendEscaped(b []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if jsonSafe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(b, s[start:]...)
}

// appendJoined appends the concatenation of parts as one JSON string; see
// appendEscaped for the boundaries this allows.
func appendJoined(b []byte, parts ...string) []byte {
	b = append(b, '"')
	for _, p := range parts {
		b = appendEscaped(b, p)
	}
	return append(b, '"')
}

// appendStrings appends a list of strings; nil is [] (the answers never
// write null for a list).
func appendStrings(b []byte, list []string) []byte {
	b = append(b, '[')
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, ']')
}

func appendInt(b []byte, n int64) []byte { return strconv.AppendInt(b, n, 10) }

func appendBool(b []byte, v bool) []byte { return strconv.AppendBool(b, v) }

// stampLayout is how the real API writes a time: UTC with milliseconds.
const stampLayout = "2006-01-02T15:04:05.000Z"

// appendStamp appends t as a JSON string in stampLayout, as stamp's
// MarshalJSON writes it, without formatting through the layout.
func appendStamp(b []byte, t time.Time) []byte {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		b = append(b, '"')
		b = t.AppendFormat(b, stampLayout)
		return append(b, '"')
	}
	hour, minute, sec := t.Clock()
	ms := t.Nanosecond() / 1e6
	return append(b, '"',
		byte('0'+year/1000), byte('0'+year/100%10), byte('0'+year/10%10), byte('0'+year%10), '-',
		byte('0'+int(month)/10), byte('0'+int(month)%10), '-', byte('0'+day/10), byte('0'+day%10), 'T',
		byte('0'+hour/10), byte('0'+hour%10), ':', byte('0'+minute/10), byte('0'+minute%10), ':',
		byte('0'+sec/10), byte('0'+sec%10), '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10), 'Z', '"')
}

// appendStampPtr is appendStamp, or null for no time.
func appendStampPtr(b []byte, t *time.Time) []byte {
	if t == nil {
		return append(b, "null"...)
	}
	return appendStamp(b, *t)
}

// appendList appends items as a JSON array, each written by f.
func appendList[T any](b []byte, items []T, f func([]byte, T) []byte) []byte {
	b = append(b, '[')
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = f(b, it)
	}
	return append(b, ']')
}

// outBuf is the buffer a request's answer is written into, reused from
// one request to the next once the answer has been written out.
type outBuf struct{ b []byte }

var outBufs = sync.Pool{New: func() any { return &outBuf{b: make([]byte, 0, 16<<10)} }}

// maxPooledOut is the largest buffer kept for reuse: a page of 100 big
// records fits; a larger answer's buffer goes to the garbage collector.
const maxPooledOut = 1 << 20

// buf is an empty buffer to write the call's answer into: the pooled one
// the first time (given back once the answer is written, see serve), nil
// (a new one) after that and outside requests.
func (c *call) buf() []byte {
	if c.pooled || c.r == nil {
		return nil
	}
	c.pooled = true
	c.out = outBufs.Get().(*outBuf)
	return c.out.b[:0]
}

// doc is an answer whose body b was written by the append functions,
// starting from c.buf() or nil.
func (c *call) doc(status int, b []byte) fakekit.Answer {
	if c.out != nil {
		c.out.b = b // the grown buffer goes back to the pool
	}
	return fakekit.Answer{Status: status, Raw: b}
}

// release gives the buffer back once its answer has been written.
func (o *outBuf) release() {
	if o == nil || cap(o.b) > maxPooledOut {
		return
	}
	o.b = o.b[:0]
	outBufs.Put(o)
}
