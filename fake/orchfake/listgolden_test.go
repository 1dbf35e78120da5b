package orchfake_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/internal/testtools"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// seedListGolden seeds executions that exercise every field of a listed
// execution: each status, close times, memos and search attributes of
// every type, names that JSON must escape, timestamps with and without
// fractions of a second, and a started, signalled run. It returns the run
// ids by workflow id.
func seedListGolden(t *testing.T, s *orchfake.Server) map[string]string {
	t.Helper()
	for name, typ := range map[string]orchfake.SearchAttributeType{
		"CustomerId": orchfake.Keyword, "Amount": orchfake.Int, "Score": orchfake.Double,
		"Flag": orchfake.Bool, "When": orchfake.Datetime, "Tags": orchfake.KeywordList, "Note": orchfake.Text,
	} {
		if err := s.RegisterSearchAttribute("default", name, typ); err != nil {
			t.Fatal(err)
		}
	}
	runs := map[string]string{}
	statuses := []string{"RUNNING", "COMPLETED", "FAILED", "CANCELED", "TERMINATED", "CONTINUED_AS_NEW", "TIMED_OUT"}
	ids := []string{"plain", `quo"te`, "back\\slash", "<tag>&amp", "é-ü-漢", "tab\there", "line\u2028sep", "nl\nx", "ctl\x01"}
	for i := range 30 {
		id := fmt.Sprintf("g-%02d-%s", i, ids[i%len(ids)])
		seed := orchfake.ExecutionSeed{
			WorkflowID: id, WorkflowType: []string{"Order", "Refund", "Ship"}[i%3],
			TaskQueue: []string{"", "orders", "q<&>"}[i%3],
			Status:    statuses[i%len(statuses)],
			StartTime: epoch.Add(-time.Duration(i+1) * time.Minute).Add(time.Duration(i%4) * 123456789 * time.Nanosecond / 3),
		}
		if seed.Status != "RUNNING" && i%2 == 0 {
			seed.CloseTime = seed.StartTime.Add(time.Duration(i) * time.Second).Add(time.Duration(i%3) * time.Millisecond)
		}
		if i%3 != 2 {
			seed.SearchAttributes = map[string]any{"CustomerId": fmt.Sprintf("acme-%d", i%4), "Amount": i * 7 % 11}
			if i%2 == 0 {
				seed.SearchAttributes["Score"] = float64(i) / 4
				seed.SearchAttributes["Flag"] = i%4 == 0
				seed.SearchAttributes["When"] = epoch.Add(time.Duration(i) * time.Hour)
				seed.SearchAttributes["Tags"] = []string{"a", "b<" + id}
				seed.SearchAttributes["Note"] = "note " + id
			}
		}
		if i%4 != 3 {
			seed.Memo = map[string]any{"who": id, "n": i, "nested": map[string]any{"ok": i%2 == 0, "list": []any{1, "two", nil}}}
		}
		run, err := s.AddExecution(seed)
		if err != nil {
			t.Fatal(err)
		}
		runs[id] = run
	}
	// A run started and signalled through the API: history beyond the seed's.
	c := orchpb.NewWorkflowServiceClient(s.Conn())
	start := startReq("default", "api-started")
	start.Memo = &orchpb.Memo{Fields: map[string]*orchpb.Payload{"m": {Metadata: map[string][]byte{"encoding": []byte("binary/plain")}, Data: []byte{0, 1, 2, 255}}}}
	resp, err := c.StartWorkflowExecution(context.Background(), start)
	if err != nil {
		t.Fatal(err)
	}
	runs["api-started"] = resp.GetRunId()
	if _, err := c.SignalWorkflowExecution(context.Background(), &orchpb.SignalWorkflowExecutionRequest{Namespace: "default",
		WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: "api-started"}, SignalName: "poke"}); err != nil {
		t.Fatal(err)
	}
	return runs
}

var nextTokenJSON = regexp.MustCompile(`"next_page_token":\s*"[^"]*"`)

// TestListAnswersPinned pins the answers of List and Scan, over both
// transports, for a seeded set: every page of several queries and orders,
// as testdata/list.golden holds them (run ids and page tokens, random,
// replaced by names). Regenerate with -args -update-golden only when an
// answer is meant to change.
func TestListAnswersPinned(t *testing.T) {
	t.Parallel()
	s, err := orchfake.New(control.WithClock(clock.NewFake(epoch)), orchfake.WithoutLimits())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	runs := seedListGolden(t, s)
	c := orchpb.NewWorkflowServiceClient(s.Conn())
	replacer := func(b []byte) string {
		out := string(b)
		for id, run := range runs {
			out = strings.ReplaceAll(out, run, "RUN("+strings.NewReplacer("\n", `\n`, "\t", `\t`).Replace(id)+")")
		}
		return nextTokenJSON.ReplaceAllString(out, `"next_page_token":"TOKEN"`)
	}
	compact := func(b []byte) []byte {
		var buf bytes.Buffer
		if err := json.Compact(&buf, b); err != nil {
			t.Fatalf("%v: %s", err, b)
		}
		return buf.Bytes()
	}
	var got strings.Builder
	queries := []string{
		"",
		"WorkflowType = 'Order' AND ExecutionStatus = 'Running'",
		"CustomerId STARTS_WITH 'acme-' ORDER BY Amount, StartTime DESC",
		"ORDER BY CustomerId DESC, StartTime",
		"ExecutionStatus != 'Running' ORDER BY CloseTime DESC",
		"ORDER BY ExecutionTime",
	}
	for _, q := range queries {
		for _, scan := range []bool{false, true} {
			if scan && strings.Contains(q, "ORDER BY") {
				continue
			}
			op := "List"
			if scan {
				op = "Scan"
			}
			// gRPC
			var tok []byte
			for page := 1; ; page++ {
				var execs []*orchpb.WorkflowExecutionInfo
				var next []byte
				if scan {
					r, err := c.ScanWorkflowExecutions(context.Background(), &orchpb.ScanWorkflowExecutionsRequest{Namespace: "default", Query: q, PageSize: 7, NextPageToken: tok})
					if err != nil {
						t.Fatal(err)
					}
					execs, next = r.GetExecutions(), r.GetNextPageToken()
				} else {
					r, err := c.ListWorkflowExecutions(context.Background(), &orchpb.ListWorkflowExecutionsRequest{Namespace: "default", Query: q, PageSize: 7, NextPageToken: tok})
					if err != nil {
						t.Fatal(err)
					}
					execs, next = r.GetExecutions(), r.GetNextPageToken()
				}
				b, err := orchwire.MarshalJSON.Marshal(&orchpb.ListWorkflowExecutionsResponse{Executions: execs, NextPageToken: next})
				if err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(&got, "## grpc %s %q page %d\n%s\n", op, q, page, replacer(compact(b)))
				if tok = next; len(tok) == 0 {
					break
				}
			}
			// HTTP, with the contract's payloads and with plain JSON ones.
			for _, plain := range []bool{false, true} {
				tok := ""
				for page := 1; ; page++ {
					path := "/api/v1/namespaces/default/workflows"
					if scan {
						path += "/scan"
					}
					v := url.Values{"page_size": {"7"}}
					if q != "" {
						v.Set("query", q)
					}
					if tok != "" {
						v.Set("next_page_token", tok)
					}
					req := httptest.NewRequest(http.MethodGet, path+"?"+v.Encode(), nil)
					if scan {
						body, _ := json.Marshal(map[string]any{"query": q, "page_size": 7, "next_page_token": tok})
						req = httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
					}
					if plain {
						req.Header.Set(orchfake.HeaderPayloads, "json")
					}
					rec := httptest.NewRecorder()
					s.ServeHTTP(rec, req)
					if rec.Code != 200 {
						t.Fatalf("%s %q: %d %s", op, q, rec.Code, rec.Body)
					}
					fmt.Fprintf(&got, "## http plain=%v %s %q page %d\n%s\n%s\n", plain, op, q, page,
						rec.Header().Get("Content-Type"), replacer(compact(rec.Body.Bytes())))
					var body struct {
						Next string `json:"next_page_token"`
					}
					if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
						t.Fatal(err)
					}
					if tok = body.Next; tok == "" {
						break
					}
				}
			}
		}
	}
	const golden = "testdata/list.golden"
	testtools.Golden(t, golden, []byte(got.String()))
}

// TestListWhileRunsChange lists over both transports from several
// goroutines while runs start, get signals and close: the answers share
// the infos and JSON kept in state, which must never change under a
// reader (go test -race). Each reader lists once for each step of the
// writer, while the writer takes its next one: spinning readers would
// only burn the CPU the race run needs elsewhere.
func TestListWhileRunsChange(t *testing.T) {
	t.Parallel()
	s, err := orchfake.New(control.WithClock(clock.NewFake(epoch)), orchfake.WithoutLimits())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	seedSearch(t, s, 200)
	c := orchpb.NewWorkflowServiceClient(s.Conn())
	done := make(chan struct{})
	errs := make(chan error, 16)
	var mu sync.Mutex
	step := 0 // the writer's steps taken; -1 when it is done
	moved := sync.NewCond(&mu)
	advance := func(to int) {
		mu.Lock()
		step = to
		moved.Broadcast()
		mu.Unlock()
	}
	go func() { // the writer
		defer close(done)
		defer advance(-1)
		for i := range 60 {
			advance(i + 1)
			id := fmt.Sprintf("live-%d", i)
			if _, err := c.StartWorkflowExecution(context.Background(), startReq("default", id)); err != nil {
				errs <- err
				return
			}
			we := &orchpb.WorkflowExecution{WorkflowId: id}
			if _, err := c.SignalWorkflowExecution(context.Background(), &orchpb.SignalWorkflowExecutionRequest{Namespace: "default", WorkflowExecution: we, SignalName: "s"}); err != nil {
				errs <- err
				return
			}
			if i%2 == 0 {
				if _, err := c.TerminateWorkflowExecution(context.Background(), &orchpb.TerminateWorkflowExecutionRequest{Namespace: "default", WorkflowExecution: we}); err != nil {
					errs <- err
					return
				}
			}
		}
	}()
	var readers []chan struct{}
	for r := range 4 {
		fin := make(chan struct{})
		readers = append(readers, fin)
		go func() {
			defer close(fin)
			seen := 0
			for n := 0; ; n++ {
				mu.Lock()
				for step == seen {
					moved.Wait()
				}
				seen = step
				mu.Unlock()
				if seen < 0 {
					return
				}
				q := []string{"", listQuery3Terms}[n%2]
				if r%2 == 0 {
					resp, err := c.ListWorkflowExecutions(context.Background(), &orchpb.ListWorkflowExecutionsRequest{Namespace: "default", PageSize: 50, Query: q})
					if err != nil || len(resp.GetExecutions()) == 0 {
						errs <- fmt.Errorf("gRPC list: %v, %d runs", err, len(resp.GetExecutions()))
						return
					}
					continue
				}
				req := httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/default/workflows?page_size=50&query="+url.QueryEscape(q), nil)
				rec := httptest.NewRecorder()
				s.ServeHTTP(rec, req)
				var page orchpb.ListWorkflowExecutionsResponse
				if rec.Code != 200 || orchwire.StrictJSON.Unmarshal(rec.Body.Bytes(), &page) != nil || len(page.GetExecutions()) == 0 {
					errs <- fmt.Errorf("HTTP list: %d %.200s", rec.Code, rec.Body)
					return
				}
			}
		}()
	}
	<-done
	for _, fin := range readers {
		<-fin
	}
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
