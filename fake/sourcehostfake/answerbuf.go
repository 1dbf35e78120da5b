package sourcehostfake

import (
	"github.com/apitwin/apitwin/internal/fakekit"
)

// Answers that lists are made of are written by the records' generated
// appendJSON (answers.go) straight into one buffer, with the state locked.
// The buffer is the kit's (fakekit.AnswerBuffer): the request log keeps
// the answer in it without a copy, and reuses it once it lets the answer
// go.

// buf is an empty buffer to write the call's answer into: a pooled one
// the first time (the answer doc makes of it lets it go), nil (a new one)
// after that and outside requests.
func (c *call) buf() []byte {
	if c.pooled || c.r == nil {
		return nil
	}
	c.pooled = true
	return fakekit.AnswerBuffer()
}

// doc is an answer whose body b was written by the append functions,
// starting from c.buf() or nil. Those are the generated appendJSON of the
// answer types (answers.go), none of whose keys is a secret answer field
// (TestAnswerTypesHoldNoSecretField): the request log keeps the answer
// without searching it for them (fakekit.Answer.SecretFree). A buffer from
// c.buf() goes with the answer (fakekit.Answer.Pooled).
func (c *call) doc(status int, b []byte) fakekit.Answer {
	return fakekit.Answer{Status: status, Raw: b, SecretFree: true, Pooled: c.pooled && b != nil}
}
