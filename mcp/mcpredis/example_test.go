package mcpredis_test

import (
	"context"
	"log"
	"net/http"
	"time"

	"github.com/apitwin/apitwin/mcp/gateway"
	"github.com/apitwin/apitwin/mcp/mcpredis"
)

// Several gateways behind one load balancer share their rate limits,
// token verdicts, seen signatures and cached answers through one Redis.
// (Not run: it needs a Redis and a source-hosting API.)
func Example() {
	store := mcpredis.Open("redis.internal:6379", mcpredis.Options{
		Password: "from-your-secret-store",
		Prefix:   "apitwin:mcp:", // the same on every gateway that shares limits
	})
	defer store.Close()

	gw, err := gateway.New(gateway.Config{
		Upstream: "https://git.example.com",
		Store:    store,
	})
	if err != nil {
		log.Fatal(err)
	}
	// The gateway serves whether Redis answers or not (from its memory
	// while it does not); Ready says which.
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := gw.Ready(ctx); err != nil {
		log.Printf("serving without the shared store for now: %v", err)
	}
	http.Handle("/mcp", gw)
	log.Fatal(http.ListenAndServe(":8080", nil))
}
