package orchfake

import (
	"bytes"
	"context"
	"encoding/base64"
	"slices"
	"sync"

	"github.com/apitwin/apitwin/internal/jsonw"
	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/protobuf/proto"
)

//go:generate go run ../../internal/cmd/jsongen -proto ../../orch/orchpb -type ListWorkflowExecutionsResponse,ScanWorkflowExecutionsResponse -cache WorkflowExecutionInfo -o protojson_gen.go

// The HTTP side's answer to List and Scan is written by protoJSON, which
// internal/cmd/jsongen generates from the messages' Go structs
// (protojson_gen.go): the bytes protojson writes with orchwire.MarshalJSON,
// without its reflection, which costs a page of 100 some 7,000
// allocations. Anything protojson would refuse or write otherwise
// (invalid UTF-8, a timestamp out of range) makes it give up, and
// protojson answers, errors included. Each run's JSON is kept with its
// listed info (execution.listJSON), so a page is mostly copied, not
// written.

// listJSONFast is whether the compiled messages have exactly the fields
// protoJSON was generated for.
var listJSONFast = protoJSONCurrent()

// listJSONCommaSpace is protojson's choice, fixed per binary, of a space
// after each comma (it varies its output on purpose; the writer follows).
var listJSONCommaSpace = func() bool {
	b, _ := orchwire.MarshalJSON.Marshal(&orchpb.WorkflowExecution{WorkflowId: "a", RunId: "b"})
	return bytes.Contains(b, []byte(", "))
}()

// newProtoJSON is a writer appending to b with this binary's commas.
func newProtoJSON(b []byte) protoJSON {
	return protoJSON{Proto: jsonw.Proto{B: b, CommaSpace: listJSONCommaSpace}}
}

// listedJSON is what a List or Scan over HTTP listed, each run's info with
// its JSON as kept in state (execution.listJSON), for answerJSON to put
// together without writing any of it again.
type listedJSON struct {
	infos  []*orchpb.WorkflowExecutionInfo
	pieces [][]byte
	answer *[]byte // the answer written from them, from answerBuffers
}

// answerBuffers holds the buffers answers are written in, for the next
// answer once one is written out (an io.Writer keeps nothing it is given).
var answerBuffers = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledAnswer bounds the buffers kept for reuse.
const maxPooledAnswer = 1 << 20

// release gives the answer's buffer back once the answer is written.
func (l *listedJSON) release() {
	if l.answer != nil && cap(*l.answer) <= maxPooledAnswer {
		answerBuffers.Put(l.answer)
	}
	l.answer = nil
}

// listAnswer is a List or Scan answer with its runs' JSON, the form the
// gateway's response rewriter hands the marshaler.
type listAnswer struct {
	resp proto.Message // *orchpb.ListWorkflowExecutionsResponse or *orchpb.ScanWorkflowExecutionsResponse
	json *listedJSON
}

// listed is a List or Scan answer's runs and page token; ok is false for
// any other message.
func listed(resp any) (execs []*orchpb.WorkflowExecutionInfo, next []byte, ok bool) {
	switch r := resp.(type) {
	case *orchpb.ListWorkflowExecutionsResponse:
		return r.GetExecutions(), r.GetNextPageToken(), true
	case *orchpb.ScanWorkflowExecutionsResponse:
		return r.GetExecutions(), r.GetNextPageToken(), true
	}
	return nil, nil, false
}

// rewriteListAnswer is the gateway's response rewriter: a List or Scan
// answer over HTTP goes to the marshaler with the JSON its runs have in
// state; anything else goes on as it is.
func rewriteListAnswer(ctx context.Context, resp proto.Message) (any, error) {
	execs, _, ok := listed(resp)
	if !ok {
		return resp, nil
	}
	hc, _ := ctx.Value(httpCallKey{}).(*httpCall)
	if hc == nil || !slices.Equal(hc.json.infos, execs) {
		return resp, nil
	}
	return &listAnswer{resp: resp, json: &hc.json}, nil
}

// writeList writes a List or Scan answer with w; false for any other
// message, or when protojson must write it.
func writeList(w *protoJSON, resp any) bool {
	switch r := resp.(type) {
	case *orchpb.ListWorkflowExecutionsResponse:
		w.writeListWorkflowExecutionsResponse(r)
	case *orchpb.ScanWorkflowExecutionsResponse:
		w.writeScanWorkflowExecutionsResponse(r)
	default:
		return false
	}
	return !w.Bad
}

// answerJSON writes a listAnswer from its runs' JSON: the bytes
// appendListJSON would write. False when a run has none.
func answerJSON(a *listAnswer) ([]byte, bool) {
	execs, next, _ := listed(a.resp)
	n := 64 + base64.StdEncoding.EncodedLen(len(next))
	for _, p := range a.json.pieces {
		if p == nil {
			return nil, false
		}
		n += len(p) + 2
	}
	if !listJSONFast || len(a.json.pieces) != len(execs) {
		return nil, false
	}
	buf := answerBuffers.Get().(*[]byte)
	a.json.answer = buf
	w := newProtoJSON(slices.Grow((*buf)[:0], n))
	i := 0
	w.cachedWorkflowExecutionInfo = func(m *orchpb.WorkflowExecutionInfo) []byte {
		if i < len(execs) && execs[i] == m {
			i++
			return a.json.pieces[i-1]
		}
		return nil
	}
	ok := writeList(&w, a.resp)
	*buf = w.B
	return w.B, ok
}

// appendListJSON writes a List or Scan answer; false when protojson must
// write it instead.
func appendListJSON(resp any) ([]byte, bool) {
	execs, _, ok := listed(resp)
	if !ok || !listJSONFast {
		return nil, false
	}
	w := newProtoJSON(make([]byte, 0, listJSONSize(execs)))
	if !writeList(&w, resp) {
		return nil, false
	}
	return w.B, true
}

// listJSONSize guesses the size of a page's JSON, to allocate it once.
func listJSONSize(execs []*orchpb.WorkflowExecutionInfo) int {
	n := 64
	for _, e := range execs {
		n += 400 + len(e.GetExecution().GetWorkflowId()) + len(e.GetTaskQueue())
		n += 120 * (len(e.GetMemo().GetFields()) + len(e.GetSearchAttributes().GetIndexedFields()))
	}
	return n
}
