package sourcehostfake_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
	"github.com/google/go-cmp/cmp"
)

// A fake restored from a snapshot answers as before (projects, issues,
// files), the token of another user still works, ids go on, and a
// pipeline that was running when the snapshot was taken finishes when it
// was due.
func TestSnapshotRestoreAnswersAsBefore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := clock.NewFake(time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC))
	opts := []sourcehostfake.Option{control.WithClock(clk), sourcehostfake.WithRootToken("root-token"),
		sourcehostfake.WithPipelineTiming(5*time.Second, time.Minute), sourcehostfake.WithExternalURL("http://git.test")}
	src := sourcehostfake.Start(t, append(opts, control.WithInMemory())...)
	if err := src.Load(sourcehostfake.Seed{
		Users:  []sourcehostfake.UserSeed{{Username: "alice"}},
		Tokens: []sourcehostfake.TokenSeed{{Username: "alice", Token: "alice-token", Scopes: []string{"api"}}},
		Projects: []sourcehostfake.ProjectSeed{{Name: "shop", Owner: "alice",
			Files:  map[string]string{"README.md": "# Shop\n", sourcehostfake.CIFile: "build:\n  stage: build\n"},
			Issues: []sourcehostfake.IssueSeed{{Title: "Broken"}}}},
	}); err != nil {
		t.Fatal(err)
	}
	c := src.Client()
	pl, err := c.TriggerPipeline(ctx, sourcehost.ProjectID(1), &sourcehost.TriggerPipelineRequest{Ref: "main"})
	if err != nil {
		t.Fatal(err)
	}
	clk.Advance(5 * time.Second) // running, for another minute
	data, err := src.Snapshot()
	if err != nil {
		t.Fatal(err)
	}

	dst := sourcehostfake.Start(t, append(opts, control.WithInMemory())...)
	if err := dst.Restore(data); err != nil {
		t.Fatal(err)
	}
	read := func(s *sourcehostfake.Server) []any {
		return []any{s.Projects(), s.Issues(1), s.Pipelines(1), s.Jobs(1, pl.ID)}
	}
	if diff := cmp.Diff(read(src), read(dst)); diff != "" {
		t.Errorf("after the restore (-before +after):\n%s", diff)
	}
	alice := dst.ClientWithToken("alice-token")
	f, err := alice.GetFile(ctx, sourcehost.ProjectID(1), "README.md", "main")
	if err != nil {
		t.Fatalf("alice reads a file after the restore: %v", err)
	}
	if got, _ := f.Decode(); string(got) != "# Shop\n" {
		t.Errorf("README.md after the restore: %q", got)
	}
	is, err := alice.CreateIssue(ctx, sourcehost.ProjectID(1), &sourcehost.CreateIssueRequest{Title: "After"})
	if err != nil {
		t.Fatal(err)
	}
	if is.IID != 2 || is.ID != 2 {
		t.Errorf("the next issue: id %d iid %d, want 2 and 2", is.ID, is.IID)
	}
	dc := dst.Client()
	if got, _ := dc.GetPipeline(ctx, sourcehost.ProjectID(1), pl.ID); got.Status != "running" {
		t.Fatalf("the pipeline after the restore: %q, want running", got.Status)
	}
	clk.Advance(59 * time.Second)
	if got, _ := dc.GetPipeline(ctx, sourcehost.ProjectID(1), pl.ID); got.Status != "running" {
		t.Errorf("the pipeline a second before it is due: %q, want running", got.Status)
	}
	clk.Advance(time.Second)
	if got, _ := dc.GetPipeline(ctx, sourcehost.ProjectID(1), pl.ID); got.Status != "success" {
		t.Errorf("the pipeline when due: %q, want success", got.Status)
	}
}

// A snapshot taken after Close still knows which pipelines were moving
// (apitwin-fake takes its last one once the fakes have stopped serving).
func TestSnapshotAfterCloseKeepsMovingPipelines(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC))
	src, err := sourcehostfake.New(control.WithClock(clk), sourcehostfake.WithRootToken("root-token"))
	if err != nil {
		t.Fatal(err)
	}
	id, err := src.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Files: map[string]string{sourcehostfake.CIFile: "build:\n  stage: build\n"}})
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest("POST", "/api/v4/projects/1/pipeline", strings.NewReader(`{"ref":"main"}`))
	req.Header.Set("PRIVATE-TOKEN", "root-token")
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	src.ServeHTTP(rec, req)
	if rec.Code != 201 {
		t.Fatalf("a pipeline: %d %s", rec.Code, rec.Body)
	}
	src.Close()
	data, err := src.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	dst, err := sourcehostfake.New(control.WithClock(clk), sourcehostfake.WithRootToken("root-token"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(dst.Close)
	if err := dst.Restore(data); err != nil {
		t.Fatal(err)
	}
	clk.Advance(5 * time.Second)
	if got := dst.Pipelines(id)[0].Status; got != "running" {
		t.Errorf("a pipeline restored from a snapshot taken after Close, once due: %q, want running", got)
	}
}

// A snapshot that is not one, or that does not hold together, is refused
// by name, and the fake keeps its state.
func TestRestoreRefusesBadSnapshots(t *testing.T) {
	t.Parallel()
	s, err := sourcehostfake.New(sourcehostfake.WithRootToken("root-token"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	if _, err := s.AddProject(sourcehostfake.ProjectSeed{Name: "kept", Files: map[string]string{"a": "b"}}); err != nil {
		t.Fatal(err)
	}
	good, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	// broken is the good snapshot with one change made to its JSON.
	broken := func(change func(m map[string]any)) string {
		var m map[string]any
		if err := json.Unmarshal(good, &m); err != nil {
			t.Fatal(err)
		}
		change(m)
		b, _ := json.Marshal(m)
		return string(b)
	}
	project := func(m map[string]any) map[string]any { return m["projects"].([]any)[0].(map[string]any) }
	for _, tt := range []struct{ name, data, want string }{
		{"not JSON", `nope`, "not a snapshot"},
		{"another version", `{"format":"sourcehostfake","version":0}`, "version 0: this build reads version 1"},
		{"an unknown field", broken(func(m map[string]any) { m["colour"] = 1 }), "colour"},
		{"a missing root", broken(func(m map[string]any) { m["root"] = 99 }), "root: no user 99"},
		{"a missing namespace", broken(func(m map[string]any) { project(m)["namespace"] = 77 }), "no namespace 77"},
		{"a commit that is not its SHA", broken(func(m map[string]any) {
			project(m)["repository"].(map[string]any)["commits"].([]any)[0].(map[string]any)["message"] = "changed"
		}), "its content's SHA"},
		{"a file that is not its blob id", broken(func(m map[string]any) {
			for id := range project(m)["repository"].(map[string]any)["blobs"].(map[string]any) {
				project(m)["repository"].(map[string]any)["blobs"].(map[string]any)[id] = "Y2hhbmdlZA=="
			}
		}), "its content's id"},
	} {
		err := s.Restore([]byte(tt.data))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error mentioning %q", tt.name, err, tt.want)
		}
	}
	if ps := s.Projects(); len(ps) != 1 || ps[0].Name != "kept" {
		t.Errorf("a refused snapshot changed the fake: %+v", ps)
	}
}

// FuzzRestore: no snapshot, however made, panics Restore; one it takes
// snapshots again to what it read.
func FuzzRestore(f *testing.F) {
	src, err := sourcehostfake.New(sourcehostfake.WithRootToken("root-token"))
	if err != nil {
		f.Fatal(err)
	}
	if _, err := src.AddProject(sourcehostfake.ProjectSeed{Name: "p", Files: map[string]string{"a": "b"},
		Issues: []sourcehostfake.IssueSeed{{Title: "i"}}}); err != nil {
		f.Fatal(err)
	}
	seed, _ := src.Snapshot()
	src.Close()
	f.Add(seed)
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := sourcehostfake.New(sourcehostfake.WithRootToken("root-token"))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if err := s.Restore(data); err != nil {
			return
		}
		_ = s.Projects()
		first, err := s.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		s2, err := sourcehostfake.New(sourcehostfake.WithRootToken("root-token"))
		if err != nil {
			t.Fatal(err)
		}
		defer s2.Close()
		if err := s2.Restore(first); err != nil {
			t.Fatalf("a snapshot the fake wrote does not restore: %v\n%s", err, first)
		}
		if second, _ := s2.Snapshot(); string(second) != string(first) {
			t.Fatalf("snapshots differ after a restore:\n%s\n%s", first, second)
		}
	})
}
