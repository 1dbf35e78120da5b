package orchfake

import (
	"math/rand/v2"
	"testing"

	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// TestListJSONWritesWhatProtojsonWrites compares appendListJSON (the
// generated protoJSON) with protojson (orchwire.MarshalJSON) byte for byte
// over random pages of List and Scan: names JSON must escape, invalid
// UTF-8, timestamps of every precision and out of range, unknown
// statuses, empty and nil maps and messages, nil runs and payloads. Where
// protojson fails, appendListJSON must decline (protojson then answers).
func TestListJSONWritesWhatProtojsonWrites(t *testing.T) {
	t.Parallel()
	if !listJSONFast {
		t.Fatal("appendListJSON is off: protojson_gen.go is older than the messages (go generate ./fake/orchfake)")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	pieces := []string{"a", "wf-1", `"`, `\`, "\x00", "\x01", "\x1f", "\x7f", "\b\f\n\r\t", "é", "漢", "\u2028", "<>&", "😀", " ", "\xff", "a\xc3"}
	str := func() string {
		if rng.IntN(4) == 0 {
			return ""
		}
		s := ""
		for range rng.IntN(4) + 1 {
			p := pieces[rng.IntN(len(pieces))]
			if p == "\xff" || p == "a\xc3" {
				if rng.IntN(20) != 0 { // rarely: a page with one fails as a whole
					continue
				}
			}
			s += p
		}
		return s
	}
	ts := func() *timestamppb.Timestamp {
		switch rng.IntN(8) {
		case 0:
			return nil
		case 1:
			return &timestamppb.Timestamp{}
		case 2:
			return &timestamppb.Timestamp{Seconds: -62135596800 - int64(rng.IntN(2))} // at and past year 1
		case 3:
			return &timestamppb.Timestamp{Seconds: 253402300799 + int64(rng.IntN(2))} // at and past year 9999
		case 4:
			return &timestamppb.Timestamp{Seconds: rng.Int64N(4e9) - 2e9, Nanos: int32(rng.IntN(1000)) * 1_000_000}
		case 5:
			return &timestamppb.Timestamp{Seconds: rng.Int64N(4e9), Nanos: int32(rng.IntN(1000)) * 1000}
		case 6:
			if rng.IntN(10) == 0 {
				return &timestamppb.Timestamp{Seconds: 1, Nanos: -1 + 1e9*int32(rng.IntN(2)*2)} // out of range
			}
			return &timestamppb.Timestamp{Seconds: 1, Nanos: 1}
		}
		return &timestamppb.Timestamp{Seconds: rng.Int64N(4e9), Nanos: rng.Int32N(1e9)}
	}
	payloads := func() map[string]*orchpb.Payload {
		if rng.IntN(4) == 0 {
			return nil
		}
		m := map[string]*orchpb.Payload{}
		for range rng.IntN(5) {
			p := &orchpb.Payload{}
			for range rng.IntN(4) {
				if p.Metadata == nil {
					p.Metadata = map[string][]byte{}
				}
				p.Metadata[str()] = []byte(str())
			}
			if rng.IntN(3) > 0 {
				p.Data = []byte(str())
			}
			if rng.IntN(30) == 0 {
				p = nil // protojson writes {}
			}
			m[str()] = p
		}
		return m
	}
	execution := func() *orchpb.WorkflowExecution {
		if rng.IntN(5) == 0 {
			return nil
		}
		return &orchpb.WorkflowExecution{WorkflowId: str(), RunId: str()}
	}
	for round := range 3000 {
		var execs []*orchpb.WorkflowExecutionInfo
		for range rng.IntN(4) {
			e := &orchpb.WorkflowExecutionInfo{
				Execution: execution(), StartTime: ts(), CloseTime: ts(), ExecutionTime: ts(),
				Status:        orchpb.WorkflowExecutionStatus(rng.IntN(10)),
				HistoryLength: rng.Int64N(3) * rng.Int64() * int64(1-2*rng.IntN(2)),
				TaskQueue:     str(), FirstExecutionRunId: str(), ParentNamespace: str(), ParentExecution: execution(),
			}
			if rng.IntN(4) > 0 {
				e.Type = &orchpb.WorkflowType{Name: str()}
			}
			if rng.IntN(3) > 0 {
				e.Memo = &orchpb.Memo{Fields: payloads()}
			}
			if rng.IntN(3) > 0 {
				e.SearchAttributes = &orchpb.SearchAttributes{IndexedFields: payloads()}
			}
			if rng.IntN(40) == 0 {
				e = nil // protojson writes {}
			}
			execs = append(execs, e)
		}
		var next []byte
		if rng.IntN(2) == 0 {
			next = []byte(str())
		}
		var resp proto.Message = &orchpb.ListWorkflowExecutionsResponse{Executions: execs, NextPageToken: next}
		if round%2 == 1 {
			resp = &orchpb.ScanWorkflowExecutionsResponse{Executions: execs, NextPageToken: next}
		}
		want, err := orchwire.MarshalJSON.Marshal(resp)
		got, ok := appendListJSON(resp)
		switch {
		case err != nil && ok:
			t.Fatalf("round %d: protojson fails (%v), appendListJSON wrote\n%s", round, err, got)
		case err == nil && !ok:
			t.Fatalf("round %d: appendListJSON declined what protojson writes:\n%s", round, want)
		case err == nil && string(got) != string(want):
			t.Fatalf("round %d:\ngot  %s\nwant %s", round, got, want)
		}
	}
}
