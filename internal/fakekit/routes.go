package fakekit

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/apitwin/apitwin/internal/apitable"
)

// Routes is a fake's route table, built once per process and shared by
// every instance of that fake: registering ServeMux patterns is most of
// what starting a fake would otherwise cost. Handlers receive the instance
// (the owner) the request was sent to.
type Routes[T any] struct {
	mux *http.ServeMux
	// aside holds the patterns ServeMux cannot hold beside mux's (two
	// patterns a request matches equally well conflict): a request goes
	// there only when mux has no route for it. asideHeads are their
	// methods and literal path heads ("POST /api/index.php/invoices/
	// createfromorder/"): only a request that has one is matched against
	// aside, as a ServeMux that matches nothing still allocates to say so.
	aside      *http.ServeMux
	asideHeads []asideHead
	// patterns are every route's pattern, for the check of a fault's
	// (Reaches).
	patterns []string
}

type asideHead struct{ method, path string }

type ownerKey struct{}

// NewRoutes returns an empty table for owners of type T.
func NewRoutes[T any]() *Routes[T] {
	return &Routes[T]{mux: http.NewServeMux(), aside: http.NewServeMux()}
}

// Handle registers a route in http.ServeMux pattern syntax
// ("POST /api/v4/projects/{id}/issues").
func (rt *Routes[T]) Handle(pattern string, h func(owner T, w http.ResponseWriter, r *http.Request)) {
	rt.patterns = append(rt.patterns, pattern)
	rt.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		h(ownerOf[T](r), w, r)
	})
}

// HandleAside registers a route whose pattern conflicts with others of the
// table ("POST /invoices/createfromorder/{orderid}" beside
// "POST /invoices/{id}/validate"): it serves the requests no other route
// matches.
func (rt *Routes[T]) HandleAside(pattern string, h func(owner T, w http.ResponseWriter, r *http.Request)) {
	rt.patterns = append(rt.patterns, pattern)
	method, path, ok := strings.Cut(pattern, " ")
	if !ok {
		method, path = "", pattern
	}
	if i := strings.IndexByte(path, '{'); i >= 0 {
		path = path[:i]
	}
	rt.asideHeads = append(rt.asideHeads, asideHead{method: method, path: path})
	rt.aside.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		h(ownerOf[T](r), w, r)
	})
}

// serving returns the mux that serves r: aside only when it has a route
// for r and mux has none (the NotFound handler's pattern is "/"). That
// mux's own ServeHTTP must serve the request: it sets the path values.
func (rt *Routes[T]) serving(r *http.Request) *http.ServeMux {
	for _, head := range rt.asideHeads {
		if (head.method == "" || head.method == r.Method) && strings.HasPrefix(r.URL.Path, head.path) {
			if _, ap := rt.aside.Handler(r); ap != "" {
				if _, p := rt.mux.Handler(r); p == "" || p == "/" {
					return rt.aside
				}
			}
			break
		}
	}
	return rt.mux
}

// pattern is the pattern r is routed by, "" if none.
func (rt *Routes[T]) pattern(r *http.Request) string {
	_, p := rt.serving(r).Handler(r)
	return p
}

// NotFound registers the handler for requests no route matches.
func (rt *Routes[T]) NotFound(h func(owner T, w http.ResponseWriter, r *http.Request)) {
	rt.Handle("/", h)
}

// Allowed returns the methods the table serves r's path with, other than
// r's own: a non-empty answer for an unmatched request means 405, not 404.
func (rt *Routes[T]) Allowed(r *http.Request) []string {
	var out []string
	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		if m == r.Method {
			continue
		}
		probe := r.Clone(r.Context())
		probe.Method = m
		if pattern := rt.pattern(probe); pattern != "" && pattern != "/" {
			out = append(out, m)
		}
	}
	return out
}

// Bind returns the table serving one owner's requests, for Config.Routes.
func (rt *Routes[T]) Bind(owner T) Router { return &boundRoutes[T]{rt: rt, owner: owner} }

// Router routes a Kit's requests.
type Router interface {
	http.Handler
	// Match returns the pattern r would be routed by, "" if none.
	Match(r *http.Request) string
	// Reaches reports whether a fault's route pattern, held alone in m,
	// could stop a request some route serves (see Routes.reaches).
	Reaches(pattern string, m *http.ServeMux) bool
}

type boundRoutes[T any] struct {
	rt    *Routes[T]
	owner T
}

// ServeHTTP hands the request to its route with the owner: in the
// request's Exchange when it came through a Kit (no copy of the request for
// a second context), else in a context of its own.
func (b *boundRoutes[T]) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	mux := b.rt.serving(r)
	if x := ExchangeFrom(r.Context()); x != nil {
		x.owner = b.owner
		mux.ServeHTTP(w, r)
		return
	}
	mux.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ownerKey{}, b.owner)))
}

// ownerOf is the owner boundRoutes.ServeHTTP gave r.
func ownerOf[T any](r *http.Request) T {
	if o, ok := r.Context().Value(ownerKey{}).(T); ok {
		return o
	}
	return ExchangeFrom(r.Context()).owner.(T)
}

func (b *boundRoutes[T]) Match(r *http.Request) string {
	return b.rt.pattern(r)
}

func (b *boundRoutes[T]) Reaches(pattern string, m *http.ServeMux) bool {
	return b.rt.reaches(pattern, m)
}

// reaches reports whether a fault's pattern (held alone in m) could stop a
// request one of the table's routes serves, so that a fault on a route the
// fake does not have ("GET /api/v4/projcts") is refused, not kept to match
// nothing. Patterns overlap in too many ways to decide exactly; either way
// round is enough: a request the fault's pattern names (its wildcards
// filled in) has a route ("GET /api/v4/projects/7" for the route
// ".../projects/{id}"), or a request to a route (its wildcards filled in)
// matches the fault's pattern ("POST /" for every POST route). A table
// without routes takes any pattern.
func (rt *Routes[T]) reaches(pattern string, m *http.ServeMux) bool {
	if len(rt.patterns) == 0 {
		return true
	}
	for _, r := range sampleRequests(pattern) {
		if p := rt.pattern(r); p != "" && p != "/" {
			return true
		}
	}
	for _, route := range rt.patterns {
		if route == "/" { // NotFound's: it serves what no route does
			continue
		}
		for _, r := range sampleRequests(route) {
			if _, p := m.Handler(r); p != "" {
				return true
			}
		}
	}
	return false
}

// sampleRequests are requests a ServeMux pattern matches: its wildcards
// filled in ("{id}" and "{path...}" with "1", "{$}" with nothing), with
// its method, or with each common one for a pattern without.
func sampleRequests(pattern string) []*http.Request {
	method, rest, ok := strings.Cut(pattern, " ")
	if !ok {
		method, rest = "", pattern
	}
	host, path := "", rest
	if i := strings.IndexByte(rest, '/'); i > 0 {
		host, path = rest[:i], rest[i:]
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(path, '{')
		if i < 0 {
			b.WriteString(path)
			break
		}
		j := strings.IndexByte(path[i:], '}')
		if j < 0 {
			b.WriteString(path)
			break
		}
		b.WriteString(path[:i])
		if path[i:i+j+1] != "{$}" {
			b.WriteString("1")
		}
		path = path[i+j+1:]
	}
	methods := []string{method}
	if method == "" {
		methods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}
	}
	out := make([]*http.Request, 0, len(methods))
	for _, m := range methods {
		out = append(out, &http.Request{Method: m, Host: host, URL: &url.URL{Path: b.String()}, Header: http.Header{}})
	}
	return out
}

// RegisterTable registers a fake's routes from an endpoint table: for each
// row, register gets the row's pattern and the handler that handlers binds
// to the row's Handler name. It fails when a row has no handler or a
// handler serves no row, so that the table, the fake and the client cannot
// drift apart.
func RegisterTable[H any](t *apitable.Table, handlers map[string]H, register func(e apitable.Endpoint, pattern string, h H)) error {
	used := map[string]bool{}
	var missing []string
	for _, e := range t.Endpoints {
		h, ok := handlers[e.Handler]
		if !ok {
			missing = append(missing, e.Handler+" ("+t.Pattern(e)+")")
			continue
		}
		used[e.Handler] = true
		register(e, t.Pattern(e), h)
	}
	var unused []string
	for name := range handlers {
		if !used[name] {
			unused = append(unused, name)
		}
	}
	if len(missing) > 0 || len(unused) > 0 {
		slices.Sort(unused)
		return fmt.Errorf("the %s endpoint table and the fake's handlers disagree: rows without a handler %v, handlers without a row %v", t.Name, missing, unused)
	}
	return nil
}
