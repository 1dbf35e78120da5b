package sourcehost_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

func TestRateLimitWaitsAsHeadersSay(t *testing.T) {
	t.Parallel()
	tg := newTarget(t, sourcehostfake.WithRateLimit(3, time.Minute))
	srv := tg.needFake(t)
	start := srv.Clock().Now()
	for range 3 {
		if _, err := tg.c.ListProjects(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	rl := tg.c.RateLimit()
	if rl.Limit != 3 || rl.Remaining != 0 || !rl.Reset.Equal(start.Add(time.Minute)) {
		t.Fatalf("rate limit after 3 calls %+v", rl)
	}
	srv.Clock().Advance(15 * time.Second)
	// The 4th call is refused with Retry-After 45; the client waits (on the
	// fake clock, so no real time) and the retry lands in a new window.
	if _, err := tg.c.ListProjects(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if waited := srv.Clock().Now().Sub(start); waited != time.Minute {
		t.Fatalf("clock at +%v, want +1m (15s + the 45s Retry-After)", waited)
	}
	reqs := srv.RequestsTo("GET /api/v4/projects")
	if n := len(reqs); n != 5 || reqs[3].Status != http.StatusTooManyRequests || reqs[4].Status != http.StatusOK {
		t.Fatalf("%d requests", n)
	}
	if rl := tg.c.RateLimit(); rl.Remaining != 2 {
		t.Fatalf("rate limit after the retry %+v", rl)
	}
}

func TestRateLimitExhausted(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	srv.InjectFault("GET /api/v4/projects", control.Fault{Status: http.StatusTooManyRequests})
	_, err := tg.c.ListProjects(ctx, nil)
	var rle *sourcehost.RateLimitError
	var e *sourcehost.Error
	if !errors.Is(err, sourcehost.ErrRateLimited) || !errors.As(err, &rle) || !errors.As(err, &e) {
		t.Fatalf("err = %v", err)
	}
	if rle.Retries != 3 || rle.RetryAfter != time.Minute || e.Message != "Retry later" {
		t.Fatalf("%+v / %+v", rle, e)
	}
	if n := len(srv.Requests()); n != 4 {
		t.Fatalf("%d requests, want 4", n)
	}
}

func TestPostGetting500IsNotSentTwice(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	p := tg.project(t, sourcehost.Private)
	srv.InjectFault("POST /api/v4/projects/{id}/issues", control.Fault{Status: http.StatusInternalServerError, Times: 1})
	_, err := tg.c.CreateIssue(ctx, pid(p), &sourcehost.CreateIssueRequest{Title: "once"})
	if !errors.Is(err, sourcehost.ErrServer) {
		t.Fatalf("err = %v", err)
	}
	if n := len(srv.RequestsTo("POST /api/v4/projects/{id}/issues")); n != 1 {
		t.Fatalf("POST sent %d times", n)
	}
	if issues := srv.Issues(p.ID); len(issues) != 0 {
		t.Fatalf("issues %v", issues)
	}
	// A GET meeting the same fault is retried and succeeds.
	srv.InjectFault("GET /api/v4/projects/{id}", control.Fault{Status: http.StatusBadGateway, Times: 1})
	if _, err := tg.c.GetProject(ctx, pid(p), nil); err != nil {
		t.Fatal(err)
	}
}

func TestDroppedConnection(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	p := tg.project(t, sourcehost.Private)
	srv.InjectFault("POST /api/v4/projects/{id}/issues", control.Fault{Drop: true, Times: 1})
	if _, err := tg.c.CreateIssue(ctx, pid(p), &sourcehost.CreateIssueRequest{Title: "maybe"}); err == nil {
		t.Fatal("want a transport error")
	}
	if n := len(srv.RequestsTo("POST /api/v4/projects/{id}/issues")); n != 1 {
		t.Fatalf("POST sent %d times", n)
	}
}

func TestCancelStopsRetryWaitAtOnce(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	srv.Clock().SetAutoAdvance(false)
	srv.InjectFault("GET /api/v4/projects", control.Fault{Status: http.StatusTooManyRequests, Header: http.Header{"Retry-After": {"30"}}})
	c, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := tg.c.ListProjects(c, nil)
		done <- err
	}()
	if err := srv.Clock().WaitForSleepers(ctx, 1); err != nil {
		t.Fatal(err)
	}
	start := srv.Clock().Now()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if srv.Clock().Now() != start || len(srv.Requests()) != 1 {
		t.Fatalf("clock moved or retried: %d requests", len(srv.Requests()))
	}
}

func TestDeadlineEndsRetriesEarly(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	srv.InjectFault("GET /api/v4/projects", control.Fault{Status: http.StatusTooManyRequests, Times: 1})
	c, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err := tg.c.ListProjects(c, nil)
	var rle *sourcehost.RateLimitError
	if !errors.As(err, &rle) || rle.Retries != 0 || rle.RetryAfter != time.Minute {
		t.Fatalf("err = %v", err)
	}
}
