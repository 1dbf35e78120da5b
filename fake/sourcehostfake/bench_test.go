package sourcehostfake_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/internal/fakekit"
)

// BenchmarkFakeListProjects is the fake's own cost of a page of 20 out of
// 1,000 projects: authentication, filtering, sorting, pagination headers,
// encoding.
func BenchmarkFakeListProjects(b *testing.B) {
	srv, err := sourcehostfake.New(sourcehostfake.WithRateLimit(0, 0))
	if err != nil {
		b.Fatal(err)
	}
	for i := range 1000 {
		if _, err := srv.AddProject(sourcehostfake.ProjectSeed{Name: fmt.Sprintf("p%04d", i), Visibility: "public"}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if rec := serve(srv, "GET", "/api/v4/projects?page=7&per_page=20", "", ""); rec.Code != 200 {
			b.Fatal(rec.Code)
		}
	}
}

// BenchmarkFakeCreateIssue is the fake's cost of creating an issue.
func BenchmarkFakeCreateIssue(b *testing.B) {
	srv, err := sourcehostfake.New(sourcehostfake.WithRateLimit(0, 0))
	if err != nil {
		b.Fatal(err)
	}
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
	target := fmt.Sprintf("/api/v4/projects/%d/issues", id)
	b.ReportAllocs()
	for b.Loop() {
		if rec := serve(srv, "POST", target, "application/json", `{"title":"bug","labels":["a","b"]}`); rec.Code != 201 {
			b.Fatal(rec.Code)
		}
	}
}

// BenchmarkFakeCreateIssueDelivered is an issue created and its webhook
// delivered (to a receiver in process), waited for: the queue's cost.
func BenchmarkFakeCreateIssueDelivered(b *testing.B) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})
	srv, err := sourcehostfake.New(sourcehostfake.WithRateLimit(0, 0),
		sourcehostfake.WithHookClient(&http.Client{Transport: fakekit.HandlerTransport{Handler: ok}}))
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop",
		Hooks: []sourcehostfake.HookSeed{{URL: "http://receiver.test/hook", IssuesEvents: true}}})
	target := fmt.Sprintf("/api/v4/projects/%d/issues", id)
	b.ReportAllocs()
	for b.Loop() {
		if rec := serve(srv, "POST", target, "application/json", `{"title":"bug"}`); rec.Code != 201 {
			b.Fatal(rec.Code)
		}
		if err := srv.WaitDeliveries(b.Context()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFakeListNotes is the fake's cost of a page of 20 of an issue's
// 1,000 notes: one of issue 19's list handlers, written straight from the
// state into the answer (issue 18).
func BenchmarkFakeListNotes(b *testing.B) {
	srv, err := sourcehostfake.New(sourcehostfake.WithRateLimit(0, 0))
	if err != nil {
		b.Fatal(err)
	}
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Issues: []sourcehostfake.IssueSeed{{Title: "bug"}}})
	target := fmt.Sprintf("/api/v4/projects/%d/issues/1/notes", id)
	for range 1000 {
		if rec := serve(srv, "POST", target, "application/json", `{"body":"me too"}`); rec.Code != 201 {
			b.Fatal(rec.Code)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if rec := serve(srv, "GET", target+"?page=7&per_page=20", "", ""); rec.Code != 200 {
			b.Fatal(rec.Code)
		}
	}
}

// BenchmarkFakeListCommits is a page of 20 of a 500-commit history.
func BenchmarkFakeListCommits(b *testing.B) {
	srv, err := sourcehostfake.New(sourcehostfake.WithRateLimit(0, 0))
	if err != nil {
		b.Fatal(err)
	}
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
	for i := range 500 {
		if _, err := srv.PushFile(id, "main", "f.txt", fmt.Sprint(i), ""); err != nil {
			b.Fatal(err)
		}
	}
	target := fmt.Sprintf("/api/v4/projects/%d/repository/commits?per_page=20", id)
	b.ReportAllocs()
	for b.Loop() {
		if rec := serve(srv, "GET", target, "", ""); rec.Code != 200 {
			b.Fatal(rec.Code)
		}
	}
}
