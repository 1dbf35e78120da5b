// Package orchpb is the contract of the orchestration service: the Go code
// generated from the .proto files under proto/apitwin/orch/v1, which are the
// source of truth for both transports.
//
//   - gRPC: the WorkflowService and AdminService clients and servers
//     (*_grpc.pb.go), served on port 7233 by the real service.
//   - HTTP/JSON: every RPC carries a google.api.http option with the
//     specification's path under /api/v1; the grpc-gateway handlers
//     (*.pb.gw.go) serve those paths from a server implementation. On the
//     wire, field names are snake_case (the proto names), durations are
//     "<n>s", enums are their names, bytes are base64 and 64-bit integers
//     are strings (the protobuf JSON mapping).
//
// Most programs use package orch, which wraps both transports in one client;
// this package is for those who want the raw messages.
//
// To change the contract, edit the .proto files and run generate.sh; CI
// fails when the generated code is not current (generate.sh --check).
package orchpb

//go:generate ./generate.sh
