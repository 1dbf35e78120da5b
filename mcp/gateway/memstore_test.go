package gateway_test

import (
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/mcp/gateway"
	"github.com/apitwin/apitwin/mcp/internal/storetest"
)

// fakeTimeStore is a MemoryStore on a fake clock the conformance suite can
// move on (storetest.Advancer), so that it checks expiry without sleeping.
type fakeTimeStore struct {
	*gateway.MemoryStore
	clk *clock.Fake
}

func (s fakeTimeStore) Advance(d time.Duration) { s.clk.Advance(d) }

// MemoryStore passes the conformance suite every Store must pass (the one
// on Redis in mcp/mcpredis too).
func TestMemoryStoreConformance(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) gateway.Store {
		clk := clock.NewFake(time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC))
		return fakeTimeStore{gateway.NewMemoryStore(clk, gateway.MemoryLimits{}), clk}
	})
}
