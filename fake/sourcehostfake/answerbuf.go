package sourcehostfake

import (
	"sync"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// Answers that lists are made of are written by the records' generated
// appendJSON (answers.go) straight into one buffer, with the state locked,
// and the buffer is kept for the next request once the answer is out.

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
// starting from c.buf() or nil. Those are the generated appendJSON of the
// answer types (answers.go), none of whose keys is a secret answer field
// (TestAnswerTypesHoldNoSecretField): the request log keeps the answer
// without searching it for them (fakekit.Answer.SecretFree).
func (c *call) doc(status int, b []byte) fakekit.Answer {
	if c.out != nil {
		c.out.b = b // the grown buffer goes back to the pool
	}
	return fakekit.Answer{Status: status, Raw: b, SecretFree: true}
}

// release gives the buffer back once its answer has been written.
func (o *outBuf) release() {
	if o == nil || cap(o.b) > maxPooledOut {
		return
	}
	o.b = o.b[:0]
	outBufs.Put(o)
}
