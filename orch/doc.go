// Package orch is the client of the workflow-orchestration service: one
// Client over gRPC (Dial, NewFromConn) or over the service's HTTP/JSON side
// (NewHTTP), with the same methods and the same errors whichever transport.
//
//	c, err := orch.Dial("orch.example.com", orch.WithToken(token))
//	run, err := c.StartWorkflow(ctx, "OrderWorkflow", "orders", order, nil)
//	var receipt Receipt
//	err = run.Get(ctx, &receipt)
package orch
