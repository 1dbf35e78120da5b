package orch

import (
	"errors"
	"net/http"
	"testing"

	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	"github.com/apitwin/apitwin/apicall"
	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// FuzzDecodeHTTPError: whatever a server or a proxy answers, the client
// makes an *Error of it without panicking, with a code.
func FuzzDecodeHTTPError(f *testing.F) {
	f.Add(404, []byte(`{"error":{"code":"WORKFLOW_EXECUTION_NOT_FOUND","message":"gone","details":[{"type":"FieldViolation","field":"workflow_id","description":"x"}]}}`))
	f.Add(429, []byte(`{"error":{"code":"RESOURCE_EXHAUSTED","message":"slow down","details":[{"type":"RateLimitExceeded","scope":"cluster","limit":10,"window":"1m","retry_after":-5}]}}`))
	f.Add(502, []byte("<html>bad gateway</html>"))
	f.Add(400, []byte(`{"error":{"code":7,"details":"no"}}`))
	f.Add(500, []byte{0xff, 0xfe})
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		resp := &http.Response{StatusCode: status, Status: http.StatusText(status)}
		err := decodeHTTPError(resp, body)
		var e *Error
		if !errors.As(err, &e) || e.Code == "" {
			t.Fatalf("%d %q: %v", status, body, err)
		}
		_ = e.Error()
		if d := rateLimitDetail(e.Details); d != nil && d.RetryAfter < 0 {
			t.Fatalf("negative retry_after %v", d.RetryAfter)
		}
		_ = specific(e, nil).Error()
	})
}

// FuzzDecodePayload: payloads from the server decode or fail, never panic.
func FuzzDecodePayload(f *testing.F) {
	f.Add([]byte("json/plain"), []byte(`{"a":1}`))
	f.Add([]byte("binary/null"), []byte(nil))
	f.Add([]byte(""), []byte(`"text"`))
	f.Add([]byte("binary/protobuf"), []byte{1, 2})
	f.Fuzz(func(t *testing.T, enc, data []byte) {
		p := &orchpb.Payload{Metadata: map[string][]byte{MetadataEncoding: enc}, Data: data}
		var anyOut any
		_ = DecodePayload(p, &anyOut)
		var m map[string]int
		_ = DecodePayloads(&orchpb.Payloads{Payloads: []*orchpb.Payload{p}}, &m)
	})
}

// FuzzRateLimitMetadata: rate-limit metadata of any shape is read or
// ignored, never a panic.
func FuzzRateLimitMetadata(f *testing.F) {
	f.Add("10", "3", "1800000000", "namespace:default", "7")
	f.Add("-1", "x", "99999999999999999999", "", "Wed, 21 Oct 2015 07:28:00 GMT")
	s := &settings{}
	s.rest.Clock = clock.Real()
	f.Fuzz(func(t *testing.T, limit, remaining, reset, scope, retryAfter string) {
		md := metadata.Pairs("x-ratelimit-limit", limit, "x-ratelimit-remaining", remaining,
			"x-ratelimit-reset", reset, "x-ratelimit-scope", scope, "retry-after", retryAfter)
		rl := apicall.ParseRateLimit(mdHeader(md, nil), s.rest.Clock.Now())
		if rl.Limit < 0 || rl.Remaining < 0 || rl.RetryAfter < 0 {
			t.Fatalf("%+v", rl)
		}
	})
}

// FuzzHTTPTarget: any request builds a path and query or a clear error.
func FuzzHTTPTarget(f *testing.F) {
	f.Add("default", "wf/1?#%", "", []byte{0xff}, int32(3))
	f.Fuzz(func(t *testing.T, ns, wf, run string, token []byte, size int32) {
		for _, m := range methods() {
			req := &orchpb.GetWorkflowExecutionHistoryRequest{
				Namespace: ns, Execution: &orchpb.WorkflowExecution{WorkflowId: wf, RunId: run}, NextPageToken: token, MaximumPageSize: size,
			}
			if m.name != "GetWorkflowExecutionHistory" {
				continue
			}
			if _, _, err := httpTarget(m.rule, proto.Clone(req), "v1"); err != nil && (ns != "" && wf != "") {
				t.Fatalf("%v", err)
			}
		}
	})
}
