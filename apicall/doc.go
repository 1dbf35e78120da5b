// Package apicall is what one call of an apitwin client reported, and how
// to watch calls, whichever client made them (erp, cloudauth, orch over
// gRPC or HTTP, sourcehost, the mcp client):
//
//   - [Info], filled by [Capture]: the status, headers, rate limit, request
//     id and retries of the answer to one call;
//   - [RateLimit], what an answer said of the caller's rate limit, and
//     [RateLimitError], the error of a call the server refused for its rate
//     once the client stopped retrying;
//   - [Hook], which sees each call start and end (a span or a metric per
//     call), and [Transport], which wraps the HTTP transport and sees every
//     attempt on the wire.
//
// All of it is per call: one Hook start and end, one Info, one error,
// however many attempts the client's retry policy (package retry) made.
// Every client runs its calls through the same internal pipeline, so what
// this package describes holds for each of them alike.
//
// The name says the unit all of this is about, a call to an API, without
// taking a word client code uses for its own variables: response, call,
// info and status are local names in every client (and an import named
// like one of them had to be renamed where it was used).
//
// Per call, not the last response any goroutine saw, so concurrent calls
// each read their own:
//
//	var info apicall.Info
//	project, err := client.GetProject(apicall.Capture(ctx, &info), sourcehost.ProjectID(7), nil)
//	fmt.Println(info.StatusCode, info.RateLimit.Remaining, info.RequestID)
//
// A call refused for its rate, once the client stopped retrying:
//
//	var rl *apicall.RateLimitError
//	if errors.As(err, &rl) {
//		fmt.Println("retry after", rl.RetryAfter, "; remaining", rl.RateLimit.Remaining)
//	}
//
// A hook that starts an OpenTelemetry span:
//
//	hook := func(ctx context.Context, c apicall.Call) (context.Context, func(apicall.Outcome)) {
//		ctx, span := tracer.Start(ctx, c.Service+" "+c.Operation)
//		return ctx, func(o apicall.Outcome) {
//			span.SetAttributes(attribute.Int("http.status_code", o.StatusCode), attribute.Int("retries", o.Retries))
//			if o.Err != nil {
//				span.RecordError(o.Err)
//			}
//			span.End()
//		}
//	}
//	client, err := sourcehost.New(url, sourcehost.WithHook(hook))
//
// The retry policy itself stays in package retry: it is what a caller sets
// when it makes a client, where this package is what each call gives back.
package apicall
