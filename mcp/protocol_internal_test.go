package mcp

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
)

// The shared MCP server's log records go to the logger of the gateway in
// their context, with the attributes and groups the SDK added on the way,
// and nowhere when their context holds no gateway.
func TestGatewayLogsRouteByContext(t *testing.T) {
	t.Parallel()
	var bufs [2]bytes.Buffer
	var gws [2]*Gateway
	for i := range gws {
		g, err := NewGateway(Config{Upstream: "http://127.0.0.1:1",
			Logger: slog.New(slog.NewTextHandler(&bufs[i], &slog.HandlerOptions{Level: slog.LevelWarn,
				ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
					if a.Key == slog.TimeKey {
						return slog.Attr{}
					}
					return a
				}}))})
		if err != nil {
			t.Fatal(err)
		}
		gws[i] = g
	}
	log := slog.New(gatewayLogs{}).With("a", 1).WithGroup("g")
	for i, g := range gws {
		ctx := withCaller(context.Background(), g, nil)
		log.WarnContext(ctx, "to", "gateway", i)
		log.InfoContext(ctx, "below the gateway's level")
	}
	log.Error("no gateway")
	for i, want := range []string{
		"level=WARN msg=to a=1 g.gateway=0\n",
		"level=WARN msg=to a=1 g.gateway=1\n",
	} {
		if got := bufs[i].String(); got != want {
			t.Errorf("gateway %d logged %q, want %q", i, got, want)
		}
	}
	if (gatewayLogs{}).Enabled(context.Background(), slog.LevelError) {
		t.Error("enabled without a gateway")
	}
}
