package orchfake

import (
	"bytes"
	"context"
	"encoding/base64"
	"math/bits"
	"slices"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// The HTTP side's answer to List and Scan, written straight from the
// messages into one buffer: the bytes protojson writes with
// orchwire.MarshalJSON (proto names, fields in declaration order, unset
// fields left out, map keys sorted, int64 quoted, bytes in base64,
// timestamps in RFC 3339 with 0, 3, 6 or 9 digits), without its
// reflection, which costs a page of 100 some 7,000 allocations. Anything it
// does not expect (invalid UTF-8, a timestamp out of range, a message with
// fields this file does not know) makes it give up, and protojson answers,
// errors included.

// listJSONFast is whether the messages have exactly the fields the writer
// knows: a field added to the contract turns it off until it learns it.
var listJSONFast = knowsListFields()

// listJSONCommaSpace is protojson's choice, fixed per binary, of a space
// after each comma (it varies its output on purpose; the writer follows).
var listJSONCommaSpace = func() bool {
	b, _ := orchwire.MarshalJSON.Marshal(&orchpb.WorkflowExecution{WorkflowId: "a", RunId: "b"})
	return bytes.Contains(b, []byte(", "))
}()

func knowsListFields() bool {
	want := map[protoreflect.FullName][]string{
		"apitwin.orch.v1.ListWorkflowExecutionsResponse": {"1 executions message list", "2 next_page_token bytes"},
		"apitwin.orch.v1.ScanWorkflowExecutionsResponse": {"1 executions message list", "2 next_page_token bytes"},
		"apitwin.orch.v1.WorkflowExecutionInfo": {
			"1 execution message", "2 type message", "3 start_time message", "4 close_time message",
			"5 status enum", "6 history_length int64", "7 execution_time message", "8 memo message",
			"9 search_attributes message", "10 task_queue string", "11 first_execution_run_id string",
			"12 parent_namespace string", "13 parent_execution message"},
		"apitwin.orch.v1.WorkflowExecution": {"1 workflow_id string", "2 run_id string"},
		"apitwin.orch.v1.WorkflowType":      {"1 name string"},
		"apitwin.orch.v1.Memo":              {"1 fields message map"},
		"apitwin.orch.v1.SearchAttributes":  {"1 indexed_fields message map"},
		"apitwin.orch.v1.Payload":           {"1 metadata message map", "2 data bytes"},
	}
	for _, m := range []protoreflect.MessageDescriptor{
		(&orchpb.ListWorkflowExecutionsResponse{}).ProtoReflect().Descriptor(),
		(&orchpb.ScanWorkflowExecutionsResponse{}).ProtoReflect().Descriptor(),
		(&orchpb.WorkflowExecutionInfo{}).ProtoReflect().Descriptor(),
		(&orchpb.WorkflowExecution{}).ProtoReflect().Descriptor(),
		(&orchpb.WorkflowType{}).ProtoReflect().Descriptor(),
		(&orchpb.Memo{}).ProtoReflect().Descriptor(),
		(&orchpb.SearchAttributes{}).ProtoReflect().Descriptor(),
		(&orchpb.Payload{}).ProtoReflect().Descriptor(),
	} {
		var got []string
		fields := m.Fields()
		for i := range fields.Len() {
			f := fields.Get(i)
			d := strconv.Itoa(int(f.Number())) + " " + string(f.Name()) + " " + f.Kind().String()
			if f.IsMap() {
				d += " map"
			} else if f.IsList() {
				d += " list"
			}
			got = append(got, d)
		}
		if !slices.Equal(got, want[m.FullName()]) {
			return false
		}
	}
	return (&timestamppb.Timestamp{}).ProtoReflect().Descriptor().Fields().Len() == 2
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
	execs []*orchpb.WorkflowExecutionInfo
	next  []byte
	json  *listedJSON
}

// rewriteListAnswer is the gateway's response rewriter: a List or Scan
// answer over HTTP goes to the marshaler with the JSON its runs have in
// state; anything else goes on as it is.
func rewriteListAnswer(ctx context.Context, resp proto.Message) (any, error) {
	var a listAnswer
	switch r := resp.(type) {
	case *orchpb.ListWorkflowExecutionsResponse:
		a.execs, a.next = r.GetExecutions(), r.GetNextPageToken()
	case *orchpb.ScanWorkflowExecutionsResponse:
		a.execs, a.next = r.GetExecutions(), r.GetNextPageToken()
	default:
		return resp, nil
	}
	hc, _ := ctx.Value(httpCallKey{}).(*httpCall)
	if hc == nil || !slices.Equal(hc.json.infos, a.execs) {
		return resp, nil
	}
	a.json = &hc.json
	return &a, nil
}

// answerJSON writes a listAnswer from its runs' JSON: the bytes
// appendListJSON would write. False when a run has none.
func answerJSON(a *listAnswer) ([]byte, bool) {
	n := 64 + base64.StdEncoding.EncodedLen(len(a.next))
	for _, p := range a.json.pieces {
		if p == nil {
			return nil, false
		}
		n += len(p) + 2
	}
	buf := answerBuffers.Get().(*[]byte)
	a.json.answer = buf
	w := jsonWriter{b: slices.Grow((*buf)[:0], n)}
	w.b = append(w.b, '{')
	first := true
	if len(a.execs) > 0 {
		w.name(&first, "executions")
		w.b = append(w.b, '[')
		for i, p := range a.json.pieces {
			if i > 0 {
				w.comma()
			}
			w.b = append(w.b, p...)
		}
		w.b = append(w.b, ']')
	}
	if len(a.next) > 0 {
		w.name(&first, "next_page_token")
		w.bytes(a.next)
	}
	w.b = append(w.b, '}')
	*buf = w.b
	return w.b, true
}

// appendListJSON appends the JSON of a List or Scan answer to b; false
// when protojson must write it instead.
func appendListJSON(b []byte, execs []*orchpb.WorkflowExecutionInfo, next []byte) ([]byte, bool) {
	if !listJSONFast {
		return b, false
	}
	w := jsonWriter{b: b}
	w.b = append(w.b, '{')
	first := true
	if len(execs) > 0 {
		w.name(&first, "executions")
		w.b = append(w.b, '[')
		for i, e := range execs {
			if e == nil {
				return b, false
			}
			if i > 0 {
				w.comma()
			}
			w.info(e)
		}
		w.b = append(w.b, ']')
	}
	if len(next) > 0 {
		w.name(&first, "next_page_token")
		w.bytes(next)
	}
	w.b = append(w.b, '}')
	if w.bad {
		return b, false
	}
	return w.b, true
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

type jsonWriter struct {
	b    []byte
	bad  bool     // something protojson would refuse, or write otherwise
	keys []string // scratch for sorting map keys
}

func (w *jsonWriter) comma() {
	w.b = append(w.b, ',')
	if listJSONCommaSpace {
		w.b = append(w.b, ' ')
	}
}

// name writes a field's name (plain ASCII), after a comma unless it is the
// object's first.
func (w *jsonWriter) name(first *bool, n string) {
	if !*first {
		w.comma()
	}
	*first = false
	w.b = append(w.b, '"')
	w.b = append(w.b, n...)
	w.b = append(w.b, '"', ':')
}

// str writes s as protojson does: only '"', '\\' and control characters
// escaped; invalid UTF-8 is refused.
func (w *jsonWriter) str(s string) {
	w.b = append(w.b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				w.bad = true
				return
			}
			i += n
			continue
		}
		if c >= ' ' && c != '"' && c != '\\' {
			i++
			continue
		}
		w.b = append(w.b, s[start:i]...)
		w.b = append(w.b, '\\')
		switch c {
		case '"', '\\':
			w.b = append(w.b, c)
		case '\b':
			w.b = append(w.b, 'b')
		case '\f':
			w.b = append(w.b, 'f')
		case '\n':
			w.b = append(w.b, 'n')
		case '\r':
			w.b = append(w.b, 'r')
		case '\t':
			w.b = append(w.b, 't')
		default:
			w.b = append(w.b, 'u')
			w.b = append(w.b, "0000"[1+(bits.Len32(uint32(c))-1)/4:]...)
			w.b = strconv.AppendUint(w.b, uint64(c), 16)
		}
		i++
		start = i
	}
	w.b = append(w.b, s[start:]...)
	w.b = append(w.b, '"')
}

func (w *jsonWriter) bytes(p []byte) {
	w.b = append(w.b, '"')
	w.b = base64.StdEncoding.AppendEncode(w.b, p)
	w.b = append(w.b, '"')
}

// Timestamp bounds protojson accepts: years 1 to 9999.
const (
	minJSONTimestamp = -62135596800
	maxJSONTimestamp = 253402300799
)

func (w *jsonWriter) timestamp(ts *timestamppb.Timestamp) {
	secs, nanos := ts.GetSeconds(), ts.GetNanos()
	if secs < minJSONTimestamp || secs > maxJSONTimestamp || nanos < 0 || nanos > 999_999_999 {
		w.bad = true
		return
	}
	w.b = append(w.b, '"')
	n := len(w.b)
	w.b = time.Unix(secs, int64(nanos)).UTC().AppendFormat(w.b, "2006-01-02T15:04:05.000000000")
	for range 2 {
		if bytes.HasSuffix(w.b[n:], []byte("000")) {
			w.b = w.b[:len(w.b)-3]
		}
	}
	if bytes.HasSuffix(w.b[n:], []byte(".000")) {
		w.b = w.b[:len(w.b)-4]
	}
	w.b = append(w.b, 'Z', '"')
}

func (w *jsonWriter) execution(e *orchpb.WorkflowExecution) {
	w.b = append(w.b, '{')
	first := true
	if v := e.GetWorkflowId(); v != "" {
		w.name(&first, "workflow_id")
		w.str(v)
	}
	if v := e.GetRunId(); v != "" {
		w.name(&first, "run_id")
		w.str(v)
	}
	w.b = append(w.b, '}')
}

func (w *jsonWriter) info(e *orchpb.WorkflowExecutionInfo) {
	w.b = append(w.b, '{')
	first := true
	if e.Execution != nil {
		w.name(&first, "execution")
		w.execution(e.Execution)
	}
	if e.Type != nil {
		w.name(&first, "type")
		w.b = append(w.b, '{')
		if v := e.Type.GetName(); v != "" {
			f := true
			w.name(&f, "name")
			w.str(v)
		}
		w.b = append(w.b, '}')
	}
	if e.StartTime != nil {
		w.name(&first, "start_time")
		w.timestamp(e.StartTime)
	}
	if e.CloseTime != nil {
		w.name(&first, "close_time")
		w.timestamp(e.CloseTime)
	}
	if v := e.Status; v != 0 {
		w.name(&first, "status")
		if n, ok := orchpb.WorkflowExecutionStatus_name[int32(v)]; ok {
			w.str(n)
		} else {
			w.b = strconv.AppendInt(w.b, int64(v), 10)
		}
	}
	if v := e.HistoryLength; v != 0 {
		w.name(&first, "history_length")
		w.b = append(w.b, '"')
		w.b = strconv.AppendInt(w.b, v, 10)
		w.b = append(w.b, '"')
	}
	if e.ExecutionTime != nil {
		w.name(&first, "execution_time")
		w.timestamp(e.ExecutionTime)
	}
	if e.Memo != nil {
		w.name(&first, "memo")
		w.payloadsObject("fields", e.Memo.Fields)
	}
	if e.SearchAttributes != nil {
		w.name(&first, "search_attributes")
		w.payloadsObject("indexed_fields", e.SearchAttributes.IndexedFields)
	}
	if v := e.TaskQueue; v != "" {
		w.name(&first, "task_queue")
		w.str(v)
	}
	if v := e.FirstExecutionRunId; v != "" {
		w.name(&first, "first_execution_run_id")
		w.str(v)
	}
	if v := e.ParentNamespace; v != "" {
		w.name(&first, "parent_namespace")
		w.str(v)
	}
	if e.ParentExecution != nil {
		w.name(&first, "parent_execution")
		w.execution(e.ParentExecution)
	}
	w.b = append(w.b, '}')
}

// payloadsObject writes a Memo or SearchAttributes: one map field named
// field, left out when empty.
func (w *jsonWriter) payloadsObject(field string, m map[string]*orchpb.Payload) {
	w.b = append(w.b, '{')
	if len(m) > 0 {
		first := true
		w.name(&first, field)
		w.b = append(w.b, '{')
		keys := w.sortedKeys(m)
		for i, k := range keys {
			if i > 0 {
				w.comma()
			}
			w.str(k)
			w.b = append(w.b, ':')
			w.payload(m[k])
		}
		w.keys = keys[:0]
		w.b = append(w.b, '}')
	}
	w.b = append(w.b, '}')
}

func (w *jsonWriter) sortedKeys(m map[string]*orchpb.Payload) []string {
	keys := w.keys[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func (w *jsonWriter) payload(p *orchpb.Payload) {
	w.b = append(w.b, '{')
	first := true
	if md := p.GetMetadata(); len(md) > 0 {
		w.name(&first, "metadata")
		w.b = append(w.b, '{')
		if len(md) == 1 {
			for k, v := range md {
				w.str(k)
				w.b = append(w.b, ':')
				w.bytes(v)
			}
		} else {
			keys := make([]string, 0, len(md))
			for k := range md {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for i, k := range keys {
				if i > 0 {
					w.comma()
				}
				w.str(k)
				w.b = append(w.b, ':')
				w.bytes(md[k])
			}
		}
		w.b = append(w.b, '}')
	}
	if d := p.GetData(); len(d) > 0 {
		w.name(&first, "data")
		w.bytes(d)
	}
	w.b = append(w.b, '}')
}
