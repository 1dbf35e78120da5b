// Package apitable holds the endpoint table of each REST API the module
// speaks (sourcehost, erp, cloudauth): for every endpoint, its method and
// path, the client methods that call it, the fake's handler that serves it
// and the real API's documentation of it. It is the one list of them:
//
//   - each fake registers its routes from its table (routes.go binds a
//     handler to each row by the row's Handler name, and refuses to build
//     when a row has no handler or a handler no row);
//   - each client's tests (apitabletest) call every client method against
//     the fake and check that it reaches exactly the endpoints its rows
//     name, and that its doc comment names them with their documentation
//     links;
//   - the README's endpoint tables are generated from it
//     (go generate ./internal/apitable; .ci/run fails when they are out
//     of date).
//
// A new endpoint is one row here, one client method, one handler in the
// fake. orch is not here: its operations are the protobuf contract's, and
// internal/orchwire.RPCs is their table.
package apitable

//go:generate go run ./genreadme -readme ../../README.md

import (
	"net/http"
	"strings"
)

// Table is one API's endpoints.
type Table struct {
	// Name is the table's name in the README ("sourcehost").
	Name string
	// Label names the API in a client method's doc comment, before the
	// endpoint: "GitLab API: [GET /projects/{id}/issues]".
	Label string
	// Root is where the paths live on a server: "/api/v4", "" for the
	// server's root.
	Root string
	// Client is the import path of the package whose Client calls the
	// endpoints; Fake the fake that serves them.
	Client, Fake string
	// DocsPrefix is what every row's Docs starts with: the real API's
	// documentation site. Empty for an API whose real service is not named
	// (the specification keeps its brand words out): its rows link to
	// nothing, and its doc comments and README rows name the endpoints as
	// plain text.
	DocsPrefix string
	Endpoints  []Endpoint
}

// Endpoint is one row of a table.
type Endpoint struct {
	Method string
	// Path is under the table's Root, in http.ServeMux pattern syntax:
	// "/projects/{id}/issues/{iid}".
	Path string
	// Handler is the name the fake binds its handler to this row by.
	Handler string
	// Client names the client methods that call the endpoint.
	Client []string
	// Reason says why no client method calls it, when none does.
	Reason string
	// Docs is the real API's documentation of the endpoint; empty when
	// the table's DocsPrefix is.
	Docs string
}

// Endpoint is the method and path as a client's doc comment names them:
// "GET /projects/{id}/issues"; a path that ends in ServeMux's {$} ("only
// this path, not those under it") ends in its "/".
func (e Endpoint) Endpoint() string { return e.Method + " " + strings.TrimSuffix(e.Path, "{$}") }

// Pattern is the endpoint's http.ServeMux pattern on a server, with the
// table's root: "GET /api/v4/projects/{id}/issues". It is the route the
// fakes' request logs and faults name.
func (t *Table) Pattern(e Endpoint) string { return e.Method + " " + t.Root + e.Path }

// Calls returns the rows that name client method m, in table order.
func (t *Table) Calls(m string) []Endpoint {
	var out []Endpoint
	for _, e := range t.Endpoints {
		for _, c := range e.Client {
			if c == m {
				out = append(out, e)
				break
			}
		}
	}
	return out
}

// Problems returns what is wrong with the table itself, nil when nothing
// is: a row without a method, path, handler or docs link, with both client
// methods and a reason or neither, a docs link off the table's site, a
// route or handler named twice.
func (t *Table) Problems() []string {
	var out []string
	routes, handlers := map[string]bool{}, map[string]bool{}
	for _, e := range t.Endpoints {
		id := t.Name + " " + e.Endpoint()
		switch e.Method {
		case http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		default:
			out = append(out, id+": method "+e.Method+" is not one the APIs use")
		}
		if !strings.HasPrefix(e.Path, "/") {
			out = append(out, id+": the path does not start with /")
		}
		if e.Handler == "" {
			out = append(out, id+": no fake handler")
		}
		if handlers[e.Handler] {
			out = append(out, id+": handler "+e.Handler+" serves another row too")
		}
		handlers[e.Handler] = true
		if routes[e.Endpoint()] {
			out = append(out, id+": listed twice")
		}
		routes[e.Endpoint()] = true
		if (len(e.Client) == 0) == (e.Reason == "") {
			out = append(out, id+": needs client methods or a reason why none calls it, not both")
		}
		switch {
		case t.DocsPrefix == "" && e.Docs != "":
			out = append(out, id+": a docs link in a table that links to none")
		case t.DocsPrefix != "" && !strings.HasPrefix(e.Docs, t.DocsPrefix):
			out = append(out, id+": docs link "+e.Docs+" is not under "+t.DocsPrefix)
		}
	}
	return out
}

// Tables returns every table, in the README's order.
func Tables() []*Table {
	return []*Table{Sourcehost(), SourcehostOAuth(), ERP(), ERPWeb(), Cloudauth()}
}
