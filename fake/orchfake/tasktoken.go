package orchfake

import (
	"encoding/binary"

	"github.com/apitwin/apitwin/internal/orchwire"
)

// Task tokens name a started task: which kind, its execution, the event
// id that scheduled it and the attempt. They are sealed like page tokens
// (tag, fields, CRC-32) and mean nothing outside the fake that issued them.
type taskToken struct {
	kind        byte
	namespace   string
	workflowID  string
	runID       string
	scheduledID int64
	attempt     int32
}

const (
	tokenWorkflow = 'w'
	tokenActivity = 'a'
	tokenQuery    = 'q' // a query task: runID holds the query id's execution run, scheduledID the query's number
	tagTask       = 't'
)

func encodeTaskToken(t taskToken) []byte {
	b := []byte{t.kind}
	for _, s := range []string{t.namespace, t.workflowID, t.runID} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.AppendUvarint(b, uint64(t.scheduledID))
	b = binary.AppendUvarint(b, uint64(t.attempt))
	return seal(tagTask, b)
}

// decodeTaskToken reads a token; anything not made by encodeTaskToken is
// INVALID_ARGUMENT naming task_token.
func decodeTaskToken(tok []byte) (taskToken, error) {
	bad := badField("task_token", "invalid task token")
	p, ok := unseal(tagTask, tok)
	if !ok || len(p) < 1 {
		return taskToken{}, bad
	}
	t := taskToken{kind: p[0]}
	if t.kind != tokenWorkflow && t.kind != tokenActivity && t.kind != tokenQuery {
		return taskToken{}, bad
	}
	p = p[1:]
	var strs [3]string
	for i := range strs {
		n, w := binary.Uvarint(p)
		if w <= 0 || n > uint64(len(p)-w) {
			return taskToken{}, bad
		}
		strs[i] = string(p[w : w+int(n)])
		p = p[w+int(n):]
	}
	t.namespace, t.workflowID, t.runID = strs[0], strs[1], strs[2]
	sid, w := binary.Uvarint(p)
	if w <= 0 || sid == 0 || sid > 1<<40 {
		return taskToken{}, bad
	}
	p = p[w:]
	att, w := binary.Uvarint(p)
	if w <= 0 || w != len(p) || att > 1<<31-1 {
		return taskToken{}, bad
	}
	t.scheduledID, t.attempt = int64(sid), int32(att)
	return t, nil
}

var _ = orchwire.InvalidArgument
