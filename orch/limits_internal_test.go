package orch

import (
	"context"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
)

func TestLongPollSlots(t *testing.T) {
	t.Parallel()
	lim := newLimiter(ClientLimits{ConcurrentLongPolls: 2}.withDefaults(), clock.NewFake(time.Unix(0, 0)))
	r1, err1 := lim.longPoll(t.Context())
	_, err2 := lim.longPoll(t.Context())
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	full, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := lim.longPoll(full); err == nil {
		t.Fatal("a third long poll got a slot of two")
	}
	r1()
	if _, err := lim.longPoll(t.Context()); err != nil {
		t.Fatalf("a freed slot was not reused: %v", err)
	}
}

func TestHeartbeatLimit(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(time.Unix(0, 0))
	lim := newLimiter(ClientLimits{HeartbeatsPerMinute: 60}.withDefaults(), clk)
	for range 60 {
		if !lim.heartbeatAllowed() {
			t.Fatal("a heartbeat within the burst was refused")
		}
	}
	if lim.heartbeatAllowed() {
		t.Fatal("the 61st heartbeat in a minute was allowed")
	}
	if err := lim.heartbeat(t.Context()); err != nil { // waits a second on the (auto-advancing) clock
		t.Fatal(err)
	}
	if got := clk.Now().Sub(time.Unix(0, 0)); got != time.Second {
		t.Errorf("waited %v for a heartbeat token, want 1s", got)
	}
}

func TestWithDefaultPort(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"orch.example.com":        "orch.example.com:7233",
		"orch.example.com:9000":   "orch.example.com:9000",
		"127.0.0.1":               "127.0.0.1:7233",
		"[::1]":                   "[::1]:7233",
		"::1":                     "[::1]:7233",
		"[::1]:80":                "[::1]:80",
		"dns:///orch.example.com": "dns:///orch.example.com",
		"unix:/tmp/orch.sock":     "unix:/tmp/orch.sock",
		"passthrough:///bufconn":  "passthrough:///bufconn",
	} {
		if got := withDefaultPort(in); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}

func TestCodeName(t *testing.T) {
	t.Parallel()
	for code, want := range map[string]string{
		CodePermissionDenied: "PermissionDenied", CodeCanceled: "Canceled", CodeWorkflowExecutionAlreadyStarted: "WorkflowExecutionAlreadyStarted",
		"": "Unknown", "ODD__CODE_": "OddCode",
	} {
		if got := CodeName(code); got != want {
			t.Errorf("%q: %s, want %s", code, got, want)
		}
	}
}
