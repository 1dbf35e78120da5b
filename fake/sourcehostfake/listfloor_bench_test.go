package sourcehostfake_test

import (
	"testing"

	"github.com/apitwin/apitwin/internal/benchfloor"
)

// BenchmarkListVersusPlainHandler is each main list endpoint of the fake
// beside its floor, in one run: "fake" is the fake answering a page of 20
// (the handler alone, no network, authenticated as root); "floor=plain" is
// a plain handler encoding the same page from plain Go structs with
// encoding/json per request, and setting the same headers
// (internal/benchfloor). Issue 18's goal is the fake within 1.4x of the
// floor's time and 2x of its allocations:
//
//	go test -run '^$' -bench BenchmarkListVersusPlainHandler -benchmem ./fake/sourcehostfake
func BenchmarkListVersusPlainHandler(b *testing.B) {
	srv, endpoints := listFixture(b)
	for _, ep := range endpoints {
		benchfloor.Compare(b, ep.name, srv, listRequest(srv, ep.target))
	}
	// What any request costs the fake beyond its answer (routing, the
	// token, the rate limit, the request log), measured on the smallest
	// answer it has: a list's time over its floor, less this one's, is
	// what its own encoding costs over encoding/json's.
	benchfloor.Compare(b, "fixed=version", srv, listRequest(srv, "/api/v4/version"))
}
