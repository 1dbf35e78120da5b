package apicall_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"sync/atomic"

	"github.com/apitwin/apitwin/apicall"
	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/sourcehost"
)

// A hook sees every call once, with its outcome: where a tracer starts and
// ends a span (see the package documentation for OpenTelemetry). Here it
// prints what a span would record.
func ExampleHook() {
	hook := func(ctx context.Context, c apicall.Call) (context.Context, func(apicall.Outcome)) {
		return ctx, func(o apicall.Outcome) {
			fmt.Printf("%s %s: status %d, code %q, retries %d, error %v\n", c.Service, c.Operation, o.StatusCode, o.Code, o.Retries, o.Err != nil)
		}
	}

	sh, err := sourcehostfake.New()
	if err != nil {
		log.Fatal(err)
	}
	if _, err := sh.Listen("127.0.0.1:0"); err != nil {
		panic(err)
	}
	defer sh.Close()
	_ = sh.InjectFault("GET /api/v4/projects", control.Fault{Status: http.StatusServiceUnavailable, Times: 1})
	if _, err := sh.Client(sourcehost.WithHook(hook)).ListProjects(context.Background(), nil); err != nil {
		panic(err)
	}

	of, err := orchfake.New(control.WithClock(clock.NewFake(clock.Real().Now())))
	if err != nil {
		log.Fatal(err)
	}
	defer of.Close()
	oc := of.Client(orch.WithHook(hook))
	defer oc.Close()
	_, _ = oc.DescribeNamespace(context.Background(), "nowhere")
	// Output:
	// sourcehost GET /projects: status 200, code "", retries 1, error false
	// orch DescribeNamespace: status 404, code "NAMESPACE_NOT_FOUND", retries 0, error true
}

// A transport wrapper sees every attempt on the wire: where
// otelhttp.NewTransport goes, or here, a counter.
func ExampleTransport() {
	var attempts atomic.Int32
	count := func(next http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			attempts.Add(1)
			return next.RoundTrip(r)
		})
	}
	sh, err := sourcehostfake.New()
	if err != nil {
		log.Fatal(err)
	}
	if _, err := sh.Listen("127.0.0.1:0"); err != nil {
		panic(err)
	}
	defer sh.Close()
	_ = sh.InjectFault("GET /api/v4/projects", control.Fault{Status: http.StatusServiceUnavailable, Times: 2})
	if _, err := sh.Client(sourcehost.WithTransport(count)).ListProjects(context.Background(), nil); err != nil {
		panic(err)
	}
	fmt.Println("attempts:", attempts.Load())
	// Output: attempts: 3
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
