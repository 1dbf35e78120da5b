package sourcehost_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

// TestJobTokenWhileTheJobRuns: a running job's CI_JOB_TOKEN signs in as
// the user who ran the pipeline on the endpoints GitLab opens to job
// tokens, for the job's project alone; elsewhere it is not looked at (the
// request is anonymous), and once the job is over it is refused.
func TestJobTokenWhileTheJobRuns(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t, sourcehostfake.WithPipelineTiming(5*time.Second, time.Minute))
	clients, _ := users(t, srv, "alice")
	alice := clients["alice"]
	p, err := alice.CreateProject(ctx, &sourcehost.CreateProjectRequest{Name: "app", InitializeWithReadme: true})
	if err != nil {
		t.Fatal(err)
	}
	other, err := alice.CreateProject(ctx, &sourcehost.CreateProjectRequest{Name: "other", InitializeWithReadme: true})
	if err != nil {
		t.Fatal(err)
	}
	// The default branch is protected for maintainers: alice, its owner, pushes.
	if _, err := alice.CreateFile(ctx, pid(p), sourcehostfake.CIFile, &sourcehost.CreateFileRequest{Branch: p.DefaultBranch,
		Content: "build:\n  script: make\n", CommitMessage: "Add CI"}); err != nil {
		t.Fatal(err)
	}
	jobs, err := alice.ListJobs(ctx, pid(p), nil)
	if err != nil || len(jobs.Items) != 1 {
		t.Fatalf("jobs %+v %v", jobs, err)
	}
	job := jobs.Items[0]
	secret, err := srv.JobToken(p.ID, job.ID)
	if err != nil {
		t.Fatal(err)
	}
	jc, err := sourcehost.New(srv.URL(), sourcehost.WithJobToken(secret), sourcehost.WithHTTPClient(srv.RawClient()), sourcehost.WithoutRetries())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := jc.CurrentJob(ctx); !errors.Is(err, sourcehost.ErrUnauthorized) {
		t.Fatalf("a pending job's token: %v", err)
	}
	srv.Clock().Advance(5 * time.Second) // running
	got, err := jc.CurrentJob(ctx)
	if err != nil || got.ID != job.ID || got.Status != sourcehost.PipelineRunning {
		t.Fatalf("the token's job: %+v %v", got, err)
	}
	if r := srv.RequestsTo("GET /api/v4/job"); len(r) != 2 || r[1].Caller != "alice" || r[1].Header.Get("Job-Token") != "[REDACTED]" {
		t.Fatalf("the request log: %+v", r)
	}
	if b, err := jc.ListBranches(ctx, pid(p), nil); err != nil || len(b.Items) != 1 {
		t.Fatalf("branches of the job's private project: %+v %v", b, err)
	}
	if _, err := jc.CreateRelease(ctx, pid(p), &sourcehost.CreateReleaseRequest{TagName: "v1", Ref: p.DefaultBranch}); err != nil {
		t.Fatalf("a release from the job: %v", err)
	}
	if _, err := jc.ListBranches(ctx, pid(other), nil); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("another project of the same user: %v", err)
	}
	if _, err := jc.GetProject(ctx, pid(p), nil); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("a route that takes no job token sees the private project: %v", err)
	}
	if _, err := jc.CurrentUser(ctx); !errors.Is(err, sourcehost.ErrUnauthorized) {
		t.Fatalf("GET /user with a job token: %v", err)
	}
	if _, err := jc.Sudo("root"); err != nil {
		t.Fatal(err)
	}
	if _, err := mustSudo(t, jc, "root").ListBranches(ctx, pid(p), nil); err == nil {
		t.Fatal("a job token used sudo")
	}
	if err := srv.SetJobStatus(p.ID, job.ID, "success"); err != nil {
		t.Fatal(err)
	}
	if _, err := jc.ListBranches(ctx, pid(p), nil); !errors.Is(err, sourcehost.ErrUnauthorized) {
		t.Fatalf("a finished job's token: %v", err)
	}

	// A snapshot keeps the token; a deleted project takes it along.
	snap, err := srv.Snapshot()
	if err != nil || !strings.Contains(string(snap), secret) {
		t.Fatalf("the snapshot lacks the job token: %v", err)
	}
	if err := alice.DeleteProject(ctx, pid(p)); err != nil {
		t.Fatal(err)
	}
	if snap, err = srv.Snapshot(); err != nil || strings.Contains(string(snap), secret) {
		t.Fatalf("the snapshot keeps a deleted project's job token: %v", err)
	}
	if err := sourcehostfake.Start(t).Restore(snap); err != nil {
		t.Fatal(err)
	}
}

// TestOAuthTokenOption: WithOAuthToken sends the token as a bearer, held
// to its scopes as in PRIVATE-TOKEN.
func TestOAuthTokenOption(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	users(t, srv, "alice")
	secret, err := srv.IssueToken("alice", sourcehost.ScopeReadAPI)
	if err != nil {
		t.Fatal(err)
	}
	c, err := sourcehost.New(srv.URL(), sourcehost.WithOAuthToken(secret), sourcehost.WithHTTPClient(srv.RawClient()))
	if err != nil {
		t.Fatal(err)
	}
	if me, err := c.CurrentUser(ctx); err != nil || me.Username != "alice" {
		t.Fatalf("%+v %v", me, err)
	}
	if r := srv.RequestsTo("GET /api/v4/user"); len(r) != 1 || r[0].Header.Get("Authorization") != "Bearer [REDACTED]" || r[0].Header.Get("Private-Token") != "" {
		t.Fatalf("the request log: %+v", r)
	}
	if _, err := c.CreateProject(ctx, &sourcehost.CreateProjectRequest{Name: "x"}); !errors.Is(err, sourcehost.ErrInsufficientScope) {
		t.Fatalf("read_api writing: %v", err)
	}
}
