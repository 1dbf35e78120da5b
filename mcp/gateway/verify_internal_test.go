package gateway

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// A request waiting on another's verification of the same token is not
// refused because that other request's caller gave up: the verification
// is asked again. (Both got 502 "the request was canceled".)
func TestVerificationOutlivesItsLeaderGivingUp(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{})
	var verifications atomic.Int32
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path != "/api/v4/personal_access_tokens/self" {
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"message":"404 Not Found"}`))
			return
		}
		if verifications.Add(1) == 1 { // the first is held until its caller gives up
			close(arrived)
			<-r.Context().Done()
			return
		}
		w.Write([]byte(`{"id":7,"user_id":1,"active":true,"scopes":["api","read_user","read_repository"]}`))
	}))
	t.Cleanup(up.Close)
	g, err := New(Config{Upstream: up.URL})
	if err != nil {
		t.Fatal(err)
	}
	waiting := make(chan struct{})
	g.verifying.onWait = func() { close(waiting) }
	serve := func(ctx context.Context) *httptest.ResponseRecorder {
		req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/mcp", strings.NewReader(`{"jsonrpc":"2.0","method":"nope","id":1}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer tok-0123")
		rec := httptest.NewRecorder()
		g.ServeHTTP(rec, req)
		return rec
	}

	leaderCtx, giveUp := context.WithCancel(context.Background())
	leader := make(chan *httptest.ResponseRecorder, 1)
	go func() { leader <- serve(leaderCtx) }()
	<-arrived
	waiter := make(chan *httptest.ResponseRecorder, 1)
	go func() { waiter <- serve(context.Background()) }()
	<-waiting
	giveUp()
	<-leader
	rec := <-waiter
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"code":-32601`) {
		t.Errorf("the waiting request: %d %s; want it verified and answered", rec.Code, rec.Body)
	}
}
