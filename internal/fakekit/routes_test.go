package fakekit_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/internal/apitable"
	"github.com/apitwin/apitwin/internal/fakekit"
)

func TestRegisterTable(t *testing.T) {
	t.Parallel()
	table := &apitable.Table{Name: "test", Root: "/api", Endpoints: []apitable.Endpoint{
		{Method: "GET", Path: "/items", Handler: "list"},
		{Method: "POST", Path: "/items", Handler: "create"},
		{Method: "GET", Path: "/items/special/{x}", Handler: "elsewhere"},
	}}
	serve := func(_ apitable.Endpoint, body string) func(*int, http.ResponseWriter, *http.Request) {
		if body == "" {
			return nil // served another way: not registered
		}
		return func(_ *int, w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(body)) }
	}

	rt := fakekit.NewRoutes[*int]()
	if err := fakekit.RegisterTable(rt, table, map[string]string{"list": "L", "create": "C", "elsewhere": ""}, serve); err != nil {
		t.Fatal(err)
	}
	router := rt.Bind(new(int))
	for _, tc := range []struct{ method, path, route, body string }{
		{"GET", "/api/items", "GET /api/items", "L"},
		{"POST", "/api/items", "POST /api/items", "C"},
		{"GET", "/api/items/special/1", "", ""},
	} {
		r := httptest.NewRequest(tc.method, tc.path, nil)
		if got := router.Match(r); got != tc.route {
			t.Errorf("%s %s routed to %q, want %q", tc.method, tc.path, got, tc.route)
		}
		if tc.route == "" {
			continue
		}
		w := httptest.NewRecorder()
		router.ServeHTTP(w, r)
		if w.Body.String() != tc.body {
			t.Errorf("%s %s served %q, want %q", tc.method, tc.path, w.Body, tc.body)
		}
	}

	// A row without a handler and a handler without a row are both named.
	err := fakekit.RegisterTable(fakekit.NewRoutes[*int](), table, map[string]string{"list": "L", "elsewhere": "", "stale": "S"}, serve)
	if err == nil || !strings.Contains(err.Error(), "create (POST /api/items)") || !strings.Contains(err.Error(), "[stale]") {
		t.Fatalf("mismatched handlers: %v", err)
	}
}
