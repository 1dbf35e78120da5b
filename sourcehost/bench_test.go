package sourcehost_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	"github.com/hashicorp/go-cleanhttp"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

// benchFake is a fake with n public projects and no rate limit.
func benchFake(b *testing.B, n int) *sourcehostfake.Server {
	b.Helper()
	srv := sourcehostfake.Start(b, sourcehostfake.WithRateLimit(0, 0))
	seedProjects(b, srv, n)
	return srv
}

// BenchmarkListProjects20 lists 20 projects through the client; compare with
// BenchmarkListProjects20Plain, the same request by hand.
func BenchmarkListProjects20(b *testing.B) {
	srv := benchFake(b, 20)
	c := srv.Client()
	opts := &sourcehost.ListProjectsOptions{ListOptions: sourcehost.ListOptions{Page: 1, PerPage: 20}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		page, err := c.ListProjects(ctx, opts)
		if err != nil || len(page.Items) != 20 {
			b.Fatal(err)
		}
	}
}

// BenchmarkListProjects20Plain is the baseline: net/http and encoding/json
// into the same structs, with the same pooled transport.
func BenchmarkListProjects20Plain(b *testing.B) {
	srv := benchFake(b, 20)
	hc := &http.Client{Transport: cleanhttp.DefaultPooledTransport()}
	url := srv.URL() + "/api/v4/projects?page=1&per_page=20"
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("PRIVATE-TOKEN", srv.Token())
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		var items []*sourcehost.Project
		err = json.NewDecoder(resp.Body).Decode(&items)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || len(items) != 20 {
			b.Fatal(err)
		}
	}
}

// BenchmarkAllProjects10000 iterates 10,000 projects (100 pages of 100).
// It reports the bytes allocated per item (client and fake together: they
// share the process) and the peak growth of the live heap while
// iterating, measured after a forced collection every 500 items: one page
// held at a time keeps it near one page's size whatever the collection's.
func BenchmarkAllProjects10000(b *testing.B) {
	srv := benchFake(b, 10_000)
	c := srv.Client()
	opts := &sourcehost.ListProjectsOptions{ListOptions: sourcehost.ListOptions{PerPage: 100}}
	ctx := context.Background()
	var ms runtime.MemStats
	var peak, allocated uint64
	iterations := 0
	b.ReportAllocs()
	for b.Loop() {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		base, total := ms.HeapAlloc, ms.TotalAlloc
		n := 0
		for p, err := range c.AllProjects(ctx, opts) {
			if err != nil || p.ID == 0 {
				b.Fatal(err)
			}
			if n++; n%500 == 0 {
				runtime.GC()
				runtime.ReadMemStats(&ms)
				if ms.HeapAlloc > base {
					peak = max(peak, ms.HeapAlloc-base)
				}
			}
		}
		if n != 10_000 {
			b.Fatalf("iterated %d", n)
		}
		runtime.ReadMemStats(&ms)
		allocated += ms.TotalAlloc - total
		iterations++
	}
	b.ReportMetric(float64(peak), "peak-live-heap-B")
	b.ReportMetric(float64(allocated)/float64(iterations)/10_000, "B/item")
}

// BenchmarkFakeStart starts a fake, answers one request and closes it;
// compare with BenchmarkHTTPTestStart.
func BenchmarkFakeStart(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		srv, err := sourcehostfake.New()
		if err != nil {
			b.Fatal(err)
		}
		ts := httptest.NewServer(srv)
		resp, err := http.Get(ts.URL + "/api/v4/projects?private_token=" + srv.Token())
		if err != nil || resp.StatusCode != 200 {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		ts.Close()
	}
}

// BenchmarkHTTPTestStart is the baseline: a bare httptest server answering
// one JSON request.
func BenchmarkHTTPTestStart(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, "[]")
		}))
		resp, err := http.Get(ts.URL + "/api/v4/projects")
		if err != nil || resp.StatusCode != 200 {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		ts.Close()
	}
}

// BenchmarkListIssueNotes20 pages 20 notes of an issue through the client,
// one of issue 19's lists end to end.
func BenchmarkListIssueNotes20(b *testing.B) {
	srv := sourcehostfake.Start(b, sourcehostfake.WithRateLimit(0, 0))
	id, err := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Visibility: "public", Issues: []sourcehostfake.IssueSeed{{Title: "bug"}}})
	if err != nil {
		b.Fatal(err)
	}
	c := srv.Client()
	ctx := context.Background()
	for range 20 {
		if _, err := c.CreateIssueNote(ctx, sourcehost.ProjectID(id), 1, &sourcehost.CreateNoteRequest{Body: "me too"}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		page, err := c.ListIssueNotes(ctx, sourcehost.ProjectID(id), 1, nil)
		if err != nil || len(page.Items) != 20 {
			b.Fatal(err)
		}
	}
}
