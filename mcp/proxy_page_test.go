package mcp_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/apitwin/apitwin/mcp"
)

// An error answer that is not JSON-RPC (a proxy's page) reaches the caller
// as an *Error with the HTTP status and an excerpt of the page in Detail:
// one line, cut between characters, never half of one.
func TestProxyPageIsAnExcerpt(t *testing.T) {
	t.Parallel()
	page := "<html>\n  <h1>Bad gateway</h1>\n  <p>" + strings.Repeat("é", 300) + "</p>\n</html>\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusBadGateway)
		io.WriteString(w, page)
	}))
	t.Cleanup(srv.Close)
	c, err := mcp.New(srv.URL, mcp.WithToken("t"), mcp.WithoutRetries())
	if err != nil {
		t.Fatal(err)
	}
	err = c.Call(context.Background(), "ping", nil, nil)
	var e *mcp.Error
	if !errors.As(err, &e) || e.HTTPStatus != http.StatusBadGateway {
		t.Fatalf("err %v, want an *mcp.Error with HTTP status 502", err)
	}
	want := "<html> <h1>Bad gateway</h1> <p>" + strings.Repeat("é", 200-len("<html> <h1>Bad gateway</h1> <p>")) + "…"
	if e.Detail != want || !utf8.ValidString(e.Error()) {
		t.Errorf("Detail %q,\nwant %q", e.Detail, want)
	}
}
