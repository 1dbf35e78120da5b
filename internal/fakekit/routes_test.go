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
		{Method: "GET", Path: "/items/{id}/detail", Handler: "get"},
		// Conflicts with the row above (GET /api/items/special/detail
		// matches both equally well): served only when no other matches.
		{Method: "GET", Path: "/items/special/{x}", Handler: "special"},
	}}
	serve := func(body string) func(*int, http.ResponseWriter, *http.Request) {
		return func(_ *int, w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(body)) }
	}
	rt := fakekit.NewRoutes[*int]()
	register := func(_ apitable.Endpoint, pattern, body string) {
		if body == "aside" { // its path value read as any route's
			rt.HandleAside(pattern, func(_ *int, w http.ResponseWriter, r *http.Request) {
				_, _ = w.Write([]byte("aside " + r.PathValue("x")))
			})
			return
		}
		rt.Handle(pattern, serve(body))
	}
	if err := fakekit.RegisterTable(table, map[string]string{"list": "L", "create": "C", "get": "G", "special": "aside"}, register); err != nil {
		t.Fatal(err)
	}
	rt.NotFound(serve("404"))
	router := rt.Bind(new(int))
	for _, tc := range []struct{ method, path, route, body string }{
		{"GET", "/api/items", "GET /api/items", "L"},
		{"POST", "/api/items", "POST /api/items", "C"},
		{"GET", "/api/items/7/detail", "GET /api/items/{id}/detail", "G"},
		{"GET", "/api/items/special/1", "GET /api/items/special/{x}", "aside 1"},
		{"GET", "/api/items/special/detail", "GET /api/items/{id}/detail", "G"},
		{"GET", "/api/nothing", "/", "404"},
	} {
		r := httptest.NewRequest(tc.method, tc.path, nil)
		if got := router.Match(r); got != tc.route {
			t.Errorf("%s %s routed to %q, want %q", tc.method, tc.path, got, tc.route)
		}
		w := httptest.NewRecorder()
		router.ServeHTTP(w, r)
		if w.Body.String() != tc.body {
			t.Errorf("%s %s served %q, want %q", tc.method, tc.path, w.Body, tc.body)
		}
	}

	// A row without a handler and a handler without a row are both named.
	err := fakekit.RegisterTable(table, map[string]string{"list": "L", "get": "G", "special": "S", "stale": "S"}, func(apitable.Endpoint, string, string) {})
	if err == nil || !strings.Contains(err.Error(), "create (POST /api/items)") || !strings.Contains(err.Error(), "[stale]") {
		t.Fatalf("mismatched handlers: %v", err)
	}
}

// TestAllowedSeesAside: a path only an aside route serves answers 405 for
// another method, as any other route's path does.
func TestAllowedSeesAside(t *testing.T) {
	t.Parallel()
	rt := fakekit.NewRoutes[*int]()
	rt.Handle("POST /items/{id}/validate", func(*int, http.ResponseWriter, *http.Request) {})
	rt.HandleAside("POST /items/fromorder/{order}", func(*int, http.ResponseWriter, *http.Request) {})
	if got := rt.Allowed(httptest.NewRequest("GET", "/items/fromorder/3", nil)); len(got) != 1 || got[0] != "POST" {
		t.Fatalf("Allowed %v", got)
	}
}
