package sourcehostfake

import (
	"strconv"
	"sync"
	"time"

	"github.com/apitwin/apitwin/internal/fakekit"
	"github.com/apitwin/apitwin/internal/jsonw"
)

// The records lists answer with (projects, issues, merge requests,
// pipelines, notes, members, and the users and milestones inside them) are
// written straight from the state into one buffer, with the state locked:
// no intermediate structs, maps or joined strings per item (issue 18).
// Each append function writes exactly what encoding/json wrote for the
// struct it replaced: the same keys in the same order, the same escaping,
// null and absent where it had them (TestListAnswersAreUnchanged pins it).

// appendJoined appends the concatenation of parts as one JSON string; see
// jsonw.AppendEscaped for the boundaries this allows.
func appendJoined(b []byte, parts ...string) []byte {
	b = append(b, '"')
	for _, p := range parts {
		b = jsonw.AppendEscaped(b, p)
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
		b = jsonw.AppendString(b, s)
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
