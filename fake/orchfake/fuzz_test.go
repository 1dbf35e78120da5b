package orchfake

import (
	"bytes"
	"testing"
)

func FuzzPageTokens(f *testing.F) {
	f.Add(nameToken("default"))
	f.Add(historyToken("run-1", 7))
	f.Add(listToken([]byte{1, 2, 3}))
	f.Add(offsetToken(3))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, tok []byte) {
		if name, err := parseNameToken(tok); err == nil && !bytes.Equal(nameToken(name), tok) {
			t.Fatalf("name token %q does not round-trip", name)
		}
		if run, next, err := parseHistoryToken(tok); err == nil && !bytes.Equal(historyToken(run, next), tok) {
			t.Fatalf("history token (%q, %d) does not round-trip", run, next)
		}
		if p, err := parseListToken(tok); err == nil && !bytes.Equal(listToken(p), tok) {
			t.Fatal("list token does not round-trip")
		}
		if off, err := parseOffsetToken(tok); err == nil && !bytes.Equal(offsetToken(off), tok) {
			t.Fatal("offset token does not round-trip")
		}
	})
}

func FuzzTaskToken(f *testing.F) {
	f.Add(encodeTaskToken(taskToken{kind: tokenWorkflow, namespace: "default", workflowID: "w", runID: "r", scheduledID: 2, attempt: 1}))
	f.Add(encodeTaskToken(taskToken{kind: tokenActivity, namespace: "ns", workflowID: "", runID: "r", scheduledID: 1 << 30, attempt: 9}))
	f.Add([]byte("t"))
	f.Fuzz(func(t *testing.T, tok []byte) {
		tt, err := decodeTaskToken(tok)
		if err != nil {
			return
		}
		if !bytes.Equal(encodeTaskToken(tt), tok) {
			t.Fatalf("%+v does not round-trip", tt)
		}
	})
}
