package orchfake

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/orchfake/internal/visibility"
	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/protobuf/proto"
)

// searchReference is search as it was written first: every match keyed,
// sorted, and each listed run's info built afresh. The search the fake
// runs must answer as it does.
func (s *Server) searchReference(nsName, query string, size int, tok []byte) ([]*orchpb.WorkflowExecutionInfo, []byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ns, err := s.st.namespace(nsName)
	if err != nil {
		return nil, nil, err
	}
	q, err := parseQuery(query, ns)
	if err != nil {
		return nil, nil, err
	}
	var after *visibility.SortKey
	if len(tok) > 0 {
		raw, err := parseListToken(tok)
		if err != nil {
			return nil, nil, err
		}
		k, err := q.ParseSortKey(raw)
		if err != nil {
			return nil, nil, err
		}
		after = &k
	}
	type hit struct {
		e   *execution
		key visibility.SortKey
	}
	var hits []hit
	for _, e := range ns.runs {
		if s.expired(e) || !q.Match(e) {
			continue
		}
		k := q.SortKey(e)
		if after != nil && q.CompareKeys(k, *after) <= 0 {
			continue
		}
		hits = append(hits, hit{e, k})
	}
	slices.SortFunc(hits, func(a, b hit) int { return q.CompareKeys(a.key, b.key) })
	var next []byte
	if len(hits) > size {
		hits = hits[:size]
		raw, _ := hits[size-1].key.MarshalBinary()
		next = listToken(raw)
	}
	out := make([]*orchpb.WorkflowExecutionInfo, len(hits))
	for i, h := range hits {
		out[i] = h.e.info()
	}
	return out, next, nil
}

// TestSearchAnswersAsTheReference pages through many queries and orders
// over runs with tied start times, expired runs, runs started between
// pages and runs changed between lists, and compares every page with
// searchReference's; pages answered earlier must not change meanwhile.
func TestSearchAnswersAsTheReference(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	s := newTestServer(t, control.WithClock(clk), WithoutLimits())
	for name, typ := range map[string]SearchAttributeType{"CustomerId": Keyword, "Amount": Int} {
		if err := s.RegisterSearchAttribute("default", name, typ); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	statuses := []string{"RUNNING", "COMPLETED", "FAILED", "TIMED_OUT"}
	seed := func(i int) {
		st := statuses[rng.IntN(len(statuses))]
		sd := ExecutionSeed{
			WorkflowID: fmt.Sprintf("wf-%d", i), WorkflowType: []string{"Order", "Refund"}[rng.IntN(2)], Status: st,
			StartTime:        clk.Now().Add(-time.Duration(rng.IntN(20)) * time.Hour), // many ties
			SearchAttributes: map[string]any{"CustomerId": fmt.Sprintf("c%d", rng.IntN(5)), "Amount": rng.IntN(10)},
		}
		if rng.IntN(3) == 0 {
			delete(sd.SearchAttributes, "Amount")
		}
		if st != "RUNNING" && rng.IntN(4) == 0 {
			sd.CloseTime = sd.StartTime.Add(-400 * 24 * time.Hour).Add(time.Hour) // long past retention: expired
			sd.StartTime = sd.CloseTime.Add(-time.Hour)
		}
		if _, err := s.AddExecution(sd); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 300 {
		seed(i)
	}
	// Closed exactly at the end of the retention (gone) and just after it.
	s.mu.Lock()
	retention := s.st.namespaces["default"].retention()
	s.mu.Unlock()
	for i, d := range []time.Duration{0, 1, -1} {
		closed := clk.Now().Add(-retention + d)
		if _, err := s.AddExecution(ExecutionSeed{WorkflowID: fmt.Sprintf("edge-%d", i), WorkflowType: "Order", Status: "COMPLETED",
			StartTime: closed.Add(-time.Hour), CloseTime: closed}); err != nil {
			t.Fatal(err)
		}
	}
	queries := []string{
		"",
		"ORDER BY StartTime DESC",
		"ORDER BY StartTime DESC, RunId",
		"ExecutionStatus = 'Running'",
		"CustomerId = 'c1' OR Amount > 7",
		"ORDER BY Amount",
		"ORDER BY StartTime",
		"WorkflowType = 'Order' ORDER BY CustomerId DESC, Amount",
	}
	var held []*orchpb.WorkflowExecutionInfo
	var heldCopy []*orchpb.WorkflowExecutionInfo
	compare := func(round int) {
		for _, q := range queries {
			for _, size := range []int{1, 7, 64, 1000} {
				var tok []byte
				for page := 0; ; page++ {
					var lj listedJSON
					got, next, err := s.search("default", q, int32(size), tok, false, &lj)
					if err != nil {
						t.Fatalf("round %d %q: %v", round, q, err)
					}
					want, wantNext, err := s.searchReference("default", q, size, tok)
					if err != nil {
						t.Fatal(err)
					}
					if len(got) != len(want) || string(next) != string(wantNext) {
						t.Fatalf("round %d %q size %d page %d: %d runs, token %x; want %d, %x", round, q, size, page, len(got), next, len(want), wantNext)
					}
					for i := range got {
						if !proto.Equal(got[i], want[i]) {
							t.Fatalf("round %d %q size %d page %d run %d:\n%v\nwant\n%v", round, q, size, page, i, got[i], want[i])
						}
						w := newProtoJSON(nil)
						w.writeWorkflowExecutionInfo(want[i])
						if lj.infos[i] != got[i] || string(lj.pieces[i]) != string(w.B) {
							t.Fatalf("round %d %q size %d page %d run %d: JSON kept\n%s\nwant\n%s", round, q, size, page, i, lj.pieces[i], w.B)
						}
					}
					if page == 0 && size == 64 {
						held = append(held, got...)
						for _, g := range got {
							heldCopy = append(heldCopy, proto.Clone(g).(*orchpb.WorkflowExecutionInfo))
						}
					}
					if tok = next; len(tok) == 0 {
						break
					}
				}
			}
		}
	}
	compare(0)
	// Change runs between lists: new runs (some at the same instant),
	// signals (history length), closes, memo and search upserts in place,
	// a parent, and time passing (retention).
	for i := 300; i < 340; i++ {
		seed(i)
	}
	s.mu.Lock()
	ns := s.st.namespaces["default"]
	runs := slices.Collect(func(yield func(*execution) bool) {
		for _, e := range ns.runs {
			if !yield(e) {
				return
			}
		}
	})
	slices.SortFunc(runs, func(a, b *execution) int { return a.start.Compare(b.start) })
	for i, e := range runs {
		switch i % 7 {
		case 0:
			if e.open() {
				s.add(e, orchpb.EventType_WorkflowExecutionSignaled, nil)
			}
		case 1:
			if e.open() {
				s.terminateLocked(e, "test", nil, "")
			}
		case 2:
			e.infoEdits++
			if e.memo == nil {
				e.memo = &orchpb.Memo{}
			}
			if e.memo.Fields == nil {
				e.memo.Fields = map[string]*orchpb.Payload{}
			}
			e.memo.Fields["k"] = &orchpb.Payload{Data: []byte(`"v"`)}
		case 3:
			e.parent = runs[(i+1)%len(runs)]
		}
	}
	s.mu.Unlock()
	clk.Advance(24 * time.Hour)
	compare(1)
	for i := range held {
		if !proto.Equal(held[i], heldCopy[i]) {
			t.Fatalf("an answered info changed afterwards:\n%v\nwas\n%v", held[i], heldCopy[i])
		}
	}
}

// TestParsedQueriesFollowTheSchema: a query kept parsed is parsed again
// once the namespace's attributes change.
func TestParsedQueriesFollowTheSchema(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, WithoutLimits())
	const q = "Tier = 'gold'"
	list := func() error {
		_, _, err := s.search("default", q, 10, nil, false, nil)
		return err
	}
	if err := list(); err == nil {
		t.Fatal("a query on an unregistered attribute listed")
	}
	if err := s.RegisterSearchAttribute("default", "Tier", Keyword); err != nil {
		t.Fatal(err)
	}
	if err := list(); err != nil {
		t.Fatalf("after registering: %v", err)
	}
	s.mu.Lock()
	s.st.namespaces["default"].schema.Remove("Tier")
	s.mu.Unlock()
	if err := list(); err == nil {
		t.Fatal("a query on a removed attribute listed")
	}
	if err := s.RegisterSearchAttribute("default", "Tier", Int); err != nil {
		t.Fatal(err)
	}
	if err := list(); err == nil {
		t.Fatal("a string compared with an Int attribute listed")
	}
	for i := range 2 * maxParsedQueries { // the cache stays bounded
		if _, _, err := s.search("default", fmt.Sprintf("Tier = %d", i), 10, nil, false, nil); err != nil {
			t.Fatal(err)
		}
	}
	s.mu.Lock()
	n := len(s.st.namespaces["default"].parsed.byText)
	s.mu.Unlock()
	if n > maxParsedQueries {
		t.Fatalf("%d queries kept, at most %d", n, maxParsedQueries)
	}
}

// TestExecutionKeywordIsValue: an execution's Keyword gives exactly the
// string values its Value gives, for every system attribute and custom
// ones of each type.
func TestExecutionKeywordIsValue(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, WithoutLimits())
	attrs := map[string]SearchAttributeType{"K": Keyword, "T": Text, "I": Int, "L": KeywordList, "D": Datetime}
	for name, typ := range attrs {
		if err := s.RegisterSearchAttribute("default", name, typ); err != nil {
			t.Fatal(err)
		}
	}
	for i, st := range []string{"RUNNING", "COMPLETED", "TIMED_OUT"} {
		sd := ExecutionSeed{WorkflowID: fmt.Sprintf("w%d", i), WorkflowType: "T", Status: st}
		if i > 0 {
			sd.SearchAttributes = map[string]any{"K": "k", "T": "some text", "I": i, "L": []string{"a"}, "D": time.Now()}
		}
		if _, err := s.AddExecution(sd); err != nil {
			t.Fatal(err)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	names := []string{"Nope"}
	for name := range visibility.SystemAttributes() {
		names = append(names, name)
	}
	for name := range attrs {
		names = append(names, name)
	}
	for _, e := range s.st.namespaces["default"].runs {
		for _, name := range names {
			v, ok := e.Value(name)
			want, wantOK := v.Str()
			wantOK = ok && wantOK
			if !wantOK {
				want = ""
			}
			if got, gotOK := e.Keyword(name); got != want || gotOK != wantOK {
				t.Errorf("%s: Keyword(%s) = %q, %v; Value gives %q, %v", e.id, name, got, gotOK, want, wantOK)
			}
		}
	}
}
