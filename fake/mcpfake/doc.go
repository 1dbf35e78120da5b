// Package mcpfake runs the real tool gateway of package mcp over a
// source-hosting fake, both on loopback ports, for testing code that uses
// the gateway (through package mcp's Client, any JSON-RPC client, or an MCP
// client) without a real source-hosting server.
//
//	srv := mcpfake.Start(t)
//	id, _ := srv.Upstream().AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
//	c := srv.Client()                          // an mcp.Client with root's token
//	c.CreateIssue(ctx, &mcp.CreateIssueParams{ProjectID: id, Title: "bug"})
//	srv.Upstream().InjectFault("GET /api/v4/projects/{id}/issues", control.Fault{Status: 500, Times: 1})
//	srv.Clock().Advance(time.Minute)           // rate-limit buckets refill, cached answers expire
//
// Nothing about the gateway is faked: it is mcp.Gateway with the
// configuration given (WithConfig), its clock the fakes' shared one. The
// upstream is a sourcehostfake.Server, reachable through Upstream for
// seeding, fault injection and its request log.
package mcpfake
