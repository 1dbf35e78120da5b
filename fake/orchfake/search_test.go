package orchfake_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/orch/orchpb"
)

func seedSearch(t testing.TB, s *orchfake.Server, n int) {
	t.Helper()
	if err := s.RegisterSearchAttribute("default", "CustomerId", orchfake.Keyword); err != nil {
		t.Fatal(err)
	}
	if err := s.RegisterSearchAttribute("default", "Amount", orchfake.Int); err != nil {
		t.Fatal(err)
	}
	statuses := []orchpb.WorkflowExecutionStatus{orchpb.WorkflowExecutionStatus_RUNNING, orchpb.WorkflowExecutionStatus_COMPLETED, orchpb.WorkflowExecutionStatus_FAILED}
	for i := range n {
		typ := "Order"
		if i%2 == 1 {
			typ = "Refund"
		}
		_, err := s.AddExecution(orchfake.ExecutionSeed{
			WorkflowID: fmt.Sprintf("wf-%05d", i), WorkflowType: typ, Status: statuses[i%3].String(),
			StartTime:        epoch.Add(-time.Duration(i) * time.Minute),
			SearchAttributes: map[string]any{"CustomerId": fmt.Sprintf("acme-%d", i%10), "Amount": i},
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestListScanCount(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	seedSearch(t, s, 30)
	for _, iv := range transports(t, s) {
		t.Run(iv.name, func(t *testing.T) {
			q := "WorkflowType = 'Order' AND ExecutionStatus = 'Running' AND Amount >= 6"
			var ids []string
			var tok []byte
			for range 10 {
				var page orchpb.ListWorkflowExecutionsResponse
				mustCall(t, iv, "ListWorkflowExecutions", &orchpb.ListWorkflowExecutionsRequest{Namespace: "default", Query: q, PageSize: 2, NextPageToken: tok}, &page)
				for _, e := range page.GetExecutions() {
					ids = append(ids, e.GetExecution().GetWorkflowId())
				}
				if tok = page.GetNextPageToken(); len(tok) == 0 {
					break
				}
			}
			// Running Orders: i%3==0 and i%2==0, i.e. i%6==0; newest first.
			if got := strings.Join(ids, ","); got != "wf-00006,wf-00012,wf-00018,wf-00024" {
				t.Fatalf("list: %s", got)
			}
			var count orchpb.CountWorkflowExecutionsResponse
			mustCall(t, iv, "CountWorkflowExecutions", &orchpb.CountWorkflowExecutionsRequest{Namespace: "default", Query: "CustomerId STARTS_WITH 'acme-1' OR Amount BETWEEN 0 AND 2"}, &count)
			if count.GetCount() != 5 { // acme-1: 1, 11, 21; 0 to 2: 0, 1, 2
				t.Fatalf("count %d", count.GetCount())
			}
			var scan orchpb.ScanWorkflowExecutionsResponse
			mustCall(t, iv, "ScanWorkflowExecutions", &orchpb.ScanWorkflowExecutionsRequest{Namespace: "default", Query: "ExecutionStatus = 'Failed'", PageSize: 100}, &scan)
			if len(scan.GetExecutions()) != 10 {
				t.Fatalf("scan: %d", len(scan.GetExecutions()))
			}
			err := iv.call(t.Context(), "ScanWorkflowExecutions", &orchpb.ScanWorkflowExecutionsRequest{Namespace: "default", Query: "ORDER BY StartTime"}, &orchpb.ScanWorkflowExecutionsResponse{})
			wantCode(t, err, "INVALID_ARGUMENT")
			err = iv.call(t.Context(), "ListWorkflowExecutions", &orchpb.ListWorkflowExecutionsRequest{Namespace: "default", Query: "WorkflowType = 'Order' AND AND"}, &orchpb.ListWorkflowExecutionsResponse{})
			ae := wantCode(t, err, "INVALID_ARGUMENT")
			if !strings.Contains(ae.Message, "position 27") || ae.Details[0].GetField() != "query" {
				t.Fatalf("malformed: %v %v", ae, ae.Details)
			}
			err = iv.call(t.Context(), "CountWorkflowExecutions", &orchpb.CountWorkflowExecutionsRequest{Namespace: "default", Query: "Unknown = 1"}, &orchpb.CountWorkflowExecutionsResponse{})
			wantCode(t, err, "INVALID_ARGUMENT")
		})
	}
}

func TestCountExact(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	seedSearch(t, s, 30)
	iv := transports(t, s)[0]
	cases := map[string]int64{
		"":                                  30,
		"CustomerId = 'acme-1'":             3,
		"Amount BETWEEN 0 AND 2":            3,
		"CustomerId IN ('acme-1','acme-2')": 6,
		"NOT WorkflowType = 'Order'":        15,
		"ExecutionStatus != 'Running' AND (Amount < 3 OR Amount > 27)": 4,
	}
	for q, want := range cases {
		var c orchpb.CountWorkflowExecutionsResponse
		mustCall(t, iv, "CountWorkflowExecutions", &orchpb.CountWorkflowExecutionsRequest{Namespace: "default", Query: q}, &c)
		if c.GetCount() != want {
			t.Errorf("%q: %d, want %d", q, c.GetCount(), want)
		}
	}
}

func TestSearchAttributesAtStart(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	if err := s.RegisterSearchAttribute("default", "CustomerId", orchfake.Keyword); err != nil {
		t.Fatal(err)
	}
	for _, iv := range transports(t, s) {
		req := startReq("default", "sa-"+iv.name)
		req.SearchAttributes = &orchpb.SearchAttributes{IndexedFields: map[string]*orchpb.Payload{"CustomerId": {Data: []byte(`"acme-7"`)}}}
		mustCall(t, iv, "StartWorkflowExecution", req, &orchpb.StartWorkflowExecutionResponse{})
		var list orchpb.ListWorkflowExecutionsResponse
		mustCall(t, iv, "ListWorkflowExecutions", &orchpb.ListWorkflowExecutionsRequest{Namespace: "default", Query: "CustomerId = 'acme-7' AND WorkflowId = 'sa-" + iv.name + "'"}, &list)
		if len(list.GetExecutions()) != 1 || string(list.GetExecutions()[0].GetSearchAttributes().GetIndexedFields()["CustomerId"].GetData()) != `"acme-7"` {
			t.Fatalf("%s: %v", iv.name, &list)
		}
		req = startReq("default", "sa2-"+iv.name)
		req.SearchAttributes = &orchpb.SearchAttributes{IndexedFields: map[string]*orchpb.Payload{"Nope": {Data: []byte(`1`)}, "CustomerId": {Data: []byte(`1`)}}}
		err := iv.call(t.Context(), "StartWorkflowExecution", req, &orchpb.StartWorkflowExecutionResponse{})
		if ae := wantCode(t, err, "INVALID_ARGUMENT"); len(ae.Details) != 2 {
			t.Fatalf("details %v", ae.Details)
		}
	}
}
