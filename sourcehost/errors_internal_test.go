package sourcehost

import (
	"net/http"
	"net/url"
	"testing"
	"unicode/utf8"
)

func FuzzDecodeError(f *testing.F) {
	for _, seed := range []string{
		`{"message":"404 Project Not Found"}`,
		`{"message":{"name":["has already been taken"],"base":["x"]}}`,
		`{"message":["a","b"]}`,
		`{"message":{"error":"This endpoint has been requested too many times."}}`,
		`{"error":"insufficient_scope","error_description":"higher","scope":"api"}`,
		`{"error":"title is missing"}`,
		"Retry later\n",
		`{"message":{"x":[1,{"y":2}]}}`,
		"\xff\xfe",
	} {
		f.Add(400, []byte(seed))
	}
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		resp := &http.Response{StatusCode: status, Header: http.Header{},
			Request: &http.Request{Method: "GET", URL: &url.URL{Path: "/api/v4/projects"}}}
		err := decodeError(resp, body)
		e, ok := err.(*Error)
		if !ok {
			t.Fatalf("decodeError returned %T", err)
		}
		if !utf8.ValidString(e.Message) || len([]rune(e.Message)) > 501 {
			t.Fatalf("message not one valid line: %q", e.Message)
		}
		_ = e.Error()
	})
}
