package visibility_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/orchfake/internal/visibility"
)

const benchQuery = "WorkflowType = 'OrderFlow' AND ExecutionStatus = 'Running' AND StartTime > '2024-01-01T00:00:00Z'"

func BenchmarkParse(b *testing.B) {
	schema := testSchema(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := visibility.Parse(benchQuery, schema); err != nil {
			b.Fatal(err)
		}
	}
}

func benchRecords(n int) []*execution {
	statuses := visibility.ExecutionStatuses()
	base := time.Date(2023, 7, 1, 0, 0, 0, 0, time.UTC)
	recs := make([]*execution, n)
	for i := range recs {
		recs[i] = &execution{
			id:     fmt.Sprintf("wf-%d", i),
			run:    fmt.Sprintf("run-%08d", i),
			typ:    []string{"OrderFlow", "ShipFlow", "BillFlow"}[i%3],
			status: statuses[i%len(statuses)],
			queue:  "q",
			start:  base.Add(time.Duration(i) * time.Hour),
		}
	}
	return recs
}

// BenchmarkMatch10000 matches the 3-term query against 10,000 executions
// (one op = all 10,000).
func BenchmarkMatch10000(b *testing.B) {
	q, err := visibility.Parse(benchQuery, testSchema(b))
	if err != nil {
		b.Fatal(err)
	}
	recs := benchRecords(10000)
	b.ReportAllocs()
	var n int
	for b.Loop() {
		n = 0
		for _, r := range recs {
			if q.Match(r) {
				n++
			}
		}
	}
	b.ReportMetric(float64(n), "matches")
}

// BenchmarkListPage10000 is what a List does: match 10,000 executions,
// read the sort keys of those that match, sort them, and take a page of
// 100 with its token.
func BenchmarkListPage10000(b *testing.B) {
	q, err := visibility.Parse(benchQuery, testSchema(b))
	if err != nil {
		b.Fatal(err)
	}
	recs := benchRecords(10000)
	type hit struct {
		r *execution
		k visibility.SortKey
	}
	b.ReportAllocs()
	for b.Loop() {
		var hits []hit
		for _, r := range recs {
			if q.Match(r) {
				hits = append(hits, hit{r, q.SortKey(r)})
			}
		}
		slices.SortFunc(hits, func(x, y hit) int { return q.CompareKeys(x.k, y.k) })
		page := hits[:min(100, len(hits))]
		if _, err := page[len(page)-1].k.MarshalBinary(); err != nil {
			b.Fatal(err)
		}
	}
}
